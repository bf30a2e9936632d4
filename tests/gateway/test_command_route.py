"""Through HTTP: the command route's short way (a plainly well-formed request) answers exactly as FastAPI's
general way does (any other request), to the byte."""

from __future__ import annotations

import orjson
import pytest

from tests.gateway.conftest import Served, error_of, new_game

pytestmark = pytest.mark.redis

ADD_TWO = {"command": {"type": "Add", "amount": 2}, "command_id": "same-id", "expected_version": None}


def _twin_games(gateway: Served) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two games created alike (same game, players and seed): (game id, first seat's token) of each."""
    games = [new_game(gateway, game="toy21", players=("Ann", "Bob"), seed=2) for _ in range(2)]
    first, second = ((g["game_id"], g["seats"][0]["token"]) for g in games)
    return first, second


def test_given_twin_games_when_the_same_command_takes_either_way_then_the_answers_are_the_same_bytes(
    gateway: Served,
) -> None:
    # Given two games created alike
    (gid_a, ann_a), (gid_b, ann_b) = _twin_games(gateway)
    body = orjson.dumps({**ADD_TWO, "expected_version": _version(gateway, gid_a)})
    # When seat 0 of the first sends a command plainly (JSON body, no query string: the short way)
    with gateway.http(ann_a) as http:
        short = http.post(f"/games/{gid_a}/commands", content=body, headers={"content-type": "application/json"})
    # and seat 0 of the second the same command with a charset in its content type (FastAPI's general way)
    with gateway.http(ann_b) as http:
        general = http.post(
            f"/games/{gid_b}/commands", content=body, headers={"content-type": "application/json; charset=utf-8"}
        )
    # Then both are accepted with the very same answer, head fields included
    assert short.status_code == general.status_code == 200, (short.text, general.text)
    assert short.content == general.content
    assert short.json()["events"], "the command caused events"
    assert short.headers["content-type"] == general.headers["content-type"] == "application/json"
    assert short.headers["content-length"] == general.headers["content-length"]


def test_given_requests_the_short_way_does_not_take_then_they_get_the_typed_errors(gateway: Served) -> None:
    # Given a game and its first seat's token
    (gid, ann), _ = _twin_games(gateway)
    url = f"/games/{gid}/commands"
    before = _version(gateway, gid)
    with gateway.http(ann) as http:
        # When a request has an unknown query parameter, then it is refused as before (and nothing is decided)
        error_of(http.post(f"{url}?afer=3", json=ADD_TWO), 422, "validation_error")
        # When its body is not JSON
        error_of(http.post(url, content=b"{nope", headers={"content-type": "application/json"}), 400, "not_json")
        # When its body is JSON but no command request (an unknown field)
        error_of(http.post(url, json={**ADD_TWO, "extra": 1}), 422, "validation_error")
        # When its game id has not the shape of one
        error_of(http.post(f"/games/{'x' * 65}/commands", json=ADD_TWO), 422, "validation_error")
    # Then the game did not move
    assert _version(gateway, gid) == before


def _version(gateway: Served, game_id: str) -> int:
    with gateway.http() as http:
        return int(http.get(f"/games/{game_id}").json()["version"])


@pytest.mark.parametrize("game", ["highcard", "shadow"])
def test_given_twin_games_of_a_shipped_game_when_their_moves_take_either_way_then_the_answers_are_the_same_bytes(
    gateway: Served, game: str
) -> None:
    # Given two games of a shipped game created alike (hidden hands: some events reach a seat redacted)
    games = [new_game(gateway, game=game, players=("Ann", "Bob", "Cid"), seed=5) for _ in range(2)]
    ids = [g["game_id"] for g in games]
    for move in range(6):
        # When the awaited seat plays its first legal command, in one game the short way and in the other
        # FastAPI's general way
        answers = []
        ways = ("application/json", "application/json; charset=utf-8")
        for gid, created, content_type in zip(ids, games, ways, strict=True):
            with gateway.http() as http:
                seat = http.get(f"/games/{gid}").json()["awaiting"][0]
            token = created["seats"][seat]["token"]
            with gateway.http(token) as http:
                legal = http.get(f"/games/{gid}/seats/{seat}/view").json()["legal"]
                body = orjson.dumps({"command": legal[0]["command"], "command_id": f"m{move}"})
                answers.append(
                    http.post(f"/games/{gid}/commands", content=body, headers={"content-type": content_type})
                )
        # Then both are accepted with the very same bytes
        short, general = answers
        assert short.status_code == general.status_code == 200, (short.text, general.text)
        assert short.content == general.content

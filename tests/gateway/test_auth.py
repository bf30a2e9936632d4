"""A seat's token acts and sees for that seat alone: everything else is refused with a typed error."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gateway.conftest import Served, error_of, game_version, new_game

pytestmark = pytest.mark.redis


@pytest.fixture
def game(gateway: Served) -> dict[str, Any]:
    """A fresh 4-seat game: its id, tokens, and the seat it awaits with that seat's legal commands."""
    created = new_game(gateway, seed=31)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    with gateway.http() as http:
        awaited = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[awaited]) as http:
        view = http.get(f"/games/{gid}/seats/{awaited}/view").json()
    return {"id": gid, "tokens": tokens, "awaited": awaited, "legal": view["legal"], "version": view["version"]}


def test_a_seat_can_not_look_at_another_seats_view_events_or_pictures(gateway: Served, game: dict[str, Any]) -> None:
    gid, mine, other = game["id"], game["tokens"][0], 1
    with gateway.http(mine) as http:
        # Given seat 0's token, its own view is served
        assert http.get(f"/games/{gid}/seats/0/view").status_code == 200
        # When it asks for seat 1's view, events, replay or board while the game runs, then each is refused
        error_of(http.get(f"/games/{gid}/seats/{other}/view"), 403, "forbidden_seat")
        error_of(http.get(f"/games/{gid}/seats/{other}/events"), 403, "forbidden_seat")
        error_of(http.get(f"/games/{gid}/replay", params={"version": 1, "seat": other}), 403, "forbidden_seat")
        error_of(http.get(f"/games/{gid}/board.svg", params={"seat": other}), 403, "forbidden_seat")
        error_of(http.get(f"/games/{gid}/board.txt", params={"seat": other}), 403, "forbidden_seat")
        # and the full audit and verification (every sealed vote in them) wait for the end
        error_of(http.get(f"/games/{gid}/audit"), 403, "game_running")
        error_of(http.get(f"/games/{gid}/verify"), 403, "game_running")


def test_a_seat_can_not_act_for_another_seat(gateway: Served, game: dict[str, Any]) -> None:
    gid, awaited = game["id"], game["awaited"]
    intruder = (awaited + 1) % 4
    command = game["legal"][0]["command"]
    with gateway.http(game["tokens"][intruder]) as http:
        # When another seat's token sends the awaited seat's command naming that seat, then it is refused
        err = error_of(http.post(f"/games/{gid}/commands", json={"command": command}), 403, "forbidden_seat")
        assert str(intruder) in err["message"]
        # When it sends the same command without a seat, then the command is its own, and the rules refuse it
        unnamed = {k: v for k, v in command.items() if k != "seat"}
        rejected = http.post(f"/games/{gid}/commands", json={"command": unnamed})
        assert rejected.status_code == 409, rejected.text
        assert rejected.json()["error"]["code"] not in ("forbidden_seat", "unauthorized")
        # and the chat acts for the token's own seat, which has no move now
        error_of(http.post(f"/games/{gid}/chat", json={"text": "1"}), 409, "no_match")
    # Then nothing changed
    assert game_version(gateway, gid) == game["version"]


@pytest.mark.parametrize("token", [None, "not-a-token", "other-game"])
def test_a_request_without_a_seat_token_of_this_game_is_unauthorized(
    gateway: Served, game: dict[str, Any], token: str | None
) -> None:
    # Given no token, a made-up one, or a real token of another game
    if token == "other-game":
        token = new_game(gateway, seed=32)["seats"][game["awaited"]]["token"]
    gid, awaited = game["id"], game["awaited"]
    with gateway.http(token) as http:
        # When it acts or looks as a seat
        for response in (
            http.post(f"/games/{gid}/commands", json={"command": game["legal"][0]["command"]}),
            http.get(f"/games/{gid}/seats/{awaited}/view"),
            http.post(f"/games/{gid}/chat", json={"text": "board"}),
        ):
            # Then it is refused as unauthorized, with a bearer challenge
            error_of(response, 401, "unauthorized")
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert game_version(gateway, gid) == game["version"]


def test_spectator_routes_need_no_token_and_show_no_secrets(gateway: Served, game: dict[str, Any]) -> None:
    gid = game["id"]
    with gateway.http() as http:
        summary = http.get(f"/games/{gid}").json()
        view = http.get(f"/games/{gid}/view").json()
        events = http.get(f"/games/{gid}/events").json()
    assert summary["version"] == view["version"] == game["version"]
    assert view["seat"] is None and view["legal"] == []
    assert [e["version"] for e in events["events"]] == list(range(1, game["version"] + 1))
    assert "token" not in str(summary) and "tokens" not in summary

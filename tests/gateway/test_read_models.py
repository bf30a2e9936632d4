"""Scoreboard, leaderboard, replay, audit, verification and the boards, served by the gateway from the read
models (projection workers running next to the rules worker, all on a real redis-server)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.bots import play_http
from tests.gateway.conftest import Served, error_of, new_game, redis_url, serve, walk  # noqa: F401 - fixture
from tests.waiting import patient

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway with a rules worker and every projection worker."""
    s = serve(redis_url, projections=True)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(scope="module")
def finished(served: Served) -> dict[str, Any]:
    """A 3-player game played to its end through HTTP."""
    # (the referee draws the seed: a chosen one would make a practice table, which no leaderboard counts [X24])
    created = new_game(served, players=("Ann", "Bob", "Cid"), seed=None, player_ids=["acct:ann", "acct:bob", None])
    game = play_http(served, created, seed=61)
    return {"id": created["game_id"], "tokens": game.tokens, "summary": game.summary, "seats": created["seats"]}


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def _eventually(fetch: Any, ready: Any, seconds: float = 60.0) -> Any:
    """``fetch()`` until ``ready(value)``: projections follow the event feed, a moment behind."""
    deadline = time.monotonic() + patient(seconds)
    while True:
        value = fetch()
        if ready(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_scoreboard_and_leaderboard_are_public(served: Served, finished: dict[str, Any]) -> None:
    gid, summary = finished["id"], finished["summary"]
    with served.http() as http:
        board = _eventually(
            lambda: _ok(http.get(f"/games/{gid}/scoreboard")), lambda b: b["version"] == summary["version"]
        )
        leaders = _eventually(
            lambda: _ok(http.get("/leaderboard", params={"game": "shadow", "limit": 100})),
            lambda doc: {"acct:ann", "acct:bob"} <= {r["player_id"] for r in doc["rows"]},
        )
        default = _ok(http.get("/leaderboard"))
        page = _ok(http.get("/leaderboard", params={"game": "shadow", "offset": 1, "limit": 1}))
    assert board["game_id"] == gid and board["status"] in ("over", "archived")
    assert board["winners"] == summary["result"]["winners"]
    assert [s["name"] for s in board["seats"]] == ["Ann", "Bob", "Cid"]
    assert [s["player_id"] for s in finished["seats"]] == ["acct:ann", "acct:bob", None]
    # The leaderboard is Shadow's (the default game), ranked by player id; Cid, without one, is on none
    assert leaders["game"] == default["game"] == "shadow" and leaders["score_label"] == "victory points"
    assert default["rows"] == leaders["rows"][:20] and page["rows"] == leaders["rows"][1:2]
    rows = {r["player_id"]: r for r in leaders["rows"]}
    assert "Cid" not in {r["name"] for r in leaders["rows"]}
    for seat, pid in enumerate(("acct:ann", "acct:bob")):
        assert rows[pid]["name"] == summary["players"][seat] and rows[pid]["games"] == 1
        assert rows[pid]["wins"] == int(seat in summary["result"]["winners"])
        assert rows[pid]["average_score"] == summary["result"]["scores"][seat]


def test_leaderboard_and_player_ids_refuse_bad_input_with_typed_errors(served: Served) -> None:
    with served.http() as http:
        # Given queries outside the leaderboard's bounds, or of a game that is not installed
        unknown = http.get("/leaderboard", params={"game": "nosuchgame"})
        too_many = http.get("/leaderboard", params={"limit": 101})
        negative = http.get("/leaderboard", params={"offset": -1})
        odd_name = http.get("/leaderboard", params={"game": "sha dow"})
        misspelt = http.get("/leaderboard", params={"gmae": "shadow"})
        # and creations with player ids that break a rule
        body = {"game": "shadow", "players": ["Red", "Blue"]}
        bad_ids = {
            "characters": ["red player", "blue"],
            "too long": ["x" * 65, "blue"],
            "empty": ["", "blue"],
            "taken twice": ["same", "same"],
            "one per seat": ["red"],
            "not a string": [7, "blue"],
        }
        refused = {why: http.post("/games", json={**body, "player_ids": ids}) for why, ids in bad_ids.items()}
    # Then each is refused with its typed error (and no game is created)
    assert error_of(unknown, 422, "unknown_game_name")["message"].startswith("no game called 'nosuchgame'")
    for response in (too_many, negative, odd_name, misspelt):
        error_of(response, 422, "validation_error")
    for why, response in refused.items():
        assert "player_ids" in error_of(response, 422, "validation_error")["message"], why


def test_replay_audit_verification_and_boards_of_a_finished_game(served: Served, finished: dict[str, Any]) -> None:
    gid, last = finished["id"], finished["summary"]["version"]
    with served.http() as http:  # no token: everything is public once the game is over
        first = _ok(http.get(f"/games/{gid}/replay", params={"version": 1}))
        as_seat = _ok(http.get(f"/games/{gid}/replay", params={"version": last, "seat": 1}))
        audit = {"entries": walk(http, f"/games/{gid}/audit", "entries")}
        one = _ok(http.get(f"/games/{gid}/audit", params={"version": 5}))
        verdict = _ok(http.get(f"/games/{gid}/verify"))
        svg = http.get(f"/games/{gid}/board.svg", params={"version": 10, "seat": 2})
        text = http.get(f"/games/{gid}/board.txt")
        beyond = http.get(f"/games/{gid}/replay", params={"version": last + 1})
        no_seat = http.get(f"/games/{gid}/replay", params={"version": 1, "seat": 7})
        unknown = http.get("/games/nosuchgame/scoreboard")
    assert first["version"] == 1 and first["next"] == 2 and first["event"]["type"] == "GameStarted"
    assert as_seat["seat"] == 1 and as_seat["next"] is None and as_seat["last_version"] == last
    assert [e["version"] for e in audit["entries"]] == list(range(1, last + 1))
    assert [e["version"] for e in one["entries"]] == [5]
    assert verdict["ok"] is True and verdict["differences"] == []
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in svg.text
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain") and "Ann" in text.text
    # (a version or seat the game does not have is not found, like a game that does not exist)
    assert beyond.status_code == 404 and beyond.json()["error"]["code"] == "bad_version"
    assert no_seat.status_code == 404 and no_seat.json()["error"]["code"] == "bad_seat"
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_game"


def test_a_seat_replays_a_running_game_with_its_own_token(served: Served) -> None:
    # Given a game some way in
    created = new_game(served, seed=62)
    game = play_http(served, created, seed=62, until=lambda g: g.commands >= 10)
    gid, version = created["game_id"], game.summary["version"]
    # When seat 2 replays it and looks at its board with its own token, then it may
    with served.http(game.tokens[2]) as http:
        mine = _ok(http.get(f"/games/{gid}/replay", params={"version": version, "seat": 2}))
        board = http.get(f"/games/{gid}/board.txt", params={"seat": 2})
        # but not the audit of a running game
        audit = http.get(f"/games/{gid}/audit")
    assert mine["seat"] == 2 and mine["version"] == version
    assert board.status_code == 200 and board.text
    assert audit.status_code == 403 and audit.json()["error"]["code"] == "game_running"
    # And a spectator replays it without a token
    with served.http() as http:
        spectator = _ok(http.get(f"/games/{gid}/replay", params={"version": version}))
    assert spectator["seat"] is None

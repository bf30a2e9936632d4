"""Scoreboard, leaderboard, replay, audit, verification and the boards, served by the gateway from the read
models (projection workers running next to the rules worker, all on a real redis-server)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.bench.scripts import record_games
from services.client import ServiceClient
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


# --- whole-game reads ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def refused(served: Served) -> dict[str, Any]:
    """A finished 4-player game whose seats sent commands out of turn and with stale versions (submitted on the
    bus: the gateway reads it as any other), and the tokens of its seats."""
    script = record_games("shadow", 1, seed=4, players=4)[0]
    gid = f"whole-{uuid.uuid4().hex[:8]}"
    envelopes = script.with_refusals(gid)
    client = ServiceClient(served.redis, served.layout)
    client.submit_many(envelopes)
    for env in envelopes:
        client.wait_on(env, timeout=patient(60))
    return {"id": gid, "tokens": [script.token(gid, seat) for seat in range(4)]}


def test_given_a_finished_game_when_its_replay_steps_are_asked_then_one_answer_holds_every_step(
    served: Served, refused: dict[str, Any]
) -> None:
    gid = refused["id"]
    with served.http() as http:  # no token: everything is public once the game is over
        # When anyone asks for the whole replay, as a spectator and from seat 1's side
        whole = _ok(http.get(f"/games/{gid}/replay/steps"))
        seat = _ok(http.get(f"/games/{gid}/replay/steps", params={"seat": 1}))
        again = http.get(f"/games/{gid}/replay/steps")
        # and some steps one by one
        last = whole["last_version"]
        versions = sorted({1, 2, 24, 25, 26, 399, last - 1, last})
        one = {v: _ok(http.get(f"/games/{gid}/replay", params={"version": v, "seat": 1})) for v in versions}
    # Then one answer holds every version once, each step as the one-step route says it
    assert [s["version"] for s in whole["steps"]] == list(range(1, last + 1)) and last > 700
    assert whole["next"] is None and whole["over"] is True and whole["seat"] is None
    for v in versions:
        assert seat["steps"][v - 1] == {k: one[v][k] for k in ("version", "event", "event_text")}
        assert seat["fairness"] == one[v]["fairness"]
    assert seat["board_text"] == one[last]["board_text"]
    # and a finished game's answer is final: an ETag, kept by the client, 304 when it has it
    assert again.status_code == 200 and "immutable" in again.headers["cache-control"]
    with served.http() as http:
        cached = http.get(f"/games/{gid}/replay/steps", headers={"If-None-Match": again.headers["etag"]})
    assert cached.status_code == 304


def test_given_views_or_boards_when_replay_steps_are_asked_then_smaller_pages_cover_the_game(
    served: Served, refused: dict[str, Any]
) -> None:
    gid = refused["id"]
    with served.http() as http:
        # When each step comes with its view and board (ten times larger), then a page covers at most 200 steps
        first = _ok(http.get(f"/games/{gid}/replay/steps", params={"seat": 2, "view": True, "board": True}))
        pages = walk(http, f"/games/{gid}/replay/steps", "steps", seat=2, view=True, board=True)
        step = _ok(http.get(f"/games/{gid}/replay", params={"version": 150, "seat": 2}))
        # and requests outside the bounds are typed errors
        too_many = http.get(f"/games/{gid}/replay/steps", params={"limit": 1001})
        beyond = http.get(f"/games/{gid}/replay/steps", params={"after": 10**6})
        no_seat = http.get(f"/games/{gid}/replay/steps", params={"seat": 7})
        misspelt = http.get(f"/games/{gid}/replay/steps", params={"views": True})
    assert len(first["steps"]) == 200 and first["next"] == 200
    assert [s["version"] for s in pages] == list(range(1, first["last_version"] + 1))
    assert pages[149] == {k: step[k] for k in ("version", "event", "event_text", "view", "board_text")}
    error_of(too_many, 422, "validation_error")
    error_of(beyond, 404, "bad_version")
    error_of(no_seat, 404, "bad_seat")
    error_of(misspelt, 422, "validation_error")


def test_given_a_running_game_when_a_seat_replays_it_whole_then_only_with_its_own_token(served: Served) -> None:
    # Given a game some way in
    created = new_game(served, seed=63)
    game = play_http(served, created, seed=63, until=lambda g: g.commands >= 12)
    gid, version = created["game_id"], game.summary["version"]
    # When seat 1 replays it whole with its own token, another seat's token, and no token
    with served.http(game.tokens[1]) as http:
        mine = _ok(http.get(f"/games/{gid}/replay/steps", params={"seat": 1}))
    with served.http(game.tokens[0]) as http:
        other = http.get(f"/games/{gid}/replay/steps", params={"seat": 1})
    with served.http() as http:
        anonymous = http.get(f"/games/{gid}/replay/steps", params={"seat": 1})
        spectator = _ok(http.get(f"/games/{gid}/replay/steps"))
    # Then the seat may, its answer kept by no shared cache; the others may not; a spectator sees its own side
    assert mine["seat"] == 1 and mine["last_version"] == version and mine["over"] is False
    assert [s["version"] for s in mine["steps"]] == list(range(1, version + 1))
    error_of(other, 403, "forbidden_seat")
    assert anonymous.status_code == 401
    assert spectator["seat"] is None and len(spectator["steps"]) == version


def test_given_a_finished_game_when_the_audit_is_asked_for_refusals_only_then_one_answer_holds_them(
    served: Served, refused: dict[str, Any]
) -> None:
    gid = refused["id"]
    with served.http() as http:
        # When a referee asks for the whole audit in one page, and for the refused commands alone
        whole = _ok(http.get(f"/games/{gid}/audit", params={"limit": 1000}))
        only = _ok(http.get(f"/games/{gid}/audit", params={"limit": 1000, "only": "refused"}))
        part = _ok(http.get(f"/games/{gid}/audit", params={"after": 100, "limit": 100, "only": "refused"}))
        bogus = http.get(f"/games/{gid}/audit", params={"only": "events"})
    # Then one page holds the whole game, and the refused commands alone are its refusals, in the order judged
    assert whole["next"] is None and whole["last_version"] > 700
    refusals = [e for e in whole["entries"] if e["kind"] == "refusal"]
    assert refusals and only["only"] == "refused" and only["entries"] == refusals
    assert {e["code"] for e in refusals} > {"stale_version"}  # the rules' refusals too
    assert part["entries"] == [e for e in refusals if 100 < e["version"] <= 200] and part["next"] == 200
    error_of(bogus, 422, "validation_error")


def test_the_replay_steps_are_typed_in_the_document(served: Served) -> None:
    with served.http() as http:
        document = _ok(http.get("/openapi.json"))
    operation = document["paths"]["/games/{game_id}/replay/steps"]["get"]
    schemas = document["components"]["schemas"]
    # The answer is ReplaySteps, whose steps' events are one of the games' events, a redacted one or null
    assert operation["operationId"] == "getReplaySteps"
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/ReplaySteps")
    event = schemas["ReplayStep"]["properties"]["event"]
    assert {"$ref": "#/components/schemas/shadow.Event"} in event["anyOf"]
    assert {"$ref": "#/components/schemas/RedactedEvent"} in event["anyOf"]
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert limit["schema"]["maximum"] == 1000
    only = next(p for p in document["paths"]["/games/{game_id}/audit"]["get"]["parameters"] if p["name"] == "only")
    assert "refused" in str(only["schema"])

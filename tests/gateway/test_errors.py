"""Malformed, oversized and too frequent requests get typed JSON errors and change nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
import redis
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from services.client import ServiceClient
from services.gateway.limits import Limits
from services.worker.rules_worker import RulesWorker
from tests.gateway.conftest import OPEN, Served, error_of, game_version, new_game, serve
from tests.waiting import ManualClock

pytestmark = pytest.mark.redis


@pytest.fixture
def game(gateway: Served) -> dict[str, Any]:
    """A fresh game with the awaited seat's token and one of its legal commands."""
    created = new_game(gateway, seed=41)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    with gateway.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[seat]) as http:
        view = http.get(f"/games/{gid}/seats/{seat}/view").json()
    return {"id": gid, "token": tokens[seat], "command": view["legal"][0]["command"], "version": view["version"]}


def _commands_queued(served: Served) -> int:
    return sum(served.redis.xlen(served.layout.cmds(s)) for s in range(served.layout.shards))


def test_oversized_bodies_are_refused_before_anything_is_read(gateway: Served, game: dict[str, Any]) -> None:
    gid = game["id"]
    padding = "x" * (70 * 1024)
    big = {"command": {**game["command"], "note": padding}}
    with gateway.http(game["token"]) as http:
        # When a body over 64 KiB comes with its length declared
        error_of(http.post(f"/games/{gid}/commands", json=big), 413, "payload_too_large")

        # or streamed in chunks with no length (so the bound is checked while reading)
        def chunks() -> Iterator[bytes]:
            data = orjson.dumps(big)
            for i in range(0, len(data), 8192):
                yield data[i : i + 8192]

        error_of(
            http.post(f"/games/{gid}/commands", content=chunks(), headers={"content-type": "application/json"}),
            413,
            "payload_too_large",
        )
        # or as a chat line, or a new game
        error_of(http.post(f"/games/{gid}/chat", json={"text": padding}), 413, "payload_too_large")
        error_of(http.post("/games", json={"game": "shadow", "players": ["a", "b"], "settings": {"x": padding}}), 413,
               "payload_too_large")  # fmt: skip
    # Then nothing changed
    assert game_version(gateway, gid) == game["version"]


def test_malformed_requests_get_typed_errors_and_change_nothing(gateway: Served, game: dict[str, Any]) -> None:
    gid, url = game["id"], f"/games/{game['id']}/commands"
    queued = _commands_queued(gateway)
    with gateway.http(game["token"]) as http:
        error_of(http.post(url, content=b"{not json", headers={"content-type": "application/json"}), 400, "not_json")
        error_of(http.post(url, json=["a", "list"]), 422, "validation_error")
        error_of(http.post(url, json={"cmd": game["command"]}), 422, "validation_error")
        error_of(http.post(url, json={"command": game["command"], "extra": 1}), 422, "validation_error")
        error_of(http.post(url, json={"command": game["command"], "expected_version": -1}), 422, "validation_error")
        error_of(http.post(url, json={"command": game["command"], "command_id": "has spaces"}), 422, "validation_error")
        error_of(http.post(url, json={"command": {"type": "NoSuchCommand"}}), 422, "bad_command")
        error_of(http.post(url, json={"command": {**game["command"], "bogus_field": 1}}), 422, "bad_command")
        error_of(http.post(f"/games/{gid}/chat", json={"words": "hello"}), 422, "validation_error")
        error_of(http.get(f"/games/{gid}/seats/x/view"), 422, "validation_error")
        error_of(http.get(f"/games/{gid}/events", params={"after": -1}), 422, "validation_error")
        error_of(http.get("/games/bad%20id!"), 422, "validation_error")
        error_of(http.get("/games/nosuchgame"), 404, "unknown_game")
        error_of(http.post("/games/nosuchgame/commands", json={"command": game["command"]}), 404, "unknown_game")
        error_of(http.get("/no/such/route"), 404, "not_found")
        error_of(http.delete(f"/games/{gid}"), 405, "method_not_allowed")
        error_of(http.get("/schemas/commands/nosuchgame"), 404, "unknown_schema")
        error_of(http.post("/games", json={"game": "nosuchgame", "players": ["a", "b"]}), 422, "unknown_game_name")
        error_of(http.post("/games", json={"game": "shadow", "players": ["alone"]}), 422, "bad_command")
    # Then none of them reached the bus (or the game)
    assert _commands_queued(gateway) == queued
    assert game_version(gateway, gid) == game["version"]


def test_rules_rejections_and_stale_versions_are_typed_conflicts(gateway: Served, game: dict[str, Any]) -> None:
    gid, url = game["id"], f"/games/{game['id']}/commands"
    with gateway.http(game["token"]) as http:
        # A command judged at another version than the one expected
        err = error_of(http.post(url, json={"command": game["command"], "expected_version": 1}), 409, "stale_version")
        assert err["command_id"] and err["version"] == game["version"]
        # An accepted command, then the same command id again: the first outcome, decided once
        first = http.post(url, json={"command": game["command"], "command_id": "retry-1"})
        again = http.post(url, json={"command": game["command"], "command_id": "retry-1"})
        assert first.status_code == again.status_code == 200, first.text
        assert first.json() == again.json()
        assert http.get(f"/games/{gid}/commands/retry-1").json() == first.json()
        error_of(http.get(f"/games/{gid}/commands/never-sent"), 404, "not_found")
        version = first.json()["version"]
        # The same move again is no longer legal: the game's own code, with the version it was judged at
        err = _error_any(http.post(url, json={"command": game["command"]}), 409)
        assert err["code"] not in ("validation_error", "bad_command") and err["version"] == version
    assert game_version(gateway, gid) == version


def _error_any(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json()["error"]


def test_requests_over_the_rate_are_refused_per_token(redis_url: str) -> None:
    # Given a gateway allowing bursts of 3 requests and 1 per second after that, on a clock that stands still
    # until the test moves it (however slow the machine, the 4 requests fall within one second)
    clock = ManualClock()
    served = serve(redis_url, limits=Limits(rate=1.0, burst=3), worker=False, clock=clock)
    try:
        with served.http("token-a") as a, served.http("token-b") as b:
            # When one token sends 4 requests at once
            codes = [a.get("/games/nosuchgame").status_code for _ in range(3)]
            refused = a.get("/games/nosuchgame")
            # Then the fourth is refused with a typed error and a hint when to retry
            assert codes == [404, 404, 404]
            error_of(refused, 429, "rate_limited")
            assert int(refused.headers["retry-after"]) >= 1
            # And another token has its own bucket
            assert b.get("/games/nosuchgame").status_code == 404
            # And a WebSocket handshake over the rate is refused before it opens, with the same typed 429
            with pytest.raises(InvalidStatus) as refused_ws:
                connect(f"{served.ws_url}/games/x/feed", additional_headers={"Authorization": "Bearer token-a"})
            assert refused_ws.value.response.status_code == 429
            assert orjson.loads(refused_ws.value.response.body)["error"]["code"] == "rate_limited"
            # And the token may go on once its bucket refilled (a second later), for one request
            clock.advance(1.0)
            assert a.get("/games/nosuchgame").status_code == 404
            error_of(a.get("/games/nosuchgame"), 429, "rate_limited")
    finally:
        served.close()


def test_made_up_tokens_do_not_escape_the_rate_of_their_address(redis_url: str) -> None:
    # Given a gateway allowing each token plenty, but each client address 3 requests at once (and 1 per second
    # after that), on a clock that stands still until the test moves it
    clock = ManualClock()
    limits = Limits(rate=100, burst=100, address_rate=1.0, address_burst=3)
    served = serve(redis_url, limits=limits, worker=False, clock=clock)
    try:
        # When one client sends a new made-up token with every request
        codes = []
        for i in range(4):
            with served.http(f"made-up-{i}") as http:
                codes.append(http.get("/games/nosuchgame").status_code)
        # Then its address runs dry all the same
        assert codes == [404, 404, 404, 429]
        # And it gets one more request a second later
        clock.advance(1.0)
        codes = []
        for i in range(4, 6):
            with served.http(f"made-up-{i}") as http:
                codes.append(http.get("/games/nosuchgame").status_code)
        assert codes == [404, 429]
    finally:
        served.close()


def test_a_command_without_an_outcome_in_time_can_be_asked_for_later(redis_url: str) -> None:
    # Given a gateway whose rules worker is not running yet, waiting at most 0.3 s for an outcome
    served = serve(redis_url, limits=dataclasses.replace(OPEN, command_timeout=0.3), worker=False)
    try:
        client = ServiceClient(served.redis, served.layout)
        new = client.create_game("toy21", ["A", "B"], seed=1, timeout=None)  # queued, not decided yet
        gid = new.game_id
        with served.http(new.tokens[0]) as http:
            # When a seat sends a command (the game is not even created yet: it is refused as unknown)
            error_of(http.post(f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 2}}), 404,
                   "unknown_game")  # fmt: skip
            # and once the game exists but no worker decides, the command times out with its id
            worker = RulesWorker(redis.Redis.from_url(redis_url), range(served.layout.shards), layout=served.layout)
            worker.run_until_idle()
            err = error_of(
                http.post(f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 2}, "command_id": "c1"}),
                504,
                "outcome_timeout",
            )
            assert err["command_id"] == "c1"
            error_of(http.get(f"/games/{gid}/commands/c1"), 404, "not_found")
            # Then, once a worker decided it, its outcome can be fetched, and resending it changes nothing
            worker.run_until_idle()
            fetched = http.get(f"/games/{gid}/commands/c1")
            resent = http.post(
                f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 2}, "command_id": "c1"}
            )
            assert fetched.status_code == resent.status_code == 200, fetched.text
            assert fetched.json() == resent.json()
            assert fetched.json()["events"][0]["event"] == {"rulings": ["T21"], "type": "Added", "seat": 0, "amount": 2,
                                                            "total": 2}  # fmt: skip
            worker.run_until_idle()
            assert game_version(served, gid) == 2
            worker.release()
    finally:
        served.close()

"""Clocks on every surface of the gateway: seat views, the seat's turn, the chat and the text board."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from websockets.sync.client import connect

from services.timer.timer import ClockTimer
from tests.gateway.conftest import Served, redis_url, serve  # noqa: F401 - fixture
from tests.waiting import patient

pytestmark = pytest.mark.redis

CLOCK = {"mode": "bank", "bank_s": 3600, "increment_s": 30, "low_s": 60}


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    s = serve(redis_url, projections=True)
    try:
        yield s
    finally:
        s.close()


def _clocked(served: Served, game: str, players: list[str]) -> dict[str, Any]:
    with served.http() as http:
        r = http.post("/games", json={"game": game, "players": players, "seed": 5, "settings": {"clock": CLOCK}})
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize(("game", "players"), [("shadow", ["Ann", "Bob", "Cid"]), ("barracks", ["Ann", "Bob"])])
def test_given_a_clocked_game_when_a_seat_looks_then_every_surface_shows_the_time_left(
    served: Served, game: str, players: list[str]
) -> None:
    started = int(time.time() * 1000)
    created = _clocked(served, game, players)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with served.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with served.http(tokens[seat]) as http:
        # The seat's view: every seat's clock, the awaited one running towards its deadline
        view = http.get(f"/games/{gid}/seats/{seat}/view").json()
        clocks = {row["seat"]: row for row in view["clocks"]}
        assert set(clocks) == set(range(len(players)))
        assert clocks[seat]["running"] and 0 < clocks[seat]["remaining_ms"] <= 3_600_000
        assert started + 3_600_000 <= clocks[seat]["deadline_ms"] <= int(time.time() * 1000) + 3_600_000
        assert all(not row["running"] and row["remaining_ms"] == 3_600_000 for s, row in clocks.items() if s != seat)
        assert clocks[seat]["setting"] == "bank 1:00:00 + 0:30 a move"
        # The seat's turn carries the clocks too
        events = http.get(f"/games/{gid}/seats/{seat}/events", params={"after": 0}).json()
        assert events["turn"]["clocks"][seat]["running"]
        # The chat shows them under the board
        look = http.post(f"/games/{gid}/chat", json={"text": ""}).json()
        assert f"Clocks (bank 1:00:00 + 0:30 a move): {players[0]} " in look["board"]
        # And the text board, as of the position's last stamp
        board = http.get(f"/games/{gid}/board.txt", params={"seat": seat}).text
        picture = http.get(f"/games/{gid}/board.svg", params={"seat": seat}).text
    assert f"{players[seat]} 1:00:00 running" in board.splitlines()[-1]
    assert f"{players[seat]} 1:00:00 running" in picture.rsplit("<text", 1)[-1]


def test_given_a_game_without_clocks_when_viewed_then_no_clocks_are_shown(served: Served) -> None:
    with served.http() as http:
        r = http.post("/games", json={"game": "shadow", "players": ["Ann", "Bob"], "seed": 5})
        gid = r.json()["game_id"]
        assert http.get(f"/games/{gid}/seats/0/view", headers={"Authorization": "Bearer x"}).status_code == 401
    token = r.json()["seats"][0]["token"]
    with served.http(token) as http:
        assert http.get(f"/games/{gid}/seats/0/view").json()["clocks"] is None
        assert "Clocks" not in http.get(f"/games/{gid}/board.txt").text


def test_given_a_seat_feed_when_the_timer_finds_a_clock_low_then_the_feed_tells_it(served: Served) -> None:
    created = _clocked(served, "barracks", ["Ann", "Bob"])
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with served.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    headers = {"Authorization": f"Bearer {tokens[1 - seat]}"}
    with connect(f"{served.ws_url}/games/{gid}/seats/{1 - seat}/feed?after=0", additional_headers=headers) as ws:
        # Given the other seat's feed has caught up with the game
        version = created["version"]
        while orjson.loads(ws.recv(timeout=patient(60))).get("version") != version:
            pass
        # When a timer whose clock is 59 minutes on finds the awaited seat's bank under its low mark (60 s)
        timer = ClockTimer(served.redis, range(served.layout.shards), layout=served.layout)
        shard = served.layout.shard_of(gid)
        assert timer.handle(shard, gid, int(time.time() * 1000) + 3_550_000) == "notice"
        # Then every feed of the game is told, with the seat and its time left
        message = orjson.loads(ws.recv(timeout=patient(60)))
    assert message["kind"] == "clock_low" and message["seat"] == seat and message["version"] == version
    assert 0 < message["remaining_ms"] <= 60_000


def test_given_a_table_handing_seats_to_bots_when_created_or_taken_back_over_http_then_the_gateway_checks_it(
    served: Served,
) -> None:
    from tests.gateway.conftest import error_of

    clock = {"mode": "per_decision", "per_decision_s": 60, "bot_after": 2}
    with served.http() as http:
        # A bot the game does not know, or none named, is refused at creation
        body = {"game": "barracks", "players": ["Ann", "Bob"], "seed": 5}
        error_of(http.post("/games", json={**body, "settings": {"clock": {**clock, "bot": "nosuch"}}}), 422,
                 "unknown_bot_kind")  # fmt: skip
        assert http.post("/games", json={**body, "settings": {"clock": clock}}).status_code == 422
        created = http.post("/games", json={**body, "settings": {"clock": {**clock, "bot": "heuristic"}}})
    assert created.status_code == 201, created.text
    gid, token = created.json()["game_id"], created.json()["seats"][0]["token"]
    # A seat may send TakeSeat (a player's command); while no bot plays it, the referee refuses it, citing KX22
    with served.http(token) as http:
        r = http.post(f"/games/{gid}/commands", json={"command": {"type": "TakeSeat"}})
        error = r.json()["error"]
        assert r.status_code == 409 and error["code"] == "not_handed_over" and "KX22" in str(error), r.text
        # And the timer's own command is not a player's
        r = http.post(f"/games/{gid}/commands", json={"command": {"type": "TimeOut", "turn": 1}})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_command", r.text

"""Hidden victory points through the gateway, on a real redis-server with a rules worker [B6, X14]: while the
table hides them, another seat's VictoryPointsScored reaches neither the other seats nor the spectators, in
their event lists or their live feed (its reason alone would tell the points), and no view shows the totals."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from websockets.sync.client import connect

from services.store import eventstore
from tests.gateway.bots import HttpGame, play_http
from tests.gateway.conftest import Served, game_version, walk
from tests.waiting import patient

pytestmark = pytest.mark.redis

SCORES = "VictoryPointsScored"


def _events(served: Served, gid: str, seat: int | None, token: str | None) -> list[dict[str, Any]]:
    path = f"/games/{gid}/seats/{seat}/events" if seat is not None else f"/games/{gid}/events"
    with served.http(token) as http:
        events = walk(http, path)
    return [e["event"] for e in events if e["event"] is not None]  # None: withheld from this reader


def _live_feed(served: Served, gid: str, upto: int) -> list[dict[str, Any]]:
    """The spectators' WebSocket feed from the start until it reaches version ``upto``."""
    got: list[dict[str, Any]] = []
    with connect(f"{served.ws_url}/games/{gid}/feed?after=0", open_timeout=10) as ws:
        while True:
            message = orjson.loads(ws.recv(timeout=patient(60)))
            got.append(message)
            if message.get("version", 0) >= upto or message.get("kind") == "over":
                return got


def test_hidden_victory_points_never_reach_another_seat_or_a_spectator(gateway: Served) -> None:
    # Given a 3-player game with hidden victory points, played through HTTP until two different seats scored
    with gateway.http() as http:
        r = http.post("/games", json={"game": "shadow", "players": ["Ann", "Bob", "Cid"], "seed": 13,
                                      "settings": {"hidden_victory_points": True}})  # fmt: skip
    assert r.status_code == 201, r.text
    created = r.json()
    gid = created["game_id"]

    def scorers(g: HttpGame | None = None) -> set[int]:  # from the event store: the truth, not what a seat saw
        return {
            e.data["seat"]
            for e in eventstore.read_events(gateway.redis, gateway.layout, gid)
            if e.data["type"] == SCORES
        }

    game = play_http(gateway, created, seed=13, until=lambda g: len(scorers(g)) >= 2)
    version = game_version(gateway, gid)
    owners = scorers()

    # When every seat and a spectator read the events so far, and a spectator follows the live feed
    seen = {seat: _events(gateway, gid, seat, game.tokens[seat]) for seat in range(3)}
    spectator = _events(gateway, gid, None, None)
    feed = _live_feed(gateway, gid, version)

    # Then a seat sees its own scores whole (points and total) and no score of any other seat
    for seat, events in seen.items():
        scores = [e for e in events if e["type"] == SCORES]
        assert all(e["seat"] == seat and isinstance(e["total"], int) for e in scores), (seat, scores)
        assert bool(scores) == (seat in owners)
    # and a spectator sees no score at all, neither in its event list nor in the live feed
    assert not [e for e in spectator if e["type"] == SCORES]
    assert not [m for m in feed if SCORES in orjson.dumps(m).decode()]
    assert any(m.get("version", 0) >= version for m in feed)  # the feed did run up to now
    # and no view shows another seat's total
    with gateway.http() as http:
        assert http.get(f"/games/{gid}/view").json()["view"]["victory_points"] == [None, None, None]
    for seat in range(3):
        with gateway.http(game.tokens[seat]) as http:
            points = http.get(f"/games/{gid}/seats/{seat}/view").json()["view"]["victory_points"]
        assert [p is None for p in points] == [s != seat for s in range(3)]

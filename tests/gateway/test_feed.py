"""The WebSocket feed against a running gateway: catch-up, live events, resuming from a version, refusals."""

from __future__ import annotations

import threading
from typing import Any

import orjson
import pytest
import redis.asyncio as aredis
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from services.rules import fair
from services.store import eventstore
from tests.gateway.bots import HttpGame, play_http
from tests.gateway.conftest import Served, game_version, new_game, serve
from tests.waiting import patient

IDLE_WAIT_MS = 3_600_000

pytestmark = pytest.mark.redis


def _open(served: Served, path: str, token: str | None = None, header: bool = True) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"} if token and header else None
    if token and not header:
        path += ("&" if "?" in path else "?") + f"token={token}"
    return connect(served.ws_url + path, additional_headers=headers, open_timeout=10)


def _read_until(ws: ClientConnection, stop: Any) -> list[dict[str, Any]]:
    """Messages until ``stop(message)`` is true (that one included)."""
    got = []
    while True:
        message = orjson.loads(ws.recv(timeout=patient(60)))
        got.append(message)
        if stop(message):
            return got


def test_a_seat_feed_resumes_from_a_version_with_nothing_missing_or_doubled(gateway: Served) -> None:
    # Given a game some way in
    created = new_game(gateway, seed=21)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    game = play_http(gateway, created, seed=4, until=lambda g: g.commands >= 30)
    first_stop = game_version(gateway, gid)

    # When seat 0 opens its feed from the start, reads up to the current version and drops the connection
    with _open(gateway, f"/games/{gid}/seats/0/feed?after=0", tokens[0]) as ws:
        first = _read_until(ws, lambda m: m.get("version", 0) >= first_stop)
    # and the game goes on while it is away
    play_http(gateway, created, seed=5, until=lambda g: g.commands >= 60, game=game)
    assert game_version(gateway, gid) > first_stop
    # and it reconnects from the last version it got (token as a query parameter this time), while the bots
    # play the rest of the game, so that later events arrive live
    last = first[-1]["version"]
    with _open(gateway, f"/games/{gid}/seats/0/feed?after={last}", tokens[0], header=False) as ws:
        rest_of_game = threading.Thread(target=play_http, args=(gateway, created), kwargs={"seed": 6, "game": game})
        rest_of_game.start()
        second = _read_until(ws, lambda m: m.get("kind") == "over")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=patient(60))
        rest_of_game.join(60)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000

    # Then the two connections together delivered every version exactly once, in order
    events = [m for m in first + second if m["kind"] == "event"]
    stored = eventstore.read_events(gateway.redis, gateway.layout, gid)
    assert [m["version"] for m in events] == [e.version for e in stored] == list(range(1, len(stored) + 1))
    assert second[-1] == {"kind": "over", "version": len(stored), "result": game.summary["result"]}
    # And each message is the recorded event as seat 0 may see it: its own in full, others' secrets hidden
    for message, recorded in zip(events, stored, strict=True):
        shown = message["event"]
        assert shown["type"] == recorded.data["type"]
        if recorded.data["type"] in ("GameStarted", "SeedCommitted"):  # seed and salt sealed while it runs [X23]
            assert shown == fair.seal_json(recorded.data, over=False) != recorded.data
        elif shown.get("redacted"):
            assert recorded.data["type"] == "VoteSealed" and recorded.data["seat"] != 0
            assert "candidate" not in shown
        else:
            assert shown == recorded.data
    assert any(m["event"].get("redacted") for m in events), "other seats' sealed votes were hidden from seat 0"


def test_a_feed_read_after_the_end_shows_everything(gateway: Served) -> None:
    # Given a finished game
    created = new_game(gateway, seed=22)
    game: HttpGame = play_http(gateway, created, seed=9)
    gid = created["game_id"]

    # When a spectator reads its feed from the start
    with _open(gateway, f"/games/{gid}/feed?after=0") as ws:
        messages = _read_until(ws, lambda m: m.get("kind") == "over")

    # Then every event is public, sealed votes included
    stored = eventstore.read_events(gateway.redis, gateway.layout, gid)
    assert [m["event"] for m in messages[:-1]] == [e.data for e in stored]
    assert messages[-1]["result"] == game.summary["result"]


@pytest.mark.parametrize(
    ("path", "who", "code", "close"),
    [
        ("/games/{gid}/seats/1/feed", 0, "forbidden_seat", 4403),
        ("/games/{gid}/seats/1/feed", None, "unauthorized", 4401),
        ("/games/{gid}/seats/1/feed", "wrong", "unauthorized", 4401),
        ("/games/nosuchgame/seats/1/feed", 1, "unknown_game", 4404),
        ("/games/{gid}/seats/1/feed?after=-3", 1, "bad_request", 4400),
        ("/games/{gid}/feed?after=99999", None, "bad_request", 4400),
    ],
)
def test_a_feed_refuses_with_a_typed_error(gateway: Served, path: str, who: Any, code: str, close: int) -> None:
    # Given a game
    created = new_game(gateway, seed=23)
    token = created["seats"][who]["token"] if isinstance(who, int) else who

    # When a feed is opened with the wrong token, no token, a bad version or for no game
    with _open(gateway, path.format(gid=created["game_id"]), token) as ws:
        message = orjson.loads(ws.recv(timeout=patient(60)))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=patient(60))

    # Then it gets one typed error and the connection closes with the matching code
    assert message["error"]["code"] == code
    assert closed.value.rcvd is not None and closed.value.rcvd.code == close


def test_a_live_event_reaches_an_open_feed_at_once(redis_url: str) -> None:
    # Given a gateway whose feeds wait an hour on an idle Redis read (so an event that only showed once that
    # wait ended would never show within this test), and seat 1's feed open and caught up on a fresh game
    served = serve(redis_url, feed_client=aredis.Redis.from_url(redis_url))
    try:
        served.app.state.feeds.block_ms = IDLE_WAIT_MS
        created = new_game(served, seed=24)
        gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
        with _open(served, f"/games/{gid}/seats/1/feed?after=0", tokens[1]) as ws:
            _read_until(ws, lambda m: m["version"] == created["version"])

            # When the awaited seat sends a command
            with served.http() as http:
                seat = http.get(f"/games/{gid}").json()["awaiting"][0]
            with served.http(tokens[seat]) as http:
                view = http.get(f"/games/{gid}/seats/{seat}/view").json()
                body = http.post(f"/games/{gid}/commands", json={"command": view["legal"][0]["command"]}).json()

            # Then its events reach the open feed, long before the feed's idle wait would have ended
            got = _read_until(ws, lambda m: m["version"] == body["version"])
        assert [m["version"] for m in got] == list(range(body["first_version"], body["version"] + 1))
    finally:
        served.close()

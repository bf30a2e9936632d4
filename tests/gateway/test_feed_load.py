"""Many open WebSocket feeds against a gateway on a real redis-server: they hold no Redis connection, so player
commands and /health are served as usual; feeds beyond the caps, and a feed that falls too far behind, are
refused with a typed message and a close frame."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.gateway.conftest import OPEN, Served, new_game, serve
from tests.service.conftest import redis_server
from tests.waiting import patient

pytestmark = pytest.mark.redis

FEEDS = 150


async def _open(served: Served, path: str) -> ClientConnection:
    return await connect(served.ws_url + path, open_timeout=patient(60), max_queue=None)


async def _read_to_close(ws: ClientConnection, timeout: float = patient(60)) -> tuple[list[dict[str, Any]], int | None]:
    """Every message until the server closes, and the close code it sent (None: dropped without a close frame)."""
    messages = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                messages.append(orjson.loads(await ws.recv()))
    except ConnectionClosed as closed:
        return messages, closed.rcvd.code if closed.rcvd is not None else None


async def _first(ws: ClientConnection) -> dict[str, Any]:
    return orjson.loads(await asyncio.wait_for(ws.recv(), patient(60)))  # type: ignore[no-any-return]


async def _play(http: httpx.AsyncClient, gid: str, tokens: list[str], moves: int) -> list[int]:
    """``moves`` toy21 commands (add 3) by whoever's turn it is; returns their HTTP statuses."""
    statuses = []
    for _ in range(moves):
        seat = (await http.get(f"/games/{gid}")).json()["awaiting"][0]
        r = await http.post(
            f"/games/{gid}/commands",
            json={"command": {"type": "Add", "amount": 3}},
            headers={"Authorization": f"Bearer {tokens[seat]}"},
        )
        statuses.append(r.status_code)
    return statuses


def test_many_idle_feeds_do_not_starve_commands_and_feeds_over_the_cap_get_a_close_frame(tmp_path: Path) -> None:
    # Given a gateway that serves at most FEEDS + 10 feeds, alone on a redis-server of this test's own (so that
    # it alone makes the connections counted below), and a fresh game of toy21 (first to 21 wins)
    with redis_server(tmp_path) as own:
        served = serve(own.url, limits=dataclasses.replace(OPEN, feeds_per_address=10_000, feeds_total=FEEDS + 10))
        try:
            created = new_game(served, game="toy21", players=("A", "B"))
            gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
            asyncio.run(_flood(served, gid, tokens))
        finally:
            served.close()


async def _flood(served: Served, gid: str, tokens: list[str]) -> None:
    async with httpx.AsyncClient(base_url=served.base_url, timeout=patient(60)) as http:
        assert (await http.get("/health")).status_code == 200
        clients_before = served.redis.info("clients")["connected_clients"]
        # When FEEDS spectator feeds are opened at once and each has read the backlog
        feeds = await asyncio.gather(*(_open(served, f"/games/{gid}/feed?after=0") for _ in range(FEEDS)))
        assert [m["version"] for m in await asyncio.gather(*(_first(ws) for ws in feeds))] == [1] * FEEDS
        # Then they hold no Redis connection each: one reader, and a connection (asyncio or thread pool) for each
        # backlog read running at once
        assert served.redis.info("clients")["connected_clients"] - clients_before <= 2 * OPEN.feed_catchups + 4
        # And player commands are answered as usual and the gateway is healthy
        assert await _play(http, gid, tokens, 3) == [200, 200, 200]
        assert (await http.get("/health")).status_code == 200

        # When 30 more feeds are opened: 10 fit under the cap, 20 do not
        more = await asyncio.gather(*(_open(served, f"/games/{gid}/feed?after=0") for _ in range(30)))
        firsts = await asyncio.gather(*(_first(ws) for ws in more))
        refused = [ws for ws, m in zip(more, firsts, strict=True) if "error" in m]
        assert len(refused) == 20
        # Then each refused one got a typed error and a close frame with the "try again later" code
        assert {m["error"]["code"] for m in firsts if "error" in m} == {"feeds_full"}
        assert [(await _read_to_close(ws))[1] for ws in refused] == [1013] * 20
        accepted = [ws for ws in more if ws not in refused]

        # When the game is played to its end
        statuses = await _play(http, gid, tokens, 4)
        assert statuses == [200] * 4
        final = (await http.get(f"/games/{gid}")).json()
        assert final["over"]
        # Then every open feed got every event once, the end, and a normal close
        results = await asyncio.gather(*(_read_to_close(ws) for ws in feeds + accepted))
        for messages, code in results:
            assert code == 1000
            assert messages[-1] == {"kind": "over", "version": final["version"], "result": final["result"]}
        versions = [[m["version"] for m in messages[:-1]] for messages, _ in results]
        expected_tail = list(range(2, final["version"] + 1))
        assert all(v == expected_tail for v in versions[:FEEDS])  # their first event was read above
        assert all(v[-len(expected_tail) :] == expected_tail for v in versions[FEEDS:])
        assert (await http.get("/health")).status_code == 200
    assert served.server.config.app.state.feeds.open_feeds == 0


def test_feeds_over_the_cap_of_one_address_are_refused_until_one_closes(redis_url: str) -> None:
    served = serve(redis_url, limits=dataclasses.replace(OPEN, feeds_per_address=2))
    try:
        gid = new_game(served, game="toy21", players=("A", "B"))["game_id"]

        async def scenario() -> None:
            # Given two feeds open from one address
            first, second = [await _open(served, f"/games/{gid}/feed") for _ in range(2)]
            assert (await _first(first))["version"] == (await _first(second))["version"] == 1
            # When it opens a third
            third = await _open(served, f"/games/{gid}/feed")
            # Then that one is refused with a typed error and a close frame
            assert (await _first(third))["error"]["code"] == "too_many_feeds"
            assert (await _read_to_close(third))[1] == 4429
            # And once one of the two is closed, a new one opens
            await first.close()
            await asyncio.sleep(0.2)
            fourth = await _open(served, f"/games/{gid}/feed")
            assert (await _first(fourth))["version"] == 1
            await asyncio.gather(second.close(), fourth.close())

        asyncio.run(scenario())
    finally:
        served.close()


def test_a_feed_that_falls_too_far_behind_is_closed_and_resumes_with_after(redis_url: str) -> None:
    # Given a gateway whose feeds may hold one undelivered event, and a toy21 game one move from its end
    served = serve(redis_url, limits=dataclasses.replace(OPEN, feed_queue=1))
    try:
        created = new_game(served, game="toy21", players=("A", "B"))
        gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]

        async def scenario() -> None:
            async with httpx.AsyncClient(base_url=served.base_url, timeout=patient(60)) as http:
                assert await _play(http, gid, tokens, 6) == [200] * 6  # total 18
                ws = await _open(served, f"/games/{gid}/feed?after=0")
                backlog = [await _first(ws) for _ in range(7)]
                assert [m["version"] for m in backlog] == list(range(1, 8))
                # When one command adds two events at once (the winning move: Added, Won)
                assert await _play(http, gid, tokens, 1) == [200]
                # Then the feed is closed as a slow consumer, with a typed error and a close frame
                messages, code = await _read_to_close(ws)
                assert code == 4408
                assert messages[-1]["error"]["code"] == "slow_consumer"
                last = max([7] + [m["version"] for m in messages if m.get("kind") == "event"])
                # And resuming from the last version received gets the rest, exactly once, then the end
                resumed, code = await _read_to_close(await _open(served, f"/games/{gid}/feed?after={last}"))
                assert code == 1000
                assert [m["version"] for m in resumed[:-1]] == list(range(last + 1, 10))
                assert resumed[-1]["kind"] == "over"

        asyncio.run(scenario())
    finally:
        served.close()

"""The gateway answers a command from the events its reply carries, reading only what its cache misses."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import fakeredis

import tests.service.toy_game  # noqa: F401 - registers toy21
from services.bus.keys import Layout
from services.client import ServiceClient
from services.gateway.asyncbus import AsyncBus
from services.gateway.games import Directory
from services.gateway.limits import Limits
from services.gateway.service import Gateway
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST


class _CountingBus(AsyncBus):
    """The gateway's bus, counting the event reads of the answer path; any other read fails the test."""

    def __init__(self, client: Any, layout: Layout) -> None:
        super().__init__(client, layout)
        self.ranges: list[tuple[str, int, int]] = []

    async def events_between(self, game_id: str, after: int, upto: int) -> list[tuple[int, bytes]]:
        self.ranges.append((game_id, after, upto))
        return await super().events_between(game_id, after, upto)


def _setup() -> tuple[ServiceClient, Gateway, _CountingBus, threading.Event]:
    server = fakeredis.FakeServer()
    layout = Layout(prefix="answers", shards=2)
    stop = threading.Event()
    worker = RulesWorker(fakeredis.FakeRedis(server=server), range(2), layout=layout, config=FAST)
    threading.Thread(target=worker.run, args=(stop,), daemon=True).start()
    sync = fakeredis.FakeRedis(server=server)
    bus = _CountingBus(fakeredis.FakeAsyncRedis(server=server), layout)
    gateway = Gateway(sync, layout, Directory(sync, layout), bus, ServiceClient(sync, layout), Limits(), None)
    return ServiceClient(fakeredis.FakeRedis(server=server), layout), gateway, bus, stop


def test_a_current_cache_answers_from_the_reply_and_a_stale_one_reads_only_what_it_misses() -> None:
    client, gateway, bus, stop = _setup()
    try:
        # Given a toy game whose position the gateway has cached at version 1
        game = client.create_game("toy21", ["ann", "bob"], seed=3)
        gid = game.game_id
        assert gateway.position(gid).version == 1

        async def read_back(*args: Any, **kw: Any) -> Any:
            raise AssertionError("the answer read the game back")

        gateway.history_async = read_back  # type: ignore[method-assign]

        def play(seat: int, amount: int) -> Any:
            info = gateway.directory.info(gid)
            env = gateway.envelope(info, seat, game.tokens[seat], {"type": "Add", "amount": amount}, None, None)
            client.submit_many([env])
            return client.wait_on(env)

        # When seat 0 plays through the gateway's envelope (asking for the events in the reply)
        first = play(0, 2)
        answer = asyncio.run(gateway.result(first, 0))

        # Then the answer is the recorded event, and the gateway read no event to make it
        recorded = {e.version: e.data for e in client.read_events(gid)}
        assert first.event_data is not None and bus.ranges == []
        assert [(e.version, e.event) for e in answer.events] == [(2, recorded[2])]
        assert gateway.directory.cached_position(gid).version == 2  # type: ignore[union-attr]

        # When two more commands are committed and only the second one is answered here
        play(1, 3)
        third = play(0, 1)
        answer = asyncio.run(gateway.result(third, 0))

        # Then the gateway read only the one event its cache missed before the reply's, and answered right
        recorded = {e.version: e.data for e in client.read_events(gid)}
        assert bus.ranges == [(gid, 2, 3)]
        assert [(e.version, e.event) for e in answer.events] == [(4, recorded[4])]
        assert gateway.directory.cached_position(gid).version == 4  # type: ignore[union-attr]
    finally:
        stop.set()

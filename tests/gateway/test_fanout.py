"""The feed hub on its own, on a real redis-server: what it queues for whom, its caps, and that a failed read of
the reader loses nothing."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aredis

from services.bus.keys import Layout
from services.gateway.errors import ApiError
from services.gateway.fanout import FeedHub
from tests.service.conftest import redis_url  # noqa: F401 - fixture
from tests.waiting import patient

pytestmark = pytest.mark.redis


@dataclass(frozen=True)
class _Pos:
    version: int


class _Store:
    """Stands for the event store: a game's versions, and the feed entries a commit writes."""

    def __init__(self, r: Any, layout: Layout) -> None:
        self.r = r
        self.layout = layout
        self.versions: dict[str, int] = {}
        self.reads = 0

    async def commit(self, game_id: str, events: int = 1) -> None:
        for _ in range(events):
            self.versions[game_id] = self.versions.get(game_id, 0) + 1
            v = self.versions[game_id]
            await self.r.xadd(self.layout.feed(self.layout.shard_of(game_id)), {"g": game_id, "v": v, "e": "{}"})

    async def history(self, game_id: str, after: int) -> tuple[Any, list[tuple[int, Any, Any]]]:
        self.reads += 1
        last = self.versions.get(game_id, 0)
        return _Pos(last), [(v, f"event {v}", None) for v in range(after + 1, last + 1)]


async def _queued(queue: asyncio.Queue[Any], count: int) -> list[int]:
    return [(await asyncio.wait_for(queue.get(), patient(30)))[1][0] for _ in range(count)]


def _hub(url: str, **kw: Any) -> tuple[FeedHub, _Store]:
    layout = Layout(prefix=f"hub{uuid.uuid4().hex[:8]}", shards=2)
    r = aredis.Redis.from_url(url)
    store = _Store(r, layout)
    return FeedHub(r, layout, store.history, block_ms=100, **kw), store


def test_new_events_reach_the_queues_of_that_games_subscribers_only(redis_url: str) -> None:  # noqa: F811 - the imported fixture
    async def scenario() -> None:
        hub, store = _hub(redis_url)
        await store.commit("g1", 2)  # before anyone follows: the backlog, read by each feed itself
        a, b, other = hub.subscribe("g1", "1.1.1.1"), hub.subscribe("g1", "2.2.2.2"), hub.subscribe("g2", "1.1.1.1")
        await hub.ready()
        await store.commit("g1", 3)
        assert await _queued(a.queue, 3) == await _queued(b.queue, 3) == [3, 4, 5]
        assert other.queue.empty()
        await hub.aclose()
        await hub.r.aclose()

    asyncio.run(scenario())


def test_a_redis_error_of_the_reader_loses_no_event(redis_url: str) -> None:  # noqa: F811 - the imported fixture
    async def scenario() -> None:
        hub, store = _hub(redis_url)
        sub = hub.subscribe("g1", "1.1.1.1")
        await hub.ready()
        # Given a reader whose next two reads fail
        real = hub.r.xread
        failures = 2

        async def flaky(*args: Any, **kw: Any) -> Any:
            nonlocal failures
            if failures:
                failures -= 1
                raise ConnectionError("redis went away")
            return await real(*args, **kw)

        hub.r.xread = flaky
        # When events are committed meanwhile
        await store.commit("g1", 2)
        # Then they are queued once the reader reads again, in order, once
        assert await _queued(sub.queue, 2) == [1, 2]
        await store.commit("g1")
        assert await _queued(sub.queue, 1) == [3]
        assert failures == 0
        await hub.aclose()
        await hub.r.aclose()

    asyncio.run(scenario())


def test_a_full_queue_marks_its_subscriber_overflowed_and_others_go_on(redis_url: str) -> None:  # noqa: F811 - the imported fixture
    async def scenario() -> None:
        hub, store = _hub(redis_url, queue_size=2)
        slow, fast = hub.subscribe("g1", "1.1.1.1"), hub.subscribe("g1", "2.2.2.2")
        await hub.ready()
        await store.commit("g1", 2)
        assert await _queued(fast.queue, 2) == [1, 2]
        await store.commit("g1", 1)
        assert await _queued(fast.queue, 1) == [3]
        assert slow.overflow.is_set() and not fast.overflow.is_set()
        await hub.aclose()
        await hub.r.aclose()

    asyncio.run(scenario())


def test_feeds_are_capped_per_address_and_in_total(redis_url: str) -> None:  # noqa: F811 - the imported fixture
    async def scenario() -> None:
        hub, _ = _hub(redis_url, per_address=2, total=3)
        first = hub.subscribe("g1", "1.1.1.1")
        hub.subscribe("g2", "1.1.1.1")
        with pytest.raises(ApiError) as per_address:
            hub.subscribe("g3", "1.1.1.1")
        hub.subscribe("g1", "2.2.2.2")
        with pytest.raises(ApiError) as total:
            hub.subscribe("g1", "3.3.3.3")
        assert (per_address.value.status, per_address.value.code) == (429, "too_many_feeds")
        assert (total.value.status, total.value.code) == (503, "feeds_full")
        # and a closed feed frees its place (once: closing twice changes nothing)
        hub.unsubscribe(first)
        hub.unsubscribe(first)
        assert hub.open_feeds == 2
        hub.subscribe("g3", "1.1.1.1")

    asyncio.run(scenario())


def test_an_idle_read_of_the_hub_ends_before_its_clients_socket_timeout(redis_url: str) -> None:  # noqa: F811 - the imported fixture
    async def scenario() -> None:
        # Given a hub on a client whose socket times out after 1.5 s, and a subscriber of a quiet game
        layout = Layout(prefix=f"hub{uuid.uuid4().hex[:8]}", shards=2)
        r = aredis.Redis.from_url(redis_url, socket_timeout=1.5)
        store = _Store(r, layout)
        hub = FeedHub(r, layout, store.history)
        errors: list[str] = []
        hub.log = type("Log", (), {"warning": lambda self, event, **kw: errors.append(event)})()
        sub = hub.subscribe("quiet", "10.0.0.1")
        await hub.ready()
        # When nothing happens for longer than the socket timeout
        await asyncio.sleep(2.0)
        # Then no read of the reader timed out, and the next event arrives
        await store.commit("quiet")
        assert await _queued(sub.queue, 1) == [1]
        assert errors == [] and hub.block_ms < 1500
        await hub.aclose()
        await r.aclose()

    asyncio.run(asyncio.wait_for(scenario(), patient(120)))

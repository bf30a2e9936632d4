"""One reader per gateway process for every open WebSocket feed: a feed costs a queue, not a Redis connection.

:class:`FeedHub` runs one task (per group of shards that one XREAD may cover: every shard on a single Redis,
one shard each on a Cluster) doing a blocking XREAD over the shards' event feeds (``<prefix>:{s<N>}:feed``,
every event of every game of the shard, written by the rules worker in the same transaction as the event).
For each game that has subscribers and new events, it brings the game's cached position up to date once and
puts each new event (with the state after it) into the bounded queue of every subscriber of that game; each
connection renders the events for its own seat and sends them.

The hub has a Redis client of its own (its own connection pool: the XREAD holds one connection, catch-up
reads borrow a few more), so commands and HTTP reads never wait for a connection behind the feeds, and
catch-up reads are limited to ``feed_catchups`` at a time, so a flood of feeds opening at once queues behind
itself, not in front of the requests.

Bounds: at most ``feeds_per_address`` open feeds per client address (beyond: ``too_many_feeds``) and
``feeds_total`` per process (beyond: ``feeds_full``); a subscriber more than ``feed_queue`` events behind is
marked overflowed (its connection closes with ``slow_consumer`` and the client resumes with ``?after=``).

Nothing is lost between a subscriber's catch-up read and its first queued event: the hub's cursors are
resolved before any subscriber reads its backlog, so every event committed after that read passes through
the hub; a subscriber skips what it has and reads a gap (a hub that reconnected, a game it joined mid-batch)
from the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

from services.bus.keys import Layout
from services.gateway import errors as E
from services.gateway.asyncbus import socket_timeout_of
from services.gateway.errors import ApiError
from services.gateway.games import History, Position
from services.log import get_logger

HistoryRead = Callable[[str, int], Awaitable[tuple[Position, History]]]
"""``(game_id, after) -> (latest position, events after ``after`` with the state after each)``."""

BLOCK_MS = 5000
"""Longest wait of one XREAD of the reader (a quiet gateway makes one round trip per group this often)."""

_GIVE_UP = 100
"""Failed reads of one game's new events (50 ms apart) before the reader stops trying until its next event."""

Item = tuple[Position, tuple[int, Any, Any]]
"""What a subscriber's queue holds: the position the event was read with, and ``(version, event, state)``."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A clock notice of a game (a seat's time runs low), read from its shard's ``notices`` stream: queued for
    every feed of the game beside its events (a notice has no version: it is not part of the game)."""

    data: dict[str, Any]


@dataclass(eq=False)
class Subscription:
    """One open feed of one game: the hub fills ``queue``; ``overflow`` is set once it would have overflowed."""

    game_id: str
    address: str
    queue: asyncio.Queue[Item | Notice]
    overflow: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(eq=False)
class _Game:
    subscribers: set[Subscription] = field(default_factory=set)
    delivered: int | None = None
    """The last version put into the subscribers' queues (None: nothing yet)."""
    wanted: int = 0
    """The newest version the feeds announced."""
    first_seen: int = 0
    """The oldest version announced while nothing was delivered yet."""
    failures: int = 0
    """Reads of the new events that failed in a row."""


class FeedHub:
    """The fan-out reader of one gateway process (see the module docstring)."""

    def __init__(
        self,
        client: Any,
        layout: Layout,
        history: HistoryRead,
        *,
        per_address: int = 20,
        total: int = 2000,
        queue_size: int = 1024,
        catchups: int = 8,
        block_ms: int = BLOCK_MS,
        batch: int = 1000,
    ) -> None:
        self.r = client
        self.layout = layout
        self.history = history
        self.per_address = per_address
        self.total = total
        self.queue_size = queue_size
        timeout = socket_timeout_of(client)
        # An idle XREAD must end (server side) before the client's socket timeout would call Redis unavailable.
        self.block_ms = block_ms if not timeout else min(block_ms, max(100, int(timeout * 1000) - 1000))
        self.batch = batch
        self.catchup = asyncio.Semaphore(catchups)
        """Taken around every backlog read of a feed."""
        self.log = get_logger("gateway")
        self._games: dict[str, _Game] = {}
        self._open = 0
        self._by_address: dict[str, int] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._armed: list[asyncio.Event] = []
        self._dirty: set[str] = set()
        self._closing = False

    # --- subscriptions ------------------------------------------------------------------------------------
    @property
    def open_feeds(self) -> int:
        """How many feeds are open now."""
        return self._open

    def subscribe(self, game_id: str, address: str) -> Subscription:
        """Register a feed of ``game_id`` from ``address``; raises :class:`ApiError` 429 ``too_many_feeds`` or 503
        ``feeds_full`` when a cap is reached. Call :meth:`ready` before reading the backlog."""
        if self._by_address.get(address, 0) >= self.per_address:
            raise ApiError(
                429, E.TOO_MANY_FEEDS,
                f"this address has {self.per_address} feeds open, the most allowed; close one and retry",
            )  # fmt: skip
        if self._open >= self.total:
            raise ApiError(503, E.FEEDS_FULL, "this gateway serves as many feeds as it may; try again later")
        sub = Subscription(game_id, address, asyncio.Queue(self.queue_size))
        self._open += 1
        self._by_address[address] = self._by_address.get(address, 0) + 1
        self._games.setdefault(game_id, _Game()).subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a feed (idempotent)."""
        game = self._games.get(sub.game_id)
        if game is None or sub not in game.subscribers:
            return
        game.subscribers.discard(sub)
        if not game.subscribers:
            del self._games[sub.game_id]
            self._dirty.discard(sub.game_id)
        self._open -= 1
        left = self._by_address[sub.address] - 1
        if left:
            self._by_address[sub.address] = left
        else:
            del self._by_address[sub.address]

    async def ready(self, timeout: float = 10.0) -> None:
        """Start the reader if it is not running, and wait until it follows the feeds (raises :class:`ApiError`
        503 ``unavailable`` if Redis can not be reached in ``timeout`` seconds)."""
        if not self._tasks or any(task.done() for task in self._tasks):  # never started (or, unexpectedly, ended)
            for task in self._tasks:
                task.cancel()
            groups = self._groups()
            self._armed = [asyncio.Event() for _ in groups]
            self._tasks = [
                asyncio.create_task(self._follow(keys, armed), name=f"feed-hub-{i}")
                for i, (keys, armed) in enumerate(zip(groups, self._armed, strict=True))
            ]
        try:
            await asyncio.wait_for(asyncio.gather(*(armed.wait() for armed in self._armed)), timeout)
        except TimeoutError:
            raise ApiError(503, E.UNAVAILABLE, "the event feeds can not be followed now; try again later") from None

    async def aclose(self, timeout: float = 1.0) -> None:
        """Stop the reader (at shutdown; then close the client, which ends a read still under way)."""
        # A flag as well as the cancellation: on Python 3.11 ``asyncio.wait_for`` (inside redis-py) may swallow a
        # cancellation that arrives just as its inner call completes; the loop checks the flag after each read.
        self._closing = True
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=timeout)
        self._tasks = []

    # --- the reader ---------------------------------------------------------------------------------------
    def _groups(self) -> list[list[str]]:
        # Each shard's event feed and its clock notices (services/timer): one slot, so one XREAD on a Cluster too.
        per_shard = [[self.layout.feed(s), self.layout.notices(s)] for s in range(self.layout.shards)]
        if isinstance(self.r, AsyncRedisCluster):  # one XREAD may only name keys of one slot
            return per_shard
        return [[key for keys in per_shard for key in keys]]

    async def _tails(self, keys: list[str]) -> dict[str, bytes | str]:
        """The id of the last entry of each feed: reading after it misses nothing committed from now on."""
        pipe = self.r.pipeline(transaction=False)
        for key in keys:
            pipe.xrevrange(key, "+", "-", count=1)
        last = await pipe.execute()
        return {key: (entries[0][0] if entries else "0-0") for key, entries in zip(keys, last, strict=True)}

    async def _follow(self, keys: list[str], armed: asyncio.Event) -> None:
        backoff = 0.1
        cursors: dict[str, bytes | str] | None = None
        notices = {self.layout.notices(s) for s in range(self.layout.shards)}
        while not self._closing:
            try:
                if cursors is None:
                    cursors = await self._tails(keys)
                    armed.set()
                block = 50 if self._dirty else self.block_ms  # a game whose read failed is tried again soon
                got = await self.r.xread(cursors, count=self.batch, block=block)
                for key, entries in got or ():
                    name = key.decode() if isinstance(key, bytes) else key
                    cursors[name] = entries[-1][0]
                    if name in notices:
                        self._notices(entries)
                    else:
                        self._note(entries)
                if self._dirty:
                    await self._dispatch(list(self._dirty))
                backoff = 0.1
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away (or a bug): keep the cursors and go on; nothing committed is lost
                if self._closing:
                    return
                self.log.warning("gateway.feed_hub_error", error=repr(exc), retry_in=backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    def _note(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Mark the subscribed games that these feed entries announce new events of."""
        games = self._games
        for _, fields in entries:
            raw = fields.get(b"g")
            if raw is None:
                continue
            game = games.get(raw.decode(errors="replace"))
            if game is None:
                continue
            try:
                version = int(fields.get(b"v", b"0"))
                first = int(fields.get(b"f", version))  # one entry per commit: versions f .. v
            except ValueError:
                continue
            if game.delivered is None and not game.first_seen:
                game.first_seen = first
            if version > game.wanted:
                game.wanted = version
                self._dirty.add(raw.decode())

    def _notices(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Queue each clock notice for every feed of its game (a feed that is full is overflowed, as for events)."""
        for _, fields in entries:
            game = self._games.get(fields.get(b"g", b"").decode(errors="replace"))
            if game is None:
                continue
            try:
                notice = Notice(orjson.loads(fields.get(b"n", b"null")))
            except orjson.JSONDecodeError:
                continue
            if not isinstance(notice.data, dict):
                continue
            for sub in list(game.subscribers):
                if sub.overflow.is_set():
                    continue
                try:
                    sub.queue.put_nowait(notice)
                except asyncio.QueueFull:
                    sub.overflow.set()

    async def _dispatch(self, game_ids: list[str]) -> None:
        """Read the new events of these games (a few at a time) and queue them for their subscribers."""
        for i in range(0, len(game_ids), 16):
            await asyncio.gather(*(self._deliver(gid) for gid in game_ids[i : i + 16]))

    async def _deliver(self, game_id: str) -> None:
        game = self._games.get(game_id)
        if game is None:
            self._dirty.discard(game_id)
            return
        after = game.delivered if game.delivered is not None else game.first_seen - 1
        try:
            pos, items = await self.history(game_id, after)
        except ApiError as exc:  # the game is gone: nothing more will come
            self.log.warning("gateway.feed_read_error", game=game_id, error=exc.code)
            self._dirty.discard(game_id)
            return
        except Exception as exc:  # stays dirty: tried again after the next (short) read, for a while
            game.failures += 1
            self.log.warning("gateway.feed_read_error", game=game_id, error=repr(exc), failures=game.failures)
            if game.failures >= _GIVE_UP:  # its feeds read the gap themselves when the game moves on
                self._dirty.discard(game_id)
                game.failures = 0
            return
        game.failures = 0
        for item in items:
            if item[0] <= after:
                continue
            for sub in list(game.subscribers):
                if sub.overflow.is_set():
                    continue
                try:
                    sub.queue.put_nowait((pos, item))
                except asyncio.QueueFull:
                    sub.overflow.set()
        game.delivered = max(after, pos.version)
        # The read saw every announced event (the feed entry is committed with the event itself); whatever was
        # committed after it comes with its own feed entry.
        self._dirty.discard(game_id)

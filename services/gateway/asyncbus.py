"""The gateway's non-blocking side of the bus: submit a command and await its outcome; tail a game's events.

The same protocol as :class:`services.bus.client.ServiceClient` (XADD to the shard's command stream, BLPOP on
the command's reply list, the stored outcome as fallback), on ``redis.asyncio`` so that thousands of waiting
requests and open WebSocket feeds cost coroutines, not threads. Every call touches one key, so it works the
same on a single Redis and on a Redis Cluster.
"""

from __future__ import annotations

import time
from typing import Any

import fakeredis
import redis
import redis.asyncio as aredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

from services.bus.envelope import CommandEnvelope, Outcome
from services.bus.keys import Layout
from services.store.eventstore import event_id, version_of


def async_twin(client: redis.Redis) -> Any:
    """An asyncio client on the same server as the synchronous ``client`` (Redis, Cluster or fakeredis)."""
    if isinstance(client, fakeredis.FakeRedis):
        return fakeredis.FakeAsyncRedis(server=client.connection_pool.connection_kwargs["server"])
    if isinstance(client, RedisCluster):
        node = client.get_default_node()
        return AsyncRedisCluster(host=node.host, port=node.port)
    kw = client.connection_pool.connection_kwargs
    if "path" in kw:
        return aredis.Redis(unix_socket_path=kw["path"], db=kw.get("db", 0), password=kw.get("password"))
    return aredis.Redis(
        host=kw.get("host", "localhost"),
        port=kw.get("port", 6379),
        db=kw.get("db", 0),
        username=kw.get("username"),
        password=kw.get("password"),
        ssl=client.connection_pool.connection_class.__name__ == "SSLConnection",
        health_check_interval=30,
    )


class AsyncBus:
    """Command submission and event tailing over an asyncio Redis client."""

    def __init__(self, client: Any, layout: Layout) -> None:
        self.r = client
        self.layout = layout

    async def submit(self, env: CommandEnvelope) -> None:
        """Put one command on its game's shard stream."""
        await self.r.xadd(self.layout.cmds(self.layout.shard_of(env.game_id)), env.to_fields())

    async def outcome(self, game_id: str, command_id: str) -> Outcome | None:
        """The stored outcome of a command, if it has one yet."""
        raw = await self.r.get(self.layout.outcome(self.layout.shard_of(game_id), game_id, command_id))
        return Outcome.model_validate_json(raw) if raw is not None else None

    async def wait(self, game_id: str, command_id: str, timeout: float, fresh: bool = True) -> Outcome | None:
        """The command's outcome as soon as it is pushed, or None after ``timeout`` seconds.

        ``fresh``: the command id was never submitted before (a client-chosen id may be a retry, whose outcome
        is already stored and whose reply may have been taken).
        """
        if not fresh:
            known = await self.outcome(game_id, command_id)
            if known is not None:
                return known
        reply = self.layout.reply(self.layout.shard_of(game_id), game_id, command_id)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # BLPOP wakes on the worker's push; short slices fall back to the stored outcome (a reply taken by
            # another waiter on the same command id, or expired).
            got = await self.r.blpop([reply], timeout=max(0.01, min(left, 1.0)))
            if got is not None:
                return Outcome.model_validate_json(got[1])
            known = await self.outcome(game_id, command_id)
            if known is not None or time.monotonic() >= deadline:
                return known

    async def events_after(self, game_id: str, after: int, block_ms: int, count: int = 500) -> list[tuple[int, bytes]]:
        """Events with version > ``after`` from the game's hot stream, waiting up to ``block_ms`` for one."""
        key = self.layout.events(self.layout.shard_of(game_id), game_id)
        got = await self.r.xread({key: event_id(after)}, count=count, block=block_ms)
        if not got:
            return []
        _, entries = got[0]
        return [(version_of(eid), fields[b"e"]) for eid, fields in entries]

    async def meta_fields(self, game_id: str, *names: str) -> list[bytes | None]:
        """Some fields of a game's metadata hash."""
        return await self.r.hmget(self.layout.meta(self.layout.shard_of(game_id), game_id), list(names))

"""The gateway's non-blocking side of the bus: submit a command and await its outcome; tail a game's events.

The same protocol as :class:`services.bus.client.BusClient` (XADD to the shard's command stream, BLPOP on
the command's reply list, the stored outcome as fallback), on ``redis.asyncio`` so that thousands of waiting
requests and open WebSocket feeds cost coroutines, not threads. Every call touches one key, so it works the
same on a single Redis and on a Redis Cluster.

Outcomes and replies are scoped to the seat that sent the command (the seat the bearer token proved): one seat
can neither read nor wait on another seat's command ids.

The asyncio client has a socket timeout (:data:`SOCKET_TIMEOUT`, or the synchronous client's own), so that a
Redis that stops answering is noticed (``TimeoutError``, answered 503 by the gateway) instead of hanging every
request; blocking reads are kept shorter than it. It retries a lost connection once, at once (a pooled
connection Redis closed), and a timeout never: redis-py's default (ten retries with backoff) would hold a
request for many times the timeout, where the client is better told 503 and when to come back.

On a single Redis, :meth:`AsyncBus.submit_and_wait` sends a command's XADD and the first BLPOP on its reply in one
write (a pipeline: one round trip and one wake-up of the gateway fewer per command than XADD, then BLPOP); given a
hash field that refuses the command (``unless``: a seat whose player left), the XADD runs in a script that checks
it first, so the check costs no round trip of its own.
"""

from __future__ import annotations

import time
from typing import Any

import fakeredis
import hiredis
import redis
import redis.asyncio as aredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster

from services.bus.envelope import CommandEnvelope, Outcome, conflict_outcome
from services.bus.keys import Layout
from services.store.eventstore import event_id, version_of

SOCKET_TIMEOUT = 5.0
"""Seconds the gateway waits for any Redis answer before it calls Redis unavailable (503)."""
_BLPOP_SLICE = 1.0
_REFUSED = b"!refused"
# XADD the command unless a hash field is set; refused, the script pushes a mark on the reply list instead, so
# that the BLPOP sent in the same write returns at once (KEYS: hash, stream, reply; ARGV: field, mark, ttl ms,
# then the entry's field/value pairs). Sent as EVAL, not EVALSHA: a NOSCRIPT would leave that BLPOP waiting.
_SUBMIT_UNLESS = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[3], ARGV[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  return 0
end
redis.call('XADD', KEYS[2], '*', unpack(ARGV, 4))
return 1
"""


class Refused(Exception):
    """The command was not submitted: the hash field its submission was made ``unless`` is set."""


def async_twin(client: redis.Redis, socket_timeout: float | None = None) -> Any:
    """An asyncio client on the same server as the synchronous ``client`` (Redis, Cluster or fakeredis).

    ``socket_timeout``: default the synchronous client's, else :data:`SOCKET_TIMEOUT`.
    """
    if isinstance(client, fakeredis.FakeRedis):
        return fakeredis.FakeAsyncRedis(server=client.connection_pool.connection_kwargs["server"])
    if isinstance(client, RedisCluster):
        node = client.get_default_node()
        timeout = socket_timeout or SOCKET_TIMEOUT
        return AsyncRedisCluster(host=node.host, port=node.port, socket_timeout=timeout)
    kw = client.connection_pool.connection_kwargs
    timeout = socket_timeout or kw.get("socket_timeout") or SOCKET_TIMEOUT
    common: dict[str, Any] = {
        "db": kw.get("db", 0),
        "password": kw.get("password"),
        "socket_timeout": timeout,
        "socket_connect_timeout": kw.get("socket_connect_timeout") or timeout,
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
    }
    if "path" in kw:
        return aredis.Redis(unix_socket_path=kw["path"], **common)
    return aredis.Redis(
        host=kw.get("host", "localhost"),
        port=kw.get("port", 6379),
        username=kw.get("username"),
        ssl=client.connection_pool.connection_class.__name__ == "SSLConnection",
        health_check_interval=30,
        **common,
    )


def socket_timeout_of(client: Any) -> float | None:
    """The socket timeout (seconds) a Redis client was made with, if any."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None) or {}
    value = kwargs.get("socket_timeout")
    return float(value) if value else None


class AsyncBus:
    """Command submission and event tailing over an asyncio Redis client."""

    def __init__(self, client: Any, layout: Layout) -> None:
        self.r = client
        self.layout = layout
        timeout = socket_timeout_of(client)
        # A blocking read must end (server side) before the socket timeout would call Redis unavailable.
        self._max_block_ms = None if timeout is None else max(100, int(timeout * 1000) - 1000)
        self._blpop_slice = _BLPOP_SLICE if timeout is None else max(0.01, min(_BLPOP_SLICE, timeout / 2))
        # One connection can carry XADD and BLPOP together only on a single Redis (a cluster may hold the stream
        # and the reply list on different nodes); fakeredis has no wire to pipeline on.
        self._pipelined = isinstance(client, aredis.Redis) and not isinstance(client, fakeredis.FakeAsyncRedis)

    async def submit(self, env: CommandEnvelope) -> None:
        """Put one command on its game's shard stream."""
        await self.r.xadd(self.layout.cmds(self.layout.shard_of(env.game_id)), env.to_fields())

    async def outcome(self, game_id: str, seat: int, command_id: str) -> Outcome | None:
        """The stored outcome of ``seat``'s command ``command_id``, if it has one yet."""
        key = self.layout.outcome(self.layout.shard_of(game_id), game_id, str(seat), command_id)
        raw = await self.r.get(key)
        return Outcome.model_validate_json(raw) if raw is not None else None

    async def known(self, env: CommandEnvelope) -> Outcome | None:
        """The stored outcome of ``env``'s command id, if any: its first outcome when it names the same
        command, else ``command_id_conflict`` (as the worker answers another command under a used id)."""
        known = await self.outcome(env.game_id, env.seat, env.command_id)
        if known is None or known.answers(env.digest()):
            return known
        return conflict_outcome(env.command_id, env.game_id, self.layout.shard_of(env.game_id), env.digest())

    @property
    def pipelined(self) -> bool:
        """Whether a submission and the first wait on its reply go in one write (a single Redis)."""
        return self._pipelined

    async def submit_and_wait(
        self, env: CommandEnvelope, timeout: float, unless: tuple[str, str] | None = None
    ) -> Outcome | None:
        """:meth:`submit`, then :meth:`wait`; on a single Redis the XADD and the first BLPOP go in one write.

        ``unless``: (hash key, field): when that field is set the command is not submitted and :class:`Refused`
        is raised; checked in the same script as the XADD (only where :attr:`pipelined`)."""
        if not self._pipelined:
            if unless is not None:
                raise ValueError("unless= needs a single Redis (see pipelined)")
            await self.submit(env)
            return await self.wait(env, timeout)
        deadline = time.monotonic() + timeout
        got = await self._xadd_blpop(env, self._reply_key(env), self._slice(deadline), unless)
        if unless is not None and got is not None and got[1] == _REFUSED:
            raise Refused(unless[1])
        return await self._outcome_after(env, deadline, got)

    async def _xadd_blpop(
        self, env: CommandEnvelope, reply: str, block: float, unless: tuple[str, str] | None = None
    ) -> Any:
        """XADD the command (in :data:`_SUBMIT_UNLESS` when ``unless``) and BLPOP its reply list (up to ``block``
        seconds) on one connection, in one write; the BLPOP's answer. A refused XADD (e.g. Redis out of memory)
        is raised at once: its connection, with the BLPOP's answer still to come, is dropped instead of being
        waited on."""
        fields = [item for pair in env.to_fields().items() for item in pair]
        stream = self.layout.cmds(self.layout.shard_of(env.game_id))
        if unless is None:
            submit: tuple[Any, ...] = ("XADD", stream, "*", *fields)
        else:
            key, field = unless
            submit = ("EVAL", _SUBMIT_UNLESS, 3, key, stream, reply, field, _REFUSED, 60_000, *fields)
        # Packed by hiredis itself: redis-py's packer encodes each argument in Python first.
        packed = hiredis.pack_command(submit) + hiredis.pack_command(("BLPOP", reply, block))
        pool = self.r.connection_pool
        conn = await pool.get_connection()

        async def round_trip() -> Any:
            await conn.send_packed_command(packed)
            try:
                await conn.read_response()  # the entry id (or the script's 1 or 0)
            except redis.ResponseError:
                await conn.disconnect()
                raise
            return await conn.read_response()

        async def on_failure(_: BaseException) -> None:
            await conn.disconnect()

        try:
            # As the client's own commands: a lost pooled connection is retried once, at once (the worker
            # answers a command id it has already seen with its first outcome).
            return await conn.retry.call_with_retry(round_trip, on_failure)
        finally:
            await pool.release(conn)

    async def wait(self, env: CommandEnvelope, timeout: float) -> Outcome | None:
        """The outcome of the submitted ``env`` as soon as it is pushed, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        got = await self.r.blpop([self._reply_key(env)], timeout=self._slice(deadline))
        return await self._outcome_after(env, deadline, got)

    async def _outcome_after(self, env: CommandEnvelope, deadline: float, got: Any) -> Outcome | None:
        """The outcome, given what a first BLPOP on the reply got (None: nothing in its slice)."""
        while True:
            if got is not None:
                return Outcome.model_validate_json(got[1])
            # Short BLPOP slices fall back to the stored outcome (a reply taken by another waiter on the same
            # command id, or expired).
            known = await self.known(env)
            if known is not None or time.monotonic() >= deadline:
                return known
            got = await self.r.blpop([self._reply_key(env)], timeout=self._slice(deadline))

    def _slice(self, deadline: float) -> float:
        """Seconds of the next BLPOP: the time left, at most one slice (BLPOP wakes on the worker's push)."""
        return max(0.01, min(deadline - time.monotonic(), self._blpop_slice))

    def _reply_key(self, env: CommandEnvelope) -> str:
        return self.layout.reply(self.layout.shard_of(env.game_id), env.game_id, env.scope, env.command_id)

    async def events_after(self, game_id: str, after: int, block_ms: int, count: int = 500) -> list[tuple[int, bytes]]:
        """Events with version > ``after`` from the game's hot stream, waiting up to ``block_ms`` for one
        (at most a little less than the socket timeout: the caller loops)."""
        key = self.layout.events(self.layout.shard_of(game_id), game_id)
        if self._max_block_ms is not None:
            block_ms = min(block_ms, self._max_block_ms)
        got = await self.r.xread({key: event_id(after)}, count=count, block=block_ms)
        if not got:
            return []
        _, entries = got[0]
        return [(version_of(eid), fields[b"e"]) for eid, fields in entries]

    async def events_between(self, game_id: str, after: int, upto: int) -> list[tuple[int, bytes]]:
        """Events with ``after < version <= upto`` from the game's hot stream (no wait)."""
        if upto <= after:
            return []
        key = self.layout.events(self.layout.shard_of(game_id), game_id)
        got = await self.r.xrange(key, min=event_id(after + 1), max=event_id(upto))
        return [(version_of(eid), fields[b"e"]) for eid, fields in got]

    async def meta_fields(self, game_id: str, *names: str) -> list[bytes | None]:
        """Some fields of a game's metadata hash."""
        return await self.r.hmget(self.layout.meta(self.layout.shard_of(game_id), game_id), list(names))

"""Where the service's Redis is: REDIS_URL, else an in-process fakeredis server (the embedded default).

With no REDIS_URL, clients and a worker running in the same process share one fakeredis server (with Lua
through ``lupa``), so the very same code runs without any Redis installed.

A Redis Cluster is named by the scheme ``redis+cluster://host:port`` (``rediss+cluster://`` with TLS), any one
node as the seed; or by a plain ``redis://`` URL with ``REDIS_CLUSTER=1`` set. Either way :func:`connect`
returns a ``redis.cluster.RedisCluster``, which the rest of the service uses like a single Redis: every key of a
shard shares one hash tag (one slot), and the few multi-key calls go shard by shard (see services/bus/streams.py).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

import hiredis
import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

if TYPE_CHECKING:
    import fakeredis

_lock = threading.Lock()
_embedded: fakeredis.FakeServer | None = None


def embedded_server() -> fakeredis.FakeServer:
    """The process-wide fakeredis server of the embedded default (created on first use)."""
    # Imported here: a process with REDIS_URL (every `throne` command on a real Redis) never pays for it.
    import fakeredis

    global _embedded
    with _lock:
        if _embedded is None:
            _embedded = fakeredis.FakeServer()
        return _embedded


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""URL schemes that name a Redis Cluster, and the plain scheme each stands for."""


def cluster_url(url: str) -> str | None:
    """The seed URL (plain scheme) when ``url`` names a Redis Cluster, else None.

    A cluster is named by a ``redis+cluster://`` / ``rediss+cluster://`` URL, or by any URL while the
    environment has ``REDIS_CLUSTER=1`` (for tools that only accept ``redis://`` URLs).
    """
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in CLUSTER_SCHEMES:
        return f"{CLUSTER_SCHEMES[scheme.lower()]}://{rest}"
    if os.environ.get("REDIS_CLUSTER", "").strip().lower() in ("1", "true", "yes"):
        return url
    return None


def connect(url: str | None = None, socket_timeout: float | None = None) -> redis.Redis:
    """A Redis client for ``url``, else env REDIS_URL, else the embedded fakeredis server.

    A cluster URL (see :func:`cluster_url`) gives a ``RedisCluster`` client. Responses are bytes (no
    decoding): stream payloads and snapshots are binary-safe that way. ``socket_timeout`` (seconds): how long
    to wait for any answer before raising ``TimeoutError`` (a frozen Redis), which is then not retried (a lost
    connection is, once); it must exceed the longest blocking command the caller sends. None keeps redis-py's
    defaults.
    """
    url = url or os.environ.get("REDIS_URL")
    if url:
        timeouts: dict[str, Any] = {}
        if socket_timeout is not None:
            timeouts = {"socket_timeout": socket_timeout, "socket_connect_timeout": socket_timeout}
            timeouts["retry"] = Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,))
        seed = cluster_url(url)
        if seed is not None:
            # Typed as redis.Redis for the callers: RedisCluster offers the same commands the service uses.
            return RedisCluster.from_url(seed, health_check_interval=30, **timeouts)  # type: ignore[return-value]
        return redis.Redis.from_url(url, health_check_interval=30, **timeouts)
    server = embedded_server()
    import fakeredis

    return fakeredis.FakeRedis(server=server)


def is_embedded(client: redis.Redis) -> bool:
    """Whether ``client`` talks to an in-process fakeredis server (none can while fakeredis is not imported)."""
    fake = sys.modules.get("fakeredis")
    return fake is not None and isinstance(client, fake.FakeRedis)


def is_cluster(client: object) -> bool:
    """Whether ``client`` talks to a Redis Cluster (multi-key commands must then stay within one slot)."""
    return isinstance(client, RedisCluster)


def slot_client(client: redis.Redis, key: str) -> redis.Redis:
    """The plain client of the node that owns ``key``'s slot on a cluster (``client`` itself otherwise).

    redis-py's cluster client spends several times a round trip of Python on routing each command; on the hot
    paths (submitting, waiting for a reply) a command is sent to its node's own client instead. A slot that moved
    meanwhile answers MOVED: see :func:`is_redirect` and :func:`refresh_slots`."""
    if not is_cluster(client):
        return client
    cluster: RedisCluster = client  # type: ignore[assignment]
    return cluster.get_redis_connection(cluster.get_node_from_key(key))


def refresh_slots(client: redis.Redis) -> None:
    """Read a cluster's slot layout again (after a redirect); nothing on a single Redis."""
    if is_cluster(client):
        client.nodes_manager.initialize()  # type: ignore[attr-defined]


def is_redirect(err: BaseException) -> bool:
    """Whether an error is a cluster redirect (the slot moved or is moving, or the cluster is failing over): retry
    after :func:`refresh_slots`. By class: redis-py parses ``MOVED 12 host:port`` into a :class:`MovedError` whose
    text no longer starts with ``MOVED``."""
    return isinstance(err, _REDIRECTS)


_REDIRECTS = (redis.exceptions.AskError, redis.exceptions.TryAgainError, redis.exceptions.ClusterDownError)
"""MOVED and ASK (MovedError is an AskError), TRYAGAIN, CLUSTERDOWN."""


_WIRE_CONNECTIONS = (redis.Connection, redis.SSLConnection, redis.UnixDomainSocketConnection)


def pipeline_packed(client: redis.Redis, commands: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    """:func:`pipeline_by_slot` for commands whose replies need no parsing callback (EVALSHA): on a single Redis
    the commands are packed straight by hiredis and their replies read as they come.

    redis-py's pipeline encodes every argument in Python first, which cost the rules worker more than its
    decisions (a commit has some 50 arguments); the write and the reading of the replies are the same. A lost
    connection is retried as redis-py's pipeline does (the client's retry policy); an error reply is returned
    as its exception."""
    if is_cluster(client) or client.connection_pool.connection_class not in _WIRE_CONNECTIONS:
        return pipeline_by_slot(client, commands)  # (a cluster routes by slot; fakeredis has no wire)
    packed = [b"".join([hiredis.pack_command(args) for _, args in commands])]  # (one write: a list of chunks)
    pool = client.connection_pool
    conn = pool.get_connection()

    def round_trip() -> list[Any]:
        conn.send_packed_command(packed)
        out: list[Any] = []
        for _ in commands:
            try:
                out.append(conn.read_response())
            except redis.ResponseError as exc:
                out.append(exc)
        return out

    try:
        return conn.retry.call_with_retry(round_trip, lambda _: conn.disconnect())
    except BaseException:
        conn.disconnect()  # (replies may be left on the socket: it must not go back to the pool as it is)
        raise
    finally:
        pool.release(conn)


def pipeline_by_slot(client: redis.Redis, commands: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    """Run each command (the key that routes it, then its ``execute_command`` arguments), pipelined, in order;
    one result per command (an error reply is returned as its exception; a lost connection raises).

    On a cluster, one plain pipeline per node, sent to the node that owns the command's slot: redis-py's cluster
    pipeline routes each command in Python, and asks the server for the keys of every EVALSHA (``COMMAND
    GETKEYS``, a round trip each, the better part of a commit's time). A command redirected meanwhile (slots
    moving, a failover) runs again through the cluster client once the slot layout is read again; the commands
    of one slot keep their order."""
    if not is_cluster(client):
        pipe = client.pipeline(transaction=False)
        for _, args in commands:
            pipe.execute_command(*args)
        return list(pipe.execute(raise_on_error=False))
    by_node: dict[int, tuple[redis.Redis, list[int]]] = {}
    for i, (key, _) in enumerate(commands):
        node = slot_client(client, key)
        by_node.setdefault(id(node), (node, []))[1].append(i)
    out: list[Any] = [None] * len(commands)
    redirected: list[int] = []
    for node, indexes in by_node.values():
        pipe = node.pipeline(transaction=False)
        for i in indexes:
            pipe.execute_command(*commands[i][1])
        for i, res in zip(indexes, pipe.execute(raise_on_error=False), strict=True):
            if isinstance(res, Exception) and is_redirect(res):
                redirected.append(i)
            else:
                out[i] = res
    if redirected:
        refresh_slots(client)
        pipe = client.pipeline(transaction=False)
        for i in redirected:
            pipe.execute_command(*commands[i][1])
        for i, res in zip(redirected, pipe.execute(raise_on_error=False), strict=True):
            out[i] = res
    return out

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
import threading
from typing import Any

import fakeredis
import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

_lock = threading.Lock()
_embedded: fakeredis.FakeServer | None = None


def embedded_server() -> fakeredis.FakeServer:
    """The process-wide fakeredis server of the embedded default (created on first use)."""
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
    return fakeredis.FakeRedis(server=embedded_server())


def is_embedded(client: redis.Redis) -> bool:
    """Whether ``client`` talks to an in-process fakeredis server."""
    return isinstance(client, fakeredis.FakeRedis)


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
    """Whether an error is a cluster redirect (the slot moved or is moving): retry after :func:`refresh_slots`."""
    return _is_redirect(err)  # type: ignore[arg-type]


def _is_redirect(err: Exception) -> bool:
    return isinstance(err, redis.ResponseError) and str(err).startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"))


def evalsha_many(client: redis.Redis, calls: list[tuple[str, list[str], list[Any]]]) -> list[Any]:
    """Run ``EVALSHA sha keys args`` for each call, pipelined, in order; one result per call (an error reply is
    returned as its exception; a lost connection raises). Each call's keys must share one slot.

    On a cluster, one plain pipeline per node, sent to the node that owns the call's slot: redis-py's cluster
    pipeline would first ask the server for the keys of every EVALSHA (``COMMAND GETKEYS``, a round trip each,
    the better part of a commit's time). A call redirected meanwhile (slots moving, a failover) runs again
    through the cluster client, after the topology is read again; calls of one slot keep their order."""
    if not is_cluster(client):
        pipe = client.pipeline(transaction=False)
        for sha, keys, args in calls:
            pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        return list(pipe.execute(raise_on_error=False))
    cluster: RedisCluster = client  # type: ignore[assignment]
    by_node: dict[str, tuple[Any, list[int]]] = {}
    for i, (_, keys, _) in enumerate(calls):
        node = cluster.get_node_from_key(keys[0])
        by_node.setdefault(node.name, (node, []))[1].append(i)
    out: list[Any] = [None] * len(calls)
    redirected: list[int] = []
    for node, indexes in by_node.values():
        pipe = cluster.get_redis_connection(node).pipeline(transaction=False)
        for i in indexes:
            sha, keys, args = calls[i]
            pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        for i, res in zip(indexes, pipe.execute(raise_on_error=False), strict=True):
            if isinstance(res, Exception) and _is_redirect(res):
                redirected.append(i)
            else:
                out[i] = res
    if redirected:
        cluster.nodes_manager.initialize()
        pipe = cluster.pipeline(transaction=False)
        for i in sorted(redirected):
            sha, keys, args = calls[i]
            pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        for i, res in zip(sorted(redirected), pipe.execute(raise_on_error=False), strict=True):
            out[i] = res
    return out

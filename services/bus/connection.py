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

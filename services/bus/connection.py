"""Where the service's Redis is: REDIS_URL, else an in-process fakeredis server (the embedded default).

With no REDIS_URL, clients and a worker running in the same process share one fakeredis server (with Lua
through ``lupa``), so the very same code runs without any Redis installed.
"""

from __future__ import annotations

import os
import threading

import fakeredis
import redis

_lock = threading.Lock()
_embedded: fakeredis.FakeServer | None = None


def embedded_server() -> fakeredis.FakeServer:
    """The process-wide fakeredis server of the embedded default (created on first use)."""
    global _embedded
    with _lock:
        if _embedded is None:
            _embedded = fakeredis.FakeServer()
        return _embedded


def connect(url: str | None = None) -> redis.Redis:
    """A Redis client for ``url``, else env REDIS_URL, else the embedded fakeredis server.

    Responses are bytes (no decoding): stream payloads and snapshots are binary-safe that way.
    """
    url = url or os.environ.get("REDIS_URL")
    if url:
        return redis.Redis.from_url(url, health_check_interval=30)
    return fakeredis.FakeRedis(server=embedded_server())


def is_embedded(client: redis.Redis) -> bool:
    """Whether ``client`` talks to an in-process fakeredis server."""
    return isinstance(client, fakeredis.FakeRedis)

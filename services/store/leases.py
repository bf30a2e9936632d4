"""Writer leases of the shards: take, renew and release them (``lease.lua``, ``release.lua``).

A lease value is ``<fencing token>:<worker id>``; every new acquisition hands out a strictly larger token, and the
commit script compares the lease with the writer's token before it writes anything.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence

import redis

from services.bus.keys import Layout
from services.store.scripts import Scripts


class LeaseStore:
    """The lease scripts of one Redis and key layout."""

    def __init__(self, client: redis.Redis, layout: Layout, scripts: Scripts | None = None) -> None:
        self.r = client
        self.layout = layout
        self.scripts = scripts or Scripts.load_or_expect(client)

    def refresh(
        self, shards: Sequence[int], held: Mapping[int, str], ttl_ms: int, worker_id: str
    ) -> list[str | Exception | None]:
        """Renew the held leases and try to take the free ones, in one pipeline. Per shard: the lease value now
        held by this worker, None (another worker holds it), or the error Redis answered."""
        pipe = self.r.pipeline(transaction=False)
        for shard in shards:
            # execute_command, not pipe.evalsha: redis-py refuses the latter in cluster pipelines.
            pipe.execute_command(
                "EVALSHA",
                self.scripts.lease,
                2,
                self.layout.lease(shard),
                self.layout.fence(shard),
                held.get(shard, ""),
                ttl_ms,
                worker_id,
            )
        out: list[str | Exception | None] = []
        for value in pipe.execute(raise_on_error=False):
            if isinstance(value, Exception) or value is None:
                out.append(value)
            else:
                out.append(value.decode() if isinstance(value, bytes) else str(value))
        return out

    def release(self, shard: int, value: str) -> None:
        """Give up a lease if it is still ``value`` (best effort: an unreachable Redis lets it expire)."""
        with contextlib.suppress(redis.RedisError):
            self.r.evalsha(self.scripts.release, 1, self.layout.lease(shard), value)

"""The shards a rules worker writes: their leases, renewed every third of their lifetime.

A lease is ``<fencing token>:<worker id>`` with a TTL (services/store/leases.py). The keeper renews the held
ones and tries to take the free ones in one pipeline, and says which it took and which it lost; the worker
claims a taken shard's pending entries before reading anything new of it, and forgets what it knew of a lost one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.bus.faults import Outage, is_transient
from services.store.leases import LeaseStore


@dataclass(frozen=True, slots=True)
class LeaseChanges:
    """What one refresh changed: shards newly taken, and shards lost (with why)."""

    taken: list[int] = field(default_factory=list)
    lost: list[tuple[int, str]] = field(default_factory=list)


class LeaseKeeper:
    """The leases one worker holds among ``shards``."""

    def __init__(self, store: LeaseStore, shards: Sequence[int], worker_id: str, ttl_ms: int, outage: Outage) -> None:
        self.store = store
        self.shards = list(shards)
        self.worker_id = worker_id
        self.ttl_ms = ttl_ms
        self.outage = outage
        self.held: dict[int, str] = {}
        """Shard -> lease value (fencing token) this worker holds."""
        self.next_renew = 0.0
        self.faulted = False
        """Whether the last refresh met a transient Redis fault (the worker is not through it yet)."""

    def due(self, now: float) -> bool:
        """Whether the leases should be renewed now."""
        return now >= self.next_renew

    def refresh(self) -> LeaseChanges:
        """Renew held leases and try to take free ones. A transient Redis fault keeps a held lease held until it
        really expires (the commit's fencing check knows); any other error reply is raised."""
        changes = LeaseChanges()
        self.faulted = True  # until the refresh below went through
        faulted = False
        for shard, value in zip(
            self.shards, self.store.refresh(self.shards, self.held, self.ttl_ms, self.worker_id), strict=True
        ):
            held = self.held.get(shard)
            if isinstance(value, Exception):
                if not is_transient(value):
                    raise value
                # (Renewing a held lease is a PEXPIRE, which Redis allows even out of memory; taking a free one
                # is not.)
                self.outage.failed(value, shard=shard, during="lease")
                faulted = True
                continue
            if value is None:
                if held is not None:
                    changes.lost.append((shard, "lease taken by another worker"))
                    self.held.pop(shard, None)
                continue
            if value != held:
                if held is not None:
                    changes.lost.append((shard, "lease expired"))
                self.held[shard] = value
                changes.taken.append(shard)
        self.next_renew = time.monotonic() + (self.ttl_ms / 3000 if not faulted else min(self.ttl_ms / 3000, 0.25))
        self.faulted = faulted
        return changes

    def drop(self, shard: int) -> None:
        """Stop serving ``shard`` on its current lease (lost, fenced, or not safely taken)."""
        self.held.pop(shard, None)

    def fence(self, shard: int) -> str:
        """The lease value a commit to ``shard`` is fenced with."""
        return self.held[shard]

    def release(self) -> None:
        """Give up every lease held (graceful stop), so another worker can take over at once."""
        for shard, value in list(self.held.items()):
            self.store.release(shard, value)
            self.held.pop(shard, None)

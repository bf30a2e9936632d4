"""Suspect commands: telling "the worker died" from "this command kills the worker".

An entry delivered more than ``max_attempts`` times without an outcome is only *suspect*: workers died while
holding it, which may as well be the host's fault (killed, out of memory, restarted by an orchestrator) as the
command's. Before it is dead-lettered it is decided **alone**, by itself, outside any batch, under a marker in
Redis (the shard's ``suspects`` hash: entry id -> the worker deciding it), set before deciding and removed once
its commit is through:

* the attempt goes through: the command is committed once like any other (or refused, or failed on its own
  content, and counted as such); the marker goes;
* the worker dies during the attempt: the marker stays, and the next worker to claim the entry finds it. Then,
  and only then, is the command blamed: it goes to the dead letters ("killed a worker when decided alone").

A worker dying while it holds the entry in a batch (before the isolated attempt) leaves no marker, so a crash
loop of the host never dead-letters a valid command; it costs one isolated attempt per further delivery.
"""

from __future__ import annotations

import redis

from services.bus.keys import Layout

MARKER_TTL_MS = 7 * 24 * 3600 * 1000
"""How long a shard's markers are kept after the last one was set (a marker is normally removed in
milliseconds; one left by a dead worker is read at the next claim, seconds later)."""


class Suspects:
    """The markers of suspect entries being decided alone, for one worker."""

    def __init__(self, client: redis.Redis, layout: Layout, worker_id: str) -> None:
        self.r = client
        self.layout = layout
        self.worker_id = worker_id

    def blamed(self, shard: int, entry_id: bytes) -> str | None:
        """The worker that died deciding ``entry_id`` alone (its marker is still there), else None."""
        got = self.r.hget(self.layout.suspects(shard), entry_id)
        if got is None:
            return None
        owner = got.decode() if isinstance(got, bytes) else str(got)
        return owner if owner != self.worker_id else None  # (this worker's own marker: it did not die)

    def deciding(self, shard: int, entry_id: bytes) -> None:
        """Mark ``entry_id`` as being decided alone by this worker (before deciding it)."""
        key = self.layout.suspects(shard)
        pipe = self.r.pipeline(transaction=False)
        pipe.hset(key, entry_id, self.worker_id)
        pipe.pexpire(key, MARKER_TTL_MS)
        pipe.execute()

    def done(self, shard: int, entry_id: bytes) -> None:
        """The isolated attempt is over (committed, refused, failed, or left for a retry): no blame."""
        self.r.hdel(self.layout.suspects(shard), entry_id)

"""Tuning of a rules worker."""

from __future__ import annotations

from dataclasses import dataclass

from services.bus import envelope as env_mod
from services.store.commit import CommitPolicy


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Tuning of a rules worker. The defaults suit production; tests shorten the timings."""

    batch: int = 256
    """XREADGROUP COUNT per shard stream: commands decided and committed per pipeline."""
    block_ms: int = 100
    """How long one read blocks when all streams are empty."""
    lease_ttl_ms: int = 5000
    """Lease lifetime; the lease is renewed every third of it. A dead worker's shards move after this."""
    claim_idle_ms: int = 10_000
    """A pending entry of another consumer idle this long is claimed (its worker is presumed dead)."""
    recover_every_ms: int = 2000
    max_attempts: int = 3
    """Failures (or deliveries) of one entry before it goes to the dead-letter stream."""
    snapshot_every: int = 50
    """A snapshot is written each time a game's version crosses a multiple of this."""
    cache_size: int = 10_000
    """Game states kept in memory (LRU)."""
    reply_ttl_ms: int = 60_000
    outcome_ttl_ms: int = 24 * 3600 * 1000
    """How long the outcome of an accepted (or dead-lettered) command is kept, i.e. how long a retried command
    is recognised as a duplicate: far longer than any client retries (seconds to minutes)."""
    rejected_ttl_ms: int = 10 * 60 * 1000
    """How long the outcome of a rejected command (or creation) is kept: a rejection changed nothing, so a
    retry after this is simply decided again."""
    max_logged_rejections: int = 64
    """Rejected commands of one seat kept in a game's command log (the audit); beyond, only a counter grows."""
    retry_first_ms: int = 10
    retry_cap_ms: int = 2000
    """Backoff between commits retried after a transient Redis fault (jittered, doubling up to the cap)."""
    feed_maxlen: int = 100_000
    max_payload: int = env_mod.MAX_PAYLOAD
    archive_after_ms: int = 3600 * 1000
    """An ended game is moved off the hot path (into its archive) this long after its end."""
    maintenance_every_ms: int = 5000
    forget_consumer_after_ms: int = 3_600_000
    """A consumer (a worker process) with nothing pending, idle this long, is removed from the group."""
    cluster_poll_ms: int = 10
    """On a Redis Cluster (no multi-slot blocking read): the longest pause between polls of idle shards."""

    def commit_policy(self) -> CommitPolicy:
        """The store-wide settings of this worker's commits."""
        return CommitPolicy(
            reply_ttl_ms=self.reply_ttl_ms,
            feed_maxlen=self.feed_maxlen,
            max_logged_rejections=self.max_logged_rejections,
        )

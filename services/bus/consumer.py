"""The one consumer building block: a consumer group over the shards' streams, and the loop that serves it.

The rules worker (command streams, group ``rules``), the projection workers (feeds, group ``proj:<model>``) and
the bots (feeds, group ``bots``, no acks) all read this way:

* :class:`GroupConsumer` reads new entries of any set of shards (one XREADGROUP on a single Redis; one per shard,
  pipelined per node, on a Redis Cluster: :class:`~services.bus.streams.GroupReader`), re-reads the consumer's
  own pending entries without counting a delivery (XPENDING + XRANGE), claims the idle entries of dead consumers
  with their delivery counts (XAUTOCLAIM), acks, and forgets consumers long gone.
* :class:`PendingFirst` is the reading order of a consumer that acks what it handled (the projection workers, the
  webhooks followers): after a (re)start its own pending entries first, shard by shard, then new entries; and
  every so often the idle entries of dead consumers, taken over and read like its own pending ones.
* :class:`ConsumerLoop` runs a consumer's ``step`` until stopped: a transient Redis fault (services/bus/faults.py)
  is waited out with capped, jittered backoff and logged once per episode (the loop is a part of the process's
  readiness meanwhile: services/bus/readiness.py); any other error is logged with its
  trace and retried after a growing pause; the consumer's ``on_error`` hook says what to read again.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from services.bus.connection import is_cluster
from services.bus.faults import Backoff, Outage, fault_kind, is_transient
from services.bus.readiness import PROCESS, Readiness
from services.bus.streams import GroupReader
from services.metrics import catalog as metrics

Fields = dict[bytes, bytes]
Entry = tuple[int, bytes, Fields | None]
"""(shard, stream entry id, fields) as read from a shard's stream (fields None: the entry was deleted meanwhile)."""


@dataclass(frozen=True, slots=True)
class Claimed:
    """An entry taken over from another consumer, with how often it was delivered so far."""

    entry: Entry
    delivered: int


def _raw_reply(response: Any, **options: Any) -> Any:
    return response


class GroupConsumer:
    """One consumer (``consumer``) of one group (``group``) over the streams ``stream(shard)``."""

    def __init__(
        self,
        client: redis.Redis,
        group: str,
        consumer: str,
        stream: Callable[[int], str],
        *,
        batch: int,
        cluster_poll_ms: int = 10,
        watch: bool = False,
    ) -> None:
        self.r = client
        self.group = group
        self.consumer = consumer
        self.stream = stream
        self.batch = batch
        self._reader = GroupReader(client, group, consumer, poll_ms=cluster_poll_ms, watch=watch)
        self._raw: redis.Redis | None = None
        if not is_cluster(client):
            # A client of its own on the same pool whose XREADGROUP replies stay raw lists: redis-py turns every
            # entry into a dict the slow way (the biggest cost of following a busy stream), this does it in C.
            self._raw = redis.Redis(connection_pool=client.connection_pool)
            self._raw.set_response_callback("XREADGROUP", _raw_reply)

    # --- groups ---------------------------------------------------------------------------------------
    def create_groups(self, shards: Iterable[int], start: str = "0") -> list[int]:
        """Create the group on each shard's stream (and the stream), from entry ``start`` (``"0"``: everything,
        ``"$"``: new entries only); returns the shards where it was created now."""
        created = []
        for shard in shards:
            try:
                self.r.xgroup_create(self.stream(shard), self.group, id=start, mkstream=True)
                created.append(shard)
            except redis.ResponseError as err:
                if "BUSYGROUP" not in str(err):
                    raise
        return created

    # --- reading --------------------------------------------------------------------------------------
    def read(self, shards: Sequence[int], block_ms: int, *, noack: bool = False) -> list[Entry]:
        """New entries of ``shards``, at most ``batch`` per shard, blocking up to ``block_ms`` while there are
        none. ``noack``: not kept pending (for readers to whom an entry is only a hint)."""
        if not shards:
            return []
        streams = {self.stream(s): ">" for s in shards}
        by_key = {key.encode(): s for s, key in zip(shards, streams, strict=True)}
        out: list[Entry] = []
        for key, entries in self._read(streams, block_ms, noack):
            shard = by_key[key]
            out.extend((shard, eid, fields) for eid, fields in entries)
        return out

    def _read(self, streams: dict[str, str], block_ms: int, noack: bool) -> list[tuple[bytes, list[Any]]]:
        if self._raw is None:
            return self._reader.read(streams, count=self.batch, block_ms=block_ms, noack=noack)
        res = self._raw.xreadgroup(
            self.group, self.consumer, streams, count=self.batch, block=block_ms if block_ms > 0 else None, noack=noack
        )
        out = []
        # A list of [key, entries] pairs (RESP2), or a map of them (RESP3, and fakeredis).
        for key, entries in res.items() if isinstance(res, dict) else res or ():
            if entries:
                # [id, [f1, v1, f2, v2, ...]] -> (id, {f1: v1, ...}); a deleted entry has no fields (None)
                out.append((key, [(eid, dict(zip(f[::2], f[1::2], strict=True)) if f else None) for eid, f in entries]))
        return out

    def pending(self, shard: int, count: int | None = None) -> list[Entry]:
        """This consumer's own pending entries of ``shard`` (read earlier, not acked yet), oldest first.

        XPENDING then XRANGE rather than XREADGROUP from id 0, which would count one more delivery of each:
        reading them again after a fault must not look like a consumer dying on them."""
        key = self.stream(shard)
        pending = self.r.xpending_range(key, self.group, "-", "+", count or self.batch, consumername=self.consumer)
        ids = [p["message_id"] for p in pending]
        if not ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for eid in ids:
            pipe.xrange(key, eid, eid)
        return [(shard, eid, got[0][1] if got else None) for eid, got in zip(ids, pipe.execute(), strict=True)]

    def claim_idle(self, shard: int, min_idle_ms: int, *, pages: int = 100, counts: bool = True) -> list[Claimed]:
        """Take over the entries of ``shard`` pending in any consumer for at least ``min_idle_ms`` (at most
        ``pages`` batches: a huge backlog is finished over the next calls), with their delivery counts
        (``counts=False``: not asked for, each says 1)."""
        key = self.stream(shard)
        out: list[Claimed] = []
        start: bytes | str = "0-0"
        for _ in range(pages):
            try:
                start, claimed, _deleted = self.r.xautoclaim(
                    key, self.group, self.consumer, min_idle_ms, start_id=start, count=self.batch
                )[:3]
            except redis.ResponseError:  # NOGROUP: nothing was ever read here
                break
            if claimed and not counts:
                out.extend(Claimed((shard, eid, fields), 1) for eid, fields in claimed)
            elif claimed:
                ids = [eid for eid, _ in claimed]
                delivered = {
                    p["message_id"]: p["times_delivered"]
                    for p in self.r.xpending_range(
                        key, self.group, min=ids[0], max=ids[-1], count=len(ids) + 1000, consumername=self.consumer
                    )
                }
                out.extend(Claimed((shard, eid, fields), int(delivered.get(eid, 1))) for eid, fields in claimed)
            if start in (b"0-0", "0-0"):
                break
        return out

    # --- acks and housekeeping ------------------------------------------------------------------------
    def ack(self, entries: Iterable[tuple[int, bytes]]) -> None:
        """Acknowledge ``(shard, entry id)`` pairs, one XACK per shard, in one pipeline."""
        by_shard: dict[int, list[bytes]] = {}
        for shard, eid in entries:
            by_shard.setdefault(shard, []).append(eid)
        if not by_shard:
            return
        pipe = self.r.pipeline(transaction=False)
        for shard, ids in by_shard.items():
            pipe.xack(self.stream(shard), self.group, *ids)
        pipe.execute()

    def forget_idle_consumers(self, shard: int, idle_ms: int) -> int:
        """Remove the other consumers of ``shard``'s group that have nothing pending and were silent for
        ``idle_ms`` (processes long gone); returns how many."""
        key = self.stream(shard)
        gone = 0
        with contextlib.suppress(redis.ResponseError):  # NOGROUP
            for consumer in self.r.xinfo_consumers(key, self.group):
                name = consumer["name"].decode() if isinstance(consumer["name"], bytes) else consumer["name"]
                if name != self.consumer and consumer["pending"] == 0 and consumer["idle"] >= idle_ms:
                    self.r.xgroup_delconsumer(key, self.group, name)
                    gone += 1
        return gone


class PendingFirst:
    """Reads ``consumer``'s ``shards`` in the order that loses nothing when its entries are acked once handled.

    :meth:`restart` (at a start, after an error) marks every shard pending: :meth:`read` then returns this
    consumer's own pending entries (read before, never acked) before anything new, a batch per shard, and drops
    a shard from :attr:`pending` once fewer than a batch come back. :meth:`claim_idle_when_due` takes over, every
    ``recover_every_ms``, the entries other (dead) consumers left pending for ``claim_idle_ms``: they become this
    consumer's pending entries, and their shards are marked pending so the next reads return them.
    """

    def __init__(
        self, consumer: GroupConsumer, shards: Iterable[int], *, claim_idle_ms: int, recover_every_ms: int
    ) -> None:
        self.consumer = consumer
        self.shards = list(shards)
        self.claim_idle_ms = claim_idle_ms
        self.recover_every_ms = recover_every_ms
        self.pending: set[int] = set()
        """Shards whose own pending entries are to be read (again) before new ones."""
        self._next_recover = 0.0

    def restart(self) -> None:
        """Read every shard's own pending entries again before anything new (what was read and not acked)."""
        self.pending = set(self.shards)

    def read(self, block_ms: int) -> list[Entry]:
        """Own pending entries of the pending shards (a batch each) if there are any; else new entries of every
        shard, blocking up to ``block_ms`` while there are none."""
        out: list[Entry] = []
        for shard in sorted(self.pending):
            got = self.consumer.pending(shard)
            if len(got) < self.consumer.batch:
                self.pending.discard(shard)
            out.extend(got)
        if out:
            return out
        return self.consumer.read(self.shards, block_ms)

    def claim_idle_when_due(self, now: float) -> None:
        """:meth:`claim_idle` if ``recover_every_ms`` have passed since the last time (``now``: monotonic s)."""
        if now >= self._next_recover:
            self.claim_idle()
            self._next_recover = now + self.recover_every_ms / 1000

    def claim_idle(self) -> None:
        """Take over the entries other consumers left idle for ``claim_idle_ms`` (a batch per shard; a backlog
        goes on next time): they are read with the next batch, as this consumer's own pending entries."""
        for shard in self.shards:
            if self.consumer.claim_idle(shard, self.claim_idle_ms, pages=1, counts=False):
                self.pending.add(shard)


_parts = itertools.count(1)
"""Numbers the loops of a process, for their part names in its readiness."""


class ConsumerLoop:
    """Runs a consumer's ``step`` until stopped, waiting out Redis faults and logging errors once each.

    ``faults`` is the backoff of transient Redis faults (also for a consumer's own retries, so both grow
    together); ``outage`` logs an episode once when it starts and once, summed up, when it ends.
    """

    def __init__(
        self,
        log: Any,
        name: str,
        *,
        retry_first_ms: int = 10,
        retry_cap_ms: int = 2000,
        readiness: Readiness | None = PROCESS,
    ) -> None:
        self.log = log
        self.name = name
        self.faults = Backoff(retry_first_ms / 1000, retry_cap_ms / 1000)
        self.errors = Backoff(0.05, 2.0)
        # While it runs, the loop is a part of the process's readiness: not ready until a step goes through,
        # waiting while Redis refuses (services/bus/readiness.py).
        self.outage = Outage(log, part=f"{name}#{next(_parts)}", readiness=readiness)

    def run(
        self,
        step: Callable[[], object],
        stop: threading.Event,
        *,
        on_error: Callable[[Exception], None] | None = None,
        healthy: Callable[[], bool] | None = None,
    ) -> None:
        """Call ``step`` until ``stop`` is set. After an error ``on_error`` runs, then the loop waits (a Redis
        fault: the growing jittered backoff; anything else: a growing pause). ``healthy``: whether a step that
        returned means Redis is fine again (default: yes), which ends a fault episode."""
        self.outage.start()
        try:
            while not stop.is_set():
                try:
                    step()
                except Exception as exc:
                    delay = self._failed(exc, on_error)
                    if delay:
                        stop.wait(delay)
                    continue
                self.errors.reset()
                if healthy is None or healthy():
                    self.faults.reset()
                    self.outage.recovered()
        finally:
            self.outage.stop()

    def _failed(self, exc: Exception, on_error: Callable[[Exception], None] | None) -> float:
        """Log ``exc``, run the hook, and say how long to wait."""
        if isinstance(exc, redis.exceptions.NoScriptError):  # (not exported as redis.NoScriptError)
            metrics.redis_error(fault_kind(exc))
            delay = 0.0  # Redis restarted or flushed its scripts: the hook loads them again, no pause
        elif is_transient(exc):
            self.outage.failed(exc)  # logged once per episode, not once per attempt (counted there)
            delay = self.faults.next()
        else:
            if isinstance(exc, redis.RedisError):
                metrics.redis_error(fault_kind(exc))  # a script error, a wrong type: not transient, still Redis
            self.log.exception(f"{self.name}.error", error=repr(exc))
            delay = self.errors.next()
        if on_error is not None:
            try:
                on_error(exc)
            except Exception as hook_exc:  # e.g. reloading the scripts met the same Redis trouble
                if is_transient(hook_exc):
                    self.outage.failed(hook_exc)
                else:
                    self.log.exception(f"{self.name}.error", error=repr(hook_exc))
                delay = max(delay, self.faults.next())
        return delay

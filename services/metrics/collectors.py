"""What a process reports when Prometheus scrapes it, computed then (never on a command's path).

* :class:`StreamGroups`: the pending entries and the lag of this process's consumer groups on each shard's
  stream (``XINFO GROUPS``: entries read but not acked, entries not read yet).
* :class:`DeadLettersStored`: the entries in each shard's dead-letter stream (``XLEN``).
* :class:`AlarmsDue`: the clocked games whose next alarm is due now, per shard (``ZCOUNT``): the timer's backlog.
* :class:`StatsCounters`: a process's own in-memory tallies (the ``stats`` counters the loops already keep) as
  one counter family, by a label of fixed values.

Every Redis read goes through its own client (a short socket timeout: a frozen Redis makes a scrape come back
without those samples, it never hangs the scrape). A failed read is counted in ``throne_redis_errors_total``
and leaves its family without samples; the process goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from services.bus.connection import is_cluster
from services.bus.faults import LogThrottle, fault_kind
from services.bus.keys import Layout
from services.log import get_logger
from services.metrics import catalog


@dataclass(frozen=True, slots=True)
class Family:
    """A metric family a collector reports: its name (a counter's without ``_total``), type, help and labels."""

    name: str
    kind: str  # "gauge" | "counter"
    doc: str
    labels: tuple[str, ...]

    def empty(self) -> GaugeMetricFamily | CounterMetricFamily:
        """The family with no samples yet."""
        if self.kind == "counter":
            return CounterMetricFamily(self.name, self.doc, labels=list(self.labels))
        return GaugeMetricFamily(self.name, self.doc, labels=list(self.labels))


@dataclass(frozen=True, slots=True)
class StreamGroup:
    """One consumer group this process reads: a short name of the stream (``cmds``, ``feed``, ...), the key of
    a shard's stream, and the group."""

    stream: str
    key: Callable[[int], str]
    group: str


class ScrapeCollector(Collector):
    """A collector whose families are fixed (``FAMILIES``) and filled at each scrape by :meth:`fill`."""

    FAMILIES: tuple[Family, ...] = ()
    _log_throttle = LogThrottle(60.0)

    def describe(self) -> Iterable[Metric]:
        """The families without samples: registering a collector never reads Redis."""
        return [f.empty() for f in self.FAMILIES]

    def collect(self) -> Iterable[Metric]:
        """The families with this scrape's samples (none where reading them failed)."""
        families = {f.name: f.empty() for f in self.FAMILIES}
        try:
            self.fill(families)
        except Exception as exc:
            if isinstance(exc, redis.RedisError | OSError):
                catalog.redis_error(fault_kind(exc))
            if (suppressed := self._log_throttle.ready()) is not None:
                get_logger("metrics").warning(
                    "metrics.scrape_failed", collector=type(self).__name__, error=repr(exc)[:300], suppressed=suppressed
                )
            families = {f.name: f.empty() for f in self.FAMILIES}
        return list(families.values())

    def fill(self, families: dict[str, Any]) -> None:
        """Add this scrape's samples to ``families`` (by name)."""
        raise NotImplementedError


def _per_shard(client: redis.Redis, calls: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    """Run ``calls`` (method name, arguments), pipelined on one Redis (one round trip), one by one on a cluster
    (each key on its own node); an error reply comes back as the exception, in its place."""
    if not is_cluster(client):
        pipe = client.pipeline(transaction=False)
        for name, args in calls:
            getattr(pipe, name)(*args)
        return list(pipe.execute(raise_on_error=False))
    out: list[Any] = []
    for name, args in calls:
        try:
            out.append(getattr(client, name)(*args))
        except redis.ResponseError as exc:
            out.append(exc)
    return out


class StreamGroups(ScrapeCollector):
    """Pending entries and lag of ``groups`` on each of ``shards`` (absent while a group does not exist yet)."""

    FAMILIES = (
        Family("throne_stream_group_pending", "gauge",
               "Entries delivered to the group and not acked yet, per stream, group and shard.",
               ("stream", "group", "shard")),
        Family("throne_stream_group_lag", "gauge",
               "Entries of the stream the group has not read yet, per stream, group and shard.",
               ("stream", "group", "shard")),
    )  # fmt: skip

    def __init__(self, client: redis.Redis, groups: Sequence[StreamGroup], shards: Iterable[int]) -> None:
        self.r = client
        self.groups = list(groups)
        self.shards = sorted(set(shards))

    def fill(self, families: dict[str, Any]) -> None:
        """One ``XINFO GROUPS`` per stream key (the groups of one stream share it)."""
        by_stream: dict[tuple[str, int], list[StreamGroup]] = {}
        keys: dict[tuple[str, int], str] = {}
        for g in self.groups:
            for shard in self.shards:
                by_stream.setdefault((g.stream, shard), []).append(g)
                keys[(g.stream, shard)] = g.key(shard)
        order = list(by_stream)
        replies = _per_shard(self.r, [("xinfo_groups", (keys[k],)) for k in order])
        pending, lag = families["throne_stream_group_pending"], families["throne_stream_group_lag"]
        for (stream, shard), reply in zip(order, replies, strict=True):
            if isinstance(reply, Exception):
                if "no such key" in str(reply).lower():
                    continue  # nothing sent on that shard yet
                raise reply
            info = {_text(row.get("name")): row for row in reply}
            for g in by_stream[(stream, shard)]:
                row = info.get(g.group)
                if row is None:
                    continue
                labels = [stream, g.group, str(shard)]
                pending.add_metric(labels, float(row.get("pending") or 0))
                if row.get("lag") is not None:  # unknown after deletions in the middle of the stream
                    lag.add_metric(labels, float(row["lag"]))


class DeadLettersStored(ScrapeCollector):
    """Entries in each shard's dead-letter stream (an operator retries or discards them: ``throne dead-letters``)."""

    FAMILIES = (
        Family("throne_dead_letters_stored", "gauge", "Entries in the shard's dead-letter stream.", ("shard",)),
    )

    def __init__(self, client: redis.Redis, layout: Layout, shards: Iterable[int]) -> None:
        self.r = client
        self.layout = layout
        self.shards = sorted(set(shards))

    def fill(self, families: dict[str, Any]) -> None:
        """One ``XLEN`` per shard."""
        replies = _per_shard(self.r, [("xlen", (self.layout.dead(s),)) for s in self.shards])
        for shard, n in zip(self.shards, replies, strict=True):
            if isinstance(n, Exception):
                raise n
            families["throne_dead_letters_stored"].add_metric([str(shard)], float(n))


class AlarmsDue(ScrapeCollector):
    """Clocked games whose alarm time has passed, per shard: the timer's backlog (near zero while it keeps up)."""

    FAMILIES = (
        Family("throne_timer_alarms_due", "gauge", "Clocked games whose next alarm is due now, per shard.",
               ("shard",)),
    )  # fmt: skip

    def __init__(self, client: redis.Redis, layout: Layout, shards: Iterable[int]) -> None:
        self.r = client
        self.layout = layout
        self.shards = sorted(set(shards))

    def fill(self, families: dict[str, Any]) -> None:
        """One ``ZCOUNT`` per shard (alarms are scored by their time in ms)."""
        now = int(time.time() * 1000)
        replies = _per_shard(self.r, [("zcount", (self.layout.clocks(s), "-inf", now)) for s in self.shards])
        for shard, n in zip(self.shards, replies, strict=True):
            if isinstance(n, Exception):
                raise n
            families["throne_timer_alarms_due"].add_metric([str(shard)], float(n))


class StatsCounters(ScrapeCollector):
    """A process's in-memory tallies (``stats``, a mapping of fixed keys to counts) as one counter family.

    ``family`` names it, ``label`` is the label the keys go to, ``keys`` (when given) which keys to report (each
    one reported, 0 until it happens), ``labels`` constant labels (e.g. the read model).
    """

    def __init__(
        self,
        family: Family,
        sources: Sequence[tuple[Mapping[str, int], Sequence[str]]],
        keys: Sequence[str] | None = None,
    ) -> None:
        self.FAMILIES = (family,)
        self.family = family
        self.sources = list(sources)
        self.keys = keys

    def fill(self, families: dict[str, Any]) -> None:
        """Copy the current counts (reading a dict is safe while the loops update it)."""
        out = families[self.family.name]
        for stats, const in self.sources:
            for key in self.keys if self.keys is not None else sorted(dict(stats)):
                out.add_metric([*const, key], float(stats.get(key, 0)))


class CallbackGauge(ScrapeCollector):
    """One gauge family whose samples ``read`` gives at each scrape (label values, value)."""

    def __init__(self, family: Family, read: Callable[[], Iterable[tuple[Sequence[str], float]]]) -> None:
        self.FAMILIES = (family,)
        self.family = family
        self.read = read

    def fill(self, families: dict[str, Any]) -> None:
        """Ask ``read``."""
        for labels, value in self.read():
            families[self.family.name].add_metric(list(labels), float(value))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def families_of(collectors: Iterable[ScrapeCollector]) -> Iterator[Family]:
    """Every family the given collectors report."""
    for c in collectors:
        yield from c.FAMILIES

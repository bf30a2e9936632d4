"""The scrape-time collectors of each kind of process: what each one reports besides the shared counters.

Each function takes what the process already has (a Redis client of the collectors' own, the key layout, its
shards, its in-memory tallies) and returns the collectors to hand to :func:`services.metrics.endpoint.start`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import redis

from services.bus.keys import BOTS_GROUP, CLOCK_HOOKS_GROUP, DELIVER_GROUP, GROUP, WEBHOOKS_GROUP, Layout
from services.metrics.collectors import (
    AlarmsDue,
    CallbackGauge,
    DeadLettersStored,
    Family,
    ScrapeCollector,
    StatsCounters,
    StreamGroup,
    StreamGroups,
)

WORKER_OUTCOMES = Family(
    "throne_worker_outcomes", "counter",
    "What the rules worker met besides accepted and refused commands: duplicate (a retried command answered "
    "again), id_conflict, conflict (a version moved under a batch), fenced, leases_lost, claimed (entries taken "
    "over from a dead worker), retried (after a Redis fault), loads (games loaded from Redis).",
    ("outcome",),
)  # fmt: skip
WORKER_OUTCOME_KEYS = ("duplicate", "id_conflict", "conflict", "fenced", "leases_lost", "claimed", "retried", "loads")
LEASES_HELD = Family("throne_worker_leases_held", "gauge", "Shards whose lease this rules worker holds.", ())
PROJECTION_STATS = Family(
    "throne_projection_stats", "counter",
    "A read model's work, by stat: events (applied), duplicates (skipped, applied before), backfilled (read from "
    "the event store), stale (checkpoint moved by another writer), failed (games given up on for now).",
    ("model", "stat"),
)  # fmt: skip
PROJECTION_STAT_KEYS = ("events", "duplicates", "backfilled", "stale", "failed")
BOTS_STATS = Family(
    "throne_bots_stats", "counter",
    "The bots process's work, by stat: sent (commands), rejected, failing, feed (entries read), loaded, sweeps.",
    ("stat",),
)  # fmt: skip
BOTS_STAT_KEYS = ("sent", "rejected", "failing", "feed", "loaded", "sweeps")
OPEN_FEEDS = Family(
    "throne_gateway_open_feeds", "gauge", "Live game feeds open in this gateway, by kind (websocket).", ("kind",)
)


def rules_worker(
    client: redis.Redis, layout: Layout, shards: Iterable[int], stats: Mapping[str, int], leases: Mapping[int, str]
) -> list[ScrapeCollector]:
    """Command streams (group ``rules``), dead letters, leases held, the worker's other outcomes."""
    shards = list(shards)
    return [
        StreamGroups(client, [StreamGroup("cmds", layout.cmds, GROUP)], shards),
        DeadLettersStored(client, layout, shards),
        CallbackGauge(LEASES_HELD, lambda: [((), len(leases))]),
        StatsCounters(WORKER_OUTCOMES, [(stats, ())], WORKER_OUTCOME_KEYS),
    ]


def projections(
    client: redis.Redis, layout: Layout, shards: Iterable[int], models: Sequence[tuple[str, str, Mapping[str, int]]]
) -> list[ScrapeCollector]:
    """Each model's group on the feeds and its tallies; ``models``: (model name, its group, its stats)."""
    return [
        StreamGroups(client, [StreamGroup("feed", layout.feed, group) for _, group, _ in models], shards),
        StatsCounters(PROJECTION_STATS, [(stats, (name,)) for name, _, stats in models], PROJECTION_STAT_KEYS),
    ]


def bots(client: redis.Redis, layout: Layout, shards: Iterable[int], stats: Mapping[str, int]) -> list[ScrapeCollector]:
    """The bots' group on the feeds and their tallies."""
    return [
        StreamGroups(client, [StreamGroup("feed", layout.feed, BOTS_GROUP)], shards),
        StatsCounters(BOTS_STATS, [(stats, ())], BOTS_STAT_KEYS),
    ]


def webhooks(client: redis.Redis, layout: Layout, shards: Iterable[int]) -> list[ScrapeCollector]:
    """The followers' groups (feeds, clock notices) and the deliverer's (the outbox)."""
    groups = [
        StreamGroup("feed", layout.feed, WEBHOOKS_GROUP),
        StreamGroup("notices", layout.notices, CLOCK_HOOKS_GROUP),
        StreamGroup("webhooks", layout.webhooks, DELIVER_GROUP),
    ]
    return [StreamGroups(client, groups, shards)]


def timer(client: redis.Redis, layout: Layout, shards: Iterable[int]) -> list[ScrapeCollector]:
    """The alarms due now, per shard."""
    return [AlarmsDue(client, layout, shards)]


def gateway(open_feeds: Callable[[], int]) -> list[ScrapeCollector]:
    """The feeds open now (every live feed of the gateway is a WebSocket)."""
    return [CallbackGauge(OPEN_FEEDS, lambda: [(("websocket",), open_feeds())])]


FAMILIES: tuple[Family, ...] = (
    *StreamGroups.FAMILIES, *DeadLettersStored.FAMILIES, *AlarmsDue.FAMILIES, WORKER_OUTCOMES, LEASES_HELD,
    PROJECTION_STATS, BOTS_STATS, OPEN_FEEDS,
)  # fmt: skip
"""Every family a scrape-time collector of some process reports."""

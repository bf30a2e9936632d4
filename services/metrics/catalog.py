"""Every metric the processes update as they work (counters and histograms), in one place.

Labels stay bounded: a game's name, a rejection code, a read model, an outcome or a fault kind, never a game id
or a seat. What can be read from Redis or from a process's own state when Prometheus scrapes (pending entries,
lag, dead letters stored, open feeds) is not here but in :mod:`services.metrics.collectors`, so the paths that
run per command only ever increment.

The rules worker's per-command path calls :func:`command_accepted` / :func:`command_refused` (a cached child
and one increment); decide and commit times are observed once per batch.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram, disable_created_metrics

# No ``*_created`` series (a start time per counter and histogram child): they double the series and no rule or
# panel reads them (``process_start_time_seconds`` says when a process started).
disable_created_metrics()

# Seconds: a batch's decide or commit takes from tens of microseconds (one command) to a few hundred ms (a full
# batch on a loaded host).
BATCH_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

COMMANDS_ACCEPTED = Counter(
    "throne_commands_accepted",
    "Commands the rules worker committed as accepted (op: create or append), by game.",
    ["game", "op"],
)
COMMANDS_REFUSED = Counter(
    "throne_commands_refused",
    "Commands the rules worker answered with a rejection, by rejection code.",
    ["code"],
)
DEAD_LETTERS = Counter(
    "throne_dead_letters",
    "Command entries the rules worker moved to a dead-letter stream (a rules bug, an unreadable entry).",
)
WORKER_DECIDE_SECONDS = Histogram(
    "throne_worker_decide_seconds",
    "Time to decide one batch of commands (parse, load, rules), observed once per batch.",
    buckets=BATCH_BUCKETS,
)
WORKER_COMMIT_SECONDS = Histogram(
    "throne_worker_commit_seconds",
    "Time of one batch's commit pipeline to Redis, observed once per batch.",
    buckets=BATCH_BUCKETS,
)
WORKER_BATCH_COMMANDS = Histogram(
    "throne_worker_batch_commands",
    "Commands in one decided batch (to read the batch times per command).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
)
PROJECTION_LAG_SECONDS = Histogram(
    "throne_projection_lag_seconds",
    "From an event's commit to its write in a read model (live events), by model.",
    ["model"],
    buckets=LAG_BUCKETS,
)
WEBHOOK_DELIVERIES = Counter(
    "throne_webhook_deliveries",
    "Webhook notices settled, by outcome: delivered, failed (given up on), no_hook (its webhook was deleted).",
    ["outcome"],
)
WEBHOOK_ATTEMPT_ERRORS = Counter(
    "throne_webhook_attempt_errors",
    "Webhook delivery attempts that failed and were retried (a receiver down, slow or answering 5xx).",
)
TIMER_ALARMS = Counter(
    "throne_timer_alarms",
    "Clock alarms the timer handled, by outcome: timeout (submitted), notice (low time), rescheduled, dropped, moved.",
    ["outcome"],
)
REDIS_ERRORS = Counter(
    "throne_redis_errors",
    "Redis calls that failed, by kind (OOM, LOADING, ConnectionError, TimeoutError, ...).",
    ["kind"],
)

_accepted: dict[tuple[str, str], Counter] = {}
_refused: dict[str, Counter] = {}


def command_accepted(game: str, op: str) -> None:
    """One accepted command of ``game`` (``op``: create or append)."""
    child = _accepted.get((game, op))
    if child is None:
        child = _accepted[(game, op)] = COMMANDS_ACCEPTED.labels(game, op)
    child.inc()


def command_refused(code: str) -> None:
    """One command answered with the rejection ``code``."""
    child = _refused.get(code)
    if child is None:
        child = _refused[code] = COMMANDS_REFUSED.labels(code)
    child.inc()


def redis_error(kind: str) -> None:
    """One failed Redis call, counted by the fault's ``kind`` (services/bus/faults.py: ``fault_kind``)."""
    REDIS_ERRORS.labels(kind).inc()


ALL = (
    COMMANDS_ACCEPTED, COMMANDS_REFUSED, DEAD_LETTERS, WORKER_DECIDE_SECONDS, WORKER_COMMIT_SECONDS,
    WORKER_BATCH_COMMANDS, PROJECTION_LAG_SECONDS, WEBHOOK_DELIVERIES, WEBHOOK_ATTEMPT_ERRORS, TIMER_ALARMS,
    REDIS_ERRORS,
)  # fmt: skip
"""Every metric above (the names the alert rules may use are checked against these)."""

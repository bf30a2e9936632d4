"""Transient Redis faults: telling them apart, waiting them out, and logging them once per episode.

A Redis that refuses a command for a while (out of memory, loading its data set after a restart, busy running a
script, a replica being promoted, a cluster re-sharding) or that does not answer (connection lost, timeout) says
nothing about the command: the same command succeeds once Redis is back. Such a refusal is retried with capped
exponential backoff plus jitter and never counts as a failure of the command itself; only a command that fails
on its own content (a rules bug, an unreadable entry) may end as a dead letter.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import redis

from services.metrics import catalog as metrics

TRANSIENT_PREFIXES = (
    "OOM",  # maxmemory reached (noeviction)
    "LOADING",  # loading the data set (restart, AOF)
    "BUSY",  # a script or function running too long
    "READONLY",  # a replica, during a fail-over
    "MASTERDOWN",  # a replica whose link to its master is down
    "TRYAGAIN",  # a cluster slot being migrated
    "CLUSTERDOWN",  # a cluster without a majority / with slots uncovered
    "NOREPLICAS",  # min-replicas-to-write not met
    "MISCONF",  # stop-writes-on-bgsave-error: writes refused until a save succeeds
    "UNBLOCKED",  # a blocked client released by a fail-over
)
"""Error reply prefixes that mean "Redis can not do it right now", not "this command is wrong"."""

_TRANSIENT_TYPES: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,  # also BusyLoadingError (LOADING)
    redis.exceptions.TimeoutError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.OutOfMemoryError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.MasterDownError,
    ConnectionError,  # OSError subclasses raised below redis-py (reset, refused)
    TimeoutError,
)


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is Redis refusing or failing to answer for a while (retry it), not a fault of the
    command (a script error, a wrong type, a bug)."""
    if isinstance(exc, _TRANSIENT_TYPES):
        return True
    if isinstance(exc, redis.exceptions.ResponseError):
        return str(exc).lstrip().startswith(TRANSIENT_PREFIXES)
    return False


def fault_kind(exc: BaseException) -> str:
    """A short name of a fault for logs and counters (``OOM``, ``ConnectionError``, ...)."""
    if isinstance(exc, redis.exceptions.ResponseError):
        head = str(exc).split(" ", 1)[0]
        if head in TRANSIENT_PREFIXES:
            return head
    return type(exc).__name__


class Backoff:
    """Capped exponential backoff with full jitter: the n-th delay is uniform in [first, min(cap, first*2^n)].

    Jitter keeps many clients (workers, bots, gateways) that met the same fault from retrying in lockstep.
    """

    def __init__(self, first: float = 0.01, cap: float = 2.0, rng: random.Random | None = None) -> None:
        self.first = first
        self.cap = cap
        self.failures = 0
        self._rng = rng or random.Random()

    def next(self) -> float:
        """The delay before the next attempt (and one more failure counted)."""
        ceiling = min(self.cap, self.first * 2 ** min(self.failures, 32))
        self.failures += 1
        return self._rng.uniform(self.first, ceiling)

    def reset(self) -> None:
        """An attempt succeeded: the next fault starts from ``first`` again."""
        self.failures = 0


class Outage:
    """Logs a Redis fault episode once, not once per attempt.

    :meth:`failed` logs the first fault of an episode (``redis.unavailable``, warning), and a reminder line at
    most every ``remind_s`` while it lasts; :meth:`recovered` logs one summary (``redis.recovered``: how long,
    how many failed attempts, of which kinds) and ends the episode.

    With a ``part`` name and a ``readiness`` (services/bus/readiness.py: the process's), the part is reported
    waiting and ready there, the process logs ``redis.waiting``/``redis.ready`` once for all its parts, and
    this part's own lines drop to debug.
    """

    def __init__(self, log: Any, remind_s: float = 60.0, *, part: str | None = None, readiness: Any = None) -> None:
        self.log = log
        self.remind_s = remind_s
        self.part = part
        self.readiness = readiness if part is not None else None
        # With a process readiness, the process says "redis.waiting" once for all its parts: this part's own
        # lines are details (debug); alone, they are the warnings.
        self._say = log.debug if self.readiness is not None else log.warning
        self.started: float | None = None
        self.failures = 0
        self.kinds: Counter[str] = Counter()
        self._next_reminder = 0.0
        self.episodes = 0

    def start(self) -> None:
        """The part starts serving: not ready (in the process's readiness) until its first good step."""
        if self.readiness is not None:
            self.readiness.register(self.part)

    def stop(self) -> None:
        """The part stopped: it no longer counts in the process's readiness."""
        if self.readiness is not None:
            self.readiness.unregister(self.part)

    @property
    def active(self) -> bool:
        """Whether an episode is under way."""
        return self.started is not None

    def failed(self, exc: BaseException, **context: Any) -> None:
        """One attempt met the fault ``exc``."""
        now = time.monotonic()
        kind = fault_kind(exc)
        metrics.redis_error(kind)
        if self.readiness is not None:
            self.readiness.waiting(self.part, exc)
        self.failures += 1
        self.kinds[kind] += 1
        if self.started is None:
            self.started = now
            self.episodes += 1
            self._next_reminder = now + self.remind_s
            self._say("redis.unavailable", kind=kind, error=str(exc)[:300], **context)
        elif now >= self._next_reminder:
            self._next_reminder = now + self.remind_s
            self._say(
                "redis.still_unavailable", seconds=round(now - self.started, 1), failures=self.failures,
                kinds=dict(self.kinds), **context,
            )  # fmt: skip

    def recovered(self, **context: Any) -> None:
        """An attempt succeeded: log the summary of the episode, if there was one (and the part is ready)."""
        if self.readiness is not None:
            self.readiness.ready(self.part)
        if self.started is None:
            return
        self._say(
            "redis.recovered", seconds=round(time.monotonic() - self.started, 2), failures=self.failures,
            kinds=dict(self.kinds), **context,
        )  # fmt: skip
        self.started = None
        self.failures = 0
        self.kinds = Counter()


class LogThrottle:
    """At most one log line per ``every_s`` for a repeated event (e.g. each request refused during an outage):
    :meth:`ready` says whether to log now, and how many were not logged since the last line."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.every_s = every_s
        self._next = 0.0
        self._suppressed = 0

    def ready(self) -> int | None:
        """None: do not log this one; else the number of occurrences suppressed since the last line."""
        now = time.monotonic()
        if now < self._next:
            self._suppressed += 1
            return None
        self._next = now + self.every_s
        suppressed, self._suppressed = self._suppressed, 0
        return suppressed

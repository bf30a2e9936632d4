"""Whether this process is ready: each of its parts (a consumer loop, the gateway's Redis watch) reaches Redis.

One :class:`Readiness` per process (:data:`PROCESS`). Each part that talks to Redis in a loop registers when it
starts (not ready until its first good step), says when it meets a transient Redis fault (:meth:`waiting`) and
when a step went through again (:meth:`ready`). The process as a whole is ready when every registered part is.

The log says so once per episode for the whole process, however many parts wait: ``redis.waiting`` (warning:
the first fault, its kind and the part that met it) when the process stops being ready, ``redis.ready`` (warning:
how long it waited, the kinds of fault met) when every part is through again; and ``redis.ready`` (info) once at
a start that did not wait. A process started before its Redis exists, or whose Redis restarts and replays its AOF
(``LOADING``), waits like this and carries on by itself.

Readiness is reported by the gateway's ``/health`` and, for the other processes, by a ready file
(``--ready-file`` or env ``THRONE_READY_FILE``): it exists while the process is ready and is removed while it
waits, for an orchestrator's probe (``test -f``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from services.bus.faults import Backoff, fault_kind
from services.log import get_logger

READY_FILE_ENV = "THRONE_READY_FILE"


class Readiness:
    """The readiness of one process's parts; logs the waits once per episode and keeps the ready file."""

    def __init__(self, log: Any = None, path: str | os.PathLike[str] | None = None) -> None:
        self._log = log
        self.path = Path(path) if path else None
        self._parts: dict[str, bool] = {}
        self._lock = threading.Lock()
        self._waiting_since: float | None = None
        self._kinds: Counter[str] = Counter()
        self._announced = False  # whether the first redis.ready (or a wait) was logged

    @property
    def log(self) -> Any:
        """The logger (by default the one configured now: the process configures its logs after this module's
        import)."""
        return self._log if self._log is not None else get_logger("process")

    def set_path(self, path: str | os.PathLike[str] | None) -> None:
        """Keep the ready file at ``path`` (None: no file), written at once if the process is ready now."""
        with self._lock:
            self._remove_file()
            self.path = Path(path) if path else None
            self._write_file()

    # --- parts ----------------------------------------------------------------------------------------
    def register(self, part: str) -> None:
        """``part`` starts: not ready until its first good step."""
        with self._lock:
            self._parts[part] = False
            self._write_file()

    def unregister(self, part: str) -> None:
        """``part`` stopped: it no longer counts."""
        with self._lock:
            self._parts.pop(part, None)
            self._write_file()

    def waiting(self, part: str, exc: BaseException | None = None) -> None:
        """``part`` met a transient Redis fault (``exc``): it waits, and so does the process."""
        if self._parts.get(part) is False and self._waiting_since is not None:
            self._kinds[fault_kind(exc) if exc is not None else "unknown"] += 1
            return  # already waiting: said once
        with self._lock:
            kind = fault_kind(exc) if exc is not None else "unknown"
            self._kinds[kind] += 1
            self._parts[part] = False
            if self._waiting_since is None:
                self._waiting_since = time.monotonic()
                self._announced = True
                self.log.warning(
                    "redis.waiting", part=part, kind=kind, error=str(exc)[:300] if exc is not None else None
                )
            self._write_file()

    def ready(self, part: str) -> None:
        """A step of ``part`` went through (Redis answered): ``part`` is ready."""
        if self._parts.get(part) is True:
            return  # the hot path: nothing changes
        with self._lock:
            if part not in self._parts:
                return  # not registered (stopped, or a loop run outside a process shell's readiness)
            self._parts[part] = True
            if not all(self._parts.values()):
                return
            if self._waiting_since is not None:  # the end of an incident: as loud as its start
                self.log.warning(
                    "redis.ready", waited_s=round(time.monotonic() - self._waiting_since, 2), kinds=dict(self._kinds)
                )
            elif not self._announced:
                self.log.info("redis.ready", waited_s=0.0, kinds={})
            self._announced = True
            self._waiting_since = None
            self._kinds = Counter()
            self._write_file()

    # --- state ----------------------------------------------------------------------------------------
    @property
    def ok(self) -> bool:
        """Whether every registered part is ready (True when none is registered)."""
        return all(self._parts.values())

    def waiting_parts(self) -> list[str]:
        """The parts not ready now, by name."""
        return sorted(name for name, ready in list(self._parts.items()) if not ready)

    def _write_file(self) -> None:
        # (under the lock) the file exists exactly while the process is ready
        if self.path is None:
            return
        if self.ok and self._parts:
            with contextlib.suppress(OSError):
                self.path.write_text(f"{os.getpid()}\n")
        else:
            self._remove_file()

    def _remove_file(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)


async def watch_redis(
    ping: Callable[[], Awaitable[Any]],
    part: str,
    readiness: Readiness,
    *,
    every_s: float = 1.0,
    backoff: Backoff | None = None,
) -> None:
    """Keep ``part`` of ``readiness`` up to date from ``ping`` (an asyncio Redis client's PING), until cancelled:
    every ``every_s`` while Redis answers, with capped jittered backoff while it does not (refused, timed out,
    LOADING, ...). For a process whose Redis calls are made on demand (the gateway's requests), not in a loop."""
    backoff = backoff or Backoff(0.05, 2.0)
    # (Not registered until a PING fails: a gateway is ready from its start unless Redis says otherwise.)
    try:
        while True:
            try:
                await ping()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # whatever stops a PING, the gateway cannot serve
                readiness.waiting(part, exc)
                await asyncio.sleep(backoff.next())
                continue
            backoff.reset()
            readiness.ready(part)
            await asyncio.sleep(every_s)
    finally:
        readiness.unregister(part)


PROCESS = Readiness()
"""This process's readiness (the process shells give it its ready file; see services/process.py)."""

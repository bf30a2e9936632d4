"""The consumers' shared loop: Redis faults waited out and logged once per episode, errors never fatal."""

from __future__ import annotations

import threading
from typing import Any

import redis

from services.bus.consumer import ConsumerLoop


class _Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def warning(self, event: str, **_: Any) -> None:
        self.lines.append(("warning", event))

    def debug(self, event: str, **_: Any) -> None:
        self.lines.append(("debug", event))

    def exception(self, event: str, **_: Any) -> None:
        self.lines.append(("exception", event))


def test_a_fault_episode_is_logged_once_and_the_hook_sees_every_error() -> None:
    # Given a step that meets Redis out of memory three times, then a bug, then a reload hook that fails once,
    # then works
    log = _Log()
    loop = ConsumerLoop(log, "worker", retry_first_ms=1, retry_cap_ms=2)
    stop = threading.Event()
    script = [
        redis.exceptions.OutOfMemoryError("OOM command not allowed"),
        redis.exceptions.OutOfMemoryError("OOM command not allowed"),
        redis.exceptions.OutOfMemoryError("OOM command not allowed"),
        None,
        ValueError("a bug"),
        redis.exceptions.NoScriptError("NOSCRIPT"),
        None,
    ]
    seen: list[str] = []
    hook_failures = [redis.exceptions.ConnectionError("still down")]

    def step() -> None:
        if not script:
            stop.set()
            return
        exc = script.pop(0)
        if exc is not None:
            raise exc

    def on_error(exc: Exception) -> None:
        seen.append(type(exc).__name__)
        if isinstance(exc, redis.exceptions.NoScriptError) and hook_failures:
            raise hook_failures.pop()

    # When the loop runs it
    loop.run(step, stop, on_error=on_error)

    # Then the hook saw every error, the loop survived the failing hook, and the out-of-memory episode took one
    # line when it started and one when it ended; the bug was logged with its trace
    assert seen == ["OutOfMemoryError"] * 3 + ["ValueError", "NoScriptError"]
    events = [e for _, e in log.lines]
    assert events.count("redis.unavailable") == 2  # the OOM episode, then the failing reload's
    assert events.count("redis.recovered") == 2
    assert ("exception", "worker.error") in log.lines

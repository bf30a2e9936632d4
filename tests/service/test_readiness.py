"""A process's readiness: its parts wait for Redis and come back; the log says so once; the ready file follows."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import redis

from services.bus.consumer import ConsumerLoop
from services.bus.readiness import Readiness


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def _add(self, event: str, **_: Any) -> None:
        self.events.append(event)

    info = warning = debug = exception = _add


def test_parts_waiting_are_said_once_and_the_ready_file_exists_only_while_every_part_is_ready(tmp_path: Path) -> None:
    # Given a process readiness with a ready file and two parts that start
    log = _Log()
    ready_file = tmp_path / "ready"
    readiness = Readiness(log, ready_file)
    readiness.register("a")
    readiness.register("b")
    assert not ready_file.exists() and not readiness.ok

    # When both go through a first step
    readiness.ready("a")
    assert not ready_file.exists()
    readiness.ready("b")

    # Then the process is ready (said once) and the file exists
    assert readiness.ok and ready_file.exists()
    assert log.events == ["redis.ready"]

    # When both parts meet refusals again and again (LOADING, then refused connections)
    for _ in range(5):
        readiness.waiting("a", redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"))
        readiness.waiting("b", redis.exceptions.ConnectionError("refused"))

    # Then the process waits, said once, and the file is gone
    assert log.events == ["redis.ready", "redis.waiting"]
    assert not ready_file.exists() and readiness.waiting_parts() == ["a", "b"]

    # When one part is through, then the other
    readiness.ready("a")
    assert not ready_file.exists() and log.events[-1] == "redis.waiting"
    readiness.ready("b")

    # Then the process is ready again, said once, with its file back; a part that stops no longer counts
    assert log.events == ["redis.ready", "redis.waiting", "redis.ready"]
    assert ready_file.exists()
    readiness.unregister("a")
    readiness.unregister("b")
    assert not ready_file.exists()  # (a process that stopped is not ready)


def test_a_consumer_loop_is_a_part_of_the_readiness_while_it_runs(tmp_path: Path) -> None:
    # Given a loop whose first steps meet a Redis that refuses connections, then answers
    log = _Log()
    readiness = Readiness(log, tmp_path / "ready")
    loop = ConsumerLoop(log, "worker", retry_first_ms=1, retry_cap_ms=2, readiness=readiness)
    stop = threading.Event()
    seen: list[bool] = []
    steps = iter([redis.exceptions.ConnectionError("refused")] * 3 + [None] * 3)

    def step() -> None:
        seen.append(readiness.ok)
        exc = next(steps, None)
        if exc is not None:
            raise exc
        if len(seen) >= 6:
            stop.set()

    # When it runs
    loop.run(step, stop)

    # Then it was not ready until a step went through, waiting was said once, then ready once; and once stopped
    # it no longer counts
    assert seen == [False, False, False, False, True, True]
    assert log.events.count("redis.waiting") == 1 and log.events.count("redis.ready") == 1
    assert readiness.ok and readiness.waiting_parts() == []


def test_the_projections_supervisor_is_ready_while_every_child_is(tmp_path: Path) -> None:
    # Given the ready files of two child processes, one of them ready
    from projections.supervisor import mirror_ready

    mine, children = tmp_path / "ready", [tmp_path / "ready.0", tmp_path / "ready.1"]
    children[0].write_text("1\n")

    # Then the supervisor's is absent until both are, and goes when one goes
    mirror_ready(mine, children)
    assert not mine.exists()
    children[1].write_text("2\n")
    mirror_ready(mine, children)
    assert mine.exists()
    children[0].unlink()
    mirror_ready(mine, children)
    assert not mine.exists()

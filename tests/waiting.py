"""Waiting for events in tests: the one way a test waits for something to happen.

Tests never assert how long something took (the machine running them may be busy with anything); they wait for
the event they expect with a generous deadline, and fail only when it never comes. A deadline is a bound on a
hang, not a speed figure: speed figures belong in ``make bench``.

``THRONE_TEST_PATIENCE`` (a factor, default 1) stretches every deadline, for a very slow machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

PATIENCE = float(os.environ.get("THRONE_TEST_PATIENCE", "1") or 1)
"""Every deadline of the suite is multiplied by this factor."""

DEADLINE = 60.0
"""The default deadline in seconds: long enough for a machine whose cores are all busy with other work."""


def patient(seconds: float) -> float:
    """``seconds`` stretched by :data:`PATIENCE`."""
    return seconds * PATIENCE


def wait_until(
    predicate: Callable[[], T], deadline: float = DEADLINE, every: float = 0.02, what: str | None = None
) -> T:
    """Poll ``predicate()`` until it returns something truthy, and return that; AssertionError (saying ``what``
    was awaited) when ``deadline`` seconds (stretched by :data:`PATIENCE`) pass first.

    The predicate is asked once more after the deadline, so a slow last poll never fails a test that got there.
    """
    give_up = time.monotonic() + patient(deadline)
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > give_up:
            got = predicate()
            if got:
                return got
            raise AssertionError(f"{what or 'condition'} not met within {patient(deadline):g}s")
        time.sleep(every)


def wait_for(predicate: Callable[[], object], seconds: float = DEADLINE, every: float = 0.02) -> None:
    """:func:`wait_until` under its older name and argument names (``seconds`` for ``deadline``)."""
    wait_until(predicate, deadline=seconds, every=every)


class ManualClock:
    """A clock in seconds that moves only when a test moves it: for code that takes a ``clock`` (the gateway's
    rate limits), so that what happens within one window does not depend on how fast the machine is."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward."""
        self.now += seconds

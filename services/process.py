"""Helpers shared by the long-running processes (rules worker, projections, gateway, bots, serve)."""

from __future__ import annotations

import signal
import threading
from types import FrameType


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM or SIGINT sets: a process's loop runs until it is set, then stops cleanly."""
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    return stop

"""``throne serve``: the whole service against ``REDIS_URL``, as child processes of one supervisor.

Children (each a plain ``python -m`` entry point, the same ones deploy/docker-compose.yml runs):

- ``--workers N`` rules workers (``python -m services.worker``), the shards split into N contiguous ranges;
- the projection worker (``python -m projections run``);
- the gateway (``python -m services.gateway --host H --port P``);
- the bots process (``python -m services.bots``);
- the webhooks process (``python -m services.webhooks``);
- the timer process (``python -m services.timer``): timeouts of clocked games.

A child that exits on its own is started again after a pause that doubles up to 30 s (back to 1 s once it has
run for a minute). SIGINT or SIGTERM stops the supervisor: every child gets SIGTERM (rules workers release
their leases on the way out), stragglers get SIGKILL after ``grace`` seconds, and ``serve`` returns 0.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from services.bus.keys import Layout
from services.bus.readiness import READY_FILE_ENV
from services.gateway.lobby import SEAT_KEY_ENV
from services.log import get_logger
from services.metrics.endpoint import child_port
from services.process import stop_on_signals


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """One process to keep running: a name for the logs and its ``python -m`` arguments."""

    name: str
    module: str
    args: tuple[str, ...] = ()

    def argv(self) -> list[str]:
        """The command line."""
        return [sys.executable, "-m", self.module, *self.args]


@dataclass(slots=True)
class _Child:
    spec: ChildSpec
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    pause: float = 1.0
    restart_at: float = 0.0
    restarts: int = 0


def shard_ranges(shards: int, parts: int) -> list[str]:
    """``shards`` split into ``parts`` contiguous inclusive ranges (``"0-7"``, ``"8-15"``) of near-equal size."""
    parts = max(1, min(parts, shards))
    bounds = [round(i * shards / parts) for i in range(parts + 1)]
    return [f"{lo}-{hi - 1}" for lo, hi in itertools.pairwise(bounds)]


def module_exists(module: str) -> bool:
    """Whether ``python -m module`` can run (the module, or the package's ``__main__``, is importable)."""
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return False
    if spec is None:
        return False
    if spec.submodule_search_locations is not None:  # a package: needs its __main__
        try:
            return importlib.util.find_spec(f"{module}.__main__") is not None
        except ModuleNotFoundError:
            return False
    return True


def plan(
    layout: Layout,
    *,
    workers: int = 1,
    gateway: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    bots: bool = True,
    projections: bool = True,
    webhooks: bool = True,
    timer: bool = True,
    metrics_port: int = 0,
) -> list[ChildSpec]:
    """The children of ``serve``; projections are left out (with a warning) while their module is missing.

    ``metrics_port``: the base of the children's metrics ports (services/metrics/endpoint.py: ``SERVE_OFFSETS``);
    0: every child is told to serve none."""

    def metrics(role: str, index: int = 0) -> tuple[str, ...]:
        return ("--metrics-port", str(child_port(metrics_port, role, index) if metrics_port else 0))

    specs = [
        ChildSpec(f"rules-worker-{i}", "services.worker", ("--shards", rng, *metrics("rules-worker", i)))
        for i, rng in enumerate(shard_ranges(layout.shards, workers))
    ]
    if projections:
        if module_exists("projections"):
            # (each of its processes, one per read model, takes the next port)
            specs.append(ChildSpec("projections", "projections", (*metrics("projections"), "run")))
        else:
            get_logger("serve").warning("serve.no_projections", reason="no module projections.__main__ yet")
    if gateway:
        specs.append(
            ChildSpec("gateway", "services.gateway", ("--host", host, "--port", str(port), *metrics("gateway")))
        )
    if bots:
        specs.append(ChildSpec("bots", "services.bots", metrics("bots")))
    if webhooks:
        specs.append(ChildSpec("webhooks", "services.webhooks", metrics("webhooks")))
    if timer:
        specs.append(ChildSpec("timer", "services.timer", metrics("timer")))
    return specs


def supervise(specs: Sequence[ChildSpec], stop: threading.Event, grace: float = 10.0) -> int:
    """Run ``specs`` until ``stop`` is set, restarting children that exit; then stop them all. Returns 0."""
    log = get_logger("serve")
    children = [_Child(spec) for spec in specs]
    try:
        while not stop.is_set():
            now = time.monotonic()
            for child in children:
                if child.proc is not None and child.proc.poll() is not None:
                    code = child.proc.returncode
                    lived = now - child.started
                    child.pause = 1.0 if lived > 60 else min(child.pause * 2, 30.0)
                    child.restart_at = now + child.pause
                    child.proc = None
                    log.warning("serve.child_exited", child=child.spec.name, code=code, restart_in_s=child.pause)
                if child.proc is None and now >= child.restart_at:
                    child.proc = subprocess.Popen(child.spec.argv())
                    child.started = now
                    if child.restarts:
                        log.info("serve.child_restarted", child=child.spec.name, pid=child.proc.pid)
                    else:
                        log.info("serve.child_started", child=child.spec.name, pid=child.proc.pid)
                    child.restarts += 1
            stop.wait(0.2)
    finally:
        running = [c.proc for c in children if c.proc is not None and c.proc.poll() is None]
        for proc in running:
            proc.terminate()
        deadline = time.monotonic() + grace
        for proc in running:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("serve.child_killed", pid=proc.pid)
                proc.kill()
                proc.wait(5)
        log.info("serve.stopped", children=len(children))
    return 0


def serve(
    *,
    workers: int = 1,
    gateway: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    bots: bool = True,
    projections: bool = True,
    webhooks: bool = True,
    grace: float = 10.0,
    timer: bool = True,
    metrics_port: int = 0,
) -> int:
    """``throne serve``: needs REDIS_URL (children in other processes cannot share an in-process Redis)."""
    log = get_logger("serve")
    if not os.environ.get("REDIS_URL"):
        print("throne serve: set REDIS_URL (e.g. redis://127.0.0.1:6379/0 or redis+cluster://...)", file=sys.stderr)
        return 2
    # The gateway derives open seats' tokens from this key (services/gateway/lobby.py): one key for the whole run,
    # so a gateway restarted by the supervisor still hands out the open seats of games created before.
    os.environ.setdefault(SEAT_KEY_ENV, secrets.token_hex(32))
    # One ready file is one process's: the children must not share this process's (the supervisor restarts them).
    os.environ.pop(READY_FILE_ENV, None)
    layout = Layout.from_env()
    specs = plan(
        layout, workers=workers, gateway=gateway, host=host, port=port, bots=bots, projections=projections,
        webhooks=webhooks, timer=timer, metrics_port=metrics_port,
    )  # fmt: skip
    stop = stop_on_signals()
    log.info("serve.start", children=[s.name for s in specs], shards=layout.shards, prefix=layout.prefix)
    return supervise(specs, stop, grace)

"""The base of the long-running processes (rules worker, projections, bots, webhooks, timer; the gateway and
``throne serve`` use its pieces).

A shard process's ``__main__`` names only what is its own: its options (``add_arguments``) and how it serves a
:class:`ShardDeployment` (``serve``); :func:`run_shard_process` does the rest, the same for all of them: the
deployment options (Redis, shards, key layout, plugins, logs, metrics port, ready file) to arguments, the logs,
the plugins, the readiness file, and, through :meth:`ShardDeployment.serve_until_stopped`, the signals and the
metrics endpoint.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import FrameType

import redis
from prometheus_client.registry import Collector

from services.bus.connection import connect
from services.bus.keys import Layout, parse_shards
from services.bus.readiness import PROCESS, READY_FILE_ENV
from services.log import configure
from services.metrics import endpoint as metrics


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM or SIGINT sets: a process's loop runs until it is set, then stops cleanly."""
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    return stop


def add_deployment_arguments(
    p: argparse.ArgumentParser, plugin_help: str = "module to import (registers games)"
) -> None:
    """The options every shard-serving process takes: where Redis is, which shards, the key layout, plugins, logs."""
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="default: env REDIS_URL")
    p.add_argument("--shards", default="all", help='e.g. "all", "0-7", "3,5,9-11" (default: all)')
    p.add_argument("--shard-count", type=int, default=None, help="total shards (default: env THRONE_SHARDS)")
    p.add_argument("--prefix", default=None, help="key prefix (default: env THRONE_PREFIX or 'throne')")
    p.add_argument("--plugin", action="append", default=[], help=plugin_help)
    p.add_argument("--log-level", default=None, help="debug|info|warning|error (default: env THRONE_LOG_LEVEL)")
    metrics.add_arguments(p)  # --metrics-port, --metrics-host (services/metrics/endpoint.py)
    add_ready_file_argument(p)


def add_ready_file_argument(p: argparse.ArgumentParser) -> None:
    """``--ready-file``: a file that exists exactly while the process reaches its Redis (a readiness probe)."""
    p.add_argument(
        "--ready-file", default=os.environ.get(READY_FILE_ENV),
        help=f"kept while the process is ready, removed while it waits for Redis (default: env {READY_FILE_ENV})",
    )  # fmt: skip


def start_deployment_process(args: argparse.Namespace, prog: str) -> Layout | None:
    """Configure the logs, import the plugins and return the key layout (options over env); None, after saying
    why, when no Redis is named: the embedded default is in-process only, so no other process could reach it."""
    configure(args.log_level)
    if not args.redis_url:
        print(f"{prog}: set REDIS_URL or --redis-url (the embedded default is in-process only)", file=sys.stderr)
        return None
    for module in args.plugin:
        importlib.import_module(module)
    # The process waits for Redis in its loops (services/bus/readiness.py), never exits for want of it.
    PROCESS.set_path(args.ready_file)
    env_layout = Layout.from_env()
    return Layout(prefix=args.prefix or env_layout.prefix, shards=args.shard_count or env_layout.shards)


@dataclass(frozen=True)
class ShardDeployment:
    """A shard process once started: its parsed arguments, its key layout and the shards it serves."""

    args: argparse.Namespace
    layout: Layout
    shards: list[int]

    def connect(self) -> redis.Redis:
        """A new connection to the deployment's Redis (each worker, thread or half keeps its own)."""
        return connect(self.args.redis_url)

    def serve_until_stopped(
        self,
        role: str,
        collectors: Callable[[redis.Redis], Iterable[Collector]],
        loop: Callable[[threading.Event], None],
    ) -> int:
        """Stop on SIGTERM/SIGINT, serve the metrics of ``role`` (``collectors`` get their own scrape client),
        then run ``loop(stop)`` until it returns; 0."""
        stop = stop_on_signals()
        metrics.start(self.args, role, collectors(metrics.scrape_client(self.args.redis_url)))
        loop(stop)
        return 0


def run_shard_process(
    argv: Sequence[str] | None,
    *,
    module: str,
    doc: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    serve: Callable[[ShardDeployment], int],
    plugin_help: str = "module to import (registers games)",
) -> int:
    """``python -m <module>``: parse the deployment options and the process's own (``add_arguments``), start
    (logs, plugins, readiness) and hand the deployment to ``serve``; 2 when no Redis is named."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=doc.strip().splitlines()[0])
    add_deployment_arguments(parser, plugin_help=plugin_help)
    add_arguments(parser)
    args = parser.parse_args(argv)
    layout = start_deployment_process(args, module)
    if layout is None:
        return 2
    return serve(ShardDeployment(args, layout, parse_shards(args.shards, layout.shards)))


GC_GEN0_THRESHOLD = 20_000
"""Allocations between two young-generation collections (CPython's default: 700)."""


def tune_gc() -> None:
    """Keep the cyclic garbage collector off what lives for the whole process, and run it less often.

    Everything loaded so far (modules, the app, its routes and schemas) is frozen out of the collector's scans;
    a request or a command allocates thousands of short-lived containers, and at CPython's default threshold
    the collector ran several times per request (a tenth of the gateway's CPU; in the rules worker, a young
    collection every command or two). Reference counting still frees almost everything at once; the collector
    is only for cycles, which a larger young generation merely delays.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, older, oldest)

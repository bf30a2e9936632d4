"""Each process's ``/metrics``: its options, its HTTP server, and the ports ``throne serve`` gives its children.

Every long-running process (rules worker, projections, gateway, bots, webhooks, timer) takes ``--metrics-port``
(default: env ``THRONE_METRICS_PORT``; unset or 0: no metrics server) and ``--metrics-host`` (default: env
``THRONE_METRICS_HOST``, else ``127.0.0.1``), and then serves the Prometheus text format at
``http://HOST:PORT/metrics`` from a thread of its own. The gateway too uses a port of its own, never its public
API port: the metrics stay off the players' port, and one firewall rule keeps them internal.

``throne serve --metrics-port BASE`` gives each child a fixed offset from BASE (:data:`SERVE_OFFSETS`): the
gateway BASE, the bots BASE+1, the webhooks BASE+2, the timer BASE+3, the projection processes BASE+10 on (one
per read model), rules worker i BASE+20+i.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable

import redis
from prometheus_client import REGISTRY, start_http_server
from prometheus_client.registry import Collector, CollectorRegistry

from services.bus.connection import connect
from services.log import get_logger
from services.metrics import catalog, roles
from services.metrics.collectors import Family

PORT_ENV = "THRONE_METRICS_PORT"
HOST_ENV = "THRONE_METRICS_HOST"
SERVE_OFFSETS = {"gateway": 0, "bots": 1, "webhooks": 2, "timer": 3, "projections": 10, "rules-worker": 20}
"""``throne serve``: each child's metrics port is the base port plus its offset (a projection process and a rules
worker also add their index)."""
MAX_PROJECTION_PROCESSES = SERVE_OFFSETS["rules-worker"] - SERVE_OFFSETS["projections"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--metrics-port`` and ``--metrics-host`` (defaults from the environment)."""
    raw = os.environ.get(PORT_ENV, "").strip()
    p.add_argument(
        "--metrics-port", type=int, default=int(raw) if raw.isdigit() else 0,
        help=f"serve Prometheus metrics at http://HOST:PORT/metrics (default: env {PORT_ENV}; 0: none)",
    )  # fmt: skip
    p.add_argument(
        "--metrics-host", default=os.environ.get(HOST_ENV) or "127.0.0.1",
        help=f"address the metrics server listens on (default: env {HOST_ENV}, else 127.0.0.1)",
    )  # fmt: skip


def start(
    args: argparse.Namespace, role: str, collectors: Iterable[Collector] = (), registry: CollectorRegistry = REGISTRY
) -> int | None:
    """Register ``collectors`` and serve ``/metrics`` on ``args.metrics_port``; returns the port, or None when
    none is asked for or it cannot be bound (logged: the process does its work without metrics)."""
    port = getattr(args, "metrics_port", 0)
    if not port:
        return None
    for collector in collectors:
        registry.register(collector)
    host = getattr(args, "metrics_host", "127.0.0.1")
    log = get_logger("metrics")
    try:
        server, _thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        log.error("metrics.unavailable", role=role, host=host, port=port, error=str(exc))
        return None
    bound = int(server.server_port)
    log.info("metrics.listening", role=role, url=f"http://{host}:{bound}/metrics")
    return bound


SCRAPE_TIMEOUT_S = 2.0
"""How long a scrape waits for Redis before it comes back without the samples read from it."""


def scrape_client(url: str | None) -> redis.Redis:
    """The collectors' own Redis client (a short socket timeout; never the pool the process works with)."""
    return connect(url, socket_timeout=SCRAPE_TIMEOUT_S)


def child_port(base: int, role: str, index: int = 0) -> int:
    """The metrics port of a ``throne serve`` child (``index``: which rules worker or projection process)."""
    if role == "projections" and index >= MAX_PROJECTION_PROCESSES:
        raise ValueError(f"at most {MAX_PROJECTION_PROCESSES} projection processes have a metrics port each")
    return base + SERVE_OFFSETS[role] + index


def sample_names(family: Family) -> set[str]:
    """The names a family's samples carry in the text format."""
    if family.kind == "counter":
        return {f"{family.name}_total"}
    return {family.name}


def exported_names() -> set[str]:
    """Every sample name some throne process exports (its counters, histograms and scrape-time families), with
    the client library's own process and Python metrics."""
    names: set[str] = set()
    for metric in catalog.ALL:
        for family in metric.describe():
            if family.type == "counter":
                names.add(f"{family.name}_total")
            elif family.type == "histogram":
                names |= {f"{family.name}_{s}" for s in ("bucket", "sum", "count")}
            else:
                names.add(family.name)
    for family in roles.FAMILIES:
        names |= sample_names(family)
    for family in REGISTRY.collect():  # the default process and platform collectors
        names |= {sample.name for sample in family.samples}
    return names

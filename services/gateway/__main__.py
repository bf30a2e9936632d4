"""``python -m services.gateway``: serve the HTTP + WebSocket gateway with uvicorn.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.gateway --host 0.0.0.0 --port 8000

The rules workers run as separate processes (``python -m services.worker``) on the same Redis, prefix and shard
count. Without REDIS_URL the gateway serves the embedded in-process fakeredis, which no worker process can
reach: it then runs a rules worker, the bots and the projection workers in its own process (``--worker``,
``--bots`` and ``--projections`` do so on a real Redis too), so bot seats play and read models are kept.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Any

import uvicorn

from services.bus.connection import connect, is_embedded
from services.bus.keys import Layout
from services.gateway.app import create_app
from services.gateway.asyncbus import SOCKET_TIMEOUT
from services.gateway.boardlinks import BoardLinks
from services.gateway.cors import ENV as CORS_ENV
from services.gateway.cors import parse_origins
from services.gateway.limits import Limits
from services.gateway.protocol import server_config
from services.log import configure, get_logger
from services.metrics import endpoint as metrics
from services.metrics import roles
from services.process import tune_gc
from services.webhooks.config import allow_private_from_env
from services.worker.rules_worker import RulesWorker


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and serve until SIGTERM/SIGINT."""
    d = Limits()
    p = argparse.ArgumentParser(prog="python -m services.gateway", description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="default: env REDIS_URL")
    p.add_argument("--prefix", default=None, help="key prefix (default: env THRONE_PREFIX or 'throne')")
    p.add_argument("--shard-count", type=int, default=None, help="total shards (default: env THRONE_SHARDS)")
    p.add_argument("--plugin", action="append", default=[], help="module to import (registers games)")
    p.add_argument("--worker", action="store_true", help="also run a rules worker over every shard in-process")
    p.add_argument("--bots", action="store_true", help="also run the bots (bot seats) over every shard in-process")
    p.add_argument("--projections", action="store_true", help="also keep every read model in-process")
    p.add_argument("--rate", type=float, default=d.rate, help="requests/s per token or client address")
    p.add_argument("--burst", type=int, default=d.burst)
    p.add_argument("--address-rate", type=float, default=d.address_rate, help="requests/s per client address")
    p.add_argument("--address-burst", type=int, default=d.address_burst)
    p.add_argument("--read-bytes-rate", type=float, default=d.read_bytes_rate, help="answer bytes/s per client key")
    p.add_argument("--read-bytes-burst", type=int, default=d.read_bytes_burst)
    p.add_argument(
        "--address-bytes-rate", type=float, default=d.address_bytes_rate,
        help="answer bytes/s per client address (its token requests)",
    )  # fmt: skip
    p.add_argument("--address-bytes-burst", type=int, default=d.address_bytes_burst)
    p.add_argument("--read-slots", type=int, default=d.read_slots, help="anonymous heavy reads built at once")
    p.add_argument("--page-cache-bytes", type=int, default=d.page_cache_bytes, help="finished games' pages kept")
    p.add_argument("--max-body", type=int, default=d.max_body, help="largest request body in bytes")
    p.add_argument("--command-timeout", type=float, default=d.command_timeout, help="seconds to await an outcome")
    p.add_argument("--feeds-per-address", type=int, default=d.feeds_per_address, help="open feeds per address")
    p.add_argument("--feeds-total", type=int, default=d.feeds_total, help="open feeds in this process")
    p.add_argument("--max-header", type=int, default=d.max_header, help="largest request head in bytes")
    p.add_argument("--read-timeout", type=float, default=d.read_timeout, help="seconds to send a whole request")
    p.add_argument("--webhooks-per-seat", type=int, default=d.webhooks_per_seat, help="webhooks per seat of a game")
    p.add_argument(
        "--webhooks-allow-private", action="store_true", default=allow_private_from_env(),
        help="accept webhook URLs on private addresses (tests, development; env THRONE_WEBHOOKS_ALLOW_PRIVATE)",
    )  # fmt: skip
    p.add_argument("--log-level", default=None, help="debug|info|warning|error (default: env THRONE_LOG_LEVEL)")
    metrics.add_arguments(p)  # its own port, not the API's (services/metrics/endpoint.py)
    p.add_argument(
        "--cors-origin", action="append", default=None,
        help=f"a web origin whose pages may call the gateway (repeatable, or comma-separated; '*' any; default: env "
        f"{CORS_ENV}, else none)",
    )  # fmt: skip
    args = p.parse_args(argv)
    try:
        origins = parse_origins(args.cors_origin if args.cors_origin is not None else [os.environ.get(CORS_ENV, "")])
        links = BoardLinks.from_env()
    except ValueError as exc:
        p.error(str(exc))

    configure(args.log_level)
    for module in args.plugin:
        importlib.import_module(module)
    env_layout = Layout.from_env()
    layout = Layout(prefix=args.prefix or env_layout.prefix, shards=args.shard_count or env_layout.shards)
    # A socket timeout on the gateway's own clients: a frozen Redis is answered 503, not waited on for ever.
    client = connect(args.redis_url, socket_timeout=SOCKET_TIMEOUT)
    limits = Limits(
        max_body=args.max_body, rate=args.rate, burst=args.burst, address_rate=args.address_rate,
        address_burst=args.address_burst, command_timeout=args.command_timeout,
        feeds_per_address=args.feeds_per_address, feeds_total=args.feeds_total, max_header=args.max_header,
        read_timeout=args.read_timeout, webhooks_per_seat=args.webhooks_per_seat,
        webhooks_allow_private=args.webhooks_allow_private, read_bytes_rate=args.read_bytes_rate,
        read_bytes_burst=args.read_bytes_burst, address_bytes_rate=args.address_bytes_rate,
        address_bytes_burst=args.address_bytes_burst, read_slots=args.read_slots,
        page_cache_bytes=args.page_cache_bytes,
    )  # fmt: skip
    stop = threading.Event()
    embedded = is_embedded(client)
    threads = [
        threading.Thread(target=loop.run, args=(stop,), name=name, daemon=True)
        for name, loop in _in_process_loops(args, layout, embedded)
    ]
    for thread in threads:
        thread.start()
    app = create_app(client, layout, limits=limits, cors_origins=origins, board_links=links)
    metrics.start(args, "gateway", roles.gateway(lambda: app.state.feeds.open_feeds))
    get_logger("gateway").info(
        "gateway.start", host=args.host, port=args.port, prefix=layout.prefix, shards=layout.shards,
        embedded=embedded, in_process=[t.name for t in threads], cors_origins=origins,
    )  # fmt: skip
    server = _Server(server_config(app, args.host, args.port, limits, log_level="warning", access_log=False))
    tune_gc()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        # While serving, uvicorn's own handler shuts down gracefully, then re-raises the signal once our handler
        # is back in place: by then there is nothing left to do but stop the worker below and exit 0.
        if not server.started:
            raise SystemExit(0)

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        server.run()
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    return 0


class _Server(uvicorn.Server):
    """uvicorn's server, saying where it listens once its sockets are bound (uvicorn's own line is below the
    warning level the gateway runs it at)."""

    async def startup(self, sockets: list[Any] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit:  # could not bind: uvicorn has logged why
            return
        for url in listening_urls(self):
            get_logger("gateway").info("gateway.listening", url=url, docs=f"{url}/docs")
            print(f"throne gateway listening on {url} (API docs: {url}/docs)", flush=True)


def listening_urls(server: uvicorn.Server) -> list[str]:
    """The base URL of each socket ``server`` listens on (the real port when it was asked for port 0)."""
    urls = []
    for each in getattr(server, "servers", ()):
        for sock in each.sockets:
            host, port = sock.getsockname()[:2]
            urls.append(f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}")
    return urls


def _in_process_loops(args: argparse.Namespace, layout: Layout, embedded: bool) -> list[tuple[str, Any]]:
    """The loops this process runs beside the gateway: on the embedded fakeredis no other process can reach
    the data, so all of them; on a real Redis only those asked for."""
    loops: list[tuple[str, Any]] = []
    shards = range(layout.shards)
    if args.worker or embedded:
        loops.append(("rules-worker", RulesWorker(connect(args.redis_url), shards, layout=layout)))
    if args.bots or embedded:
        from services.bots.runner import BotRunner  # the bots are a client of the bus like any other

        loops.append(("bots", BotRunner(connect(args.redis_url), shards, layout=layout)))
    if args.projections or embedded:
        from projections.models import ALL_MODELS
        from projections.runner import FoldCache, ProjectionWorker

        fold_cache = FoldCache()
        for name, model in ALL_MODELS.items():
            worker = ProjectionWorker(connect(args.redis_url), model(), shards, layout=layout, fold_cache=fold_cache)
            loops.append((f"projection-{name}", worker))
    return loops


if __name__ == "__main__":
    sys.exit(main())

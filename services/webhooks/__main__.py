"""``python -m services.webhooks``: the webhooks process, telling seats' receivers about turns and game ends.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.webhooks --shards all
    python -m services.webhooks failures          # the newest notices given up on, per shard

Two halves in one process: the followers (threads: the event feeds -> the outbox of notices; the timer's clock
notices -> the outbox) and the deliverer (asyncio in the main thread: the outbox -> HTTP). Notices are never
sent from a request path of the gateway.
``--allow-private`` (or env ``THRONE_WEBHOOKS_ALLOW_PRIVATE=1``) lets webhooks reach loopback and private
addresses: for tests and development only (services/webhooks/targets.py).
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from collections.abc import Sequence

import orjson

from services.metrics import roles
from services.process import ShardDeployment, run_shard_process
from services.webhooks.clocks import ClockNoticeFollower
from services.webhooks.config import WebhookConfig, allow_private_from_env
from services.webhooks.delivery import Deliverer
from services.webhooks.follower import WebhookFollower
from services.webhooks.outbox import Outbox


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The webhooks process's own options (the deployment's come from services/process.py)."""
    d = WebhookConfig()
    p.add_argument("action", nargs="?", default="run", choices=("run", "failures"))
    p.add_argument("--consumer", default=None, help="consumer name in the groups (default: webhooks-<host>)")
    p.add_argument("--allow-private", action="store_true", default=None, help="deliver to private addresses")
    p.add_argument("--concurrency", type=int, default=d.concurrency, help="attempts in the prompt lane at once")
    p.add_argument("--slow-after", type=float, default=d.slow_after_s, help="seconds before the slow lane")
    p.add_argument("--slow-slots", type=int, default=d.slow_slots, help="attempts in the slow lane at once")
    p.add_argument("--per-host", type=int, default=d.per_host, help="attempts in flight at once to one host")
    p.add_argument("--per-seat", type=int, default=d.per_seat, help="attempts in flight at once for one seat")
    p.add_argument("--timeout", type=float, default=d.timeout_s, help="seconds each connect, write or read may take")
    p.add_argument("--deadline", type=float, default=d.deadline_s, help="seconds a whole attempt may take")
    p.add_argument("--max-attempts", type=int, default=d.max_attempts, help="attempts before a notice fails")
    p.add_argument("--retry-first", type=float, default=d.retry_first_s, help="first pause between attempts (s)")
    p.add_argument("--retry-cap", type=float, default=d.retry_cap_s, help="longest pause between attempts (s)")
    p.add_argument("--claim-idle-ms", type=int, default=d.claim_idle_ms, help="take over notices idle this long")
    p.add_argument("--sweep-every-ms", type=int, default=d.sweep_every_ms)


def list_failures(d: ShardDeployment) -> int:
    """Print the newest notices given up on, one JSON line each, shard by shard."""
    outbox = Outbox(d.connect(), d.layout)
    for shard in d.shards:
        for row in outbox.failures(shard):
            print(orjson.dumps({"shard": shard, **row}).decode())
    return 0


def serve(d: ShardDeployment) -> int:
    """``failures``: list them; ``run``: follow the feeds and the clocks in threads, deliver in this one."""
    args = d.args
    if args.action == "failures":
        return list_failures(d)
    config = WebhookConfig(
        concurrency=args.concurrency, slow_after_s=args.slow_after, slow_slots=args.slow_slots,
        per_host=args.per_host, per_seat=args.per_seat, timeout_s=args.timeout, deadline_s=args.deadline,
        max_attempts=args.max_attempts,
        retry_first_s=args.retry_first, retry_cap_s=args.retry_cap, claim_idle_ms=args.claim_idle_ms,
        sweep_every_ms=args.sweep_every_ms,
        allow_private=allow_private_from_env() if args.allow_private is None else args.allow_private,
    )  # fmt: skip
    consumer = args.consumer or f"webhooks-{socket.gethostname()}"
    follower = WebhookFollower(d.connect(), d.shards, layout=d.layout, config=config, consumer=consumer)
    clocks = ClockNoticeFollower(d.connect(), d.shards, layout=d.layout, config=config, consumer=consumer)
    deliverer = Deliverer(d.connect(), d.shards, layout=d.layout, config=config, consumer=consumer)

    def run(stop: threading.Event) -> None:
        threads = [
            threading.Thread(target=follower.run, args=(stop,), name="webhooks-follower", daemon=True),
            threading.Thread(target=clocks.run, args=(stop,), name="webhooks-clocks", daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            deliverer.run(stop)
        finally:
            stop.set()
            for thread in threads:
                thread.join(10)

    return d.serve_until_stopped("webhooks", lambda scraped: roles.webhooks(scraped, d.layout, d.shards), run)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments; run the webhooks process until SIGTERM/SIGINT (or list failures)."""
    return run_shard_process(
        argv, module="services.webhooks", doc=__doc__ or "", add_arguments=add_arguments, serve=serve
    )


if __name__ == "__main__":
    sys.exit(main())

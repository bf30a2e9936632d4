"""``python -m services.worker``: run one rules worker over a range of shards.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.worker --shards 0-7
    python -m services.worker --redis-url redis://... --shards all --plugin tests.service.toy_game

Without REDIS_URL (or --redis-url) the worker would serve an in-process fakeredis that no other process can
reach, so it refuses to start: in the embedded default the worker runs inside the client's process instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from services.bus.connection import connect
from services.bus.keys import parse_shards
from services.metrics import endpoint as metrics
from services.metrics import roles
from services.process import add_deployment_arguments, start_deployment_process, stop_on_signals
from services.worker.rules_worker import RulesWorker, WorkerConfig


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, start the worker, serve until SIGTERM/SIGINT (leases are released on the way out)."""
    defaults = WorkerConfig()
    p = argparse.ArgumentParser(prog="python -m services.worker", description=__doc__.splitlines()[0])
    add_deployment_arguments(p)
    p.add_argument("--worker-id", default=None)
    p.add_argument("--batch", type=int, default=defaults.batch)
    p.add_argument("--lease-ttl-ms", type=int, default=defaults.lease_ttl_ms)
    p.add_argument("--claim-idle-ms", type=int, default=defaults.claim_idle_ms)
    p.add_argument("--recover-every-ms", type=int, default=defaults.recover_every_ms)
    p.add_argument("--snapshot-every", type=int, default=defaults.snapshot_every)
    p.add_argument("--cache-size", type=int, default=defaults.cache_size)
    p.add_argument("--max-attempts", type=int, default=defaults.max_attempts)
    p.add_argument("--archive-after-ms", type=int, default=defaults.archive_after_ms)
    args = p.parse_args(argv)

    layout = start_deployment_process(args, "services.worker")
    if layout is None:
        return 2
    config = WorkerConfig(
        batch=args.batch,
        lease_ttl_ms=args.lease_ttl_ms,
        claim_idle_ms=args.claim_idle_ms,
        recover_every_ms=args.recover_every_ms,
        snapshot_every=args.snapshot_every,
        cache_size=args.cache_size,
        max_attempts=args.max_attempts,
        archive_after_ms=args.archive_after_ms,
    )
    worker = RulesWorker(
        connect(args.redis_url),
        parse_shards(args.shards, layout.shards),
        layout=layout,
        config=config,
        worker_id=args.worker_id,
    )
    stop = stop_on_signals()
    scraped = metrics.scrape_client(args.redis_url)
    metrics.start(args, "rules-worker", roles.rules_worker(scraped, layout, worker.shards, worker.stats, worker.leases))
    worker.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())

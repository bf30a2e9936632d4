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

from services.metrics import roles
from services.process import ShardDeployment, run_shard_process, tune_gc
from services.worker.rules_worker import RulesWorker, WorkerConfig


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The rules worker's own options (the deployment's come from services/process.py)."""
    defaults = WorkerConfig()
    p.add_argument("--worker-id", default=None)
    p.add_argument("--batch", type=int, default=defaults.batch)
    p.add_argument("--lease-ttl-ms", type=int, default=defaults.lease_ttl_ms)
    p.add_argument("--claim-idle-ms", type=int, default=defaults.claim_idle_ms)
    p.add_argument("--recover-every-ms", type=int, default=defaults.recover_every_ms)
    p.add_argument("--snapshot-every", type=int, default=defaults.snapshot_every)
    p.add_argument("--cache-size", type=int, default=defaults.cache_size)
    p.add_argument("--max-attempts", type=int, default=defaults.max_attempts)
    p.add_argument("--archive-after-ms", type=int, default=defaults.archive_after_ms)


def serve(d: ShardDeployment) -> int:
    """Run one rules worker on the deployment's shards until stopped (leases are released on the way out)."""
    args = d.args
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
    worker = RulesWorker(d.connect(), d.shards, layout=d.layout, config=config, worker_id=args.worker_id)
    tune_gc()
    return d.serve_until_stopped(
        "rules-worker",
        lambda scraped: roles.rules_worker(scraped, d.layout, worker.shards, worker.stats, worker.leases),
        worker.run,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, start the worker, serve until SIGTERM/SIGINT."""
    return run_shard_process(
        argv, module="services.worker", doc=__doc__ or "", add_arguments=add_arguments, serve=serve
    )


if __name__ == "__main__":
    sys.exit(main())

"""``python -m projections``: run projection workers, or rebuild read models from zero.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections run --models scoreboard,replay,audit,feed
    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections rebuild            # every model
    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections rebuild --model replay

``run`` serves one thread per model, each with its own connection and consumer group, until SIGTERM/SIGINT.
A deployment may as well run one process per model (``--models feed``) or per shard range (``--shards 0-7``).
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

import orjson
import redis

from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import FoldCache, ProjectionWorker, RunnerConfig
from projections.store import MODELS
from services.bus.connection import connect
from services.bus.keys import Layout, parse_shards
from services.log import configure, get_logger
from services.rules.registry import game_names, get_decider


def _models(spec: str) -> list[str]:
    names = list(MODELS) if spec.strip() in ("", "all") else [m.strip() for m in spec.split(",") if m.strip()]
    unknown = [m for m in names if m not in ALL_MODELS]
    if unknown:
        raise SystemExit(f"unknown read model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run ``run`` or ``rebuild``."""
    p = argparse.ArgumentParser(prog="python -m projections", description=__doc__.splitlines()[0])
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="default: env REDIS_URL")
    p.add_argument("--shards", default="all", help='e.g. "all", "0-7" (default: all)')
    p.add_argument("--shard-count", type=int, default=None, help="total shards (default: env THRONE_SHARDS)")
    p.add_argument("--prefix", default=None, help="key prefix (default: env THRONE_PREFIX or 'throne')")
    p.add_argument("--plugin", action="append", default=[], help="module to import (registers games)")
    p.add_argument("--log-level", default=None)
    sub = p.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="keep read models up to date from the shards' feeds")
    run_p.add_argument("--models", default="all", help="comma list of " + ",".join(MODELS) + " (default: all)")
    run_p.add_argument("--consumer", default="main", help="consumer name within each model's group")
    run_p.add_argument("--batch", type=int, default=RunnerConfig().batch)
    run_p.add_argument("--block-ms", type=int, default=RunnerConfig().block_ms)
    run_p.add_argument("--claim-idle-ms", type=int, default=RunnerConfig().claim_idle_ms)
    run_p.add_argument("--stats-key", default=None, help="RPUSH projection lag samples (ms) to this Redis list")
    rb_p = sub.add_parser("rebuild", help="delete read models and rebuild them from the event store")
    rb_p.add_argument("--model", action="append", default=None, help="a model to rebuild (repeatable; default all)")
    args = p.parse_args(argv)

    configure(args.log_level)
    if not args.redis_url:
        print("projections: set REDIS_URL or --redis-url", file=sys.stderr)
        return 2
    for module in args.plugin:
        importlib.import_module(module)
    env_layout = Layout.from_env()
    layout = Layout(prefix=args.prefix or env_layout.prefix, shards=args.shard_count or env_layout.shards)
    shards = parse_shards(args.shards, layout.shards)
    if args.command == "rebuild":
        names = _models(",".join(args.model)) if args.model else list(MODELS)
        done = rebuild(connect(args.redis_url), layout, names, shards)
        print(orjson.dumps({"rebuilt": done}).decode())
        return 0

    for name in game_names():
        get_decider(name)  # import every game now, not on the first event (a cold start would show as lag)
    config = RunnerConfig(batch=args.batch, block_ms=args.block_ms, claim_idle_ms=args.claim_idle_ms)
    fold_cache = FoldCache()  # the models of this process fold each event once between them
    workers = [
        ProjectionWorker(connect(args.redis_url), ALL_MODELS[name](), shards, layout=layout, config=config,
                         consumer=args.consumer, fold_cache=fold_cache)
        for name in _models(args.models)
    ]  # fmt: skip
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    threads = [threading.Thread(target=w.run, args=(stop,), name=w.model.name, daemon=True) for w in workers]
    for t in threads:
        t.start()
    stats = connect(args.redis_url) if args.stats_key else None
    log = get_logger("projections")
    while not stop.wait(1.0):
        if stats is not None:
            _flush_lags(stats, args.stats_key, workers)
    for t in threads:
        t.join(10)
    if stats is not None:
        _flush_lags(stats, args.stats_key, workers)
    log.info("projections.stopped", **{w.model.name: w.stats["events"] for w in workers})
    return 0


def _flush_lags(client: redis.Redis, key: str, workers: list[ProjectionWorker]) -> None:
    """Move the lag samples gathered since the last flush to a Redis list (for the benchmark)."""
    samples: list[str] = []
    for w in workers:
        while w.lags:
            samples.append(f"{w.lags.popleft():.3f}")
    for i in range(0, len(samples), 5000):
        client.rpush(key, *samples[i : i + 5000])


if __name__ == "__main__":
    raise SystemExit(main())

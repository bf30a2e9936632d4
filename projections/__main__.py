"""``python -m projections``: run projection workers, or rebuild read models from zero.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections run --models scoreboard,replay,audit,feed
    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections rebuild            # every model
    REDIS_URL=redis://127.0.0.1:6379/0 python -m projections rebuild --model replay

``run`` serves one thread per model, each with its own connection and consumer group, until SIGTERM/SIGINT.
A deployment may as well run one process per model (``--models feed``) or per shard range (``--shards 0-7``).
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from collections.abc import Sequence

import orjson
import redis

from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import FoldCache, ProjectionWorker, RunnerConfig
from projections.store import MODELS
from projections.supervisor import supervise
from services.log import get_logger
from services.metrics import roles
from services.process import ShardDeployment, run_shard_process
from services.rules.registry import game_names, get_game


def _models(spec: str) -> list[str]:
    names = list(MODELS) if spec.strip() in ("", "all") else [m.strip() for m in spec.split(",") if m.strip()]
    unknown = [m for m in names if m not in ALL_MODELS]
    if unknown:
        raise SystemExit(f"unknown read model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    return names


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The projections' own commands and options (the deployment's come from services/process.py)."""
    sub = p.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="keep read models up to date from the shards' feeds")
    run_p.add_argument("--models", default="all", help="comma list of " + ",".join(MODELS) + " (default: all)")
    run_p.add_argument("--consumer", default="main", help="consumer name within each model's group")
    run_p.add_argument("--batch", type=int, default=RunnerConfig().batch)
    run_p.add_argument("--block-ms", type=int, default=RunnerConfig().block_ms)
    run_p.add_argument("--claim-idle-ms", type=int, default=RunnerConfig().claim_idle_ms)
    run_p.add_argument("--gather-ms", type=int, default=RunnerConfig().gather_ms, help="see RunnerConfig.gather_ms")
    run_p.add_argument("--stats-key", default=None, help="RPUSH projection lag samples (ms) to this Redis list")
    run_p.add_argument(
        "--processes", type=int, default=0,
        help="spread the models over this many processes (default: one each; 1: one thread per model, sharing "
        "their folds)",
    )  # fmt: skip
    rb_p = sub.add_parser("rebuild", help="delete read models and rebuild them from the event store")
    rb_p.add_argument("--model", action="append", default=None, help="a model to rebuild (repeatable; default all)")


def serve(d: ShardDeployment) -> int:
    """``rebuild``: rebuild the models and print what was rebuilt; ``run``: follow the feeds until stopped."""
    args = d.args
    if args.command == "rebuild":
        names = _models(",".join(args.model)) if args.model else list(MODELS)
        done = rebuild(d.connect(), d.layout, names, d.shards)
        print(orjson.dumps({"rebuilt": done}).decode())
        return 0
    names = _models(args.models)
    # One process per model by default: the models then run in parallel, not in turns under one GIL.
    args.processes = args.processes or len(names)
    if args.processes > 1 and len(names) > 1:
        return supervise(args, names)
    return _run_models(d, names)


def _run_models(d: ShardDeployment, names: list[str]) -> int:
    """One thread per model in this process, sharing their folds, until stopped."""
    args = d.args
    for name in game_names():
        get_game(name)  # import every game now, not on the first event (a cold start would show as lag)
    # Following a busy feed allocates many short-lived containers while the fold cache keeps a large heap:
    # with the default thresholds the cyclic GC rescans that heap so often that it takes half of the CPU.
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    config = RunnerConfig(
        batch=args.batch,
        block_ms=args.block_ms,
        claim_idle_ms=args.claim_idle_ms,
        gather_ms=args.gather_ms,
        lag_samples=200_000 if args.stats_key else 0,
    )
    fold_cache = FoldCache()  # the models of this process fold each event once between them
    workers = [
        ProjectionWorker(d.connect(), ALL_MODELS[name](), d.shards, layout=d.layout, config=config,
                         consumer=args.consumer, fold_cache=fold_cache)
        for name in names
    ]  # fmt: skip
    models = [(w.model.name, w.group, w.stats) for w in workers]

    def run(stop: threading.Event) -> None:
        threads = [threading.Thread(target=w.run, args=(stop,), name=w.model.name, daemon=True) for w in workers]
        for t in threads:
            t.start()
        stats = d.connect() if args.stats_key else None
        while not stop.wait(1.0):
            if stats is not None:
                _flush_lags(stats, args.stats_key, workers)
        for t in threads:
            t.join(10)
        if stats is not None:
            _flush_lags(stats, args.stats_key, workers)
        get_logger("projections").info("projections.stopped", **{w.model.name: w.stats["events"] for w in workers})

    return d.serve_until_stopped(
        "projections", lambda scraped: roles.projections(scraped, d.layout, d.shards, models), run
    )


def _flush_lags(client: redis.Redis, key: str, workers: list[ProjectionWorker]) -> None:
    """Move the lag samples gathered since the last flush to a Redis list (for the benchmark)."""
    samples: list[str] = []
    for w in workers:
        while w.lags:
            samples.append(f"{w.lags.popleft():.3f}")
    for i in range(0, len(samples), 5000):
        client.rpush(key, *samples[i : i + 5000])


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run ``run`` or ``rebuild``."""
    return run_shard_process(argv, module="projections", doc=__doc__ or "", add_arguments=add_arguments, serve=serve)


if __name__ == "__main__":
    sys.exit(main())

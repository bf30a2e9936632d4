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
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import orjson
import redis

from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import FoldCache, ProjectionWorker, RunnerConfig
from projections.store import MODELS
from services.bus.connection import connect
from services.bus.keys import parse_shards
from services.log import get_logger
from services.metrics import endpoint as metrics
from services.metrics import roles
from services.process import add_deployment_arguments, start_deployment_process, stop_on_signals
from services.rules.registry import game_names, get_game


def _models(spec: str) -> list[str]:
    names = list(MODELS) if spec.strip() in ("", "all") else [m.strip() for m in spec.split(",") if m.strip()]
    unknown = [m for m in names if m not in ALL_MODELS]
    if unknown:
        raise SystemExit(f"unknown read model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run ``run`` or ``rebuild``."""
    p = argparse.ArgumentParser(prog="python -m projections", description=__doc__.splitlines()[0])
    add_deployment_arguments(p)
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
    args = p.parse_args(argv)

    layout = start_deployment_process(args, "projections")
    if layout is None:
        return 2
    shards = parse_shards(args.shards, layout.shards)
    if args.command == "rebuild":
        names = _models(",".join(args.model)) if args.model else list(MODELS)
        done = rebuild(connect(args.redis_url), layout, names, shards)
        print(orjson.dumps({"rebuilt": done}).decode())
        return 0

    names = _models(args.models)
    # One process per model by default: the models then run in parallel, not in turns under one GIL.
    args.processes = args.processes or len(names)
    if args.processes > 1 and len(names) > 1:
        return _supervise(args, names)
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
        ProjectionWorker(connect(args.redis_url), ALL_MODELS[name](), shards, layout=layout, config=config,
                         consumer=args.consumer, fold_cache=fold_cache)
        for name in names
    ]  # fmt: skip
    stop = stop_on_signals()
    models = [(w.model.name, w.group, w.stats) for w in workers]
    metrics.start(args, "projections", roles.projections(metrics.scrape_client(args.redis_url), layout, shards, models))
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


def _die_with_parent() -> None:
    """In a child: get SIGTERM when the parent dies, even by SIGKILL (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _supervise(args: argparse.Namespace, names: list[str]) -> int:
    """Run the models in ``args.processes`` child processes (round-robin), until SIGTERM/SIGINT."""
    groups = [names[i :: args.processes] for i in range(min(args.processes, len(names)))]
    common = [sys.executable, "-m", "projections", "--redis-url", args.redis_url, "--shards", args.shards]
    if args.shard_count:
        common += ["--shard-count", str(args.shard_count)]
    if args.prefix:
        common += ["--prefix", args.prefix]
    for module in args.plugin:
        common += ["--plugin", module]
    if args.log_level:
        common += ["--log-level", args.log_level]
    run = [
        "run", "--consumer", args.consumer, "--batch", str(args.batch), "--block-ms", str(args.block_ms),
        "--claim-idle-ms", str(args.claim_idle_ms), "--gather-ms", str(args.gather_ms), "--processes", "1",
    ]  # fmt: skip
    if args.stats_key:
        run += ["--stats-key", args.stats_key]
    if args.metrics_host:
        common += ["--metrics-host", args.metrics_host]
    # Each child keeps a ready file of its own; this process's exists while all of theirs do.
    ready_files = [Path(f"{args.ready_file}.{i}") for i in range(len(groups))] if args.ready_file else []
    # Each child serves its own metrics, on consecutive ports from --metrics-port (0: none).
    ports = [args.metrics_port + i if args.metrics_port else 0 for i in range(len(groups))]
    children = [
        subprocess.Popen(
            [
                *common,
                *(["--ready-file", str(ready_files[i])] if ready_files else []),
                "--metrics-port",
                str(ports[i]),
                *run,
                "--models",
                ",".join(group),
            ],
            preexec_fn=_die_with_parent,
        )
        for i, group in enumerate(groups)
    ]
    stop = stop_on_signals()
    while not stop.wait(0.5):
        if ready_files:
            _mirror_ready(Path(args.ready_file), ready_files)
        if any(c.poll() is not None for c in children):
            break  # a child died: stop the others too, and let the supervisor above restart us all
    if ready_files:
        Path(args.ready_file).unlink(missing_ok=True)
    for c in children:
        if c.poll() is None:
            c.terminate()
    codes = []
    for c in children:
        try:
            codes.append(c.wait(20))
        except subprocess.TimeoutExpired:
            c.kill()
            codes.append(c.wait())
    return 0 if stop.is_set() else 1


def _mirror_ready(path: Path, children: list[Path]) -> None:
    """Keep ``path`` while every child's ready file exists, remove it otherwise."""
    if all(c.exists() for c in children):
        if not path.exists():
            path.write_text(f"{os.getpid()}\n")
    else:
        path.unlink(missing_ok=True)


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

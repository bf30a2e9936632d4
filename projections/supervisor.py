"""``python -m projections run`` over several processes: the models spread over child processes, one ready file.

The parent starts one ``python -m projections run --processes 1`` child per group of models (round-robin), each
with its own ready file and metrics port, keeps its own ready file while every child's exists, and stops them
all when it is stopped or when one of them dies (the supervisor above then restarts the lot).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

from services.process import stop_on_signals


def _die_with_parent() -> None:
    """In a child: get SIGTERM when the parent dies, even by SIGKILL (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def supervise(args: argparse.Namespace, names: list[str]) -> int:
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
            mirror_ready(Path(args.ready_file), ready_files)
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


def mirror_ready(path: Path, children: list[Path]) -> None:
    """Keep ``path`` while every child's ready file exists, remove it otherwise."""
    if all(c.exists() for c in children):
        if not path.exists():
            path.write_text(f"{os.getpid()}\n")
    else:
        path.unlink(missing_ok=True)

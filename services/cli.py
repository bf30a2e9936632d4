"""The ``throne`` command line: ``demo``, ``adjudicate`` and ``bench``.

    throne demo [--seed N] [--players 4] [--engine]
    throne adjudicate [INPUT] [-o OUTPUT] [--final-view]
    throne bench

``python -m services.cli ...`` does the same.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, TextIO


def _streams_demo() -> Callable[..., Any] | None:
    """``services.demo.run_demo`` (the demo through Redis streams) if that module exists, else None."""
    try:
        module = importlib.import_module("services.demo")
    except ModuleNotFoundError as exc:
        if exc.name in ("services.demo",):
            return None
        raise
    return getattr(module, "run_demo", None)


def _call_with_supported(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call ``fn`` with those of ``kwargs`` its signature accepts."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in params})


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """A complete seeded game between random bots, move by move, then the result."""
    run_demo = None if args.engine else _streams_demo()
    if run_demo is not None:
        _call_with_supported(run_demo, seed=args.seed, out=out, players=args.players)
        return 0
    from services.engine_demo import play

    play(seed=args.seed, players=args.players, out=out)
    return 0


def cmd_adjudicate(args: argparse.Namespace, out: BinaryIO) -> int:
    """Referee a game from JSON lines: events or a rejection per command line."""
    from services.adjudicator import adjudicate, dumps

    stdin = args.input in (None, "-")
    source: BinaryIO = sys.stdin.buffer if stdin else open(args.input, "rb")  # noqa: SIM115 - closed below
    target = out if args.output in (None, "-") else open(args.output, "wb")  # noqa: SIM115
    try:
        for record in adjudicate(source, final_view=args.final_view):
            target.write(dumps(record) + b"\n")
        target.flush()
    finally:
        if not stdin:
            source.close()
        if target is not out:
            target.close()
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark (``services.bench``)."""
    from services import bench

    bench.main(quick=args.quick)
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``throne``."""
    p = argparse.ArgumentParser(prog="throne", description="Event-sourced referee for In the Shadow of the Emperor.")
    sub = p.add_subparsers(dest="command", required=True, metavar="{demo,adjudicate,bench}")

    demo = sub.add_parser("demo", help="play a complete seeded game between random bots and print it")
    demo.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    demo.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="number of bots (default 4)")
    demo.add_argument(
        "--engine", action="store_true", help="play on the rules engine alone, without the Redis streams service"
    )

    adj = sub.add_parser("adjudicate", help="referee a game given as JSON lines (header, then one command a line)")
    adj.add_argument("input", nargs="?", help="input file of JSON lines (default: stdin)")
    adj.add_argument("-o", "--output", help="output file (default: stdout)")
    adj.add_argument(
        "--final-view", action="store_true", help="end with one line holding the result and the final spectator view"
    )

    bench = sub.add_parser("bench", help="measure the engine (and the service, when available)")
    bench.add_argument("--quick", action="store_true", help="a short run (smaller samples)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``throne`` / ``python -m services.cli``."""
    args = parser().parse_args(argv)
    try:
        if args.command == "demo":
            code = cmd_demo(args, sys.stdout)
        elif args.command == "adjudicate":
            code = cmd_adjudicate(args, sys.stdout.buffer)
        else:
            code = cmd_bench(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``throne demo | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())

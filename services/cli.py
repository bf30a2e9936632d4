"""The ``throne`` command line.

    throne demo [--game G] [--seed N] [--players N] [--engine]
    throne adjudicate [INPUT] [-o OUTPUT] [--final-view]
    throne play [--game G] [--seat 0] [--players N] [--bots KIND] [--seed N] [--name NAME] [--local]
    throne play --game-id ID --token TOKEN [--local]
    throne replay GAME [--version V] [--seat S] [--board]
    throne audit GAME [VERSION] [--refused] [--json]
    throne verify GAME [--json] | --all [--shards SPEC] [--processes N] [--json]
    throne export GAME [-o OUTPUT]
    throne serve [--workers N] [--host H] [--port P] [--no-gateway] [--no-bots] [--no-projections] [--no-webhooks]
           [--no-timer] [--metrics-port BASE]
    throne dead-letters [list] [--shards SPEC] [--json] | retry SHARD ID | discard SHARD ID
    throne bench [--quick] [--engine] [--instructions]

``python -m services.cli ...`` does the same. ``--game`` defaults to env ``THRONE_GAME``, else the default
game (``registry.default_game``: the one pyproject.toml names under ``throne.default_game``); ``--players`` to
as many as the game takes, ``--bots`` to the game's own default bot.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, TextIO

from services.cli_dead_letters import cmd_dead_letters
from services.cli_records import cmd_audit, cmd_export, cmd_replay, cmd_verify


def _streams_demo() -> Callable[..., Any] | None:
    """``services.demo.run_demo`` (the demo through Redis streams) if that module exists, else None."""
    try:
        module = importlib.import_module("services.demo")
    except ModuleNotFoundError as exc:
        if exc.name in ("services.demo",):
            return None
        raise
    return getattr(module, "run_demo", None)


def _env_port(name: str) -> int:
    """The port env ``name`` gives (0 when unset or not a number)."""
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() else 0


def _call_with_supported(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call ``fn`` with those of ``kwargs`` its signature accepts."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in params})


def _known_game(name: str | None, prog: str) -> str | None:
    """``name`` (None: the default game) if such a game is installed; else None, after saying so."""
    from services.rules.registry import UnknownGame, default_game, game_names

    try:
        name = name or default_game()
    except UnknownGame:
        print(f"{prog}: no game is installed (the throne.games entry points)", file=sys.stderr)
        return None
    if name not in game_names():
        print(f"{prog}: no game {name!r} (known: {', '.join(game_names())})", file=sys.stderr)
        return None
    return name


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """A complete seeded game between random bots, move by move, then the result."""
    game = _known_game(args.game, "throne demo")
    if game is None:
        return 2
    run_demo = None if args.engine else _streams_demo()
    try:
        if run_demo is not None:
            _call_with_supported(run_demo, seed=args.seed, out=out, players=args.players, game=game)
            return 0
        from services.engine_demo import play

        play(seed=args.seed, players=args.players, out=out, game=game)
    except ValueError as exc:  # a player count the game is not played with
        print(f"throne demo: {exc}", file=sys.stderr)
        return 2
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

    game = _known_game(args.game, "throne bench")
    if game is None:
        return 2
    bench.main(quick=args.quick, game=game, engine=args.engine, instructions=args.instructions)
    return 0


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    """A person plays in the terminal against bots: a new game, or a running one resumed by id and token."""
    from services.bots.kinds import bot_kinds, default_bot
    from services.bus.client import GameNotCreated
    from services.engine_demo import player_names
    from services.log import configure
    from services.play import DEFAULT_NAME, play
    from services.rules.registry import get_game

    configure("warning")  # the game goes to stdout; the service's JSON logs only for trouble
    if (args.game_id is None) != (args.token is None):
        print("throne play: --game-id and --token go together (resume a game at the token's seat)", file=sys.stderr)
        return 2
    name = (args.name if args.name is not None else os.environ.get("THRONE_NAME") or DEFAULT_NAME).strip()
    if not name or len(name) > 40:
        print("throne play: --name must be 1 to 40 characters", file=sys.stderr)
        return 2
    if args.game_id is not None:
        result = play(
            game_id=args.game_id, token=args.token, local=True if args.local else None, inp=sys.stdin, out=out,
            timeout=args.timeout,
        )  # fmt: skip
        return 0 if result is not None else 1
    game = _known_game(args.game, "throne play")
    if game is None:
        return 2
    try:
        players = len(player_names(get_game(game), args.players))
    except ValueError as exc:
        print(f"throne play: {exc}", file=sys.stderr)
        return 2
    bots = args.bots or default_bot(game)
    if bots not in bot_kinds(game) or not 0 <= args.seat < players:
        print(f"throne play: --bots must be one of {', '.join(bot_kinds(game))} and --seat in "
              f"0..{players - 1}", file=sys.stderr)  # fmt: skip
        return 2
    try:
        result = play(
            game=game, players=players, seat=args.seat, seed=args.seed, bots=bots, name=name,
            local=True if args.local else None, inp=sys.stdin, out=out, timeout=args.timeout,
        )  # fmt: skip
    except GameNotCreated as exc:
        print(f"throne play: the game was not created: {exc}", file=sys.stderr)
        return 2
    return 0 if result is not None else 1


def cmd_serve(args: argparse.Namespace) -> int:
    """Rules workers, projection worker, gateway and bots against REDIS_URL, until SIGINT/SIGTERM."""
    from services.log import configure
    from services.serve import serve

    configure(args.log_level)
    return serve(
        workers=args.workers, gateway=not args.no_gateway, host=args.host, port=args.port, bots=not args.no_bots,
        projections=not args.no_projections, webhooks=not args.no_webhooks, grace=args.grace,
        timer=not args.no_timer, metrics_port=args.metrics_port,
    )  # fmt: skip


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``throne``."""
    p = argparse.ArgumentParser(prog="throne", description="Event-sourced referee for board games.")
    game_default = os.environ.get("THRONE_GAME") or None
    game_help = "the game's name in the registry (default: env THRONE_GAME, else the project's default game)"
    sub = p.add_subparsers(
        dest="command",
        required=True,
        metavar="{demo,adjudicate,play,replay,audit,verify,export,serve,dead-letters,bench}",
    )

    demo = sub.add_parser("demo", help="play a complete seeded game between random bots and print it")
    demo.add_argument("--game", default=game_default, help=game_help)
    demo.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    demo.add_argument("--players", type=int, default=None, help="number of bots (default: the most the game takes)")
    demo.add_argument(
        "--engine", action="store_true", help="play on the rules engine alone, without the Redis streams service"
    )

    adj = sub.add_parser("adjudicate", help="referee a game given as JSON lines (header, then one command a line)")
    adj.add_argument("input", nargs="?", help="input file of JSON lines (default: stdin)")
    adj.add_argument("-o", "--output", help="output file (default: stdout)")
    adj.add_argument(
        "--final-view", action="store_true", help="end with one line holding the result and the final spectator view"
    )

    play = sub.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("--game", default=game_default, help=game_help)
    play.add_argument("--players", type=int, default=None, help="seats, yours included (default: the most it takes)")
    play.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    play.add_argument("--bots", default=None, help="the other seats' bot kind (default: the game's own default bot)")
    play.add_argument("--seed", type=int, default=None, help="the game's seed (default: drawn at random)")
    play.add_argument("--name", default=None, help="your name in the game (default: env THRONE_NAME, else Player)")
    play.add_argument("--game-id", default=None, help="resume this running game (with --token)")
    play.add_argument("--token", default=None, help="your seat's token (printed when the game was created)")
    play.add_argument(
        "--local", action="store_true", help="a rules worker and the bots in this process (always without REDIS_URL)"
    )
    play.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the service (default 10)")

    replay = sub.add_parser("replay", help="a recorded game event by event, with the board (needs REDIS_URL)")
    replay.add_argument("game", help="the game id")
    replay.add_argument("--version", type=int, default=None, help="only the board after this event (0: before any)")
    replay.add_argument("--seat", type=int, default=None, help="as this seat may see it (default: a spectator)")
    replay.add_argument("--board", action="store_true", help="the board after every event, not only the last")

    audit = sub.add_parser("audit", help="why each event happened: command, sender, time, rulings (needs REDIS_URL)")
    audit.add_argument("game", help="the game id")
    audit.add_argument("version", nargs="?", type=int, default=None, help="only the event at this version")
    audit.add_argument("--refused", action="store_true", help="only the refused commands (who, when, why)")
    audit.add_argument("--json", action="store_true", help="the audit as one JSON object")

    verify = sub.add_parser("verify", help="re-run a game's commands through the current rules (needs REDIS_URL)")
    verify.add_argument("game", nargs="?", default=None, help="the game id (or --all)")
    verify.add_argument("--all", action="store_true", help="every stored game: ok / changed at version N, a summary")
    verify.add_argument("--shards", default=None, help="with --all: only these shards (e.g. 0-7)")
    verify.add_argument("--processes", type=int, default=1, help="with --all: processes sharing the shards")
    verify.add_argument("--json", action="store_true", help="the report as one JSON object (--all: one per game)")

    export = sub.add_parser("export", help="a stored game as the offline adjudicator's input (needs REDIS_URL)")
    export.add_argument("game", help="the game id")
    export.add_argument("-o", "--output", help="output file (default: stdout)")

    serve = sub.add_parser("serve", help="rules workers, projections, gateway, bots and webhooks against REDIS_URL")
    serve.add_argument("--workers", type=int, default=1, help="rules worker processes, shards split in ranges")
    serve.add_argument("--host", default="127.0.0.1", help="the gateway's address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="the gateway's port (default 8000)")
    serve.add_argument("--no-gateway", action="store_true")
    serve.add_argument("--no-bots", action="store_true")
    serve.add_argument("--no-projections", action="store_true")
    serve.add_argument("--no-webhooks", action="store_true")
    serve.add_argument("--no-timer", action="store_true", help="no timer process (clocked games then never time out)")
    serve.add_argument("--grace", type=float, default=10.0, help="seconds children get to stop before SIGKILL")
    serve.add_argument("--log-level", default=None, help="debug|info|warning|error (default: env THRONE_LOG_LEVEL)")
    serve.add_argument(
        "--metrics-port", type=int, default=_env_port("THRONE_METRICS_PORT"),
        help="base of the children's Prometheus ports: gateway +0, bots +1, webhooks +2, timer +3, projections +10.., "
        "rules worker i +20+i (default: env THRONE_METRICS_PORT; 0: none)",
    )  # fmt: skip

    dead = sub.add_parser("dead-letters", help="commands that could not be processed: list, retry, discard")
    dead_sub = dead.add_subparsers(dest="action", metavar="{list,retry,discard}")
    dead.set_defaults(action="list", shards=None, count=100, json=False)
    listing = dead_sub.add_parser("list", help="the dead letters, oldest first, shard by shard (the default)")
    listing.add_argument("--shards", help="shards to look at, e.g. 0-7 or 3,5 (default: all)")
    listing.add_argument("--count", type=int, default=100, help="at most this many per shard")
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    for action, text in (
        ("retry", "put a dead letter back on its command stream (after fixing its cause)"),
        ("discard", "delete a dead letter"),
    ):
        one = dead_sub.add_parser(action, help=text)
        one.add_argument("shard", type=int)
        one.add_argument("id", help="the dead letter's entry id, as listed")

    bench = sub.add_parser("bench", help="measure the engine (and the service, when available)")
    bench.add_argument("--game", default=game_default, help=game_help)
    bench.add_argument("--quick", action="store_true", help="a short run (smaller samples)")
    bench.add_argument("--engine", action="store_true", help="only the engine's random games against the machine")
    bench.add_argument(
        "--instructions", action="store_true", help="the engine's games and their instructions per game (callgrind)"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``throne`` / ``python -m services.cli``."""
    args = parser().parse_args(argv)
    try:
        if args.command == "demo":
            code = cmd_demo(args, sys.stdout)
        elif args.command == "adjudicate":
            code = cmd_adjudicate(args, sys.stdout.buffer)
        elif args.command == "play":
            code = cmd_play(args, sys.stdout)
        elif args.command in ("replay", "audit", "verify"):
            code = {"replay": cmd_replay, "audit": cmd_audit, "verify": cmd_verify}[args.command](args, sys.stdout)
        elif args.command == "export":
            code = cmd_export(args, sys.stdout.buffer)
        elif args.command == "serve":
            code = cmd_serve(args)
        elif args.command == "dead-letters":
            code = cmd_dead_letters(args, sys.stdout)
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

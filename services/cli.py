"""The ``throne`` command line.

    throne demo [--game G] [--seed N] [--players N] [--engine]
    throne adjudicate [INPUT] [-o OUTPUT] [--final-view]
    throne play [--game G] [--seat 0] [--players N] [--bots KIND] [--seed N] [--name NAME] [--local]
    throne play --game-id ID --token TOKEN [--local]
    throne replay GAME [--version V] [--seat S] [--board]
    throne audit GAME [VERSION] [--json]
    throne verify GAME [--json] | --all [--shards SPEC] [--processes N] [--json]
    throne export GAME [-o OUTPUT]
    throne serve [--workers N] [--host H] [--port P] [--no-gateway] [--no-bots] [--no-projections] [--no-webhooks]
           [--no-timer] [--metrics-port BASE]
    throne dead-letters [list] [--shards SPEC] [--json] | retry SHARD ID | discard SHARD ID
    throne bench [--quick] [--engine]

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

import orjson


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
    bench.main(quick=args.quick, game=game, engine=args.engine)
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


def _read_models() -> Any:
    from projections.api import ReadModels
    from services.bus.connection import connect
    from services.bus.keys import Layout

    return ReadModels(connect(), Layout.from_env())


def _read_model_call(fn: Callable[[], Any]) -> tuple[int, Any]:
    """(0, answer) or (2, None) after printing a read-model error (an unknown game, a bad version...)."""
    from projections.api import ReadModelError

    try:
        return 0, fn()
    except ReadModelError as exc:
        hint = "" if os.environ.get("REDIS_URL") else " (no REDIS_URL: this process's embedded store is empty)"
        print(f"throne: {exc.code}: {exc.message}{hint}", file=sys.stderr)
        return 2, None


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    """The game event by event as a seat (or a spectator) may see it, and the board."""
    models = _read_models()
    if args.version is not None:
        code, step = _read_model_call(lambda: models.replay(args.game, args.version, args.seat))
        if step is not None:
            print(f"{step['version']:5d}  {step['event_text']}", file=out)
            print(step["board_text"], file=out)
        return code
    code, step = _read_model_call(lambda: models.replay(args.game, 0, args.seat))
    if step is None:
        return code
    for version in range(1, int(step["last_version"]) + 1):
        step = models.replay(args.game, version, args.seat)
        print(f"{version:5d}  {step['event_text']}", file=out)
        if args.board:
            print(step["board_text"], file=out)
    if not args.board:
        print(step["board_text"], file=out)
    return 0


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    """Why each event (or the one at VERSION) happened, and every refused command: sender, times, rulings with
    their texts, inputs."""
    from projections.models import who_sent

    models = _read_models()
    code, audit = _read_model_call(lambda: models.audit(args.game, args.version))
    if audit is None:
        return code
    if args.json:
        print(orjson.dumps(audit).decode(), file=out)
        return 0
    told: set[str] = set()  # each ruling's text is printed once, where it is first cited
    for entry in audit["entries"]:
        rulings = ",".join(entry.get("rulings") or [])
        command = entry.get("command")
        if entry.get("kind") == "refusal":
            print(f"{entry['version']:5d}R refused {entry['code']} [{rulings}] {entry['sentence']}", file=out)
        else:
            print(f"{entry['version']:5d}  {entry['event_type']} [{rulings}] {entry.get('sentence', '')}", file=out)
        if command and command.get("kind") != "create":
            payload = orjson.dumps(command.get("payload")).decode()
            print(f"       sent by {who_sent(command)}, command id {command.get('id')}: {payload}", file=out)
        for ruling in entry.get("ruling_texts") or ():
            if ruling["id"] in told:
                continue
            told.add(ruling["id"])
            title = f" {ruling['title']}" if ruling.get("title") else ""
            print(f"       {ruling['id']}{title}: {ruling['text']}", file=out)
    return 0


def cmd_export(args: argparse.Namespace, out: BinaryIO) -> int:
    """A stored game as the offline adjudicator's input (JSON lines), to re-referee it offline."""
    models = _read_models()
    code, lines = _read_model_call(lambda: models.export(args.game))
    if lines is None:
        return code
    target = out if args.output in (None, "-") else open(args.output, "wb")  # noqa: SIM115 - closed below
    try:
        for line in lines:
            target.write(line + b"\n")
        target.flush()
    finally:
        if target is not out:
            target.close()
    return 0


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    """Re-run the game's (or with --all every stored game's) commands through the current rules; exit 1 when
    any event differs."""
    if args.all:
        return _verify_all(args, out)
    if args.game is None:
        print("throne verify: give a game id, or --all", file=sys.stderr)
        return 2
    models = _read_models()
    code, report = _read_model_call(lambda: models.verify(args.game))
    if report is None:
        return code
    if args.json:
        print(orjson.dumps(report).decode(), file=out)
    else:
        verdict = "ok" if report["ok"] else f"{len(report['differences'])} difference(s)"
        print(
            f"{args.game}: {verdict}: {report['commands']} commands re-run, {report['events_recomputed']} events "
            f"recomputed, {report['events_recorded']} recorded (rules {report['rules_version_recorded']} recorded, "
            f"{report['rules_version_now']} now)",
            file=out,
        )
        for diff in report["differences"]:
            print(f"  version {diff.get('version')}: {diff.get('reason')}", file=out)
    return 0 if report["ok"] else 1


def _verify_all(args: argparse.Namespace, out: TextIO) -> int:
    """Every stored game, one line each (ok / changed at version N: the reason / error), then one JSON summary."""
    import time

    from projections.verify_all import verify_all
    from services.bus.connection import connect
    from services.bus.keys import Layout, parse_shards

    layout = Layout.from_env()
    shards = parse_shards(args.shards, layout.shards) if args.shards else None
    if args.processes > 1 and not os.environ.get("REDIS_URL"):
        print("throne verify --all: --processes needs REDIS_URL (each process connects itself)", file=sys.stderr)
        return 2
    counts = {"ok": 0, "changed": 0, "error": 0}
    t0 = time.perf_counter()
    for v in verify_all(connect(), layout, shards, processes=args.processes):
        counts[v["status"]] += 1
        if args.json:
            print(orjson.dumps(v).decode(), file=out)
        elif v["status"] == "ok":
            print(f"{v['game_id']} ok", file=out)
        elif v["status"] == "changed" and v["changed_at"] is not None:
            first = v["first_difference"]
            print(f"{v['game_id']} changed at version {v['changed_at']}: {first['reason']}", file=out)
        elif v["status"] == "changed":
            change = v["first_outcome_change"]
            print(f"{v['game_id']} changed: a command's outcome: {change['recorded']} then, "
                  f"{change['recomputed']} now", file=out)  # fmt: skip
        else:
            print(f"{v['game_id']} error: {'; '.join(v['errors'])}", file=out)
    seconds = time.perf_counter() - t0
    games = sum(counts.values())
    summary = {"games": games, **counts, "seconds": round(seconds, 3),
               "games_per_s": round(games / seconds, 1) if seconds > 0 else None}  # fmt: skip
    print(orjson.dumps({"summary": summary}).decode(), file=out)
    return 0 if counts["changed"] == 0 and counts["error"] == 0 else 1


def cmd_dead_letters(args: argparse.Namespace, out: TextIO) -> int:
    """List the dead letters, put one back on its command stream, or discard one (needs REDIS_URL)."""
    from services.bus.connection import connect
    from services.bus.keys import Layout, parse_shards
    from services.store import deadletters

    client, layout = connect(), Layout.from_env()
    if args.action == "retry":
        result = deadletters.retry_dead_letter(client, layout, args.shard, args.id)
        print(f"{result.status}: {result.message}" + (f" (entry {result.entry})" if result.entry else ""), file=out)
        return 0 if result.status == "requeued" else 1
    if args.action == "discard":
        found = deadletters.discard_dead_letter(client, layout, args.shard, args.id)
        print("discarded" if found else f"gone: no dead letter {args.id} on shard {args.shard}", file=out)
        return 0 if found else 1
    shards = parse_shards(args.shards, layout.shards) if args.shards else None
    letters = deadletters.list_dead_letters(client, layout, shards, count=args.count)
    if args.json:
        for letter in letters:
            print(orjson.dumps(letter.to_dict()).decode(), file=out)
        return 0
    for letter in letters:
        why_not = letter.retryable
        retry = "retryable" if why_not is None else f"not retryable: {why_not}"
        print(
            f"shard {letter.shard} {letter.id}  game {letter.game_id or '-'} command {letter.command_id or '-'}  "
            f"{letter.attempts} attempt(s)  {letter.reason}  [{retry}]",
            file=out,
        )
    if not letters:
        print("no dead letters", file=out)
    return 0


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

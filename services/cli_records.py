"""The ``throne`` commands that read stored games (they need REDIS_URL): ``replay``, ``audit``, ``verify`` (one
game, or ``--all``) and ``export``. Each asks the projections' query API (projections/api.py) and prints its
answer as lines (or JSON with ``--json``); a read model's refusal (an unknown game, a bad version) is printed
and exits 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

import orjson


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
    """The game event by event as a seat (or a spectator) may see it, and the board: the whole game in one read
    of its events and one fold (``ReadModels.replay_all``), or the one step at ``--version``."""
    models = _read_models()
    if args.version is not None:
        code, step = _read_model_call(lambda: models.replay(args.game, args.version, args.seat))
        if step is not None:
            print(f"{step['version']:5d}  {step['event_text']}", file=out)
            print(step["board_text"], file=out)
        return code
    code, whole = _read_model_call(lambda: models.replay_all(args.game, args.seat, boards=args.board))
    if whole is None:
        return code
    lines = []
    for step in whole["steps"]:
        lines.append(f"{step['version']:5d}  {step['event_text']}")
        if args.board:
            lines.append(step["board_text"])
    if not args.board:
        lines.append(whole["board_text"])
    print("\n".join(lines), file=out)
    return 0


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    """Why each event (or the one at VERSION) happened, and every refused command: sender, times, rulings with
    their texts, inputs (``--refused``: the refused commands alone). One read of each key whatever the length."""
    from projections.audit_model import who_sent

    models = _read_models()
    refused = bool(args.refused)
    code, audit = _read_model_call(lambda: models.audit(args.game, args.version, refused_only=refused))
    if audit is None:
        return code
    if args.json:
        print(orjson.dumps(audit).decode(), file=out)
        return 0
    lines: list[str] = []
    told: set[str] = set()  # each ruling's text is printed once, where it is first cited
    for entry in audit["entries"]:
        rulings = ",".join(entry.get("rulings") or [])
        command = entry.get("command")
        if entry.get("kind") == "refusal":
            lines.append(f"{entry['version']:5d}R refused {entry['code']} [{rulings}] {entry['sentence']}")
        else:
            lines.append(f"{entry['version']:5d}  {entry['event_type']} [{rulings}] {entry.get('sentence', '')}")
        if command and command.get("kind") != "create":
            payload = orjson.dumps(command.get("payload")).decode()
            lines.append(f"       sent by {who_sent(command)}, command id {command.get('id')}: {payload}")
        for ruling in entry.get("ruling_texts") or ():
            if ruling["id"] in told:
                continue
            told.add(ruling["id"])
            title = f" {ruling['title']}" if ruling.get("title") else ""
            lines.append(f"       {ruling['id']}{title}: {ruling['text']}")
    if refused and not lines:
        lines.append("no refused commands")
    if lines:
        print("\n".join(lines), file=out)
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

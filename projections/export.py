"""Export: a stored game as the offline adjudicator's input (services/adjudicator.py), so that any game of the
service can be re-refereed offline, byte for byte.

The first line is the header (the game's name, players, settings and seed from its metadata; with a fair shuffle the
published ``commitment``, ``practice`` and the ``salt``; the seed and the salt are null until the game is over, so
only a finished game can be re-refereed offline); then every logged
command the rules judged, in the order the rules worker committed them, as its JSON with the sender's ``seat``:
the accepted ones, and the refused ones the rules refused (their rejection shows again offline). Commands the
service refused before any rule saw them (a stale version, a game already over, a payload naming another seat,
...) are left out: they changed nothing and would mean something else without their envelope. Running the
adjudicator on the export gives the stored events, each one byte for byte, at its stored version.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from projections.history import Game, History
from projections.verify import SERVICE_CODES
from services.bus import envelope as env_mod
from services.store.eventstore import StoredCommand


def exported_command(cmd: StoredCommand) -> dict[str, Any] | None:
    """The adjudicator's line of a logged command (None: the rules never judged it, so it is not exported)."""
    if cmd.kind != "cmd" or cmd.seat is None or not isinstance(cmd.payload, dict):
        return None
    if not cmd.accepted:
        code = (cmd.outcome.get("rejection") or {}).get("code")
        if code in SERVICE_CODES or code == env_mod.COMMAND_ID_CONFLICT:
            return None
        if cmd.payload.get("seat", cmd.seat) != cmd.seat:
            return None  # refused for naming another seat than its sender's: the seat is part of the refusal
    return {**cmd.payload, "seat": cmd.seat}


def export_lines(history: History, game: Game) -> Iterator[bytes]:
    """The export of ``game`` as JSON lines (no newlines): the header, then one command a line. A clocked game's
    lines carry ``at_ms``, the time the rules worker stamped on each (the creation's on the header), so that its
    clocks and timeouts come out the same offline."""
    meta = game.meta
    over = meta.finished
    header: dict[str, Any] = {
        "game": meta.name, "players": list(meta.players), "settings": dict(meta.settings),
        "seed": meta.seed if over else None,
    }  # fmt: skip
    commands = history.commands(game)
    create = next((c for c in commands if c.kind == "create" and c.accepted), None)
    if create is not None:
        # The fair shuffle: the published commitment, and after the end the salt, so that the adjudicator
        # re-records the commitment and checks the reveal against what was published.
        opening = history.events(game, 1, create.version)
        commit = next((e.data for e in opening if e.data.get("type") == "SeedCommitted"), None)
        if commit is not None:
            header.update(commitment=commit.get("commitment"), practice=bool(commit.get("practice")))
            header["salt"] = commit.get("salt") if over else None
    timed = meta.settings.get("clock") is not None
    if timed and create is not None:
        header["at_ms"] = create.committed_ms
    yield orjson.dumps(header)
    for cmd in commands:
        line = exported_command(cmd)
        if line is not None:
            yield orjson.dumps({**line, "at_ms": cmd.committed_ms} if timed else line)

"""Verification: re-run a game's recorded commands through the current rules and compare the events.

The recorded commands (the event store's command log, archive included) are replayed in their order, each
with the seat that sent it and at the time it was stamped (a clocked game's stamps and timeouts depend on it),
from ``rules.start(players, settings, seed, created)``; the events this produces are
compared, version by version and as JSON, with the recorded ones. Every event that differs is reported with
the command behind it on each side. A dispute, or a change of the rules code, thus shows exactly which games
(and which moves of them) would have gone differently.

Commands the service refused before any rule was applied (wrong token, stale version, bad envelope, game
over, ...) are not replayed: the rules never saw them. A command whose outcome changes (accepted then,
refused now, or another rejection code) is listed under ``outcome_changes`` as well.

The fair shuffle: the salt (and whether the seed was the creator's) is read from the recorded ``SeedCommitted``,
and ``fairness`` says whether the reveal matches the commitment (``services/rules/fair.py: verdict``); a mismatch
fails the verification. Until the game is over, the report shows no seed and no salt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from events.base import Event, Rejection
from services.bus import envelope as env_mod
from services.bus.keys import Layout
from services.rules import fair
from services.rules.table import Table
from services.store.eventstore import StoredCommand, StoredEvent
from services.store.meta import GameMeta
from services.store.repository import GameLookup, GameRepository, UnknownGame, UnknownRules, registry_game

SERVICE_CODES = frozenset(
    {
        env_mod.BAD_ENVELOPE,
        env_mod.UNKNOWN_GAME,
        env_mod.WRONG_TOKEN,
        env_mod.STALE_VERSION,
        env_mod.PAYLOAD_TOO_LARGE,
        env_mod.NOT_JSON,
        env_mod.GAME_OVER,
        env_mod.GAME_EXISTS,
        env_mod.DEAD_LETTER,
    }
)
"""Rejections the service gives before the rules see a command (``bad_command`` is the rules' parser's)."""


class VerifyError(Exception):
    """The game cannot be verified (unknown game, no rules for its name)."""


@dataclass(frozen=True, slots=True)
class _Made:
    raw: bytes
    command: StoredCommand | None

    @property
    def data(self) -> dict[str, Any]:
        return orjson.loads(self.raw)  # type: ignore[no-any-return]


@dataclass(slots=True)
class RecordedEvent:
    """A recorded event as its stored JSON bytes (decoded only when it differs): what ``verify --all`` reads."""

    version: int
    raw: bytes
    command_id: str

    @property
    def data(self) -> dict[str, Any]:
        """The event's JSON."""
        return orjson.loads(self.raw)  # type: ignore[no-any-return]


def _command_doc(cmd: StoredCommand | None) -> dict[str, Any] | None:
    if cmd is None:
        return None
    return {
        "id": cmd.command_id,
        "kind": cmd.kind,
        "seat": cmd.seat,
        "payload": cmd.payload,
        "committed_ms": cmd.committed_ms,
        "outcome": cmd.outcome.get("status"),
    }


def verify_game(client: redis.Redis, layout: Layout, game_id: str, games: GameLookup = registry_game) -> dict[str, Any]:
    """The verification report of one game (see the module docstring and ``projections.api.ReadModels``)."""
    repo = GameRepository(client, layout, games=games)
    try:
        meta = repo.meta(game_id)
        rules = repo.game(meta).rules
    except UnknownRules as exc:
        raise VerifyError(f"no rules for game name {exc.name!r}") from None
    except UnknownGame:
        raise VerifyError(f"no game {game_id}") from None
    return verify_recorded(rules, meta, repo.events(game_id), repo.commands(game_id))


def verify_recorded(
    rules: Table,
    meta: GameMeta,
    recorded: Sequence[StoredEvent | RecordedEvent],
    log: Sequence[StoredCommand],
) -> dict[str, Any]:
    """The verification report of a game from what the store holds of it (no IO: the rules re-run only).

    Each command is re-run with the rules' ``execute`` (decide and fold in one pass, at its logged time); a
    recomputed event is compared with the recorded one as JSON bytes first (the worker recorded
    ``encode_event_bytes``), as parsed JSON only when the bytes differ."""
    game_id = meta.game_id
    by_id = {c.command_id: c for c in log}
    create = next((c for c in log if c.kind == "create" and c.accepted), None)
    players, settings, seed = list(meta.players), dict(meta.settings), meta.seed
    sealed = _fair_facts(recorded)
    fairness = fair.verdict(sealed)
    commit = next((d for d in sealed if d.get("type") == "SeedCommitted"), None)
    salt = None if commit is None else commit.get("salt")
    practice = commit is not None and bool(commit.get("practice"))

    made: list[_Made] = []
    outcome_changes: list[dict[str, Any]] = []
    errors: list[str] = []
    state = rules.initial_state()
    try:
        # Each command is re-decided at the time the worker stamped on it (its logged commit time): a clocked
        # game's stamps and timeouts come out the same on any day.
        opening = (
            rules.start(players, settings, seed, create.committed_ms, salt, practice)
            if create is not None
            else rules.start(players, settings, seed)
        )
        for event in opening:
            made.append(_Made(rules.encode_event_bytes(event), create))
            state = rules.evolve(state, event)
    except Exception as exc:  # the current rules cannot even open it: every event differs
        errors.append(f"start failed: {exc!r}")
    if not log:
        errors.append("no command log: the game was recorded before commands were logged")
    replayed = 0
    for cmd in log if not errors else ():
        if cmd.kind != "cmd":
            continue
        code = (cmd.outcome.get("rejection") or {}).get("code")
        if not cmd.accepted and code in SERVICE_CODES:
            continue
        replayed += 1
        payload = cmd.payload if isinstance(cmd.payload, dict) else None
        try:
            if payload is None or cmd.seat is None:
                raise ValueError("the logged command is not a JSON object with a seat")
            command = rules.parse_command({**payload, "seat": cmd.seat})
            done = rules.execute(state, command, cmd.committed_ms)
            result: list[Event] | Rejection = done if isinstance(done, Rejection) else done[0]
        except Exception as exc:
            # bad_command now (and maybe then); rules that raise are a difference too.
            done = result = Rejection(code=env_mod.BAD_COMMAND, message=str(exc)[:300])
        now_code = result.code if isinstance(result, Rejection) else None
        if (cmd.accepted and now_code is not None) or (not cmd.accepted and now_code != code):
            outcome_changes.append(
                {
                    "command": _command_doc(cmd),
                    "recorded": "accepted" if cmd.accepted else f"rejected: {code}",
                    "recomputed": "accepted" if now_code is None else f"rejected: {now_code}",
                }
            )
        if isinstance(done, Rejection):
            continue
        made.extend(_Made(rules.encode_event_bytes(event), cmd) for event in done[0])
        state = done[1]

    differences: list[dict[str, Any]] = []
    for i in range(max(len(recorded), len(made))):
        rec = recorded[i] if i < len(recorded) else None
        new = made[i] if i < len(made) else None
        if rec is not None and new is not None and isinstance(rec, RecordedEvent) and rec.raw == new.raw:
            continue  # the same bytes: the common case, without decoding either side
        rec_data = rec.data if rec is not None else None
        new_data = new.data if new is not None else None
        if rec_data == new_data:
            continue
        if rec_data is None:
            reason = "an event the recorded game does not have"
        elif new_data is None:
            reason = "the current rules do not produce this event"
        elif rec_data.get("type") != new_data.get("type"):
            reason = f"{rec_data.get('type')} recorded, {new_data.get('type')} now"
        else:
            changed = sorted(k for k in set(rec_data) | set(new_data) if rec_data.get(k) != new_data.get(k))
            reason = f"{rec_data.get('type')} differs in {', '.join(changed)}"
        differences.append(
            {
                "version": i + 1,
                "recorded": rec_data,
                "recomputed": new_data,
                "command": _command_doc(by_id.get(rec.command_id) if rec is not None else None),
                "recomputed_command": _command_doc(new.command if new is not None else None),
                "reason": reason,
            }
        )
    over = meta.finished
    return {
        "game_id": game_id,
        "name": meta.name,
        "rules_version_recorded": meta.rules_version or None,
        "rules_version_now": rules.rules_version,
        "commands": len([c for c in log if c.kind == "cmd"]),
        "commands_replayed": replayed,
        "events_recorded": len(recorded),
        "events_recomputed": len(made),
        "ok": not differences and not outcome_changes and not errors and fairness["status"] != fair.MISMATCH,
        "fairness": fair.scrub(fairness, over),
        "differences": fair.scrub(differences, over),
        "outcome_changes": fair.scrub(outcome_changes, over),
        "errors": errors,
    }


_FAIR_MARKS = (b'"SeedCommitted"', b'"SeedRevealed"')


def _fair_facts(recorded: Sequence[StoredEvent | RecordedEvent]) -> list[dict[str, Any]]:
    """The opening event and the fair-shuffle facts of a game, as JSON (the rest is not decoded)."""
    out = []
    for i, rec in enumerate(recorded):
        if isinstance(rec, RecordedEvent):
            if i == 0 or any(mark in rec.raw for mark in _FAIR_MARKS):
                out.append(rec.data)
        elif i == 0 or rec.data.get("type") in fair.FACTS:
            out.append(rec.data)
    return out

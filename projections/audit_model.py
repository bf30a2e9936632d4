"""The audit read model: per event the command behind it, its rulings and a sentence a referee can read;
and the documents the audit API composes from it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx, Projection, iso_ms
from projections.store import Ops, RMKeys
from projections.verify import SERVICE_CODES
from services.bus.envelope import BAD_COMMAND
from services.rules.reference import Ruling, ruling_texts
from services.store.eventstore import StoredCommand, command_from_entry


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=str)


# --- audit -----------------------------------------------------------------------------------------------------
class AuditModel(Projection):
    """Per event: the command behind it (sender, seat, times, outcome), the rulings and deciding inputs, and a
    sentence a referee can read. This is the referee's full-information record: it is not filtered per seat.

    Stored lean: per event the recorded JSON, its commit ms, its command id and the presenter's explanation; per
    command (once, from the batch holding its first event) its document with its label. The API composes the
    entries (:func:`compose_audit_entry`), the same way from the store when the model has not caught up."""

    name = "audit"

    def prefetch(self, r: redis.Redis, keys: RMKeys, games: Sequence[tuple[GameCtx, list[Applied]]]) -> dict[str, Any]:
        """The command-log entry of every command behind the batches' events (one pipelined round trip).

        Log ids are ``<version after>-<n>`` and a command's events are written together, so the first entry at
        or after ``<v>-0`` is the command that wrote event ``v``.
        """
        pipe = r.pipeline(transaction=False)
        asked: list[tuple[str, str]] = []
        lay = keys.layout
        for ctx, batch in games:
            seen: set[str] = set()
            for a in batch:
                if a.command_id not in seen:
                    seen.add(a.command_id)
                    asked.append((ctx.game_id, a.command_id))
                    pipe.xrange(lay.commands(ctx.shard, ctx.game_id), min=f"{a.version}-0", max="+", count=1)
        out: dict[str, dict[str, StoredCommand]] = {ctx.game_id: {} for ctx, _ in games}
        for (gid, cid), entries in zip(asked, pipe.execute(), strict=True):
            if entries:
                cmd = command_from_entry(*entries[0])
                if cmd.command_id == cid:
                    out[gid][cid] = cmd
        return out

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """One lean entry per event; a command's document when its first event is in this batch."""
        commands: dict[str, StoredCommand] = extra or {}
        stream, docs = keys.audit(ctx.game_id), keys.audit_commands(ctx.game_id)
        presenter, players = ctx.presenter, ctx.players
        state_before = before
        for a in batch:
            cmd = commands.get(a.command_id)
            if cmd is not None and cmd.outcome.get("first_version") == a.version:
                # Its label is judged in the position it was sent in: the state before its first event.
                ops.add("HSET", docs, cmd.command_id, _dumps(command_doc(ctx, cmd, state_before)))
            explanation = presenter.explain_event(a.event, players)
            ops.add("XADD", stream, f"0-{a.version}", "e", a.raw, "t", a.at, "c", a.command_id, "x", explanation)
            state_before = a.state


def command_label(ctx: GameCtx, cmd: StoredCommand, state: Any) -> str:
    """The command in words (the presenter's label), judged in the position it was sent in."""
    if cmd.kind == "create":
        p = cmd.payload if isinstance(cmd.payload, dict) else {}
        return f"create a game of {p.get('name', ctx.name)} for {', '.join(map(str, p.get('players') or ()))}"
    try:
        command = ctx.rules.parse_command({**cmd.payload, "seat": cmd.seat})
        return str(ctx.presenter.label(command, state))
    except Exception:
        # The command was accepted, so it parsed then; a rules change may have made it unreadable now.
        return orjson.dumps(cmd.payload).decode()


_SECOND_PERSON = re.compile(r"\b(?:(your)|(yours)|(you))\b", re.IGNORECASE)


def third_person(label: str, sender: str | None) -> str:
    """A command's label told by the referee: labels are menu items addressed to the seat that sends them, so
    "your daughter" / "ends your turn" become "Ann's daughter" / "ends Ann's turn" (``"the sender"`` when the
    sender has no name)."""
    name = sender or "the sender"

    def swap(m: re.Match[str]) -> str:
        return f"{name}'s" if (m.group(1) or m.group(2)) else name

    return _SECOND_PERSON.sub(swap, label)


def command_doc(ctx: GameCtx, cmd: StoredCommand, state_before: Any) -> dict[str, Any]:
    """What the audit tells of a command: id, kind, seat and sender, the JSON sent, its label, times, outcome."""
    players = ctx.players
    sender = players[cmd.seat] if cmd.seat is not None and 0 <= cmd.seat < len(players) else None
    return {
        "id": cmd.command_id,
        "kind": cmd.kind,
        "seat": cmd.seat,
        "sender": sender,
        "payload": cmd.payload,
        "label": third_person(command_label(ctx, cmd, state_before), sender),
        "received_ms": cmd.received_ms,
        "committed_ms": cmd.committed_ms,
        "outcome": cmd.outcome,
    }


def who_sent(command: dict[str, Any]) -> str:
    """The sender of a logged command in words: ``"Green (seat 1)"``, or ``"seat 1"`` without a name, or ``"an
    unknown sender"`` without a seat (never ``"None"``)."""
    seat, sender = command.get("seat"), command.get("sender")
    if sender and seat is not None:
        return f"{sender} (seat {seat})"
    if seat is not None:
        return f"seat {seat}"
    return "an unknown sender"


def _command_words(command: dict[str, Any]) -> str:
    times = [f"command {command['id']}"]
    if command.get("received_ms"):
        times.append(f"received {iso_ms(command['received_ms'])}")
    if command.get("committed_ms"):
        times.append(f"committed {iso_ms(command['committed_ms'])}")
    return f"{third_person(str(command['label']), command.get('sender'))} ({', '.join(times)})"


def compose_audit_entry(
    version: int,
    data: dict[str, Any],
    at: int,
    command_id: str,
    command: dict[str, Any] | None,
    explanation: str,
    *,
    automatic: bool = False,
    reference: Mapping[str, Ruling] | None = None,
) -> dict[str, Any]:
    """The audit record of one event, as the API answers it (see projections/api.py).

    ``automatic``: the game's own flow recorded the event (the presenter's ``flow_event``), so it is told as
    recorded with the command, not caused by it. ``reference``: the game's rulings, whose texts are attached."""
    if command is None:
        cause = f"No logged command is behind it (command id {command_id or 'unknown'})."
    elif command["kind"] == "create":
        cause = (
            f"It opened the game: {command['label']} (command {command['id']}, received "
            f"{iso_ms(command['received_ms']) or 'at an unknown time'})."
        )
    elif automatic:
        cause = (
            f"No seat chose it: the game's own flow recorded it, in the same commit as the command of "
            f"{who_sent(command)} after which the game ran on: {_command_words(command)}."
        )
    else:
        cause = f"It follows the command of {who_sent(command)}: {_command_words(command)}."
    if command is None:
        origin = "unknown"
    elif command["kind"] == "create":
        origin = "opening"
    else:
        origin = "flow" if automatic else "command"
    kind = data.get("type")
    rulings = list(data.get("rulings") or ())
    return {
        "kind": "event",
        "version": version,
        "event_type": kind,
        "event": data,
        "rulings": rulings,
        "ruling_texts": ruling_texts(reference or {}, rulings),
        "inputs": {k: v for k, v in data.items() if k not in ("type", "rulings")},
        "at_ms": at,
        "cause": origin,
        "command": command,
        "explanation": explanation,
        "sentence": f"Event {version} ({kind}, {iso_ms(at) or 'time unknown'}): {explanation} {cause}",
    }


def compose_refusal_entry(command: dict[str, Any], reference: Mapping[str, Ruling] | None = None) -> dict[str, Any]:
    """The audit record of one refused command (``command`` its :func:`command_doc`): who sent it and when, the
    command, the code, the sentence its sender was told and the rulings it broke, with their texts.

    ``version`` is the version it was judged at: it comes after that event and before the next one. The sentence
    is the referee's; the ``message`` (addressed to the sender) is quoted in it as the sender received it."""
    outcome = command.get("outcome") or {}
    rejection = outcome.get("rejection") or {}
    code = str(rejection.get("code") or "rejected")
    message = str(rejection.get("message") or "")
    rulings = [str(r) for r in rejection.get("rulings") or ()]
    version = outcome.get("version")
    version = int(version) if isinstance(version, int) else 0
    at = int(command.get("committed_ms") or 0)
    if rulings:
        cited = f" Rulings: {', '.join(rulings)}."
    elif code in SERVICE_CODES:
        cited = " No ruling cited: the service refused it before any rule judged it."
    elif code == BAD_COMMAND:
        cited = " No ruling cited: it could not be read as a command of this game."
    else:
        cited = " No ruling cited."
    return {
        "kind": "refusal",
        "version": version,
        "code": code,
        "message": message,
        "rulings": rulings,
        "ruling_texts": ruling_texts(reference or {}, rulings),
        "at_ms": at,
        "command": command,
        "sentence": (
            f"Refused after event {version} ({iso_ms(at) or 'time unknown'}): {who_sent(command)} sent "
            f'{_command_words(command)}; the referee refused it with code {code} and told the sender "{message}"'
            f"{'' if message.endswith(('.', '!', '?')) else '.'}{cited} Nothing changed."
        ),
    }


# --- seat feed -------------------------------------------------------------------------------------------------

"""The four read models: scoreboard (with the cross-game leaderboard), replay, audit and seat feed.

Each turns a game's next events into writes; :mod:`projections.runner` applies them once per (game, version).
Every value written derives from the recorded events (their commit times included) and the event store, never
from the clock, so a rebuild from zero writes byte for byte what the live projection wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx, Projection, describe, iso_ms, shown_text
from projections.store import Ops, ProjectionScripts, RMKeys
from services.store.eventstore import StoredCommand, command_from_entry

REPLAY_SNAPSHOT_EVERY = 25
"""The replay model keeps a snapshot every this many versions: a seek folds at most this many events."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=str)


# --- scoreboard and leaderboard ------------------------------------------------------------------------------
class ScoreboardModel(Projection):
    """Per game: live score, Emperor, round, phase and who is awaited; per player: games, wins, average score."""

    name = "scoreboard"

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """The scoreboard after the batch's last event."""
        last = batch[-1]
        ops.add("SET", keys.scoreboard(ctx.game_id), _dumps(scoreboard_doc(ctx, last.state, last.version, last.at)))

    def before_apply(
        self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, ctx: GameCtx, batch: list[Applied]
    ) -> None:
        """Count the game into the leaderboard when this batch ends it (the script counts a game only once)."""
        decider = ctx.decider
        if not decider.is_over(batch[-1].state):
            return
        board = decider.scoreboard(batch[-1].state)
        winners = set(board.get("winners") or ())
        argv: list[Any] = [ctx.game_id]
        for seat, name in enumerate(ctx.players):
            score = board["seats"][seat].get("score") if seat < len(board.get("seats", ())) else None
            argv += [name, "1" if seat in winners else "0", "" if score is None else str(score)]
        parts = ("counted", "games", "wins", "score", "scored")
        r.evalsha(scripts.count_game, len(parts), *[keys.leaderboard(p) for p in parts], *argv)

    def clear_extra(self, r: redis.Redis, keys: RMKeys) -> None:
        """The leaderboard is rebuilt with the scoreboards."""
        for key in r.scan_iter(match=keys.leaderboard_pattern(), count=1000):
            r.delete(key)


def scoreboard_doc(ctx: GameCtx, state: Any, version: int, at: int) -> dict[str, Any]:
    """The stored scoreboard of a game at ``version``: the decider's public standing plus who is awaited."""
    decider = ctx.decider
    board = dict(decider.scoreboard(state))
    awaiting = list(decider.awaited(state))
    over = decider.is_over(state)
    board.update(
        {
            "game_id": ctx.game_id,
            "name": ctx.name,
            "version": version,
            "status": "over" if over else "active",
            "players": list(ctx.players),
            "awaiting": awaiting,
            "awaiting_names": [ctx.players[s] for s in awaiting if 0 <= s < len(ctx.players)],
            "updated_ms": at,
        }
    )
    return board


# --- replay ----------------------------------------------------------------------------------------------------
class ReplayModel(Projection):
    """Snapshots of each game every :data:`REPLAY_SNAPSHOT_EVERY` versions and at its end, so that the board
    at any version is a restore plus a short fold of recorded events (never a rule re-run)."""

    name = "replay"

    def __init__(self, every: int = REPLAY_SNAPSHOT_EVERY) -> None:
        self.every = every

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """A snapshot at each multiple of ``every`` in the batch, and at the end of the game."""
        decider = ctx.decider
        for a in batch:
            if a.version % self.every == 0 or (a is batch[-1] and decider.is_over(a.state)):
                ops.add("HSET", keys.replay_snaps(ctx.game_id), a.version, decider.snapshot(a.state))


# --- audit -----------------------------------------------------------------------------------------------------
class AuditModel(Projection):
    """Per event: the command behind it (sender, seat, times, outcome), the rulings and deciding inputs, and a
    sentence a referee can read. This is the referee's full-information record: it is not filtered per seat."""

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
            # The audit entry before the batch: a command whose events straddle two batches keeps the label it
            # got in the position it was sent in (so the entries never depend on where a batch was cut).
            pipe.xrevrange(keys.audit(ctx.game_id), max=f"0-{batch[0].version - 1}", min="-", count=1)
            asked.append((ctx.game_id, ""))
            seen: set[str] = set()
            for a in batch:
                if a.command_id not in seen:
                    seen.add(a.command_id)
                    asked.append((ctx.game_id, a.command_id))
                    pipe.xrange(lay.commands(ctx.shard, ctx.game_id), min=f"{a.version}-0", max="+", count=1)
        out: dict[str, dict[str, Any]] = {ctx.game_id: {"commands": {}, "labels": {}} for ctx, _ in games}
        for (gid, cid), entries in zip(asked, pipe.execute(), strict=True):
            if not entries:
                continue
            if cid == "":
                previous = (orjson.loads(entries[0][1][b"a"]).get("command") or {}) if b"a" in entries[0][1] else {}
                if previous.get("id") and previous.get("label") is not None:
                    out[gid]["labels"][previous["id"]] = previous["label"]
                continue
            cmd = command_from_entry(*entries[0])
            if cmd.command_id == cid:
                out[gid]["commands"][cid] = cmd
        return out

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """One audit entry per event."""
        commands: dict[str, StoredCommand] = (extra or {}).get("commands", {})
        labels: dict[str, str] = dict((extra or {}).get("labels", {}))
        state_before = before
        for a in batch:
            cmd = commands.get(a.command_id)
            if cmd is not None and not _covers(cmd, a.version):
                cmd = None
            if cmd is not None and cmd.command_id not in labels:
                labels[cmd.command_id] = command_label(ctx, cmd, state_before)
            entry = audit_entry(ctx, a, cmd, labels.get(cmd.command_id) if cmd else None)
            ops.add("XADD", keys.audit(ctx.game_id), f"0-{a.version}", "a", _dumps(entry))
            state_before = a.state


def _covers(cmd: StoredCommand, version: int) -> bool:
    first = cmd.outcome.get("first_version")
    return first is not None and first <= version <= cmd.version


def command_label(ctx: GameCtx, cmd: StoredCommand, state: Any) -> str:
    """The command in words (the decider's label), judged in the position it was sent in."""
    if cmd.kind == "create":
        p = cmd.payload if isinstance(cmd.payload, dict) else {}
        return f"create a game of {p.get('name', ctx.name)} for {', '.join(map(str, p.get('players') or ()))}"
    try:
        command = ctx.decider.parse_command({**cmd.payload, "seat": cmd.seat})
        return str(ctx.decider.label(command, state))
    except Exception:
        # The command was accepted, so it parsed then; a rules change may have made it unreadable now.
        return orjson.dumps(cmd.payload).decode()


def audit_entry(ctx: GameCtx, a: Applied, cmd: StoredCommand | None, label: str | None) -> dict[str, Any]:
    """The audit record of one event (see :class:`AuditModel`)."""
    decider = ctx.decider
    players = ctx.players
    explanation = decider.explain_event(a.event, players)
    inputs = {k: v for k, v in a.data.items() if k not in ("type", "rulings")}
    command: dict[str, Any] | None = None
    if cmd is not None:
        sender = players[cmd.seat] if cmd.seat is not None and 0 <= cmd.seat < len(players) else None
        command = {
            "id": cmd.command_id,
            "kind": cmd.kind,
            "seat": cmd.seat,
            "sender": sender,
            "payload": cmd.payload,
            "label": label,
            "received_ms": cmd.received_ms,
            "committed_ms": cmd.committed_ms,
            "outcome": cmd.outcome,
        }
    when = iso_ms(a.at)
    if cmd is None:
        cause = f"No logged command is behind it (command id {a.command_id or 'unknown'})."
    elif cmd.kind == "create":
        cause = f"It opened the game: {label} (command {cmd.command_id}, received {iso_ms(cmd.received_ms)})."
    else:
        who = f"{command['sender']} (seat {cmd.seat})" if command and command["sender"] else f"seat {cmd.seat}"
        cause = (
            f"It follows the command of {who}: {label} (command {cmd.command_id}, received "
            f"{iso_ms(cmd.received_ms)}, committed {iso_ms(cmd.committed_ms)})."
        )
    return {
        "version": a.version,
        "event_type": a.data.get("type"),
        "event": a.data,
        "rulings": list(a.data.get("rulings") or ()),
        "inputs": inputs,
        "at_ms": a.at,
        "command": command,
        "explanation": explanation,
        "sentence": f"Event {a.version} ({a.data.get('type')}, {when or 'time unknown'}): {explanation} {cause}",
    }


# --- seat feed -------------------------------------------------------------------------------------------------
class FeedModel(Projection):
    """Per seat and for spectators: the event feed filtered by the decider's ``redact`` (entry id = version, so
    a client resumes from the last version it saw), and the current view and legal commands with labels.

    One stream entry per event holds the spectators' version and, only where a seat sees something else (its
    own sealed vote), that seat's version: secrets cost an extra field, not a stream per seat."""

    name = "feed"

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """Each event into every seat's feed as that seat may see it; then the views and legal commands."""
        decider = ctx.decider
        key = keys.feed(ctx.game_id)
        for a in batch:
            public = decider.redact(a.event, None, a.state)
            fields: list[Any] = ["e", b"", "x", ""]
            if public is not None:
                fields = ["e", _dumps(public), "x", shown_text(decider, a.event, public, ctx.players)]
            for seat in range(len(ctx.players)):
                shown = decider.redact(a.event, seat, a.state)
                if shown is public or (shown is not None and shown == public):
                    continue  # as the spectators see it (the common case: nothing secret)
                if shown is None:
                    fields += [f"e{seat}", b""]  # withheld from this seat
                else:
                    fields += [f"e{seat}", _dumps(shown), f"x{seat}", shown_text(decider, a.event, shown, ctx.players)]
            ops.add("XADD", key, f"0-{a.version}", *fields)
        ops.add("HSET", keys.feed_now(ctx.game_id), *now_fields(ctx, batch[-1].state, batch[-1].version))


def now_fields(ctx: GameCtx, state: Any, version: int) -> list[Any]:
    """``version``, ``over``, and per seat its view and labelled legal commands (``spec``: the spectators')."""
    decider = ctx.decider
    fields: list[Any] = ["version", version, "over", "1" if decider.is_over(state) else "0"]
    awaited = set(decider.awaited(state))
    for seat in range(len(ctx.players)):
        legal = decider.legal_commands(state, seat) if seat in awaited else []
        labelled = [{"command": c.to_dict(), "label": decider.label(c, state)} for c in legal]
        fields += [f"view:{seat}", _dumps(decider.view(state, seat)), f"legal:{seat}", _dumps(labelled)]
    fields += ["view:spec", _dumps(decider.view(state, None))]
    return fields


def describe_event(ctx: GameCtx, a: Applied) -> str:
    """The unfiltered text of an event (for spectators of a finished game, and the audit)."""
    return describe(ctx.decider, a.event, ctx.players)


ALL_MODELS: dict[str, type[Projection]] = {
    "scoreboard": ScoreboardModel,
    "replay": ReplayModel,
    "audit": AuditModel,
    "feed": FeedModel,
}

"""The four read models: scoreboard (with each game's leaderboard), replay, audit and seat feed.

Each turns a game's next events into writes; :mod:`projections.runner` applies them once per (game, version).
Every value written derives from the recorded events (their commit times included) and the event store, never
from the clock, so a rebuild from zero writes byte for byte what the live projection wrote.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx, Projection, iso_ms, shown_text
from projections.store import WIN_UNITS, Ops, ProjectionScripts, RMKeys
from projections.tally import LeaderboardTally
from projections.verify import SERVICE_CODES
from services.bus.envelope import BAD_COMMAND
from services.rules.contract import GameRules, Presenter, SharedWin, Standing
from services.rules.reference import Ruling, ruling_texts
from services.store.eventstore import StoredCommand, command_from_entry

REPLAY_SNAPSHOT_EVERY = 25
"""The replay model keeps a snapshot every this many versions: a seek folds at most this many events."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=str)


# --- scoreboard and leaderboard ------------------------------------------------------------------------------
class ScoreboardModel(Projection):
    """Per game: live score, Emperor, round, phase and who is awaited. Per game name, its leaderboard: per player
    id, games, wins, shared victories, average score and the display name last used."""

    name = "scoreboard"

    def __init__(self, tally: LeaderboardTally | None = None) -> None:
        self.tally = tally or LeaderboardTally()

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """The scoreboard after the batch's last event; when the batch ends the game, its leaderboard count is
        owed with the checkpoint (projections/tally.py: counted exactly once, even across a crash)."""
        last = batch[-1]
        ops.add("SET", keys.scoreboard(ctx.game_id), _dumps(scoreboard_doc(ctx, last.state, last.version, last.at)))
        if ctx.rules.is_over(last.state):
            argv = leaderboard_count_args(ctx.presenter, last.state, ctx.game_id, ctx.players, ctx.player_ids, last.at)
            if argv is not None:
                self.tally.owe(ops, keys, ctx, argv)

    def after_apply(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, games: Sequence[GameCtx]) -> None:
        """Count the games that just ended into their leaderboards (what their apply owed)."""
        ended = [ctx for ctx in games if ctx.rules.is_over(ctx.state)]
        if ended:
            self.tally.settle_games(r, keys, scripts, ended)

    def settle(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, shards: Sequence[int]) -> None:
        """Count what a worker that died (or a count that failed) left owed on ``shards``."""
        self.tally.settle_shards(r, keys, scripts, shards)

    def clear_extra(self, r: redis.Redis, keys: RMKeys) -> None:
        """The leaderboards are rebuilt with the scoreboards."""
        for key in r.scan_iter(match=keys.leaderboard_pattern(), count=1000):
            r.delete(key)


def leaderboard_count_args(
    presenter: Presenter[Any],
    state: Any,
    game_id: str,
    players: Sequence[str],
    player_ids: Sequence[str | None] | None,
    ended_ms: int,
) -> list[Any] | None:
    """The arguments of count_game.lua for an ended game (None: it is not over).

    A practice table is not counted (None). Only seats with a player id are counted: a display name says nothing
    about who played (two people named "Red" are two people), so a seat without an id is on no leaderboard. A win
    counts as the game's :class:`~services.rules.contract.LeaderboardSpec` says (``shared_win``), in :data:`WIN_UNITS`.
    """
    standings = presenter.final_standings(state)
    if standings is None:
        return None
    if (presenter.rules.fairness(state) or {}).get("practice"):
        return None  # a practice table (its creator chose the seed) proves nothing: no leaderboard counts it
    spec = presenter.leaderboard
    winners = sum(1 for s in standings if s.won)
    argv: list[Any] = [game_id, f"{max(0, ended_ms):015d}:{game_id}"]
    for seat, name in enumerate(players):
        pid = player_ids[seat] if player_ids is not None and seat < len(player_ids) else None
        if pid is None:
            continue
        standing = standings[seat] if seat < len(standings) else Standing(score=None, won=False)
        units = win_units(spec.shared_win, winners) if standing.won else 0
        score = standing.score
        known = isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score)
        argv += [pid, name, units, "1" if standing.won and winners > 1 else "0", repr(score) if known else ""]
    return argv


def win_units(shared_win: SharedWin, winners: int) -> int:
    """What one winner among ``winners`` counts, in :data:`WIN_UNITS`, by the game's rule for a shared win."""
    if winners <= 1 or shared_win == "each":
        return WIN_UNITS
    if shared_win == "split":
        return WIN_UNITS // winners
    return 0  # "none": only a victory alone is a win


def scoreboard_doc(ctx: GameCtx, state: Any, version: int, at: int) -> dict[str, Any]:
    """The stored scoreboard of a game at ``version``: the presenter's public standing plus who is awaited."""
    board = dict(ctx.presenter.scoreboard(state))
    awaiting = list(ctx.rules.awaited(state))
    over = ctx.rules.is_over(state)
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
    fairness = ctx.rules.fairness(state)
    if fairness is not None:  # the commitment, a practice table's mark, and after the end the revealed seed
        board.update(practice=fairness["practice"], fairness=fairness)
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
        for a in batch:
            if a.version % self.every == 0 or (a is batch[-1] and ctx.rules.is_over(a.state)):
                ops.add("HSET", keys.replay_snaps(ctx.game_id), a.version, ctx.rules.snapshot(a.state))


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
class FeedModel(Projection):
    """Per seat and for spectators: the event feed filtered by the presenter's ``redact`` (entry id = version, so
    a client resumes from the last version it saw), and the current view and legal commands with labels.

    One stream entry per event holds the spectators' version and, only where a seat sees something else (its
    own sealed vote), that seat's version: secrets cost an extra field, not a stream per seat."""

    name = "feed"

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """Each event into every seat's feed as that seat may see it; then the views and legal commands."""
        presenter = ctx.presenter
        key = keys.feed(ctx.game_id)
        for a in batch:
            public = presenter.redact(a.event, None, a.state)
            fields: list[Any] = ["e", b"", "x", ""]
            if public is not None:
                # Shown whole (the common case): the recorded bytes are the JSON, no need to encode it again.
                encoded = a.raw if a.raw and public == a.data else _dumps(public)
                fields = ["e", encoded, "x", shown_text(presenter, a.event, public, ctx.players)]
            for seat in range(len(ctx.players)):
                shown = presenter.redact(a.event, seat, a.state)
                if shown is public or (shown is not None and shown == public):
                    continue  # as the spectators see it (the common case: nothing secret)
                if shown is None:
                    fields += [f"e{seat}", b""]  # withheld from this seat
                else:
                    fields += [
                        f"e{seat}",
                        _dumps(shown),
                        f"x{seat}",
                        shown_text(presenter, a.event, shown, ctx.players),
                    ]
            ops.add("XADD", key, f"0-{a.version}", *fields)
        ops.add("HSET", keys.feed_now(ctx.game_id), *now_fields(ctx, batch[-1].state, batch[-1].version))


def now_fields(ctx: GameCtx, state: Any, version: int) -> list[Any]:
    """``version``, ``over``, ``awaiting``, the state (the rules' snapshot), the spectators' view and per seat
    what its view adds to it.

    The legal commands are not stored: only awaited seats have any, the one or two that ask for them, and
    listing and labelling them costs more than everything else here; :func:`labelled_legal` makes them from the
    stored state when asked (the API caches them per version)."""
    rules = ctx.rules
    awaited = list(rules.awaited(state))
    fields: list[Any] = [
        "version", version, "over", "1" if rules.is_over(state) else "0", "awaiting", _dumps(awaited),
        "state", rules.snapshot(state),
    ]  # fmt: skip
    seats: list[int | None] = [*range(len(ctx.players)), None]
    # Every seat's view at once: a presenter may build the shared part once.
    shown = ctx.presenter.views(state, seats)
    spectators = shown[-1]
    for seat in range(len(ctx.players)):
        fields += [f"view:{seat}", _dumps(view_patch(spectators, shown[seat]))]
    fields += ["view:spec", _dumps(spectators)]
    return fields


def labelled_legal(rules: GameRules[Any], presenter: Presenter[Any], state: Any, seat: int) -> list[dict[str, Any]]:
    """The seat's legal commands, each as JSON with its readable label."""
    return [
        {"command": rules.encode_command(c), "label": presenter.label(c, state)}
        for c in rules.legal_commands(state, seat)
    ]


def view_patch(base: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """The top-level entries of ``view`` that differ from ``base`` (a seat's view is mostly the spectators':
    storing only the difference keeps the write small). ``{**base, **patch}`` gives ``view`` back; a key the
    seat's view lacks is stored as ``{"__removed__": [keys]}``."""
    patch = {k: v for k, v in view.items() if k not in base or (base[k] is not v and base[k] != v)}
    removed = [k for k in base if k not in view]
    if removed:
        patch["__removed__"] = removed
    return patch


def apply_view_patch(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The seat's view from the spectators' view and the seat's :func:`view_patch`."""
    view = {**base, **patch}
    for key in view.pop("__removed__", ()):
        view.pop(key, None)
    return view


ALL_MODELS: dict[str, type[Projection]] = {
    "scoreboard": ScoreboardModel,
    "replay": ReplayModel,
    "audit": AuditModel,
    "feed": FeedModel,
}

"""The read-model query API: what the gateway and the CLI ask of the projections.

Every method reads Redis only (the read models the projection workers keep, the event store for replays and
verification) and returns JSON-ready values. Nothing here writes, and nothing re-runs the rules except
:meth:`ReadModels.verify`, whose job is exactly that.

Errors are typed: :class:`UnknownGame` (no such game), :class:`BadVersion` (a version outside 0..last),
:class:`BadSeat` (a seat that is not in the game), :class:`UnknownGameName` (no game of that name installed),
:class:`BadPage` (a page outside its bounds). All derive from :class:`ReadModelError`, which carries a
stable ``code``.

Where a read model has nothing of a game yet (its projection worker is not running, as in the embedded
single-process mode, or has not reached the game), the scoreboard, the audit and the seat feed are computed
from the event store on the spot, with the same functions the projections use: the answer is the same, only
slower. A model that is merely a little behind answers as of its own version (which it says).

Shapes (stable; fields may be added, none removed):

``scoreboard(game_id)``::

    {"game_id", "name", "version", "status": "active"|"over"|"archived", "players": [str], "round", "phase",
     "phase_name", "emperor": int|None, "rival": int|None, "awaiting": [int], "awaiting_names": [str],
     "seats": [{"seat", "name", "score": int|None, "victory_points": int|None, "thalers", "electors": [str]}],
     "winners": [int]|None, "updated_ms"}

  (Shadow's fields; the game-agnostic ones are game_id, name, version, status, players, awaiting,
  awaiting_names, updated_ms, winners and per seat ``score``.)

``leaderboard(game=None, offset=0, limit=20)``: one game's leaderboard (``game`` a registry name; None: the
default game), players by their stable player id (a seat created without one is on no leaderboard), best first
(most wins, then the best average score, the most games, the player id)::

    {"game", "score_label": str (what ``average_score`` averages, e.g. "victory points"), "shared_win":
     "each"|"split"|"none" (how a shared victory counts in ``wins``), "total": int (players ranked), "offset",
     "limit", "rows": [{"rank", "player_id", "name" (display name last used), "games", "wins": int|float,
     "shared_wins", "average_score": float|None}]}

``replay(game_id, version, seat=None)``::

    {"game_id", "version", "last_version", "previous": int|None, "next": int|None, "seat",
     "event": {...}|None (as that seat may see it), "event_text": str, "view": {...}, "board_text": str}

``audit(game_id, version=None, seat=None)``: ``{"game_id", "entries": [entry]}`` (with ``version``: the event
at it and the commands refused at it), every event and every refused command in the order they were judged
(a refusal judged at version v comes after event v). An event's entry is ``{"kind": "event", "version",
"event_type", "event", "rulings": [str], "ruling_texts": [{"id", "title", "text"}], "inputs": {...}, "at_ms",
"cause": "opening"|"command"|"flow"|"unknown", "command": {"id", "kind", "seat", "sender", "payload", "label",
"received_ms", "committed_ms", "outcome"}|None, "explanation": str, "sentence": str}`` (``flow``: the game's own
flow recorded it, in the commit of ``command``); a refused command's is ``{"kind": "refusal", "version" (judged
at), "code", "message" (as its sender was told), "rulings", "ruling_texts", "at_ms", "command": {...},
"sentence"}``. The audit holds every secret (sealed votes, refused secret commands): show it to referees, or
once a game is over. With ``seat``: ``{"game_id", "seat", "entries"}`` holding only that seat's refused
commands (what the seat may know while the game runs).

``verify(game_id)``::

    {"game_id", "rules_version_recorded", "rules_version_now", "commands", "commands_replayed",
     "events_recorded", "events_recomputed", "ok": bool, "differences": [{"version", "recorded",
     "recomputed", "command": {...}|None, "recomputed_command": {...}|None, "reason"}],
     "outcome_changes": [{"command", "recorded", "recomputed"}], "errors": [str]}

``seat_feed(game_id, seat, after_version=0)``::

    {"game_id", "seat", "version", "view", "legal": [{"command": {...}, "label": str}],
     "events": [{"version", "event", "text"}], "over": bool}

  ``events`` are those after ``after_version`` up to ``version`` (the view's): resume with
  ``after_version = version``. A redacted event has ``"redacted": true`` and no secret fields.

``export(game_id)``: the game as the offline adjudicator's input, JSON lines as bytes (projections/export.py);
``projections.verify_all.verify_all`` verifies every stored game.

``commands(game_id)``: the command log ``[{"log_id", "version", "id", "kind", "seat", "payload", "received_ms",
"committed_ms", "outcome"}]`` (accepted and rejected commands, in order).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from html import escape
from typing import Any

import orjson
import redis

from projections.base import shown_text
from projections.export import export_lines
from projections.history import BadSeat, BadVersion, Game, History, ReadModelError, UnknownGame
from projections.models import (
    REPLAY_SNAPSHOT_EVERY,
    apply_view_patch,
    command_doc,
    compose_audit_entry,
    compose_refusal_entry,
    labelled_legal,
    now_fields,
    scoreboard_doc,
)
from projections.store import WIN_UNITS, RMKeys
from projections.verify import VerifyError, verify_game
from services.bus.keys import Layout
from services.rules.reference import Ruling
from services.rules.registry import default_game, game_names, get_game
from services.store.eventstore import command_of_event

__all__ = [
    "BadPage", "BadSeat", "BadVersion", "ReadModelError", "ReadModels", "UnknownGame", "UnknownGameName",
]  # fmt: skip

MAX_PAGE = 100
"""Most rows of a leaderboard one query answers."""
MAX_OFFSET = 2**31 - 1
_ROW_PARTS = ("games", "wins", "shared", "score", "scored", "name")


def _dumps_doc(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, default=str)


def _interleave(events: list[dict[str, Any]], refusals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Event entries in version order with each refusal after the event of the version it was judged at."""
    out: list[dict[str, Any]] = []
    pending = iter(refusals)
    nxt = next(pending, None)
    for entry in events:
        out.append(entry)
        while nxt is not None and nxt["version"] <= entry["version"]:
            out.append(nxt)
            nxt = next(pending, None)
    while nxt is not None:
        out.append(nxt)
        nxt = next(pending, None)
    return out


class UnknownGameName(ReadModelError):
    """No game of that name is installed (a leaderboard is per game name)."""

    code = "unknown_game_name"


class BadPage(ReadModelError):
    """A page outside the bounds: ``offset`` >= 0, 1 <= ``limit`` <= :data:`MAX_PAGE`."""

    code = "bad_page"


class ReadModels:
    """Queries over the read models of one Redis (``client``) and key layout. Thread-safe."""

    def __init__(self, client: redis.Redis, layout: Layout | None = None) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.keys = RMKeys(self.layout)
        self.history = History(client, self.layout, self.keys, REPLAY_SNAPSHOT_EVERY)
        self._lock = threading.Lock()
        self._legals: OrderedDict[tuple[str, int, int], list[dict[str, Any]]] = OrderedDict()

    # --- scoreboard -----------------------------------------------------------------------------------
    def scoreboard(self, game_id: str) -> dict[str, Any]:
        """The live scoreboard of one game (see the module docstring for the shape)."""
        game = self.history.game(game_id)
        raw = self.r.get(self.keys.scoreboard(game_id))
        doc = orjson.loads(raw) if raw is not None else None
        if doc is None:
            # Not projected yet: the same document, from the store.
            state, events = self.history.state_at(game, game.version)
            at = events[-1].at if events else 0
            doc = orjson.loads(orjson.dumps(scoreboard_doc(game.ctx(state, game.version), state, game.version, at)))
        if game.archived:
            doc["status"] = "archived"
        return doc

    def leaderboard(self, game: str | None = None, offset: int = 0, limit: int = 20) -> dict[str, Any]:
        """The leaderboard of one game (a registry name; None: the default game), ``limit`` rows from rank
        ``offset + 1`` (see the module docstring for the shape)."""
        name = default_game() if game is None else game
        if name not in game_names():
            raise UnknownGameName(f"no game called {name[:64]!r}; known: {', '.join(game_names())}")
        if not (isinstance(offset, int) and 0 <= offset <= MAX_OFFSET):
            raise BadPage(f"offset must be 0..{MAX_OFFSET}, not {offset}")
        if not (isinstance(limit, int) and 1 <= limit <= MAX_PAGE):
            raise BadPage(f"limit must be 1..{MAX_PAGE}, not {limit}")
        spec = get_game(name).presenter.leaderboard
        pipe = self.r.pipeline(transaction=False)
        pipe.zcard(self.keys.leaderboard(name, "rank"))
        pipe.zrange(self.keys.leaderboard(name, "rank"), offset, offset + limit - 1)
        total, members = pipe.execute()
        ids = [m.decode().split(":", 3)[3] for m in members]
        stats: dict[str, list[Any]] = {}
        if ids:
            pipe = self.r.pipeline(transaction=False)
            for part in _ROW_PARTS:
                pipe.hmget(self.keys.leaderboard(name, part), ids)
            stats = dict(zip(_ROW_PARTS, pipe.execute(), strict=True))
        rows = []
        for i, pid in enumerate(ids):
            scored = int(stats["scored"][i] or 0)
            average = float(stats["score"][i] or 0) / scored if scored else None
            units = int(stats["wins"][i] or 0)
            rows.append(
                {
                    "rank": offset + i + 1,
                    "player_id": pid,
                    "name": (stats["name"][i] or b"").decode(),
                    "games": int(stats["games"][i] or 0),
                    "wins": units // WIN_UNITS if units % WIN_UNITS == 0 else round(units / WIN_UNITS, 3),
                    "shared_wins": int(stats["shared"][i] or 0),
                    "average_score": None if average is None else round(average, 3),
                }
            )
        return {
            "game": name,
            "score_label": spec.score_label,
            "shared_win": spec.shared_win,
            "total": int(total),
            "offset": offset,
            "limit": limit,
            "rows": rows,
        }

    # --- replay ---------------------------------------------------------------------------------------
    def replay(self, game_id: str, version: int, seat: int | None = None) -> dict[str, Any]:
        """The board after event ``version`` (0: before the first) and that event, as ``seat`` may see them."""
        game = self.history.game(game_id)
        game.check_version(version)
        game.check_seat(seat)
        state, events = self.history.state_at(game, version)
        final = self.history.final(game)
        rules, presenter = game.rules, game.presenter
        shown: dict[str, Any] | None = None
        text = "Before the first event."
        if version >= 1:
            event = events[-1]
            parsed = rules.parse_event(event.data)
            # The reader's moment: a finished game has no secrets left; a running one keeps them as of then.
            shown = presenter.redact(parsed, seat, final if final is not None else state)
            text = shown_text(presenter, parsed, shown, game.players) if shown is not None else "(not visible)"
        return {
            "game_id": game_id,
            "version": version,
            "last_version": game.version,
            "previous": version - 1 if version > 0 else None,
            "next": version + 1 if version < game.version else None,
            "seat": seat,
            "event": shown,
            "event_text": text,
            "view": presenter.replay_view(state, seat, final),
            "board_text": presenter.render_text(state, seat, final),
        }

    def board_text(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as text (chat-bots, terminal) after ``version`` (None: the latest)."""
        game, state, final = self._board(game_id, version, seat)
        board = str(game.presenter.render_text(state, seat, final))
        # The clocks as of the position's last recorded stamp: a replay shows them the same on any day.
        clocks = game.plugin.rules.clock_text(state, game.meta.players)
        return board if clocks is None else f"{board}\n{clocks}"

    def board_svg(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as an SVG document after ``version`` (None: the latest)."""
        game, state, final = self._board(game_id, version, seat)
        board = str(game.presenter.render_svg(state, seat, final))
        clocks = game.plugin.rules.clock_text(state, game.meta.players)
        return board if clocks is None else svg_with_line(board, clocks)

    def _board(self, game_id: str, version: int | None, seat: int | None) -> tuple[Game, Any, Any]:
        game = self.history.game(game_id)
        v = game.version if version is None else version
        game.check_version(v)
        game.check_seat(seat)
        state, _ = self.history.state_at(game, v)
        return game, state, self.history.final(game)

    # --- audit and verification -----------------------------------------------------------------------
    def audit(
        self, game_id: str, version: int | None = None, seat: int | None = None, after: int = 0,
        limit: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Why each event (or the one at ``version``) happened, and every refused command, in the order they were
        judged: command, sender, time, rulings (with their texts), inputs.

        ``seat`` None: the referee's full record (every secret: show it to referees, or once the game is over).
        A seat: what that seat may know of it while the game runs, its own refused commands only (a seat's own
        refusals are its secret [K14]; its events are in its feed).

        ``limit``: one page, the versions ``after < v <= after + limit`` (events and the commands refused at
        them); the answer then also holds ``after``, ``next`` (the following page's ``after``, None at the end),
        ``last_version`` and ``over``."""
        game = self.history.game(game_id)
        game.check_seat(seat)
        if version is not None and not 1 <= version <= game.version:
            raise BadVersion(f"game {game_id} has events 1..{game.version}, not {version}")
        if version is not None:
            first, last = version, version
        else:
            first = after + 1
            last = game.version if limit is None else min(game.version, after + limit)
        page: dict[str, Any] = {}
        if limit is not None or version is not None:
            paged = version is None
            page = {
                "last_version": game.version, "over": game.finished, "after": after if paged else None,
                "next": last if paged and last < game.version else None,
            }  # fmt: skip
        if last < first:
            return {"game_id": game_id, **({"seat": seat} if seat is not None else {}), **page, "entries": []}
        reference = game.plugin.rulings()
        refusals = self._refusals(game, first, last, seat, reference)
        if seat is not None:
            return {"game_id": game_id, "seat": seat, **page, "entries": refusals}
        got = self.r.xrange(self.keys.audit(game_id), min=f"0-{first}", max=f"0-{last}")
        cids = sorted({f[b"c"] for _, f in got})
        docs = dict(zip(cids, self.r.hmget(self.keys.audit_commands(game_id), cids), strict=True)) if cids else {}
        rules, presenter = game.rules, game.presenter
        entries = []
        for eid, f in got:
            doc = docs.get(f[b"c"])
            v = int(eid.decode().partition("-")[2])
            data = orjson.loads(f[b"e"])
            command = orjson.loads(doc) if doc else None
            entries.append(
                compose_audit_entry(
                    v,
                    data,
                    int(f[b"t"]),
                    f[b"c"].decode(),
                    command,
                    f[b"x"].decode(),
                    automatic=presenter.flow_event(rules.parse_event(data)),
                    reference=reference,
                )
            )
        done = entries[-1]["version"] if entries else first - 1
        if done < last:
            # The audit model is behind (or not running): the rest straight from the store, composed alike.
            entries += self._audit_from_store(game, done + 1, last, reference)
        return {"game_id": game_id, **page, "entries": _interleave(entries, refusals)}

    def _audit_from_store(
        self, game: Game, first: int, last: int, reference: Mapping[str, Ruling]
    ) -> list[dict[str, Any]]:
        log = {c.command_id: c for c in self.history.commands(game)}
        docs: dict[str, dict[str, Any]] = {}
        out = []
        for stored in self.history.events(game, first, last):
            event = game.rules.parse_event(stored.data)
            cmd = log.get(stored.command_id)
            if cmd is not None and not (cmd.outcome.get("first_version") or 0) <= stored.version <= cmd.version:
                cmd = None
            if cmd is not None and cmd.command_id not in docs:
                # Labelled in the position it was sent in: the state before its first event.
                pre, _ = self.history.state_at(game, int(cmd.outcome.get("first_version", 1)) - 1)
                docs[cmd.command_id] = orjson.loads(_dumps_doc(command_doc(game.ctx(pre, 0), cmd, pre)))
            explanation = game.presenter.explain_event(event, game.players)
            doc = docs.get(cmd.command_id) if cmd is not None else None
            out.append(
                compose_audit_entry(
                    stored.version,
                    stored.data,
                    stored.at,
                    stored.command_id,
                    doc,
                    explanation,
                    automatic=game.presenter.flow_event(event),
                    reference=reference,
                )
            )
        return out

    def _refusals(
        self, game: Game, first: int, last: int, seat: int | None, reference: Mapping[str, Ruling]
    ) -> list[dict[str, Any]]:
        """The refused commands (of ``seat``, or all) judged at versions ``first..last``, in log order; each
        labelled in the position it was judged in."""
        refused = [
            c for c in self.history.commands(game)
            if c.kind == "cmd" and not c.accepted and first <= c.version <= last and (seat is None or c.seat == seat)
        ]  # fmt: skip
        states: dict[int, Any] = {}
        out = []
        for cmd in refused:
            if cmd.version not in states:
                states[cmd.version], _ = self.history.state_at(game, cmd.version)
            state = states[cmd.version]
            doc = orjson.loads(_dumps_doc(command_doc(game.ctx(state, cmd.version), cmd, state)))
            out.append(compose_refusal_entry(doc, reference))
        return out

    def verify(self, game_id: str) -> dict[str, Any]:
        """Re-run the game's recorded commands through the current rules; every event that differs."""
        try:
            return verify_game(self.r, self.layout, game_id)
        except VerifyError as exc:
            raise UnknownGame(str(exc)) from None

    def export(self, game_id: str) -> list[bytes]:
        """The game as the offline adjudicator's input, one JSON line each (projections/export.py)."""
        return list(export_lines(self.history, self.history.game(game_id)))

    def commands(self, game_id: str) -> list[dict[str, Any]]:
        """The game's command log (accepted and rejected commands, in order; no tokens)."""
        game = self.history.game(game_id)
        return [
            {
                "log_id": c.log_id, "version": c.version, "id": c.command_id, "kind": c.kind, "seat": c.seat,
                "payload": c.payload, "received_ms": c.received_ms, "committed_ms": c.committed_ms,
                "outcome": c.outcome,
            }
            for c in self.history.commands(game)
        ]  # fmt: skip

    def command_of(self, game_id: str, version: int) -> dict[str, Any] | None:
        """The logged command that wrote event ``version`` (hot games; None when unknown)."""
        cmd = command_of_event(self.r, self.layout, game_id, version)
        return None if cmd is None else {"id": cmd.command_id, "seat": cmd.seat, "payload": cmd.payload}

    # --- seat feed ------------------------------------------------------------------------------------
    def seat_feed(self, game_id: str, seat: int | None, after_version: int = 0) -> dict[str, Any]:
        """One seat's (None: a spectator's) view, legal commands with labels, and its events after a version."""
        game = self.history.game(game_id)
        game.check_seat(seat)
        if after_version < 0:
            raise BadVersion(f"after_version must be >= 0, not {after_version}")
        who = "spec" if seat is None else str(seat)
        pipe = self.r.pipeline(transaction=False)
        # One read of the hash: the view, who is awaited and the state all belong to the same version.
        pipe.hmget(self.keys.feed_now(game_id), "version", "over", "view:spec", f"view:{who}", "awaiting", "state")
        pipe.xrange(self.keys.feed(game_id), min=f"0-{after_version + 1}", max="+")
        (version_raw, over_raw, spec_raw, view_raw, awaiting_raw, state_raw), entries = pipe.execute()
        if version_raw is None:
            # Not projected yet: the same answer, from the store. (A model a little behind answers as of its
            # version; the client resumes from there.)
            return self._seat_feed_from_store(game, seat, after_version)
        version = int(version_raw)
        own_e, own_x = (b"e", b"x") if seat is None else (f"e{seat}".encode(), f"x{seat}".encode())
        events = []
        for eid, fields in entries:
            v = int(eid.decode().partition("-")[2])
            if v > version:
                break  # newer than the view read with it: the next call, from ``version``, brings it
            shown, text = (fields[own_e], fields.get(own_x, b"")) if own_e in fields else (fields[b"e"], fields[b"x"])
            if shown:  # empty: withheld from this seat
                events.append({"version": v, "event": orjson.loads(shown), "text": text.decode()})
        return {
            "game_id": game_id,
            "seat": seat,
            "version": version,
            "view": self._seat_view(spec_raw, view_raw, seat),
            "legal": self._legal(game, version, seat, awaiting_raw, state_raw),
            "events": events,
            "over": over_raw == b"1",
        }

    def _legal(
        self, game: Game, version: int, seat: int | None, awaiting_raw: bytes | None, state_raw: bytes | None
    ) -> list[dict[str, Any]]:
        """The labelled legal commands of an awaited seat, from the feed model's stored state (cached)."""
        if seat is None or awaiting_raw is None or seat not in orjson.loads(awaiting_raw):
            return []
        key = (game.game_id, version, seat)
        with self._lock:
            hit = self._legals.get(key)
        if hit is not None:
            return hit
        if state_raw is not None:
            state = game.rules.restore(state_raw)
        else:
            state, _ = self.history.state_at(game, version)
        legal = orjson.loads(orjson.dumps(labelled_legal(game.rules, game.presenter, state, seat), default=str))
        with self._lock:
            self._legals[key] = legal
            while len(self._legals) > 1024:
                self._legals.popitem(last=False)
        return legal  # type: ignore[no-any-return]

    @staticmethod
    def _seat_view(spec_raw: bytes | None, own_raw: bytes | None, seat: int | None) -> dict[str, Any] | None:
        """A seat's view from the stored spectators' view and the seat's difference to it."""
        if spec_raw is None:
            return None
        spectators = orjson.loads(spec_raw)
        if seat is None or own_raw is None:
            return spectators  # type: ignore[no-any-return]
        return apply_view_patch(spectators, orjson.loads(own_raw))

    def _seat_feed_from_store(self, game: Game, seat: int | None, after: int) -> dict[str, Any]:
        rules, presenter = game.rules, game.presenter
        state, _ = self.history.state_at(game, min(after, game.version))
        events = []
        for stored in self.history.events(game, after + 1, game.version):
            event = rules.parse_event(stored.data)
            state = rules.evolve(state, event)
            shown = presenter.redact(event, seat, state)
            if shown is not None:
                shown = orjson.loads(orjson.dumps(shown, default=str))
                text = shown_text(presenter, event, shown, game.players)
                events.append({"version": stored.version, "event": shown, "text": text})
        who = "spec" if seat is None else str(seat)
        fields = now_fields(game.ctx(state, game.version), state, game.version)
        now = {str(fields[i]): fields[i + 1] for i in range(0, len(fields), 2)}
        return {
            "game_id": game.game_id,
            "seat": seat,
            "version": game.version,
            "view": self._seat_view(now["view:spec"], now[f"view:{who}"], seat),
            "legal": orjson.loads(orjson.dumps(labelled_legal(rules, presenter, state, seat), default=str))
            if seat is not None and seat in rules.awaited(state)
            else [],
            "events": events,
            "over": bool(rules.is_over(state)),
        }


_SVG_SIZE = re.compile(r'(<svg\b[^>]*?\bheight=")(\d+)("[^>]*?\bviewBox="0 0 \d+ )(\d+)(")')


def svg_with_line(svg: str, line: str) -> str:
    """``svg`` made one line taller, with ``line`` written at its bottom (a board's clocks); unchanged when its root
    element does not give its height and viewBox as plain numbers."""
    found = _SVG_SIZE.search(svg)
    end = svg.rfind("</svg>")
    if found is None or end < 0 or found.group(2) != found.group(4):
        return svg
    height = int(found.group(2))
    taller = f"{found.group(1)}{height + 24}{found.group(3)}{height + 24}{found.group(5)}"
    text = f'<text x="10" y="{height + 16}" font-size="13" font-family="monospace">{escape(line)}</text>'
    return svg[: found.start()] + taller + svg[found.end() : end] + text + svg[end:]

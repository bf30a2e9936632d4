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

``replay_all(game_id, seat=None, *, after=0, limit=None, views=False, boards=False)``: every step of versions
``after < v <= after + limit`` (``limit`` None: to the last) in one read of the events and one fold forward, each
step the one ``replay`` answers at its version, as that seat may see it::

    {"game_id", "seat", "last_version", "over": bool, "after", "next": int|None (the following page's ``after``),
     "fairness": {...}|None, "board_text": str (the board after the last step),
     "steps": [{"version", "event": {...}|None, "event_text": str, "view": {...} (with views),
                "board_text": str (with boards)}]}

``audit(game_id, version=None, seat=None, after=0, limit=None, refused_only=False)``: ``{"game_id", "entries":
[entry]}`` (with ``version``: the event at it and the commands refused at it), every event and every refused
command in the order they were judged (a refusal judged at version v comes after event v). An event's entry is
``{"kind": "event", "version", "event_type", "event", "rulings": [str], "ruling_texts": [{"id", "title", "text"}],
"inputs": {...}, "at_ms", "cause": "opening"|"command"|"flow"|"unknown", "command": {"id", "kind", "seat",
"sender", "payload", "label", "received_ms", "committed_ms", "outcome"}|None, "explanation": str, "sentence":
str}`` (``flow``: the game's own flow recorded it, in the commit of ``command``); a refused command's is ``{"kind":
"refusal", "version" (judged at), "code", "message" (as its sender was told), "rulings", "ruling_texts", "at_ms",
"command": {...}, "sentence"}``. The audit holds every secret (sealed votes, refused secret commands): show it to
referees, or once a game is over. With ``seat``: ``{"game_id", "seat", "entries"}`` holding only that seat's
refused commands (what the seat may know while the game runs). ``refused_only``: the refused commands alone (the
answer says ``"only": "refused"``). ``limit``: one page of versions ``after < v <= after + limit``, with ``after``,
``next``, ``last_version`` and ``over``. Either reads a constant few keys, however long the game.

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

from typing import Any

import orjson

from projections.audit_queries import AuditQueries
from projections.board_queries import BoardQueries
from projections.export import export_lines
from projections.feed_queries import SeatFeedQueries
from projections.history import BadPage, BadSeat, BadVersion, ReadModelError, UnknownGame
from projections.scoreboard_model import scoreboard_doc
from projections.store import WIN_UNITS
from projections.verify import VerifyError, verify_game
from services.rules import fair
from services.rules.registry import default_game, game_names, get_game
from services.store.eventstore import command_of_event

__all__ = [
    "BadPage", "BadSeat", "BadVersion", "ReadModelError", "ReadModels", "UnknownGame", "UnknownGameName",
]  # fmt: skip

MAX_PAGE = 100
"""Most rows of a leaderboard one query answers."""
MAX_OFFSET = 2**31 - 1
_ROW_PARTS = ("games", "wins", "shared", "score", "scored", "name")


class UnknownGameName(ReadModelError):
    """No game of that name is installed (a leaderboard is per game name)."""

    code = "unknown_game_name"


class ReadModels(BoardQueries, AuditQueries, SeatFeedQueries):
    """Queries over the read models of one Redis (``client``) and key layout. Thread-safe."""

    # --- scoreboard and leaderboard -------------------------------------------------------------------
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
            "practice_tables": "not counted (their creator chose the seed)",
            "score_label": spec.score_label,
            "shared_win": spec.shared_win,
            "total": int(total),
            "offset": offset,
            "limit": limit,
            "rows": rows,
        }

    # --- verification and the logs --------------------------------------------------------------------
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
        return fair.scrub(  # a creation's logged seed is the referee's secret until the end
            [
                {
                    "log_id": c.log_id, "version": c.version, "id": c.command_id, "kind": c.kind, "seat": c.seat,
                    "payload": c.payload, "received_ms": c.received_ms, "committed_ms": c.committed_ms,
                    "outcome": c.outcome,
                }
                for c in self.history.commands(game)
            ],
            game.meta.finished,
        )  # fmt: skip

    def command_of(self, game_id: str, version: int) -> dict[str, Any] | None:
        """The logged command that wrote event ``version`` (hot games; None when unknown)."""
        cmd = command_of_event(self.r, self.layout, game_id, version)
        if cmd is None:
            return None
        payload = cmd.payload
        if cmd.kind == "create":  # its seed is the referee's secret until the end
            payload = fair.scrub(payload, self.history.game(game_id).meta.finished)
        return {"id": cmd.command_id, "seat": cmd.seat, "payload": payload}

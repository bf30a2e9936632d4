"""The read-model query API: what the gateway and the CLI ask of the projections.

Every method reads Redis only (the read models the projection workers keep, the event store for replays and
verification) and returns JSON-ready values. Nothing here writes, and nothing re-runs the rules except
:meth:`ReadModels.verify`, whose job is exactly that.

Errors are typed: :class:`UnknownGame` (no such game), :class:`BadVersion` (a version outside 0..last),
:class:`BadSeat` (a seat that is not in the game). All derive from :class:`ReadModelError`, which carries a
stable ``code``.

Shapes (stable; fields may be added, none removed):

``scoreboard(game_id)``::

    {"game_id", "name", "version", "status": "active"|"over"|"archived", "players": [str], "round", "phase",
     "phase_name", "emperor": int|None, "awaiting": [int], "awaiting_names": [str],
     "seats": [{"seat", "name", "victory_points": int|None, "thalers", "electors": [str]}],
     "winners": [int]|None, "updated_ms"}

``leaderboard(limit)``: ``[{"player", "games", "wins", "average_vp"}]`` best first (wins, then average VP).

``replay(game_id, version, seat=None)``::

    {"game_id", "version", "last_version", "previous": int|None, "next": int|None, "seat",
     "event": {...}|None (as that seat may see it), "event_text": str, "view": {...}, "board_text": str}

``audit(game_id, version=None)``: ``{"game_id", "entries": [entry]}`` (one entry when ``version`` is given)
with entry ``{"version", "event_type", "event", "rulings": [str], "inputs": {...}, "command": {"id", "seat",
"sender", "payload", "received_ms", "committed_ms", "outcome"}|None, "sentence": str}``.

``verify(game_id)``::

    {"game_id", "rules_version_recorded", "rules_version_now", "commands", "events_recorded",
     "events_recomputed", "ok": bool, "differences": [{"version", "recorded", "recomputed",
     "command": {...}|None, "reason"}]}

``seat_feed(game_id, seat, after_version=0)``::

    {"game_id", "seat", "version", "view", "legal": [{"command": {...}, "label": str}],
     "events": [{"version", "event", "text"}], "over": bool}
"""

from __future__ import annotations

from typing import Any

import redis

from services.bus.keys import Layout


class ReadModelError(Exception):
    """A query the read models can not answer; ``code`` is stable and machine-readable."""

    code = "read_model_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownGame(ReadModelError):
    """No game with that id (neither live nor archived)."""

    code = "unknown_game"


class BadVersion(ReadModelError):
    """A version outside 0..the game's last version."""

    code = "bad_version"


class BadSeat(ReadModelError):
    """A seat that is not in the game."""

    code = "bad_seat"


class ReadModels:
    """Queries over the read models of one Redis (``client``) and key layout."""

    def __init__(self, client: redis.Redis, layout: Layout | None = None) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()

    def scoreboard(self, game_id: str) -> dict[str, Any]:
        """The live scoreboard of one game (see the module docstring for the shape)."""
        raise NotImplementedError  # TODO: being built

    def leaderboard(self, limit: int = 20) -> list[dict[str, Any]]:
        """Players by name across every finished game: games, wins, average VP; best first."""
        raise NotImplementedError  # TODO: being built

    def replay(self, game_id: str, version: int, seat: int | None = None) -> dict[str, Any]:
        """The board after event ``version`` (0: before the first) and that event, as ``seat`` may see them."""
        raise NotImplementedError  # TODO: being built

    def audit(self, game_id: str, version: int | None = None) -> dict[str, Any]:
        """Why each event (or the one at ``version``) happened: command, sender, time, rulings, inputs."""
        raise NotImplementedError  # TODO: being built

    def verify(self, game_id: str) -> dict[str, Any]:
        """Re-run the game's recorded commands through the current rules; every event that differs."""
        raise NotImplementedError  # TODO: being built

    def seat_feed(self, game_id: str, seat: int | None, after_version: int = 0) -> dict[str, Any]:
        """One seat's (None: a spectator's) view, legal commands with labels, and its events after a version."""
        raise NotImplementedError  # TODO: being built

    def board_text(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as text (chat-bots, terminal) after ``version`` (None: the latest)."""
        raise NotImplementedError  # TODO: being built

    def board_svg(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as an SVG document after ``version`` (None: the latest)."""
        raise NotImplementedError  # TODO: being built

"""The true state of a game on the service, folded from its stored events (what no seat sees whole)."""

from __future__ import annotations

from typing import Any

from services.rules.registry import get_game
from services.store import eventstore
from tests.gateway.conftest import Served


def folded(served: Served, gid: str, game: str = "shadow") -> Any:
    """The game's state now, folded from the event store."""
    rules = get_game(game).rules
    stored = eventstore.read_events(served.redis, served.layout, gid)
    return rules.fold([rules.parse_event(e.data) for e in stored])

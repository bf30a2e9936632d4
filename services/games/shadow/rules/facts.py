"""The rules core's own events: the fast mirrors (services/rules/facts.py) of the models of
services/games/shadow/messages/events.py.

The engine builds, folds and encodes these; the models stay the contract at the edge. ``E.ThalersChanged(seat=
..., ...)`` builds the core's ThalersChanged (by keyword, with the model's defaults).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from services.games.shadow.messages import events as ev
from services.rules.facts import encode, is_core, mirror, mirror_all, to_dict, to_model

EVENT_CLASSES: dict[str, Any] = mirror_all(ev.EVENT_TYPES)

E: Any = SimpleNamespace(
    **EVENT_CLASSES, Prompt=mirror(ev.Prompt), VoteSource=mirror(ev.VoteSource), SeatVotes=mirror(ev.SeatVotes)
)
"""The engine's event constructors: ``E.ThalersChanged(seat=..., ...)`` builds the core ThalersChanged."""

__all__ = ["EVENT_CLASSES", "E", "encode", "is_core", "to_dict", "to_model"]

"""Arranged phase IV positions for the action, card, privilege and bad-input scenarios.

``phase4(...)`` folds a real game start, a ``PhaseStarted(phase=4)`` and the arranged facts, then asks ``turn``
for an action. Every fact is an ordinary event (evolve is mechanical), so the position is exactly what the
facts say: nothing else is on the board unless a fact puts it there.
"""

from __future__ import annotations

from typing import Any

from events.base import Command, Event
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.support import RULES, given, knight, request, start, tile


def phase4_events(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    turn: int | None = None,
    round_: int = 2,
    settings: dict[str, Any] | None = None,
) -> list[Event]:
    """The events of an arranged phase IV position (``turn`` defaults to the Emperor)."""
    table = {"start_player": emperor, **(settings or {})}
    return [
        *start(players, table),
        ev.PhaseStarted(round=round_, phase=4),
        *facts,
        request("actions", emperor if turn is None else turn),
    ]


def phase4(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    turn: int | None = None,
    round_: int = 2,
    settings: dict[str, Any] | None = None,
) -> GameState:
    """An arranged phase IV position, waiting for ``turn`` (default: the Emperor) to act."""
    return given(phase4_events(*facts, players=players, emperor=emperor, turn=turn, round_=round_, settings=settings))


def fill(electorate: str, *owners: int, age: int = 25) -> list[Event]:
    """Fill the aristocrat spaces of ``electorate`` in order: an int is a Baron of that seat, ``-k - 1`` a knight
    of seat ``k`` (so ``-1`` is a knight of seat 0)."""
    out: list[Event] = []
    for i, owner in enumerate(owners):
        space = f"{electorate}.aristocrat.{i}"
        out.append(tile(owner, space, age) if owner >= 0 else knight(-owner - 1, space))
    return out


def legal_of(state: GameState, seat: int, command_type: str) -> list[Any]:
    """The legal commands of one type for ``seat`` now."""
    out: list[Command] = RULES.legal_commands(state, seat)
    return [c for c in out if c.type == command_type]  # type: ignore[attr-defined]

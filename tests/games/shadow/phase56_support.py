"""Arranged positions for the phase V (new electors) and phase VI (election) scenarios.

``phase_iv_ending(...)`` folds a real game start, a round-1 ``PhaseStarted(phase=4)`` and the arranged facts,
marks every seat but one as passed and asks that seat for an action: its Pass starts phase V, which runs on
its own (and on into phase VI) until a decision is needed. Every fact is an ordinary event (evolve is
mechanical), so nothing is on the board unless a fact puts it there.
"""

from __future__ import annotations

from typing import Any

from events.base import Event
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.support import (
    accepted,
    at,
    cmd,
    given,
    request,
    start,
)

ELECTORATES = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")


def phase_iv_ending(
    *facts: Event, players: int = 4, settings: dict[str, Any] | None = None, last: int = 0
) -> GameState:
    """Round 1, phase IV: the facts on the board, every seat but ``last`` has passed, ``last`` is to act."""
    return given(
        [
            *start(players, settings),
            ev.PhaseStarted(round=1, phase=4),
            *facts,
            *(ev.Passed(seat=s) for s in range(players) if s != last),
            request("actions", last),
        ]
    )


def phase_v(*facts: Event, **kwargs: Any) -> tuple[list[Event], GameState]:
    """When the last seat passes, phase V starts: its events and the state after them."""
    state = phase_iv_ending(*facts, **kwargs)
    assert state.turn is not None
    return accepted(state, cmd.Pass(seat=state.turn))


def tile_at(state: GameState, space: str) -> tuple[int, bool, int] | None:
    """(owner, couple, age) of the tile on ``space``."""
    p = at(state, space)
    return None if p is None else (p.owner, p.couple, p.age)

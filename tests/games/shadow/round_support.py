"""Arranged positions for the round scenarios (phases I-III and VII-VIII, game end, player counts).

Every fact is an ordinary event folded on top of a real game start (evolve is mechanical), so a position holds
exactly what its facts put there. Two entry points reach the automatic phases through a real command:

- ``before_round(...)``: the Emperor is asked for his phase VII empire city in round 1 or 2; placing it
  (``next_round``) runs phase VIII, then phases I, II and III of the next round.
- ``before_last_pass(...)``: one seat has still to pass in phase IV; its ``Pass`` runs phases V, VI and VII.
"""

from __future__ import annotations

import copy
from typing import Any

from events.base import Event
from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.support import accepted, given, request, start


def table(emperor: int, settings: dict[str, Any] | None) -> dict[str, Any]:
    return {"start_player": emperor, **(settings or {})}


def resized(events: list[Event], **counts: int) -> list[Event]:
    """The same game start on a board with other space counts per electorate, e.g. ``aristocrat_spaces=1``
    (the layout is recorded in GameStarted, so a game always runs on the board it started with [B2])."""
    first = events[0]
    assert isinstance(first, ev.GameStarted)
    layout = copy.deepcopy(first.layout)
    for electorate in layout["electorates"]:
        electorate.update(counts)
    return [first.model_copy(update={"layout": layout}), *events[1:]]


def before_round_events(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    round_: int = 1,
    settings: dict[str, Any] | None = None,
    seed: int = 0,
    aristocrat_spaces: int | None = None,
) -> list[Event]:
    """Phase VII of ``round_`` (1 or 2), the Emperor asked to place an empire city; ``facts`` are arranged
    during that round's phase IV (so cards taken among them count for the next phase III)."""
    opening = start(players, table(emperor, settings), seed)
    if aristocrat_spaces is not None:
        opening = resized(opening, aristocrat_spaces=aristocrat_spaces)
    return [
        *opening,
        ev.PhaseStarted(round=round_, phase=4),
        *facts,
        ev.PhaseStarted(round=round_, phase=7),
        request("emperor_place_city", emperor),
    ]


def before_round(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    round_: int = 1,
    settings: dict[str, Any] | None = None,
    seed: int = 0,
    aristocrat_spaces: int | None = None,
) -> GameState:
    """The folded position of :func:`before_round_events`."""
    return given(
        before_round_events(
            *facts,
            players=players,
            emperor=emperor,
            round_=round_,
            settings=settings,
            seed=seed,
            aristocrat_spaces=aristocrat_spaces,
        )
    )


def next_round(state: GameState, electorate: str = "bohemia") -> tuple[list[Event], GameState]:
    """The Emperor places his phase VII empire city; phases VIII, I, II and III follow on their own."""
    return accepted(state, cmd.PlaceEmpireCity(seat=state.emperor, electorate=electorate))


def before_last_pass_events(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    last: int | None = None,
    round_: int = 1,
    settings: dict[str, Any] | None = None,
) -> list[Event]:
    """Phase IV of ``round_`` where every seat but ``last`` (default: the one before the Emperor) passed."""
    last = (emperor - 1) % players if last is None else last
    return [
        *start(players, table(emperor, settings)),
        ev.PhaseStarted(round=round_, phase=4),
        *facts,
        *(ev.Passed(seat=seat) for seat in range(players) if seat != last),
        request("actions", last),
    ]


def before_last_pass(
    *facts: Event,
    players: int = 4,
    emperor: int = 0,
    last: int | None = None,
    round_: int = 1,
    settings: dict[str, Any] | None = None,
) -> GameState:
    """The folded position of :func:`before_last_pass_events`."""
    return given(
        before_last_pass_events(*facts, players=players, emperor=emperor, last=last, round_=round_, settings=settings)
    )


def last_pass(state: GameState) -> tuple[list[Event], GameState]:
    """The last seat passes: phases V, VI (skipped without a Rival) and VII follow."""
    assert state.pending is not None
    return accepted(state, cmd.Pass(seat=state.pending.seats[0]))

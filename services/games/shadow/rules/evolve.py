"""Folding: apply one recorded event to a state. Mechanical only: no rule is decided here.

``APPLY[type](state, event)`` changes a working state in place (a Tx's, or a fold's copy) and keeps the board's
census up to date; ``evolve`` is the contract's form (a new state, the given one untouched). Events come as
the core's tuples (facts.py) or as their pydantic models: both have the same fields.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from typing import Any

from services.games.shadow.messages import events as ev
from services.games.shadow.messages.settings import ShadowSettings
from services.games.shadow.rules.board import ELECTORATE_KEYS, layout_from_record
from services.games.shadow.rules.state import (
    AGE,
    COUPLE,
    EMPIRE,
    EMPTY,
    IS_KNIGHT,
    KNIGHT,
    OWNER,
    TILE,
    GameState,
    city_code,
    tile_code,
)

Apply = Callable[[GameState, Any], None]
APPLY: dict[str, Apply] = {}


def _on(*event_types: type[Any]) -> Callable[[Apply], Apply]:
    def register(fn: Apply) -> Apply:
        for event_type in event_types:
            APPLY[event_type.model_fields["type"].default] = fn
        return fn

    return register


def evolve(state: GameState | None, event: Any) -> GameState:
    """The state after ``event`` (a new state; ``state`` is None only before GameStarted)."""
    if state is None or event.type == "GameStarted":
        return _game_started(event)
    after = state.copy()
    APPLY[event.type](after, event)
    return after


def fold_into(state: GameState, events: Any) -> None:
    """Apply ``events`` to a working state, in place."""
    for event in events:
        APPLY[event.type](state, event)


# --- the board and its census -----------------------------------------------------------------------------
def _put(s: GameState, i: int, code: int) -> None:
    """A piece onto space ``i`` (replacing what was there: a fact is applied as it says)."""
    cells = s.cells
    old = cells[i]
    if old != EMPTY:
        _clear(s, i)
    s.shape = None  # the board changes: what was worked out of it is forgotten
    g = s.group[i]
    if g >= 0:
        s.free[g] -= 1
    cells[i] = code
    if code >= TILE:
        insort(s.tiles, i)
    elif IS_KNIGHT[code]:
        insort(s.knights, i)


def _clear(s: GameState, i: int) -> int:
    """Empty space ``i``; returns the piece that was there."""
    code = s.cells[i]
    if code == EMPTY:
        return code
    s.cells[i] = EMPTY
    s.shape = None
    g = s.group[i]
    if g >= 0:
        s.free[g] += 1
    if code >= TILE:
        s.tiles.remove(i)
    elif IS_KNIGHT[code]:
        s.knights.remove(i)
    return code


def _add(values: tuple[int, ...], i: int, delta: int) -> tuple[int, ...]:
    return (*values[:i], values[i] + delta, *values[i + 1 :])


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


# --- lifecycle ----------------------------------------------------------------------------------------------
def _game_started(e: Any) -> GameState:
    layout = layout_from_record(e.layout)
    n = len(e.players)
    k = layout.constants
    settings = ShadowSettings.model_validate(e.settings)
    return GameState(
        layout=layout,
        players=tuple(e.players),
        settings=settings,
        seed=e.seed,
        board=[EMPTY] * len(layout.spaces),
        thalers=(k["start_thalers"],) * n,
        vp=(0,) * n,
        tiles_in_supply=(k["tiles_per_colour"],) * n,
        knights_in_supply=(k["knights_per_colour"],) * n,
        cities_in_supply=(k["cities_per_colour"],) * n,
        empire_cities_in_supply=k["empire_cities"],
        emperor=e.emperor,
        play_areas=((),) * n,
        votes=(None,) * n,
        version=1,
    )


@_on(ev.GameStarted)
def _started_again(s: GameState, e: Any) -> None:
    raise ValueError("GameStarted opens a game: it cannot follow another event")


@_on(ev.ElectoratesClosed)
def _closed(s: GameState, e: Any) -> None:
    s.closed = frozenset(ELECTORATE_KEYS.index(k) for k in e.electorates)
    s.shape = None
    s.version += 1


@_on(ev.DecisionRequested)
def _requested(s: GameState, e: Any) -> None:
    prompt = e.prompt
    s.prompt = prompt
    if prompt.decision == "actions":
        s.turn = prompt.seats[0]
    s.version += 1


@_on(ev.PhaseStarted)
def _phase(s: GameState, e: Any) -> None:
    s.round, s.phase, s.prompt = e.round, e.phase, None
    if e.phase == 1:  # a new round: electors come back from the privilege spaces
        s.privilege_used = (False,) * 7
    elif e.phase == 4:
        s.passed, s.rival, s.aims, s.votes, s.turn = frozenset(), None, (), (None,) * s.n, None
    s.version += 1


@_on(ev.GameEnded)
def _ended(s: GameState, e: Any) -> None:
    s.winners, s.prompt = tuple(e.winners), None
    s.version += 1


# --- pieces -----------------------------------------------------------------------------------------------
@_on(ev.EmpireCityPlaced)
def _empire_city_placed(s: GameState, e: Any) -> None:
    _put(s, s.layout.by_id[e.space], city_code(EMPIRE))
    s.empire_cities_in_supply -= 1
    s.version += 1


@_on(ev.EmpireCityMoved)
def _empire_city_moved(s: GameState, e: Any) -> None:
    _clear(s, s.layout.by_id[e.from_space])
    _put(s, s.layout.by_id[e.to_space], city_code(EMPIRE))
    s.version += 1


@_on(ev.AristocratPlaced)
def _aristocrat_placed(s: GameState, e: Any) -> None:
    _put(s, s.layout.by_id[e.space], tile_code(e.owner, e.couple, e.age))
    s.tiles_in_supply = _add(s.tiles_in_supply, e.owner, -1)
    s.version += 1


@_on(ev.AristocratMoved)
def _aristocrat_moved(s: GameState, e: Any) -> None:
    _put(s, s.layout.by_id[e.to_space], _clear(s, s.layout.by_id[e.from_space]))
    s.version += 1


@_on(ev.AristocratReturned, ev.AristocratDied)
def _to_supply(s: GameState, e: Any) -> None:
    _clear(s, s.layout.by_id[e.space])
    s.tiles_in_supply = _add(s.tiles_in_supply, e.owner, 1)
    s.version += 1


@_on(ev.AristocratsAged)
def _aged(s: GameState, e: Any) -> None:
    cells, by_id = s.cells, s.layout.by_id
    for space in e.spaces:
        i = by_id[space]
        cells[i] += 10  # the age is the low bits of a tile's code
    s.version += 1


@_on(ev.AristocratAgeChanged)
def _age_changed(s: GameState, e: Any) -> None:
    i = s.layout.by_id[e.space]
    code = s.cells[i]
    s.cells[i] = tile_code(OWNER[code], COUPLE[code], e.age_after)
    s.version += 1


@_on(ev.AristocratMarried)
def _married(s: GameState, e: Any) -> None:
    i = s.layout.by_id[e.space]
    code = s.cells[i]
    s.cells[i] = tile_code(OWNER[code], True, AGE[code])
    s.version += 1


@_on(ev.KnightPlaced)
def _knight_placed(s: GameState, e: Any) -> None:
    _put(s, s.layout.by_id[e.space], KNIGHT + e.owner)  # knight_code, inline
    s.knights_in_supply = _add(s.knights_in_supply, e.owner, -1)
    s.version += 1


@_on(ev.KnightMoved)
def _knight_moved(s: GameState, e: Any) -> None:
    _clear(s, s.layout.by_id[e.from_space])
    _put(s, s.layout.by_id[e.to_space], KNIGHT + e.owner)  # knight_code, inline
    s.version += 1


@_on(ev.KnightPushed)
def _knight_pushed(s: GameState, e: Any) -> None:
    _clear(s, s.layout.by_id[e.space])
    s.knights_in_supply = _add(s.knights_in_supply, e.owner, 1)
    s.version += 1


@_on(ev.KnightPromoted)
def _knight_promoted(s: GameState, e: Any) -> None:
    i = s.layout.by_id[e.space]
    _clear(s, i)
    _put(s, i, tile_code(e.owner, False, 15))
    s.knights_in_supply = _add(s.knights_in_supply, e.owner, 1)
    s.tiles_in_supply = _add(s.tiles_in_supply, e.owner, -1)
    s.version += 1


@_on(ev.CityPlaced)
def _city_placed(s: GameState, e: Any) -> None:
    _put(s, s.layout.by_id[e.space], city_code(e.owner))
    s.cities_in_supply = _add(s.cities_in_supply, e.owner, -1)
    s.version += 1


# --- thalers and points -------------------------------------------------------------------------------------
@_on(ev.IncomeCollected, ev.ThalersChanged)
def _thalers(s: GameState, e: Any) -> None:
    seat, values = e.seat, s.thalers  # the tuple rebuilt in place of a helper call: one per command or more
    s.thalers = (*values[:seat], e.balance, *values[seat + 1 :])
    s.version += 1


@_on(ev.VictoryPointsScored)
def _vp(s: GameState, e: Any) -> None:
    seat, values = e.seat, s.vp
    s.vp = (*values[:seat], e.total, *values[seat + 1 :])
    s.version += 1


# --- phases III and IV --------------------------------------------------------------------------------------
@_on(
    ev.DescendantsCounted,
    ev.SonLost,
    ev.DaughterOffered,
    ev.MarriageAnswered,
    ev.DaughterEnteredConvent,
    ev.ElectorChanged,
    ev.ElectorRetained,
    ev.ElectorSeatStaysEmpty,
    ev.VotesRevealed,
    ev.EmperorRetained,
    ev.ThroneLeftEmpty,
)
def _unchanged(s: GameState, _: Any) -> None:
    s.version += 1


@_on(ev.CardsReturned)
def _cards_returned(s: GameState, _: Any) -> None:
    s.play_areas = ((),) * s.n
    s.taken = {}
    s.version += 1


@_on(ev.CardEffectCopied)
def _effect_copied(s: GameState, _: Any) -> None:
    s.version += 1  # Trier copies an effect: no card goes into a play area [P6]


@_on(ev.CardTaken)
def _card_taken(s: GameState, e: Any) -> None:
    card = e.card
    seat, areas = e.seat, s.play_areas
    s.play_areas = (*areas[:seat], (*areas[seat], card), *areas[seat + 1 :])
    taken = s.taken.copy()
    taken[card] = taken.get(card, 0) + 1
    s.taken = taken
    if card == "rival":
        s.rival = e.seat
    s.version += 1


@_on(ev.PrivilegeUsed)
def _privilege(s: GameState, e: Any) -> None:
    s.privilege_used = _set(s.privilege_used, ELECTORATE_KEYS.index(e.electorate), True)
    s.version += 1


@_on(ev.Passed)
@_on(ev.ActionsEnded)
def _passed(s: GameState, e: Any) -> None:
    s.passed = s.passed | {e.seat}
    s.version += 1


# --- phase VI ---------------------------------------------------------------------------------------------
@_on(ev.ElectionCalled)
def _election(s: GameState, e: Any) -> None:
    s.votes = (None,) * s.n
    s.version += 1


@_on(ev.CardAimed)
def _aimed(s: GameState, e: Any) -> None:
    s.aims = (*s.aims, (e.card, ELECTORATE_KEYS.index(e.electorate)))
    s.version += 1


@_on(ev.VoteSealed)
def _sealed(s: GameState, e: Any) -> None:
    s.votes = _set(s.votes, e.seat, e.candidate)
    s.version += 1


@_on(ev.EmperorElected)
def _elected(s: GameState, e: Any) -> None:
    s.emperor = e.seat
    s.version += 1


missing = set(ev.EVENT_TYPES) - set(APPLY)
assert not missing, f"events without a fold: {missing}"

"""Folding: apply one recorded event to a state. Mechanical only: no rule is decided here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.base import Event
from events.clock import ClockStamped, SeatTimedOut
from events.shadow import events as ev
from events.shadow.settings import ShadowSettings
from services.rules import clock
from services.rules.shadow.board import ELECTORATE_KEYS, layout_from_record
from services.rules.shadow.state import EMPIRE, City, GameState, Knight, Tile, awaited

_HANDLERS: dict[str, Callable[[Any, Any], Any]] = {}


def _on(event_type: type[Event]) -> Callable[[Callable[[Any, Any], Any]], Callable[[Any, Any], Any]]:
    def register(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        _HANDLERS[event_type.model_fields["type"].default] = fn
        return fn

    return register


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``. ``state`` is None only before GameStarted.

    Each handler returns the next state (version included), built with one tuple copy (the fold is hot)."""
    return _HANDLERS[event.type](state, event)  # type: ignore[attr-defined]


HANDLERS = _HANDLERS  # event type -> (state, event) -> next state: evolve without the call around it


_new = tuple.__new__
_FIELD = {name: i for i, name in enumerate(GameState._fields)}
_BOARD = _FIELD["board"]
_THALERS = _FIELD["thalers"]
_VP = _FIELD["vp"]
_TILES = _FIELD["tiles_in_supply"]
_KNIGHTS = _FIELD["knights_in_supply"]
_CITIES = _FIELD["cities_in_supply"]
_EMPIRE_CITIES = _FIELD["empire_cities_in_supply"]
_EMPEROR = _FIELD["emperor"]
_PENDING = _FIELD["pending"]
_TURN = _FIELD["turn"]
_PLAY_AREAS = _FIELD["play_areas"]
_RIVAL = _FIELD["rival"]
_PRIVILEGE_USED = _FIELD["privilege_used"]
_PASSED = _FIELD["passed"]
_AIMS = _FIELD["aims"]
_VOTES = _FIELD["votes"]
_VERSION = _FIELD["version"]
assert len(GameState._fields) - 1 == _VERSION


def _next(s: GameState) -> GameState:
    """``s`` with the version bumped (an event that changes nothing else)."""
    return _new(GameState, (*s[:_VERSION], s[_VERSION] + 1))


def _with(s: GameState, i: int, value: Any) -> GameState:
    """``s`` with field ``i`` replaced and the version bumped."""
    fields = list(s)
    fields[i] = value
    fields[_VERSION] += 1
    return _new(GameState, fields)


def _with2(s: GameState, i: int, value: Any, j: int, value2: Any) -> GameState:
    """``s`` with fields ``i`` and ``j`` replaced and the version bumped."""
    fields = list(s)
    fields[i] = value
    fields[j] = value2
    fields[_VERSION] += 1
    return _new(GameState, fields)


def _changed(s: GameState, **changes: Any) -> GameState:
    """``s`` with named fields replaced and the version bumped (rare events)."""
    fields = list(s)
    for name, value in changes.items():
        fields[_FIELD[name]] = value
    fields[_VERSION] += 1
    return _new(GameState, fields)


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _add(values: tuple[int, ...], i: int, delta: int) -> tuple[int, ...]:
    return (*values[:i], values[i] + delta, *values[i + 1 :])


def _idx(state: GameState, space: str) -> int:
    return state.layout.by_id[space]


def _put(board: tuple[Any, ...], i: int, piece: Any) -> tuple[Any, ...]:
    lst = list(board)
    lst[i] = piece
    return tuple(lst)


# --- lifecycle ----------------------------------------------------------------------------------------------
@_on(ev.GameStarted)
def _game_started(_: None, e: ev.GameStarted) -> GameState:
    layout = layout_from_record(e.layout)
    n = len(e.players)
    k = layout.constants
    settings = ShadowSettings.model_validate(e.settings)
    return GameState(
        layout=layout,
        players=tuple(e.players),
        settings=settings,
        seed=e.seed,
        board=(None,) * len(layout.spaces),
        thalers=(k["start_thalers"],) * n,
        vp=(0,) * n,
        tiles_in_supply=(k["tiles_per_colour"],) * n,
        knights_in_supply=(k["knights_per_colour"],) * n,
        cities_in_supply=(k["cities_per_colour"],) * n,
        empire_cities_in_supply=k["empire_cities"],
        emperor=e.emperor,
        play_areas=((),) * n,
        votes=(None,) * n,
        clocks=None if settings.clock is None else clock.initial(settings.clock, n),
        version=1,
    )


@_on(ev.ElectoratesClosed)
def _closed(s: GameState, e: ev.ElectoratesClosed) -> GameState:
    return _changed(s, closed=frozenset(ELECTORATE_KEYS.index(k) for k in e.electorates))


@_on(ev.DecisionRequested)
def _requested(s: GameState, e: ev.DecisionRequested) -> GameState:
    prompt = e.prompt
    if prompt.decision == "actions":
        return _with2(s, _PENDING, prompt, _TURN, prompt.seats[0])
    return _with(s, _PENDING, prompt)


@_on(ev.PhaseStarted)
def _phase(s: GameState, e: ev.PhaseStarted) -> GameState:
    if e.phase == 1:  # a new round: electors come back from the privilege spaces
        return _changed(s, round=e.round, phase=1, privilege_used=(False,) * 7, pending=None)
    if e.phase == 4:
        return _changed(
            s,
            round=e.round,
            phase=4,
            passed=frozenset(),
            rival=None,
            aims=(),
            votes=(None,) * s.n,
            pending=None,
            turn=None,
        )
    return _changed(s, round=e.round, phase=e.phase, pending=None)


@_on(ev.GameEnded)
def _ended(s: GameState, e: ev.GameEnded) -> GameState:
    return _changed(s, winners=tuple(e.winners), pending=None)


# --- pieces -----------------------------------------------------------------------------------------------
@_on(ev.EmpireCityPlaced)
def _empire_city_placed(s: GameState, e: ev.EmpireCityPlaced) -> GameState:
    board = _put(s.board, _idx(s, e.space), City(EMPIRE))
    return _with2(s, _BOARD, board, _EMPIRE_CITIES, s.empire_cities_in_supply - 1)


@_on(ev.EmpireCityMoved)
def _empire_city_moved(s: GameState, e: ev.EmpireCityMoved) -> GameState:
    board = list(s.board)
    board[_idx(s, e.from_space)] = None
    board[_idx(s, e.to_space)] = City(EMPIRE)
    return _with(s, _BOARD, tuple(board))


@_on(ev.AristocratPlaced)
def _aristocrat_placed(s: GameState, e: ev.AristocratPlaced) -> GameState:
    board = _put(s.board, _idx(s, e.space), Tile(e.owner, e.couple, e.age))
    return _with2(s, _BOARD, board, _TILES, _add(s.tiles_in_supply, e.owner, -1))


@_on(ev.AristocratMoved)
def _aristocrat_moved(s: GameState, e: ev.AristocratMoved) -> GameState:
    src, dst = _idx(s, e.from_space), _idx(s, e.to_space)
    board = list(s.board)
    board[dst], board[src] = board[src], None
    return _with(s, _BOARD, tuple(board))


def _to_supply(s: GameState, space: str, owner: int) -> GameState:
    return _with2(s, _BOARD, _put(s.board, _idx(s, space), None), _TILES, _add(s.tiles_in_supply, owner, 1))


@_on(ev.AristocratReturned)
def _aristocrat_returned(s: GameState, e: ev.AristocratReturned) -> GameState:
    return _to_supply(s, e.space, e.owner)


@_on(ev.AristocratDied)
def _aristocrat_died(s: GameState, e: ev.AristocratDied) -> GameState:
    return _to_supply(s, e.space, e.owner)


@_on(ev.AristocratsAged)
def _aged(s: GameState, e: ev.AristocratsAged) -> GameState:
    board = list(s.board)
    for space in e.spaces:
        i = _idx(s, space)
        t = board[i]
        board[i] = Tile(t.owner, t.couple, t.age + 10)  # type: ignore[union-attr]
    return _with(s, _BOARD, tuple(board))


@_on(ev.AristocratAgeChanged)
def _age_changed(s: GameState, e: ev.AristocratAgeChanged) -> GameState:
    i = _idx(s, e.space)
    t = s.board[i]
    return _with(s, _BOARD, _put(s.board, i, Tile(t.owner, t.couple, e.age_after)))  # type: ignore[union-attr]


@_on(ev.AristocratMarried)
def _married(s: GameState, e: ev.AristocratMarried) -> GameState:
    i = _idx(s, e.space)
    t = s.board[i]
    return _with(s, _BOARD, _put(s.board, i, Tile(t.owner, True, t.age)))  # type: ignore[union-attr]


@_on(ev.KnightPlaced)
def _knight_placed(s: GameState, e: ev.KnightPlaced) -> GameState:
    board = _put(s.board, _idx(s, e.space), Knight(e.owner))
    return _with2(s, _BOARD, board, _KNIGHTS, _add(s.knights_in_supply, e.owner, -1))


@_on(ev.KnightMoved)
def _knight_moved(s: GameState, e: ev.KnightMoved) -> GameState:
    board = list(s.board)
    board[_idx(s, e.from_space)] = None
    board[_idx(s, e.to_space)] = Knight(e.owner)
    return _with(s, _BOARD, tuple(board))


@_on(ev.KnightPushed)
def _knight_pushed(s: GameState, e: ev.KnightPushed) -> GameState:
    board = _put(s.board, _idx(s, e.space), None)
    return _with2(s, _BOARD, board, _KNIGHTS, _add(s.knights_in_supply, e.owner, 1))


@_on(ev.KnightPromoted)
def _knight_promoted(s: GameState, e: ev.KnightPromoted) -> GameState:
    return _changed(
        s,
        board=_put(s.board, _idx(s, e.space), Tile(e.owner, False, 15)),
        knights_in_supply=_add(s.knights_in_supply, e.owner, 1),
        tiles_in_supply=_add(s.tiles_in_supply, e.owner, -1),
    )


@_on(ev.CityPlaced)
def _city_placed(s: GameState, e: ev.CityPlaced) -> GameState:
    board = _put(s.board, _idx(s, e.space), City(e.owner))
    return _with2(s, _BOARD, board, _CITIES, _add(s.cities_in_supply, e.owner, -1))


# --- thalers and points -------------------------------------------------------------------------------------
@_on(ev.IncomeCollected)
def _income(s: GameState, e: ev.IncomeCollected) -> GameState:
    return _with(s, _THALERS, _set(s.thalers, e.seat, e.balance))


@_on(ev.ThalersChanged)
def _thalers(s: GameState, e: ev.ThalersChanged) -> GameState:
    return _with(s, _THALERS, _set(s.thalers, e.seat, e.balance))


@_on(ev.VictoryPointsScored)
def _vp(s: GameState, e: ev.VictoryPointsScored) -> GameState:
    return _with(s, _VP, _set(s.vp, e.seat, e.total))


# --- phases III and IV --------------------------------------------------------------------------------------
def _unchanged(s: GameState, _: Event) -> GameState:
    return _next(s)


for _informational in (
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
):
    _on(_informational)(_unchanged)


@_on(ev.CardsReturned)
def _cards_returned(s: GameState, _: ev.CardsReturned) -> GameState:
    return _with(s, _PLAY_AREAS, ((),) * s.n)


@_on(ev.CardEffectCopied)
def _effect_copied(s: GameState, _: ev.CardEffectCopied) -> GameState:
    return _next(s)  # Trier copies an effect: no card goes into a play area [P6]


@_on(ev.CardTaken)
def _card_taken(s: GameState, e: ev.CardTaken) -> GameState:
    areas = _set(s.play_areas, e.seat, (*s.play_areas[e.seat], e.card))
    rival = e.seat if e.card == "rival" else s.rival
    return _with2(s, _PLAY_AREAS, areas, _RIVAL, rival)


@_on(ev.PrivilegeUsed)
def _privilege(s: GameState, e: ev.PrivilegeUsed) -> GameState:
    return _with(s, _PRIVILEGE_USED, _set(s.privilege_used, ELECTORATE_KEYS.index(e.electorate), True))


@_on(ev.Passed)
@_on(ev.ActionsEnded)
def _passed(s: GameState, e: ev.Passed | ev.ActionsEnded) -> GameState:
    return _with(s, _PASSED, s.passed | {e.seat})


# --- phase VI ---------------------------------------------------------------------------------------------
@_on(ev.ElectionCalled)
def _election(s: GameState, e: ev.ElectionCalled) -> GameState:
    return _with(s, _VOTES, (None,) * s.n)


@_on(ev.CardAimed)
def _aimed(s: GameState, e: ev.CardAimed) -> GameState:
    return _with(s, _AIMS, (*s.aims, (e.card, ELECTORATE_KEYS.index(e.electorate))))


@_on(ev.VoteSealed)
def _sealed(s: GameState, e: ev.VoteSealed) -> GameState:
    return _with(s, _VOTES, _set(s.votes, e.seat, e.candidate))


@_on(ev.EmperorElected)
def _elected(s: GameState, e: ev.EmperorElected) -> GameState:
    return _with(s, _EMPEROR, e.seat)


# --- clocks [X16] -------------------------------------------------------------------------------------------------
@_on(ClockStamped)
def _stamped(s: GameState, e: ClockStamped) -> GameState:
    assert s.settings.clock is not None and s.clocks is not None
    return _changed(s, clocks=clock.stamp(s.settings.clock, s.clocks, e.at_ms, e.seat, awaited(s), e.timed_out))


@_on(SeatTimedOut)
def _timed_out(s: GameState, e: SeatTimedOut) -> GameState:
    assert s.clocks is not None
    return _changed(s, clocks=clock.timed_out(s.clocks, e.seat))


missing = set(ev.EVENT_TYPES) - set(_HANDLERS)
assert not missing, f"events without a fold: {missing}"

"""Folding: apply one recorded event to a state. Mechanical only: no rule is decided here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.base import Event
from events.shadow import events as ev
from events.shadow.settings import ShadowSettings
from services.rules.shadow.board import ELECTORATE_KEYS, layout_from_record
from services.rules.shadow.state import EMPIRE, City, GameState, Knight, Tile

_HANDLERS: dict[str, Callable[[Any, Any], Any]] = {}


def _on(event_type: type[Event]) -> Callable[[Callable[[Any, Any], Any]], Callable[[Any, Any], Any]]:
    def register(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        _HANDLERS[event_type.model_fields["type"].default] = fn
        return fn

    return register


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``. ``state`` is None only before GameStarted.

    Handlers return the changed fields only, so each event costs one ``_replace`` (the fold is hot)."""
    changes = _HANDLERS[event.type](state, event)  # type: ignore[attr-defined]
    if isinstance(changes, GameState):
        return changes._replace(version=changes.version + 1)
    return state._replace(version=state.version + 1, **changes)  # type: ignore[union-attr]


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
    return GameState(
        layout=layout,
        players=tuple(e.players),
        settings=ShadowSettings(**e.settings),
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
    )


@_on(ev.ElectoratesClosed)
def _closed(s: GameState, e: ev.ElectoratesClosed) -> dict[str, Any]:
    return dict(closed=frozenset(ELECTORATE_KEYS.index(k) for k in e.electorates))


@_on(ev.DecisionRequested)
def _requested(s: GameState, e: ev.DecisionRequested) -> dict[str, Any]:
    turn = e.prompt.seats[0] if e.prompt.decision == "actions" else s.turn
    return dict(pending=e.prompt, turn=turn)


@_on(ev.PhaseStarted)
def _phase(s: GameState, e: ev.PhaseStarted) -> dict[str, Any]:
    if e.phase == 1:  # a new round: electors come back from the privilege spaces
        return dict(round=e.round, phase=1, privilege_used=(False,) * 7, pending=None)
    if e.phase == 4:
        return dict(
            round=e.round,
            phase=4,
            passed=frozenset(),
            rival=None,
            aims=(),
            votes=(None,) * s.n,
            pending=None,
            turn=None,
        )
    return dict(round=e.round, phase=e.phase, pending=None)


@_on(ev.GameEnded)
def _ended(s: GameState, e: ev.GameEnded) -> dict[str, Any]:
    return dict(winners=tuple(e.winners), pending=None)


# --- pieces -----------------------------------------------------------------------------------------------
@_on(ev.EmpireCityPlaced)
def _empire_city_placed(s: GameState, e: ev.EmpireCityPlaced) -> dict[str, Any]:
    return dict(
        board=_put(s.board, _idx(s, e.space), City(EMPIRE)), empire_cities_in_supply=s.empire_cities_in_supply - 1
    )


@_on(ev.EmpireCityMoved)
def _empire_city_moved(s: GameState, e: ev.EmpireCityMoved) -> dict[str, Any]:
    board = _put(s.board, _idx(s, e.from_space), None)
    return dict(board=_put(board, _idx(s, e.to_space), City(EMPIRE)))


@_on(ev.AristocratPlaced)
def _aristocrat_placed(s: GameState, e: ev.AristocratPlaced) -> dict[str, Any]:
    return dict(
        board=_put(s.board, _idx(s, e.space), Tile(e.owner, e.couple, e.age)),
        tiles_in_supply=_add(s.tiles_in_supply, e.owner, -1),
    )


@_on(ev.AristocratMoved)
def _aristocrat_moved(s: GameState, e: ev.AristocratMoved) -> dict[str, Any]:
    src, dst = _idx(s, e.from_space), _idx(s, e.to_space)
    board = list(s.board)
    board[dst], board[src] = board[src], None
    return dict(board=tuple(board))


def _to_supply(s: GameState, space: str, owner: int) -> dict[str, Any]:
    return dict(board=_put(s.board, _idx(s, space), None), tiles_in_supply=_add(s.tiles_in_supply, owner, 1))


@_on(ev.AristocratReturned)
def _aristocrat_returned(s: GameState, e: ev.AristocratReturned) -> dict[str, Any]:
    return _to_supply(s, e.space, e.owner)


@_on(ev.AristocratDied)
def _aristocrat_died(s: GameState, e: ev.AristocratDied) -> dict[str, Any]:
    return _to_supply(s, e.space, e.owner)


@_on(ev.AristocratsAged)
def _aged(s: GameState, e: ev.AristocratsAged) -> dict[str, Any]:
    board = list(s.board)
    for space in e.spaces:
        i = _idx(s, space)
        t = board[i]
        board[i] = Tile(t.owner, t.couple, t.age + 10)  # type: ignore[union-attr]
    return dict(board=tuple(board))


@_on(ev.AristocratAgeChanged)
def _age_changed(s: GameState, e: ev.AristocratAgeChanged) -> dict[str, Any]:
    i = _idx(s, e.space)
    t = s.board[i]
    return dict(board=_put(s.board, i, Tile(t.owner, t.couple, e.age_after)))  # type: ignore[union-attr]


@_on(ev.AristocratMarried)
def _married(s: GameState, e: ev.AristocratMarried) -> dict[str, Any]:
    i = _idx(s, e.space)
    t = s.board[i]
    return dict(board=_put(s.board, i, Tile(t.owner, True, t.age)))  # type: ignore[union-attr]


@_on(ev.KnightPlaced)
def _knight_placed(s: GameState, e: ev.KnightPlaced) -> dict[str, Any]:
    return dict(
        board=_put(s.board, _idx(s, e.space), Knight(e.owner)), knights_in_supply=_add(s.knights_in_supply, e.owner, -1)
    )


@_on(ev.KnightMoved)
def _knight_moved(s: GameState, e: ev.KnightMoved) -> dict[str, Any]:
    board = _put(s.board, _idx(s, e.from_space), None)
    return dict(board=_put(board, _idx(s, e.to_space), Knight(e.owner)))


@_on(ev.KnightPushed)
def _knight_pushed(s: GameState, e: ev.KnightPushed) -> dict[str, Any]:
    return dict(board=_put(s.board, _idx(s, e.space), None), knights_in_supply=_add(s.knights_in_supply, e.owner, 1))


@_on(ev.KnightPromoted)
def _knight_promoted(s: GameState, e: ev.KnightPromoted) -> dict[str, Any]:
    return dict(
        board=_put(s.board, _idx(s, e.space), Tile(e.owner, False, 15)),
        knights_in_supply=_add(s.knights_in_supply, e.owner, 1),
        tiles_in_supply=_add(s.tiles_in_supply, e.owner, -1),
    )


@_on(ev.CityPlaced)
def _city_placed(s: GameState, e: ev.CityPlaced) -> dict[str, Any]:
    return dict(
        board=_put(s.board, _idx(s, e.space), City(e.owner)), cities_in_supply=_add(s.cities_in_supply, e.owner, -1)
    )


# --- thalers and points -------------------------------------------------------------------------------------
@_on(ev.IncomeCollected)
def _income(s: GameState, e: ev.IncomeCollected) -> dict[str, Any]:
    return dict(thalers=_set(s.thalers, e.seat, e.balance))


@_on(ev.ThalersChanged)
def _thalers(s: GameState, e: ev.ThalersChanged) -> dict[str, Any]:
    return dict(thalers=_set(s.thalers, e.seat, e.balance))


@_on(ev.VictoryPointsScored)
def _vp(s: GameState, e: ev.VictoryPointsScored) -> dict[str, Any]:
    return dict(vp=_set(s.vp, e.seat, e.total))


# --- phases III and IV --------------------------------------------------------------------------------------
def _unchanged(s: GameState, _: Event) -> dict[str, Any]:
    return {}


for _informational in (
    ev.DescendantsCounted,
    ev.SonLost,
    ev.DaughterOffered,
    ev.MarriageAnswered,
    ev.DaughterEnteredConvent,
    ev.ElectorChanged,
    ev.ElectorRetained,
    ev.VotesRevealed,
    ev.EmperorRetained,
    ev.ThroneLeftEmpty,
):
    _on(_informational)(_unchanged)


@_on(ev.CardsReturned)
def _cards_returned(s: GameState, _: ev.CardsReturned) -> dict[str, Any]:
    return dict(play_areas=((),) * s.n)


@_on(ev.CardTaken)
def _card_taken(s: GameState, e: ev.CardTaken) -> dict[str, Any]:
    if e.via_trier:  # Trier copies an effect; no card is taken
        return {}
    areas = _set(s.play_areas, e.seat, (*s.play_areas[e.seat], e.card))
    rival = e.seat if e.card == "rival" else s.rival
    return dict(play_areas=areas, rival=rival)


@_on(ev.PrivilegeUsed)
def _privilege(s: GameState, e: ev.PrivilegeUsed) -> dict[str, Any]:
    return dict(privilege_used=_set(s.privilege_used, ELECTORATE_KEYS.index(e.electorate), True))


@_on(ev.Passed)
def _passed(s: GameState, e: ev.Passed) -> dict[str, Any]:
    return dict(passed=s.passed | {e.seat})


# --- phase VI ---------------------------------------------------------------------------------------------
@_on(ev.ElectionCalled)
def _election(s: GameState, e: ev.ElectionCalled) -> dict[str, Any]:
    return dict(votes=(None,) * s.n)


@_on(ev.CardAimed)
def _aimed(s: GameState, e: ev.CardAimed) -> dict[str, Any]:
    return dict(aims=(*s.aims, (e.card, ELECTORATE_KEYS.index(e.electorate))))


@_on(ev.VoteSealed)
def _sealed(s: GameState, e: ev.VoteSealed) -> dict[str, Any]:
    return dict(votes=_set(s.votes, e.seat, e.candidate))


@_on(ev.EmperorElected)
def _elected(s: GameState, e: ev.EmperorElected) -> dict[str, Any]:
    return dict(emperor=e.seat)


missing = set(ev.EVENT_TYPES) - set(_HANDLERS)
assert not missing, f"events without a fold: {missing}"

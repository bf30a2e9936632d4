"""What an accepted phase IV action does (registered in ``APPLY[("actions", command_type)]``), then the next
player's turn unless the action asked for a decision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.shadow.messages import events as ev
from services.games.shadow.rules import flow
from services.games.shadow.rules.board import ARISTOCRAT
from services.games.shadow.rules.command_keys import _eidx, _space
from services.games.shadow.rules.effects import (
    E,
    Tx,
    kill,
    move_tile,
    pay,
    place_from_supply,
    score,
)
from services.games.shadow.rules.handlers import APPLY, _target_of
from services.games.shadow.rules.queries import (
    cities_of,
    first_free,
)
from services.games.shadow.rules.state import AGE, OWNER
from services.games.shadow.rules.turn_options import permit_cost
from services.rules.facts import maker


# --- phase IV -----------------------------------------------------------------------------------------------
def _turn(command_type: str) -> Callable[[Callable[[Tx, Any], bool | None]], Callable[[Tx, Any], bool | None]]:
    """Register a phase IV action; after it, the next player's turn unless the action asked for a decision."""

    def register(fn: Callable[[Tx, Any], bool | None]) -> Callable[[Tx, Any], bool | None]:
        def apply(tx: Tx, c: Any, p: ev.Prompt) -> None:
            if not fn(tx, c):
                flow.next_turn(tx)

        APPLY[("actions", command_type)] = apply
        return fn

    return register


# The hottest events from one tuple in the mirror's order (services/rules/facts.py: ``maker``).
_TAKEN = maker(E.CardTaken, "seat card cost rulings type without_effect")
_PASSED = maker(E.Passed, "seat rulings type")
_KNIGHT_PLACED = maker(E.KnightPlaced, "owner space rulings type")
_KNIGHT_MOVED = maker(E.KnightMoved, "owner from_space to_space rulings type")
_AGE_CHANGED = maker(E.AristocratAgeChanged, "owner space age_before age_after by cause rulings type")
_CITY_PLACED = maker(E.CityPlaced, "owner space rulings type")
_KNIGHT_RULINGS, _MOVE_RULINGS = ("P1", "X1"), ("P1", "X1", "X2")


def _take_card(tx: Tx, seat: int, card: str, cost: int, trier: bool, rulings: tuple[str, ...]) -> None:
    """The card from its stack, or (``trier``) only its effect by Trier's privilege: no card is taken [P6]."""
    if trier:
        tx.emit(E.CardEffectCopied(seat=seat, card=card, cost=cost, rulings=(*rulings, "P6")))
    else:
        tx.emit(_TAKEN((seat, card, cost, rulings, "CardTaken", False)))
    pay(tx, seat, cost, card, rulings)
    if trier:
        tx.emit(E.PrivilegeUsed(seat=seat, electorate="trier", rulings=("P6", "P7")))


@_turn("Pass")
def _pass(tx: Tx, c: Any) -> None:
    tx.emit(_PASSED((c.seat, ("P1",), "Passed")))


@_turn("PlaceKnight")
def _place_knight(tx: Tx, c: Any) -> None:
    info = tx.state.layout.electorates[_eidx(c.electorate)]
    space = first_free(tx.state, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
    pay(tx, c.seat, tx.state.layout.constants["knight_cost"], "knight", ("P1",))
    tx.emit(_KNIGHT_PLACED((c.seat, tx.state.layout.spaces[space].id, _KNIGHT_RULINGS, "KnightPlaced")))  # type: ignore[index]


@_turn("MoveKnight")
def _move_knight(tx: Tx, c: Any) -> None:
    info = tx.state.layout.electorates[_eidx(c.electorate)]
    space = first_free(tx.state, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
    pay(tx, c.seat, tx.state.layout.constants["knight_cost"], "knight", ("P1",))
    to_space = tx.state.layout.spaces[space].id  # type: ignore[index]
    tx.emit(_KNIGHT_MOVED((c.seat, c.from_space, to_space, _MOVE_RULINGS, "KnightMoved")))


def doctor_effect(tx: Tx, seat: int, target: int, cause: str, rulings: tuple[str, ...]) -> bool:
    """One step younger for an own tile, one step older for an opponent's; past 45 it dies; a dead Emperor
    is replaced at once [P3, A2, A3, X10, X11]. True when that replacement waits for a decision."""
    code = tx.state.cells[target]
    owner, age = OWNER[code], AGE[code]
    if owner == seat or age < 45:
        space = tx.state.layout.spaces[target].id
        after = age - 10 if owner == seat else age + 10
        tx.emit(_AGE_CHANGED((owner, space, age, after, seat, cause, rulings, "AristocratAgeChanged")))
        return False
    kill(tx, target, cause, (*rulings, "A3"))
    if target == tx.state.layout.throne:
        return flow.fill_empty_throne(tx, after="actions")
    return False


@_turn("BuyDoctor")
def _doctor(tx: Tx, c: Any) -> bool:
    _take_card(tx, c.seat, "doctor", tx.state.layout.cards["doctor"].cost, c.trier, ("P2", "P3"))
    return doctor_effect(tx, c.seat, _space(tx.state, c.target), "doctor", ("P3",))  # type: ignore[arg-type]


@_turn("BuyMove")
def _move(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "move", tx.state.layout.cards["move"].cost, c.trier, ("P2", "P4"))
    target, push = _target_of(tx.state, c.electorate, c.push)
    move_tile(tx, _space(tx.state, c.source), target, push, "move_card", ("P4", "D2", "X1"))  # type: ignore[arg-type]


def _simple_apply(command_type: str, card: str, rulings: tuple[str, ...]) -> None:
    @_turn(command_type)
    def _apply(tx: Tx, c: Any) -> None:
        _take_card(tx, c.seat, card, tx.state.layout.cards[card].cost, False, rulings)


_simple_apply("BuyPope", "pope", ("P2", "E1"))
_simple_apply("BuyChurchInfluence", "church_influence", ("P2", "E1"))
_simple_apply("BuyExcommunication", "excommunication", ("P2", "E1"))


@_turn("BuyIndulgence")
def _indulgence(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "indulgence", tx.state.layout.cards["indulgence"].cost, c.trier, ("P2", "P5"))
    score(tx, c.seat, 1, "indulgence", ("P5",))


@_turn("BuyPermit")
def _permit(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "permit", permit_cost(tx.state, c.couple), c.trier, ("P2", "P5"))
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, c.couple, 15, "permit", ("P5", "D2", "X1"))


@_turn("BuyOrdinance")
def _ordinance(tx: Tx, c: Any) -> None:
    s = tx.state
    _take_card(tx, c.seat, "ordinance", s.layout.cards["ordinance"].cost, c.trier, ("P2", "P5"))
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(_CITY_PLACED((c.seat, tx.state.layout.spaces[space].id, ("P5", "X1"), "CityPlaced")))  # type: ignore[index]
    placed = cities_of(tx.state, c.seat)
    score(tx, c.seat, 2 if placed == 3 else 1, f"city number {placed}", ("P5",))


@_turn("BuyPromotion")
def _promotion(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "promotion", tx.state.layout.cards["promotion"].cost, c.trier, ("P2", "P5"))
    tx.emit(E.KnightPromoted(owner=c.seat, space=c.knight, rulings=("P5",)))


@_turn("BuyForeignKingsDaughter")
def _fkd(tx: Tx, c: Any) -> None:
    cost = tx.state.layout.cards["foreign_kings_daughter"].cost
    _take_card(tx, c.seat, "foreign_kings_daughter", cost, c.trier, ("P2", "P5"))
    tx.emit(E.AristocratMarried(owner=c.seat, space=c.baron, reason="foreign_kings_daughter", rulings=("P5",)))


@_turn("BuyRival")
def _rival(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "rival", tx.state.layout.cards["rival"].cost, False, ("P1", "X12"))
    tx.emit(E.ActionsEnded(seat=c.seat, rulings=("P1",)))


@_turn("BuyCardWithoutEffect")
def _without_effect(tx: Tx, c: Any) -> None:
    cost = tx.state.layout.cards[c.card].cost
    tx.emit(E.CardTaken(seat=c.seat, card=c.card, cost=cost, without_effect=True, rulings=("P2", "X9")))
    pay(tx, c.seat, cost, c.card, ("P2", "X9"))


@_turn("TakeGrayEminence")
def _gray(tx: Tx, c: Any) -> None:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="brandenburg", rulings=("P7", "P8")))
    tx.emit(E.CardTaken(seat=c.seat, card="gray_eminence", cost=0, rulings=("P8",)))


@_turn("UseKoelnPrivilege")
def _koeln(tx: Tx, c: Any) -> bool:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="koeln", rulings=("P3", "P7")))
    return doctor_effect(tx, c.seat, _space(tx.state, c.target), "koeln", ("P3",))  # type: ignore[arg-type]


@_turn("UsePalatinatePrivilege")
def _palatinate(tx: Tx, c: Any) -> None:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="palatinate", rulings=("P7",)))
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, False, 15, "palatinate", ("P7", "D2", "X1"))

"""What an accepted command does outside phase IV, then where the flow goes: ``APPLY[(decision, command_type)]``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.shadow.messages import events as ev
from services.games.shadow.rules import election, flow, new_electors
from services.games.shadow.rules.board import ARISTOCRAT
from services.games.shadow.rules.command_keys import _eidx, _space
from services.games.shadow.rules.effects import (
    E,
    Tx,
    place_from_supply,
    request,
    score,
)
from services.games.shadow.rules.queries import (
    first_free,
    placement_target,
)
from services.games.shadow.rules.state import OWNER, GameState, awaited

# =============================================================================================================
# Effects: what an accepted command does, then where the flow goes
# =============================================================================================================
ApplyFn = Callable[[Tx, Any, ev.Prompt], None]
APPLY: dict[tuple[str, str], ApplyFn] = {}


def applies(decision: str, command_type: str) -> Callable[[ApplyFn], ApplyFn]:
    def register(fn: ApplyFn) -> ApplyFn:
        APPLY[(decision, command_type)] = fn
        return fn

    return register


def _target_of(s: GameState, electorate: str, push: str | None) -> tuple[int, int | None]:
    push_i = _space(s, push)
    target = placement_target(s, _eidx(electorate), push_i)
    assert target is not None
    return target, push_i


@applies("setup_empire_city", "PlaceEmpireCity")
def _setup_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    _place_empire_city(tx, c, ("S1",))
    flow.setup_next(tx, 0)


@applies("emperor_place_city", "PlaceEmpireCity")
def _emperor_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    _place_empire_city(tx, c, ("R1",))
    flow.end_round(tx)


def _place_empire_city(tx: Tx, c: Any, rulings: tuple[str, ...]) -> None:
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(E.EmpireCityPlaced(seat=c.seat, space=tx.sid(space), rulings=(*rulings, "X1")))  # type: ignore[arg-type]


@applies("emperor_move_city", "MoveEmpireCity")
def _move_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(
        E.EmpireCityMoved(
            seat=c.seat,
            from_space=c.from_space,
            to_space=tx.sid(space),  # type: ignore[arg-type]
            rulings=("R1", "X3"),
        )
    )
    flow.end_round(tx)


@applies("setup_elector", "PlacePiece")
@applies("setup_aristocrat", "PlacePiece")
@applies("setup_knight", "PlacePiece")
def _setup_piece(tx: Tx, c: Any, p: ev.Prompt) -> None:
    s = tx.state
    info = s.layout.electorates[_eidx(c.electorate)]
    if p.decision == "setup_elector":
        tx.emit(
            E.AristocratPlaced(
                owner=c.seat, space=tx.sid(info.elector), couple=False, age=45, reason="setup", rulings=("S2", "S3")
            )
        )
    elif p.decision == "setup_aristocrat":
        space = first_free(s, info.aristocrats)
        tx.emit(
            E.AristocratPlaced(
                owner=c.seat,
                space=tx.sid(space),
                couple=bool(p.couple),
                age=p.age or 15,  # type: ignore[arg-type]
                reason="setup",
                rulings=("S2", "X1"),
            )
        )
    else:
        space = first_free(s, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
        tx.emit(E.KnightPlaced(owner=c.seat, space=tx.sid(space), rulings=("S2", "X1")))  # type: ignore[arg-type]
    flow.setup_next(tx, (p.step or 0) + 1)


@applies("replace_emperor", "ChooseAristocrat")
def _replace_emperor(tx: Tx, c: Any, p: ev.Prompt) -> None:
    rulings = ("A2",) if p.after == "phase_iii" else ("A2", "X11")
    flow.put_on_throne(tx, c.seat, _space(tx.state, c.space), rulings, "emperor_replaced")
    if p.after == "phase_iii":
        flow.begin_phase(tx, tx.state.round, 3)
    else:
        flow.next_turn(tx)


@applies("place_son", "PlacePiece")
def _son(tx: Tx, c: Any, p: ev.Prompt) -> None:
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, False, 15, "son", ("D2", "X1"))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("daughter", "OfferDaughter")
def _offer(tx: Tx, c: Any, p: ev.Prompt) -> None:
    owner = OWNER[tx.state.cells[_space(tx.state, c.space)]]  # type: ignore[index]
    tx.emit(E.DaughterOffered(seat=c.seat, to_seat=owner, space=c.space, rulings=("D3",)))
    request(tx, "marriage_answer", (owner,), ("D3",), offer_from=c.seat, space=c.space, step=p.step)


@applies("daughter", "SendDaughterToConvent")
def _convent(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.convent(tx, c.seat, ("D3",))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("marriage_answer", "AnswerMarriage")
def _answer(tx: Tx, c: Any, p: ev.Prompt) -> None:
    offer_from = p.offer_from
    assert offer_from is not None and p.space is not None
    tx.emit(E.MarriageAnswered(seat=c.seat, offer_from=offer_from, space=p.space, accepted=c.accept, rulings=("D3",)))
    if c.accept:
        tx.emit(E.AristocratMarried(owner=c.seat, space=p.space, reason="marriage", rulings=("D3",)))
        score(tx, offer_from, 1, "daughter married", ("D3",))
    else:
        flow.convent(tx, offer_from, ("D3",))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("gray_eminence", "PlacePiece")
def _gray_place(tx: Tx, c: Any, p: ev.Prompt) -> None:
    slot = tx.state.layout.electorates[_eidx(c.electorate)].eminence
    place_from_supply(tx, c.seat, slot, None, False, 45, "gray_eminence", ("P8",))
    new_electors.electorates_from(tx, 0)


@applies("gray_eminence", "Decline")
def _gray_decline(tx: Tx, c: Any, p: ev.Prompt) -> None:
    new_electors.electorates_from(tx, 0)


@applies("break_tie", "BreakTie")
def _break_tie(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    if not new_electors.resolve_winner(tx, e, c.winner, c.seat):
        new_electors.electorates_from(tx, e + 1)


@applies("choose_elector", "ChooseAristocrat")
def _choose_elector(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    new_electors.seat_elector(tx, e, _space(tx.state, c.space))  # type: ignore[arg-type]
    if not new_electors.settle_displaced(tx, e):
        new_electors.electorates_from(tx, e + 1)


@applies("place_displaced", "PlacePiece")
def _displaced(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    new_electors.place_aside(tx, e, _space(tx.state, c.push), True, ("V4", "D2", "X6"))
    new_electors.finish_electorate(tx, e)
    new_electors.electorates_from(tx, e + 1)


@applies("aim_church_influence", "AimChurchInfluence")
@applies("aim_excommunication", "AimExcommunication")
def _aim(tx: Tx, c: Any, p: ev.Prompt) -> None:
    card = "church_influence" if c.type == "AimChurchInfluence" else "excommunication"
    tx.emit(E.CardAimed(seat=c.seat, card=card, electorate=c.electorate, rulings=("E1", "X8")))
    election.aims_next(tx)


@applies("vote", "CastVote")
def _vote(tx: Tx, c: Any, p: ev.Prompt) -> None:
    tx.emit(E.VoteSealed(seat=c.seat, candidate=c.candidate, rulings=("E2",)))
    if not awaited(tx.state):
        election.reveal_votes(tx)


@applies("choose_throne", "ChooseAristocrat")
def _choose_throne(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.put_on_throne(tx, c.seat, _space(tx.state, c.space), ("E4",), "new_emperor")
    election.settle_dethroned(tx)


@applies("place_dethroned", "PlacePiece")
def _dethroned(tx: Tx, c: Any, p: ev.Prompt) -> None:
    new_electors.place_aside(tx, _eidx(c.electorate), _space(tx.state, c.push), True, ("E4", "D2"))
    flow.begin_phase(tx, tx.state.round, 7)

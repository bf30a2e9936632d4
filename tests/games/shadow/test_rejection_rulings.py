"""Every refusal names the rule it enforces [X15]: cases that used to fall back to a generic ``illegal_move`` with no
ruling, or cited a ruling that does not apply (X10, the Doctor's targets, for a knight that is not one)."""

from __future__ import annotations

from events.base import Event
from tests.games.shadow.phase4_support import fill, phase4, phase4_events
from tests.games.shadow.support import RULES, cmd, ev, given, knight, rejected, request, start, tile

FULL_KOELN = (*fill("koeln", 1, 2, 3, 2), knight(2, "koeln.castle.0"))
"""Köln's four aristocrat spaces hold tiles and its castle a knight: no aristocrat space is free."""


def test_given_a_full_electorate_when_a_move_pushes_the_knight_on_its_castle_then_refused_citing_d2() -> None:
    """[D2, P4] Knights on castle spaces are never pushed: the refusal says so and cites D2."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *FULL_KOELN, turn=0)
    rejection = rejected(
        state,
        cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln", push="koeln.castle.0"),
        "illegal_move",
    )
    assert "castle space" in rejection.message and "never pushed" in rejection.message
    assert rejection.rulings == ("D2",)


def test_given_a_full_electorate_when_a_permit_or_palatinate_pushes_a_castle_knight_then_refused_citing_d2() -> None:
    """[D2, P5, P7] The same push rule for every aristocrat placed: Permit and the Palatinate privilege."""
    state = phase4(tile(0, "palatinate.elector"), *FULL_KOELN, turn=0)
    for command in (
        cmd.BuyPermit(seat=0, couple=False, electorate="koeln", push="koeln.castle.0"),
        cmd.UsePalatinatePrivilege(seat=0, electorate="koeln", push="koeln.castle.0"),
    ):
        rejection = rejected(state, command, "illegal_move")
        assert "never pushed" in rejection.message
        assert rejection.rulings == ("D2",)


def test_given_a_full_electorate_when_the_named_knight_stands_in_another_electorate_then_refused_citing_d2_x6() -> None:
    """[D2, X6] The pushed knight is one on an aristocrat space of the chosen electorate."""
    state = phase4(tile(0, "palatinate.elector"), *fill("koeln", 1, -3, 2, 3), knight(2, "saxony.aristocrat.1"))
    rejection = rejected(
        state, cmd.UsePalatinatePrivilege(seat=0, electorate="koeln", push="saxony.aristocrat.1"), "illegal_move"
    )
    assert "not in koeln" in rejection.message
    assert rejection.rulings == ("D2", "X6")


def test_given_a_full_electorate_when_a_knight_moves_there_then_refused_for_no_free_space_not_for_x2() -> None:
    """[P1, X1] A knight pushes nothing: with no free aristocrat space the move is refused for that (it used to
    cite X2, the rule that a move must change something, which this move does)."""
    state = phase4(knight(0, "trier.castle.0"), *FULL_KOELN, turn=0)
    rejection = rejected(
        state, cmd.MoveKnight(seat=0, from_space="trier.castle.0", electorate="koeln", space_kind="aristocrat")
    )
    assert "no free aristocrat space" in rejection.message
    assert rejection.rulings == ("P1", "X1")


def test_given_an_electorate_without_castle_when_a_knight_is_placed_on_its_castle_then_refused_citing_b2() -> None:
    """[B2, P1] Mainz has no castle space in the default board data."""
    rejection = rejected(phase4(turn=0), cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="castle"))
    assert "has no castle space" in rejection.message
    assert rejection.rulings == ("B2", "P1")


def test_given_a_promotion_when_it_names_a_tile_then_refused_citing_p5_not_the_doctor_rule() -> None:
    """[P5] Promotion turns a knight into a Baron: naming a tile breaks P5 (it used to cite X10)."""
    state = phase4(tile(0, "saxony.aristocrat.0"), turn=0)
    rejection = rejected(state, cmd.BuyPromotion(seat=0, knight="saxony.aristocrat.0"), "illegal_move")
    assert "does not hold a knight" in rejection.message
    assert rejection.rulings == ("P5",)


def daughter_position(*facts: Event) -> list[Event]:
    """Phase III of round 2, seat 0 offering a daughter."""
    return [
        *start(4, {"start_player": 0}),
        ev.PhaseStarted(round=2, phase=3),
        *facts,
        request("daughter", 0, step=0),
    ]


def test_given_a_daughter_when_offered_to_a_knight_or_an_own_baron_then_refused_citing_d3() -> None:
    """[D3] A daughter goes to an opponent's unmarried Baron (a knight used to be refused citing X10)."""
    state = given(daughter_position(knight(1, "koeln.castle.0"), tile(0, "saxony.aristocrat.0")))
    to_knight = rejected(state, cmd.OfferDaughter(seat=0, space="koeln.castle.0"), "illegal_move")
    assert "does not hold an aristocrat" in to_knight.message
    assert to_knight.rulings == ("D3",)
    to_own = rejected(state, cmd.OfferDaughter(seat=0, space="saxony.aristocrat.0"), "illegal_move")
    assert "opponent" in to_own.message
    assert to_own.rulings == ("D3",)


def test_given_commands_that_answer_no_awaited_decision_when_decided_then_they_cite_x15() -> None:
    """[X15, G1, P1] No game yet, a seat that does not exist, a command of another decision: each refusal names
    the awaited-answer rule, and for another decision also the rules of the decision awaited."""
    no_game = RULES.decide(None, cmd.Pass(seat=0))
    assert (no_game.code, no_game.rulings) == ("no_game", ("X15",))  # type: ignore[union-attr]
    state = given(phase4_events(turn=0))
    assert rejected(state, cmd.Pass(seat=7), "unknown_seat").rulings == ("G1", "X15")
    assert rejected(state, cmd.CastVote(seat=0, candidate="rival"), "wrong_decision").rulings == ("X15", "P1")

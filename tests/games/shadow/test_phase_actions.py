"""Phase IV: turn order, knights, and the general conditions on taking a card [P1, P2, G1, X1, X2, B3, B5]."""

from __future__ import annotations

import pytest

from events.base import Command
from services.games.shadow.messages.commands import COMMAND_TYPES
from services.games.shadow.rules.state import Knight
from tests.games.shadow.phase4_support import fill, phase4
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    cmd,
    ev,
    first_legal_setup,
    knight,
    of_type,
    passed,
    prompt,
    rejected,
    taken,
    thalers,
    tile,
    types,
)

# --- turn order [P1, G1] -------------------------------------------------------------------------------------


@pytest.mark.parametrize("emperor", [0, 2, 3])
def test_given_setup_ends_when_phase_iv_starts_then_the_emperor_acts_first(emperor: int) -> None:
    """[G1, P1] Phase IV opens with the Emperor's turn, whoever he is."""
    state = first_legal_setup(4, {"start_player": emperor})
    assert (state.round, state.phase) == (1, 4)
    assert prompt(state).decision == "actions"
    assert prompt(state).seats == (emperor,)
    assert RULES.awaited(state) == (emperor,)


def test_given_the_emperor_is_seat_two_when_each_player_acts_then_turns_go_clockwise_and_wrap() -> None:
    """[G1] Seat 2 (Emperor), then 3, then 0, then 1, then back to 2."""
    state = phase4(emperor=2)
    order = []
    for _ in range(5):
        seat = prompt(state).seats[0]
        order.append(seat)
        _, state = accepted(
            state,
            cmd.BuyIndulgence(seat=seat)
            if seat == 1
            else cmd.PlaceKnight(seat=seat, electorate="bohemia", space_kind="aristocrat"),
        )
    assert order == [2, 3, 0, 1, 2]


def test_given_seat_one_has_passed_when_seat_zero_acts_then_seat_two_is_next() -> None:
    """[P1, G1] A player who has passed is skipped."""
    state = phase4(passed(1), turn=0)
    events, _after = accepted(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="aristocrat"))
    requested = of_type(events, ev.DecisionRequested)
    assert [r.prompt.seats for r in requested] == [(2,)]
    assert requested[0].prompt.decision == "actions"
    assert requested[0].rulings == ("P1",)


def test_given_a_player_passes_when_turns_come_round_then_he_never_acts_again_this_round() -> None:
    """[P1] Passing is final: the passed seat is skipped and may not send an action."""
    state = phase4(turn=0)
    events, state = accepted(state, cmd.Pass(seat=0))
    passed_events = of_type(events, ev.Passed)
    assert [(p.seat, p.rulings) for p in passed_events] == [(0, ("P1",))]
    seen = []
    for _ in range(6):  # seats 1, 2, 3 place knights twice each: seat 0 is never asked
        seat = prompt(state).seats[0]
        seen.append(seat)
        assert RULES.legal_commands(state, 0) == []
        rejected(state, cmd.PlaceKnight(seat=0, electorate="koeln", space_kind="castle"), "not_your_turn")
        _, state = accepted(
            state,
            cmd.Pass(seat=seat)
            if len(seen) > 3
            else cmd.PlaceKnight(seat=seat, electorate="saxony", space_kind="aristocrat"),
        )
        if state.phase != 4:
            break
    assert seen == [1, 2, 3, 1, 2, 3]


def test_given_the_rival_is_taken_when_turns_come_round_then_the_taker_is_skipped() -> None:
    """[P1] Taking Rival ends the taker's phase IV: ActionsEnded is recorded (he did not pass) and he is skipped."""
    state = phase4(turn=1)
    events, state = accepted(state, cmd.BuyRival(seat=1))
    assert not of_type(events, ev.Passed)
    assert [(p.seat, p.rulings) for p in of_type(events, ev.ActionsEnded)] == [(1, ("P1",))]
    assert 1 in state.passed
    assert prompt(state).seats == (2,)
    _, state = accepted(state, cmd.Pass(seat=2))
    _, state = accepted(state, cmd.PlaceKnight(seat=3, electorate="mainz", space_kind="aristocrat"))
    assert prompt(state).seats == (0,)
    _, state = accepted(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="aristocrat"))
    assert prompt(state).seats == (3,)  # 1 (rival) and 2 (passed) skipped


def test_given_three_players_passed_when_the_last_one_passes_then_phase_v_starts() -> None:
    """[P1] Phase IV ends once every player has passed; phase V follows in the same round."""
    state = phase4(passed(0), passed(1), passed(3), turn=2)
    events, _after = accepted(state, cmd.Pass(seat=2))
    assert types(events)[:2] == ["Passed", "PhaseStarted"]
    assert of_type(events, ev.PhaseStarted)[0].phase == 5
    assert of_type(events, ev.PhaseStarted)[0].round == 2
    assert not [r for r in of_type(events, ev.DecisionRequested) if r.prompt.decision == "actions"]


def test_given_two_players_have_not_passed_when_one_passes_then_phase_iv_goes_on() -> None:
    """[P1] Phase IV continues while anyone has not passed."""
    state = phase4(passed(0), passed(1), turn=2)
    events, after = accepted(state, cmd.Pass(seat=2))
    assert types(events) == ["Passed", "DecisionRequested"]
    assert after.phase == 4
    assert prompt(after).seats == (3,)


# --- knights [P1, X1, X2, B3] --------------------------------------------------------------------------------


def test_given_a_free_aristocrat_space_when_a_knight_is_placed_then_it_costs_one_thaler_and_takes_the_lowest() -> None:
    """[P1, X1] A knight from supply onto the lowest free aristocrat space, for 1 thaler."""
    state = phase4(tile(1, "saxony.aristocrat.0"), turn=0)
    events, after = accepted(state, cmd.PlaceKnight(seat=0, electorate="saxony", space_kind="aristocrat"))
    assert types(events) == ["ThalersChanged", "KnightPlaced", "DecisionRequested"]
    paid = of_type(events, ev.ThalersChanged)[0]
    assert (paid.seat, paid.delta, paid.balance) == (0, -1, 6)
    placed = of_type(events, ev.KnightPlaced)[0]
    assert (placed.owner, placed.space) == (0, "saxony.aristocrat.1")
    assert set(placed.rulings) >= {"P1", "X1"}
    assert at(after, "saxony.aristocrat.1") == Knight(0)
    assert after.knights_in_supply[0] == state.knights_in_supply[0] - 1
    assert after.thalers[0] == 6


def test_given_a_free_castle_when_a_knight_is_placed_there_then_it_stands_on_the_castle() -> None:
    """[P1, X1] A knight may go onto a castle space."""
    state = phase4(turn=0)
    events, after = accepted(state, cmd.PlaceKnight(seat=0, electorate="bohemia", space_kind="castle"))
    assert [k.space for k in of_type(events, ev.KnightPlaced)] == ["bohemia.castle.0"]
    assert at(after, "bohemia.castle.0") == Knight(0)


def test_given_mainz_has_no_castle_when_a_knight_is_sent_to_a_mainz_castle_then_it_is_refused() -> None:
    """[B2, P1] Mainz has no castle space (default data), so no knight can stand on one there."""
    state = phase4(turn=0)
    rejected(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="castle"), "illegal_move")


def test_given_a_full_electorate_when_a_knight_is_placed_there_then_it_is_refused_as_knights_never_push() -> None:
    """[P1] A knight needs a free space; it never pushes anything."""
    state = phase4(*fill("mainz", 1, -2, 2, 3), turn=0)
    rejected(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="aristocrat"), "illegal_move")
    assert ("PlaceKnight", "mainz", "aristocrat") not in {
        (c.type, c.electorate, c.space_kind) for c in RULES.legal_commands(state, 0) if c.type == "PlaceKnight"
    }


def test_given_an_occupied_castle_when_a_knight_is_placed_there_then_it_is_refused() -> None:
    """[P1, X1] Köln's only castle is taken."""
    state = phase4(knight(2, "koeln.castle.0"), turn=0)
    rejected(state, cmd.PlaceKnight(seat=0, electorate="koeln", space_kind="castle"), "illegal_move")


def test_given_no_knight_in_supply_when_a_knight_is_placed_then_supply_empty() -> None:
    """[B3] Three knights per colour: with all three on the board, none can be placed."""
    state = phase4(knight(0, "koeln.castle.0"), knight(0, "trier.castle.0"), knight(0, "bohemia.castle.0"), turn=0)
    assert state.knights_in_supply[0] == 0
    rejected(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="aristocrat"), "supply_empty")


def test_given_zero_thalers_when_a_knight_is_placed_or_moved_then_cannot_afford() -> None:
    """[P1, G2] Placing or moving a knight costs 1 thaler; with 0 it cannot be done."""
    state = phase4(thalers(0, 0), knight(0, "koeln.castle.0"), turn=0)
    rejection = rejected(state, cmd.PlaceKnight(seat=0, electorate="mainz", space_kind="aristocrat"), "cannot_afford")
    assert "P1" in rejection.rulings
    rejection = rejected(
        state,
        cmd.MoveKnight(seat=0, from_space="koeln.castle.0", electorate="mainz", space_kind="aristocrat"),
        "cannot_afford",
    )
    assert "P1" in rejection.rulings


def test_given_an_own_knight_on_a_castle_when_it_moves_to_another_electorate_then_it_costs_one_thaler() -> None:
    """[P1, X1] Moving an own knight: 1 thaler, lowest free space of the chosen kind."""
    state = phase4(knight(0, "koeln.castle.0"), tile(3, "trier.aristocrat.0"), turn=0)
    events, after = accepted(
        state, cmd.MoveKnight(seat=0, from_space="koeln.castle.0", electorate="trier", space_kind="aristocrat")
    )
    assert types(events) == ["ThalersChanged", "KnightMoved", "DecisionRequested"]
    moved = of_type(events, ev.KnightMoved)[0]
    assert (moved.owner, moved.from_space, moved.to_space) == (0, "koeln.castle.0", "trier.aristocrat.1")
    assert set(moved.rulings) >= {"P1", "X1", "X2"}
    assert of_type(events, ev.ThalersChanged)[0].delta == -1
    assert at(after, "koeln.castle.0") is None
    assert at(after, "trier.aristocrat.1") == Knight(0)
    assert after.knights_in_supply == state.knights_in_supply


def test_given_an_own_knight_on_an_aristocrat_space_when_it_moves_to_the_castle_of_the_same_electorate_then_ok() -> (
    None
):
    """[X2] Changing the kind of space inside one electorate is a real move."""
    state = phase4(knight(0, "koeln.aristocrat.0"), turn=0)
    events, _after = accepted(
        state, cmd.MoveKnight(seat=0, from_space="koeln.aristocrat.0", electorate="koeln", space_kind="castle")
    )
    assert [(m.from_space, m.to_space) for m in of_type(events, ev.KnightMoved)] == [
        ("koeln.aristocrat.0", "koeln.castle.0")
    ]


def test_given_an_own_knight_when_it_moves_to_an_equivalent_space_then_it_is_refused() -> None:
    """[X2] Same electorate and same kind of space would change nothing: refused, and not offered."""
    state = phase4(knight(0, "koeln.aristocrat.0"), turn=0)
    rejected(
        state,
        cmd.MoveKnight(seat=0, from_space="koeln.aristocrat.0", electorate="koeln", space_kind="aristocrat"),
        "illegal_move",
    )
    moves = {
        (c.from_space, c.electorate, c.space_kind) for c in RULES.legal_commands(state, 0) if c.type == "MoveKnight"
    }
    assert ("koeln.aristocrat.0", "koeln", "aristocrat") not in moves
    assert ("koeln.aristocrat.0", "koeln", "castle") in moves
    assert ("koeln.aristocrat.0", "mainz", "aristocrat") in moves


def test_given_an_opponents_knight_when_a_player_moves_it_then_it_is_refused() -> None:
    """[P1] Only one's own knight can be moved."""
    state = phase4(knight(1, "koeln.castle.0"), turn=0)
    rejected(
        state,
        cmd.MoveKnight(seat=0, from_space="koeln.castle.0", electorate="mainz", space_kind="aristocrat"),
        "illegal_move",
    )


def test_given_a_full_target_when_a_knight_moves_there_then_it_is_refused() -> None:
    """[P1] A moving knight needs a free space and never pushes."""
    state = phase4(knight(0, "koeln.castle.0"), *fill("mainz", 1, 2, 3, -2), turn=0)
    rejected(
        state,
        cmd.MoveKnight(seat=0, from_space="koeln.castle.0", electorate="mainz", space_kind="aristocrat"),
        "illegal_move",
    )


# --- taking cards: payable and possible now [P2, B5] ---------------------------------------------------------


def test_given_too_few_thalers_when_a_card_is_bought_then_cannot_afford() -> None:
    """[P2, G2] Ordinance costs 4: with 3 thalers it is refused."""
    state = phase4(thalers(0, 3), turn=0)
    rejection = rejected(state, cmd.BuyOrdinance(seat=0, electorate="saxony"), "cannot_afford")
    assert set(rejection.rulings) == {"G2", "P2"}


def test_given_every_city_space_is_taken_when_an_ordinance_is_bought_then_it_is_refused() -> None:
    """[P2] A card whose effect cannot be carried out now cannot be taken."""
    cities = [
        city_fact
        for e in ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")
        for city_fact in (ev.EmpireCityPlaced(seat=0, space=f"{e}.city.0"), ev.CityPlaced(owner=1, space=f"{e}.city.1"))
    ]
    state = phase4(*cities, turn=0)
    rejected(state, cmd.BuyOrdinance(seat=0, electorate="saxony"), "illegal_move")
    assert not [c for c in RULES.legal_commands(state, 0) if c.type == "BuyOrdinance"]


def test_given_no_own_knight_when_a_promotion_is_bought_then_it_is_refused() -> None:
    """[P2, P5] Promotion needs an own knight on an aristocrat space."""
    state = phase4(knight(1, "mainz.aristocrat.0"), turn=0)
    rejected(state, cmd.BuyPromotion(seat=0, knight="mainz.aristocrat.0"), "illegal_move")
    assert not [c for c in RULES.legal_commands(state, 0) if c.type == "BuyPromotion"]


def test_given_no_own_baron_when_foreign_kings_daughter_is_bought_then_it_is_refused() -> None:
    """[P2, P5] Foreign king's daughter needs an own Baron."""
    state = phase4(tile(0, "mainz.aristocrat.0", couple=True), tile(1, "mainz.aristocrat.1"), turn=0)
    rejected(state, cmd.BuyForeignKingsDaughter(seat=0, baron="mainz.aristocrat.1"), "illegal_move")
    rejected(state, cmd.BuyForeignKingsDaughter(seat=0, baron="mainz.aristocrat.0"), "illegal_move")
    assert not [c for c in RULES.legal_commands(state, 0) if c.type == "BuyForeignKingsDaughter"]


def test_given_an_empty_tile_supply_when_a_permit_is_bought_then_supply_empty() -> None:
    """[P2, B3] Permit needs a tile in supply."""
    tiles = [
        tile(0, f"{e}.aristocrat.0")
        for e in ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")
    ]
    state = phase4(*tiles, turn=0)
    assert state.tiles_in_supply[0] == 0
    rejected(state, cmd.BuyPermit(seat=0, electorate="mainz"), "supply_empty")
    assert not [c for c in RULES.legal_commands(state, 0) if c.type == "BuyPermit"]


def test_given_a_doctor_was_taken_when_the_same_player_takes_another_then_he_holds_two() -> None:
    """[P2] Several cards of one type may be taken."""
    state = phase4(taken(0, "doctor"), tile(1, "mainz.aristocrat.0", 15), passed(1), passed(2), passed(3), turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0"))
    taken_now = of_type(events, ev.CardTaken)
    assert [(t.seat, t.card, t.cost) for t in taken_now] == [(0, "doctor", 1)]
    assert after.play_areas[0] == ("doctor", "doctor")
    assert prompt(after).seats == (0,)  # everyone else passed
    events, after = accepted(after, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0"))
    assert after.play_areas[0] == ("doctor", "doctor", "doctor")


@pytest.mark.parametrize(
    ("players", "card", "copies", "command"),
    [
        (4, "doctor", 3, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0")),
        (3, "doctor", 2, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0")),
        (4, "move", 2, cmd.BuyMove(seat=0, source="koeln.aristocrat.0", electorate="mainz")),
        (4, "permit", 4, cmd.BuyPermit(seat=0, electorate="mainz")),
        (3, "permit", 3, cmd.BuyPermit(seat=0, electorate="mainz")),
        (4, "ordinance", 3, cmd.BuyOrdinance(seat=0, electorate="mainz")),
        (3, "ordinance", 2, cmd.BuyOrdinance(seat=0, electorate="mainz")),
        (4, "pope", 1, cmd.BuyPope(seat=0)),
        (4, "church_influence", 1, cmd.BuyChurchInfluence(seat=0)),
        (4, "excommunication", 1, cmd.BuyExcommunication(seat=0)),
        (4, "indulgence", 1, cmd.BuyIndulgence(seat=0)),
        (4, "promotion", 1, cmd.BuyPromotion(seat=0, knight="koeln.aristocrat.1")),
        (4, "foreign_kings_daughter", 1, cmd.BuyForeignKingsDaughter(seat=0, baron="koeln.aristocrat.0")),
    ],
)
def test_given_a_stack_is_exhausted_when_its_card_is_bought_then_stack_empty(
    players: int, card: str, copies: int, command: Command
) -> None:
    """[B5, P2] Stack sizes per player count; an exhausted stack refuses (the buyer does not hold Trier)."""
    facts = [tile(1, "mainz.aristocrat.0", 35), tile(0, "koeln.aristocrat.0", 25), knight(0, "koeln.aristocrat.1")]
    others = [taken(1 + i % (players - 1), card) for i in range(copies)]
    state = phase4(*facts, *others[:-1], players=players, turn=0)
    accepted(state, command)  # one copy left: fine
    state = phase4(*facts, *others, players=players, turn=0)
    rejection = rejected(state, command, "stack_empty")
    assert set(rejection.rulings) == {"B5", "P2"}


def test_given_two_players_when_stacks_are_built_then_one_doctor_and_two_permits() -> None:
    """[B5, T1] Two-player counts: Doctor 1, Permit 2."""
    state = phase4(taken(1, "doctor"), tile(1, "throne", 35), players=2, emperor=1, turn=0)
    open_ = [e for e in range(7) if e not in state.closed]
    target = f"{state.layout.electorates[open_[0]].key}"
    rejected(state, cmd.BuyDoctor(seat=0, target="throne"), "stack_empty")
    state = phase4(taken(1, "permit"), taken(1, "permit"), players=2, emperor=1, turn=0)
    rejected(state, cmd.BuyPermit(seat=0, electorate=target), "stack_empty")  # type: ignore[arg-type]


def test_given_the_knight_reminder_card_when_the_cards_are_listed_then_it_can_never_be_taken() -> None:
    """[B4, P1] The Knight card has no colour, no stack and no command: it is never taken."""
    state = phase4(turn=0)
    assert "knight" not in state.layout.cards
    assert not [t for t in COMMAND_TYPES if "Knight" in t and t.startswith("Buy")]
    assert all(getattr(c, "card", None) != "knight" for c in RULES.legal_commands(state, 0))
    knight_commands = {c.type for c in RULES.legal_commands(state, 0) if "Knight" in c.type}
    assert knight_commands == {"PlaceKnight"}  # a knight is placed by paying 1 thaler, not by a card

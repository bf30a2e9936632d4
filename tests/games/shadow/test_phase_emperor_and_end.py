"""Phase VII (the Emperor's bonus), phase VIII (the round marker) and the end of the game [R1, X3, G2, G3].

Each scenario arranges phase IV with one seat left to pass; its Pass runs phase V (nothing to elect on this
nearly empty board), skips phase VI (no Rival) and reaches phase VII.
"""

from __future__ import annotations

import pytest

from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import EMPIRE, City
from tests.games.shadow.round_support import before_last_pass, last_pass
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    city,
    empire_city,
    knight,
    of_type,
    prompt,
    rejected,
    thalers,
    tile,
    vp,
)

ELECTORATES = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")


def cities_outside(skipped: str) -> list[ev.Event]:
    """All twelve player cities on the city spaces of the six electorates other than ``skipped``; a knight on
    a castle gives one player the lead where two players' cities share an electorate (no tie in phase V)."""
    electorates = [key for key in ELECTORATES if key != skipped]
    owners = ((1, 1), (1, 2), (2, 2), (3, 3), (3, 0), (0, 0))
    facts: list[ev.Event] = []
    for key, (a, b) in zip(electorates, owners, strict=True):
        facts += [city(a, f"{key}.city.0"), city(b, f"{key}.city.1")]
        if a != b:
            facts.append(knight(a, f"{key}.castle.0"))
    return facts


def bonus(events: list[ev.Event]) -> tuple[list[ev.VictoryPointsScored], list[ev.ThalersChanged]]:
    return of_type(events, ev.VictoryPointsScored), of_type(events, ev.ThalersChanged)


# --- rounds 1 and 2: 2 VP and an empire city ----------------------------------------------------------------
@pytest.mark.parametrize("round_", [1, 2])
def test_given_round_one_or_two_when_phase_vii_comes_then_the_emperor_scores_two_and_places_a_city(
    round_: int,
) -> None:
    """[R1] Rounds 1 and 2: 2 VP and no thalers; the Emperor must place an empire city."""
    state = before_last_pass(tile(2, "throne", 15), emperor=2, round_=round_)
    events, state = last_pass(state)
    points, coins = bonus(events)
    assert points == [
        ev.VictoryPointsScored(seat=2, points=2, total=2, reason=f"Emperor in round {round_}", rulings=("R1",))
    ]
    assert coins == []
    p = prompt(state)
    assert (p.decision, p.seats) == ("emperor_place_city", (2,))
    assert events[-1].rulings == ("R1", "X3")


def test_given_the_city_prompt_when_the_emperor_places_it_then_the_round_marker_moves_on() -> None:
    """[R1, X1, G3] The empire city takes the lowest free city space; phase VIII starts the next round."""
    state = before_last_pass(tile(0, "throne", 15), city(1, "saxony.city.0"), round_=2)
    _, state = last_pass(state)
    events, state = accepted(state, cmd.PlaceEmpireCity(seat=0, electorate="saxony"))
    assert events[0] == ev.EmpireCityPlaced(seat=0, space="saxony.city.1", rulings=("R1", "X1"))
    assert at(state, "saxony.city.1") == City(EMPIRE)
    assert state.empire_cities_in_supply == 2
    assert [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)][:2] == [(2, 8), (3, 1)]
    assert state.round == 3


def test_given_the_city_prompt_when_another_seat_or_a_full_electorate_is_named_then_it_is_rejected() -> None:
    """[R1, G1] Only the Emperor places, and only on a free city space."""
    state = before_last_pass(tile(0, "throne", 15), city(1, "mainz.city.0"), city(1, "mainz.city.1"))
    _, state = last_pass(state)
    rejected(state, cmd.PlaceEmpireCity(seat=1, electorate="koeln"), "not_your_turn")
    rejected(state, cmd.PlaceEmpireCity(seat=0, electorate="mainz"))
    assert "mainz" not in {c.electorate for c in RULES.legal_commands(state, 0)}


def test_given_the_city_prompt_when_the_emperor_declines_then_it_is_rejected() -> None:
    """[R1] Placing the empire city is mandatory where possible: there is nothing to decline."""
    _, state = last_pass(before_last_pass(tile(0, "throne", 15)))
    rejected(state, cmd.Decline(seat=0), "wrong_decision")
    assert {c.type for c in RULES.legal_commands(state, 0)} == {"PlaceEmpireCity"}


def test_given_all_empire_cities_on_the_board_when_phase_vii_of_round_one_comes_then_placing_is_skipped() -> None:
    """[R1, X3] No empire city left beside the board: nothing to place; the round ends."""
    state = before_last_pass(
        tile(0, "throne", 15),
        empire_city("koeln.city.0"),
        empire_city("trier.city.0"),
        empire_city("saxony.city.0"),
        round_=1,
    )
    events, state = last_pass(state)
    assert "emperor_place_city" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert bonus(events)[0][0].points == 2
    assert [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)][-6:-3] == [(1, 7), (1, 8), (2, 1)]
    assert state.round == 2


def test_given_no_free_city_space_when_phase_vii_of_round_two_comes_then_placing_is_skipped() -> None:
    """[R1, X3] Every city space is taken: the placement is skipped."""
    state = before_last_pass(
        tile(0, "throne", 15),
        empire_city("mainz.city.0"),
        empire_city("mainz.city.1"),
        *cities_outside("mainz"),
        round_=2,
    )
    assert state.empire_cities_in_supply == 1
    events, state = last_pass(state)
    assert of_type(events, ev.EmpireCityPlaced) == []
    assert "emperor_place_city" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert state.round == 3


# --- round 3: 2 VP, 1 thaler, move an empire city -----------------------------------------------------------
def test_given_round_three_when_phase_vii_comes_then_the_emperor_scores_two_takes_a_thaler_and_moves_a_city() -> None:
    """[R1, G2] Round 3: 2 VP and 1 thaler; an empire city must be moved."""
    state = before_last_pass(tile(1, "throne", 15), empire_city("mainz.city.0"), emperor=1, round_=3)
    events, state = last_pass(state)
    points, coins = bonus(events)
    assert points == [ev.VictoryPointsScored(seat=1, points=2, total=2, reason="Emperor in round 3", rulings=("R1",))]
    assert coins == [ev.ThalersChanged(seat=1, delta=1, balance=8, reason="Emperor in round 3", rulings=("R1", "G2"))]
    assert (prompt(state).decision, prompt(state).seats) == ("emperor_move_city", (1,))


def test_given_the_move_prompt_when_the_emperor_moves_a_city_then_it_goes_to_another_electorate() -> None:
    """[R1, X1, X3] The empire city goes to the lowest free city space of another electorate; a move inside
    its own electorate is refused."""
    state = before_last_pass(tile(0, "throne", 15), empire_city("mainz.city.0"), city(2, "bohemia.city.0"), round_=3)
    _, state = last_pass(state)
    rejected(state, cmd.MoveEmpireCity(seat=0, from_space="mainz.city.0", electorate="mainz"))
    rejected(state, cmd.MoveEmpireCity(seat=0, from_space="bohemia.city.0", electorate="trier"))
    rejected(state, cmd.MoveEmpireCity(seat=3, from_space="mainz.city.0", electorate="trier"), "not_your_turn")
    events, state = accepted(state, cmd.MoveEmpireCity(seat=0, from_space="mainz.city.0", electorate="bohemia"))
    assert events[0] == ev.EmpireCityMoved(
        seat=0, from_space="mainz.city.0", to_space="bohemia.city.1", rulings=("R1", "X3")
    )
    assert at(state, "mainz.city.0") is None
    assert at(state, "bohemia.city.1") == City(EMPIRE)
    assert state.round == 4


def test_given_no_empire_city_on_the_board_when_phase_vii_of_round_three_comes_then_the_move_is_skipped() -> None:
    """[R1, X3] Nothing to move: the move is skipped, the VP and the thaler are still taken."""
    state = before_last_pass(tile(0, "throne", 15), round_=3)
    events, state = last_pass(state)
    assert [e.points for e in bonus(events)[0]] == [2]
    assert [e.delta for e in bonus(events)[1] if e.reason == "Emperor in round 3"] == [1]
    assert "emperor_move_city" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert state.round == 4


def test_given_the_only_free_city_space_beside_the_empire_city_when_round_three_ends_then_the_move_is_skipped() -> None:
    """[X3] A move within the empire city's own electorate would change nothing: with no free city space
    elsewhere the move is skipped."""
    state = before_last_pass(tile(0, "throne", 15), empire_city("koeln.city.0"), *cities_outside("koeln"), round_=3)
    assert at(state, "koeln.city.1") is None
    events, state = last_pass(state)
    assert of_type(events, ev.EmpireCityMoved) == []
    assert "emperor_move_city" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert state.round == 4


def test_given_twelve_thalers_when_the_emperor_takes_his_round_three_thaler_then_it_is_lost_to_the_cap() -> None:
    """[R1, G2] The Emperor's thalers are capped at 12 too."""
    state = before_last_pass(tile(0, "throne", 15), thalers(0, 12), round_=3)
    events, _ = last_pass(state)
    assert bonus(events)[1] == [
        ev.ThalersChanged(seat=0, delta=0, balance=12, reason="Emperor in round 3", lost_to_cap=1, rulings=("R1", "G2"))
    ]


# --- rounds 4 and 5: 1 VP and 2 thalers ----------------------------------------------------------------------
def test_given_round_four_when_phase_vii_comes_then_the_emperor_scores_one_takes_two_thalers_capped() -> None:
    """[R1, G2] Round 4: 1 VP and 2 thalers (capped at 12), no empire city; then round 5 begins."""
    state = before_last_pass(tile(3, "throne", 15), thalers(3, 11), emperor=3, round_=4)
    events, state = last_pass(state)
    points, coins = bonus(events)
    assert points == [ev.VictoryPointsScored(seat=3, points=1, total=1, reason="Emperor in round 4", rulings=("R1",))]
    assert coins[0] == ev.ThalersChanged(
        seat=3, delta=1, balance=12, reason="Emperor in round 4", lost_to_cap=1, rulings=("R1", "G2")
    )
    phases = [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)]
    assert phases[phases.index((4, 7)) : phases.index((4, 7)) + 3] == [(4, 7), (4, 8), (5, 1)]
    assert not [e for e in events if isinstance(e, ev.DecisionRequested) and "emperor" in e.prompt.decision]
    assert state.round == 5


def test_given_round_five_when_phase_vii_ends_then_the_game_ends_with_the_winner() -> None:
    """[R1, G3] After phase VII of round 5 the game ends (no phase VIII); most VP wins."""
    state = before_last_pass(tile(0, "throne", 15), vp(1, 6), vp(2, 4), emperor=0, round_=5)
    events, state = last_pass(state)
    points, coins = bonus(events)
    assert [(e.seat, e.points) for e in points] == [(0, 1)]
    assert [(e.seat, e.delta, e.balance) for e in coins] == [(0, 2, 9)]
    assert events[-1] == ev.GameEnded(
        scores=(1, 6, 4, 0), thalers=(9, 7, 7, 7), winners=(1,), shared=False, rulings=("G3",)
    )
    assert (5, 8) not in [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)]
    assert RULES.is_over(state)
    assert RULES.result(state)["winners"] == [1]
    assert RULES.awaited(state) == ()


def test_given_an_ended_game_when_a_command_arrives_then_it_is_rejected() -> None:
    """[G3] Nothing can be played after the end."""
    _, state = last_pass(before_last_pass(tile(0, "throne", 15), round_=5))
    rejection = rejected(state, cmd.Pass(seat=0), "game_over")
    assert rejection.rulings == ("G3",)


def test_given_the_emperors_last_point_ties_him_with_the_leader_when_the_game_ends_then_they_share_it() -> None:
    """[G3, R1] The round-5 Emperor point counts; a tie on VP is a shared victory."""
    state = before_last_pass(tile(0, "throne", 15), vp(0, 4), vp(1, 5), thalers(1, 2), round_=5)
    events, state = last_pass(state)
    ended = events[-1]
    assert isinstance(ended, ev.GameEnded)
    assert (ended.scores, ended.winners, ended.shared) == ((5, 5, 0, 0), (0, 1), True)
    assert RULES.result(state)["shared"] is True


def test_given_the_thaler_tiebreak_when_players_tie_on_vp_then_the_one_with_most_thalers_wins() -> None:
    """[G3 option thaler_tiebreak] Among players tied on VP, the most thalers wins."""
    state = before_last_pass(
        tile(0, "throne", 15),
        vp(1, 5),
        vp(2, 5),
        thalers(1, 3),
        thalers(2, 10),
        round_=5,
        settings={"thaler_tiebreak": True},
    )
    events, _ = last_pass(state)
    assert events[-1] == ev.GameEnded(
        scores=(1, 5, 5, 0), thalers=(9, 3, 10, 7), winners=(2,), shared=False, rulings=("G3",)
    )


def test_given_the_thaler_tiebreak_when_tied_players_also_tie_on_thalers_then_they_share_the_victory() -> None:
    """[G3 option thaler_tiebreak] A tie on thalers too is still shared."""
    state = before_last_pass(
        tile(0, "throne", 15),
        vp(1, 5),
        vp(2, 5),
        vp(3, 5),
        thalers(1, 6),
        thalers(2, 6),
        thalers(3, 2),
        round_=5,
        settings={"thaler_tiebreak": True},
    )
    events, _ = last_pass(state)
    ended = events[-1]
    assert isinstance(ended, ev.GameEnded)
    assert (ended.winners, ended.shared) == ((1, 2), True)


def test_given_the_default_table_when_players_tie_on_vp_then_thalers_do_not_break_the_tie() -> None:
    """[G3] By default a tie is shared whatever the thalers."""
    state = before_last_pass(tile(0, "throne", 15), vp(1, 5), vp(2, 5), thalers(1, 3), thalers(2, 10), round_=5)
    events, _ = last_pass(state)
    ended = events[-1]
    assert isinstance(ended, ev.GameEnded)
    assert (ended.winners, ended.shared) == ((1, 2), True)

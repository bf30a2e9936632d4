"""Phase V, new electors: power, ties, victory points, the new and the displaced elector, Mainz, the Gray
eminence [V1-V5, P8, X5, X6, X13].

Every scenario arranges a round-1 phase IV in which all seats but one have passed; that seat's Pass starts
phase V, which then runs on its own until it needs a decision. Nothing is on the board unless a fact puts it
there, so every electorate not named in a scenario has no power at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from events.base import Event
from tests.games.shadow.phase56_support import ELECTORATES, phase_v, tile_at
from tests.games.shadow.support import (
    RULES,
    accepted,
    baron,
    city,
    cmd,
    couple,
    died,
    empire_city,
    ev,
    knight,
    of_type,
    prompt,
    rejected,
)
from tests.games.shadow.support import at as piece
from tests.games.shadow.support import taken as card

Seated = ev.ElectorChanged | ev.ElectorRetained | ev.ElectorSeatStaysEmpty


def seat_of(events: list[Event], electorate: str) -> Any:
    """The one ElectorChanged / ElectorRetained / ElectorSeatStaysEmpty of ``electorate``."""
    found = [e for e in events if isinstance(e, Seated) and e.electorate == electorate]
    assert len(found) == 1, found
    return found[0]


def phase_v_points(events: list[Event]) -> list[tuple[int, int, str]]:
    """(seat, points, reason) of every VP scored in phase V (the Emperor's phase VII points are left out)."""
    out = []
    phase = 5  # a command answered during phase V starts there
    for e in events:
        if isinstance(e, ev.PhaseStarted):
            phase = e.phase
        elif isinstance(e, ev.VictoryPointsScored) and phase == 5:
            out.append((e.seat, e.points, e.reason))
    return out


# --- V1 power ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fact", "power"),
    [
        (baron(1, "brandenburg.aristocrat.0"), (0, 1, 0, 0)),
        (couple(1, "brandenburg.aristocrat.0"), (0, 2, 0, 0)),
        (knight(1, "brandenburg.aristocrat.0"), (0, 1, 0, 0)),
        (knight(1, "brandenburg.castle.0"), (0, 1, 0, 0)),
        (city(1, "brandenburg.city.0"), (0, 1, 0, 0)),
        (baron(1, "brandenburg.elector"), (0, 1, 0, 0)),
        (couple(1, "brandenburg.elector"), (0, 2, 0, 0)),
        (baron(1, "brandenburg.eminence", 45), (0, 1, 0, 0)),
        (empire_city("brandenburg.city.0"), (1, 0, 0, 0)),
    ],
    ids=[
        "baron",
        "couple",
        "knight-aristocrat",
        "knight-castle",
        "own-city",
        "elector-baron",
        "elector-couple",
        "gray-eminence",
        "empire-city-to-emperor",
    ],
)
def test_given_one_piece_in_brandenburg_when_phase_v_starts_then_it_gives_its_power(fact: Event, power: tuple) -> None:
    """[V1] Baron 1, Couple 2, knight 1 on an aristocrat or castle space, own city 1, Gray eminence 1, the
    elector for its owner, an empire city 1 for the Emperor (seat 0)."""
    events, _ = phase_v(fact)
    decided = seat_of(events, "brandenburg")
    assert decided.power == power
    assert {"V1", "V2"} <= set(decided.rulings)


def test_given_an_empire_city_when_seat_2_is_emperor_then_its_power_goes_to_seat_2() -> None:
    """[V1] An empire city's power belongs to whoever is Emperor now, not to the player who placed it."""
    events, _ = phase_v(empire_city("saxony.city.1"), settings={"start_player": 2})
    assert seat_of(events, "saxony").power == (0, 0, 1, 0)


def test_given_pieces_of_every_kind_when_phase_v_starts_then_power_is_their_sum_per_player() -> None:
    """[V1] Power adds up per player; other players' pieces count for their owners only."""
    events, _ = phase_v(
        couple(2, "palatinate.elector"),
        baron(1, "palatinate.aristocrat.0"),
        couple(1, "palatinate.aristocrat.1"),
        knight(3, "palatinate.aristocrat.2"),
        knight(1, "palatinate.castle.0"),
        city(3, "palatinate.city.0"),
        empire_city("palatinate.city.1"),
    )
    assert seat_of(events, "palatinate").power == (1, 4, 2, 2)


def test_given_only_the_emperor_on_the_throne_when_phase_v_starts_then_no_electorate_has_power() -> None:
    """[V1, V2] The throne is in no electorate; with no power anywhere every seat stays empty and nobody
    scores. Every electorate's decision carries a power entry for every player."""
    events, state = phase_v(baron(0, "throne", 45))
    decided = [e for e in events if isinstance(e, Seated)]
    assert [e.electorate for e in decided] == list(ELECTORATES)
    for e in decided:  # no elector is retained: there is none
        assert isinstance(e, ev.ElectorSeatStaysEmpty)
        assert (e.winner, e.power, e.rulings) == (None, (0, 0, 0, 0), ("V1", "V2"))
    assert phase_v_points(events) == []
    assert all(piece(state, f"{k}.elector") is None for k in ELECTORATES)


def test_given_a_three_player_game_when_phase_v_starts_then_power_has_three_entries() -> None:
    """[V1] ``power`` lists every player of the game, no more."""
    events, _ = phase_v(baron(2, "bohemia.aristocrat.0"), players=3)
    assert seat_of(events, "bohemia").power == (0, 0, 1)


# --- V2 most power, ties ------------------------------------------------------------------------------------
def test_given_more_power_than_the_elector_when_phase_v_then_the_stronger_player_takes_the_seat() -> None:
    """[V2, V3, V4] Most power takes the seat; the newcomer scores 2 VP."""
    events, state = phase_v(
        baron(2, "saxony.elector"),
        knight(3, "saxony.aristocrat.1"),
        couple(1, "saxony.aristocrat.0"),
    )
    changed = seat_of(events, "saxony")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.winner, changed.tie_broken_by) == (2, 1, 1, None)
    assert changed.power == (0, 2, 1, 1)
    assert changed.rulings == ("V1", "V2", "V3", "V4")
    assert tile_at(state, "saxony.elector") == (1, True, 35)
    assert phase_v_points(events) == [(1, 2, "new elector in Duchy of Saxony")]


def test_given_a_tie_without_the_emperor_when_phase_v_then_the_emperor_is_asked_to_break_it() -> None:
    """[V2] A tie is decided by the Emperor (seat 0) among the tied players only."""
    events, state = phase_v(baron(1, "palatinate.aristocrat.0"), baron(2, "palatinate.aristocrat.1"))
    assert not [e for e in events if isinstance(e, Seated) and e.electorate == "palatinate"]
    p = prompt(state)
    assert (p.decision, p.seats, p.electorate, p.tied) == ("break_tie", (0,), "palatinate", (1, 2))
    assert RULES.awaited(state) == (0,)
    assert RULES.legal_commands(state, 0) == [cmd.BreakTie(seat=0, winner=1), cmd.BreakTie(seat=0, winner=2)]
    assert RULES.legal_commands(state, 1) == []


def test_given_a_tie_when_the_emperor_names_a_player_outside_the_tie_then_it_is_rejected() -> None:
    """[V2] Only a tied player can be named; only the Emperor names him."""
    _, state = phase_v(baron(1, "palatinate.aristocrat.0"), baron(2, "palatinate.aristocrat.1"))
    rejected(state, cmd.BreakTie(seat=0, winner=3), "illegal_move")
    rejected(state, cmd.BreakTie(seat=0, winner=0), "illegal_move")
    rejected(state, cmd.BreakTie(seat=1, winner=1), "not_your_turn")


def test_given_a_tie_when_the_emperor_names_a_tied_player_then_he_takes_the_seat_and_2_vp() -> None:
    """[V2, V3] The named player wins the seat; the event records who broke the tie."""
    _, state = phase_v(baron(1, "palatinate.aristocrat.0"), baron(2, "palatinate.aristocrat.1"))
    events, state = accepted(state, cmd.BreakTie(seat=0, winner=2))
    changed = seat_of(events, "palatinate")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.winner) == (None, 2, 2)
    assert (changed.power, changed.tie_broken_by) == ((0, 1, 1, 0), 0)
    assert {"V2", "V3", "V4"} <= set(changed.rulings)
    assert tile_at(state, "palatinate.elector") == (2, False, 25)
    assert tile_at(state, "palatinate.aristocrat.0") == (1, False, 25)
    assert phase_v_points(events) == [(2, 2, "new elector in County Palatine of the Rhine")]
    # the rest of phase V ran on: Saxony, Brandenburg and Bohemia were decided after the tie
    assert [e.electorate for e in events if isinstance(e, Seated)] == ["palatinate", "saxony", "brandenburg", "bohemia"]


def test_given_the_emperor_tied_with_the_incumbent_when_he_picks_himself_then_the_incumbent_loses() -> None:
    """[V2] The Emperor may pick himself; the incumbent has no priority in a tie."""
    _, state = phase_v(baron(1, "saxony.elector"), baron(0, "saxony.aristocrat.0"))
    assert (prompt(state).decision, prompt(state).tied) == ("break_tie", (0, 1))
    events, state = accepted(state, cmd.BreakTie(seat=0, winner=0))
    changed = seat_of(events, "saxony")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.tie_broken_by, changed.power) == (1, 0, 0, (1, 1, 0, 0))
    assert tile_at(state, "saxony.elector") == (0, False, 25)
    assert tile_at(state, "saxony.aristocrat.0") == (1, False, 25)
    assert phase_v_points(events) == [(0, 2, "new elector in Duchy of Saxony")]


def test_given_a_tie_when_the_emperor_picks_the_incumbent_then_the_seat_is_retained_without_vp() -> None:
    """[V2, V3] Keeping the incumbent is a retained seat: no VP."""
    _, state = phase_v(baron(1, "saxony.elector"), baron(0, "saxony.aristocrat.0"))
    events, state = accepted(state, cmd.BreakTie(seat=0, winner=1))
    retained = seat_of(events, "saxony")
    assert isinstance(retained, ev.ElectorRetained)
    assert (retained.owner, retained.tie_broken_by, retained.power) == (1, 0, (1, 1, 0, 0))
    assert "V2" in retained.rulings
    assert tile_at(state, "saxony.elector") == (1, False, 25)
    assert phase_v_points(events) == []


# --- V3 victory points --------------------------------------------------------------------------------------
def test_given_the_incumbent_has_most_power_when_phase_v_then_he_stays_and_scores_nothing() -> None:
    """[V3] The incumbent who stays takes nothing."""
    events, _ = phase_v(couple(2, "bohemia.elector"), baron(3, "bohemia.aristocrat.0"))
    retained = seat_of(events, "bohemia")
    assert isinstance(retained, ev.ElectorRetained)
    assert (retained.owner, retained.power, retained.tie_broken_by) == (2, (0, 0, 2, 1), None)
    assert retained.rulings == ("V1", "V2")
    assert phase_v_points(events) == []
    assert not of_type(events, ev.AristocratMoved)


def test_given_an_empty_seat_that_was_his_when_he_fills_it_again_then_he_scores_2_vp() -> None:
    """[V3] Filling an empty seat scores 2 VP even for the colour that held it before it fell vacant."""
    events, state = phase_v(
        baron(1, "brandenburg.elector", 45),
        died(1, "brandenburg.elector"),
        baron(1, "brandenburg.aristocrat.0", 15),
    )
    changed = seat_of(events, "brandenburg")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.power) == (None, 1, (0, 1, 0, 0))
    assert tile_at(state, "brandenburg.elector") == (1, False, 15)
    assert phase_v_points(events) == [(1, 2, "new elector in Marquessate of Brandenburg")]
    scored = [e for e in of_type(events, ev.VictoryPointsScored) if e.seat == 1]
    assert scored[0].rulings == ("V3",)


# --- V4 the new elector -------------------------------------------------------------------------------------
def test_given_a_baron_and_a_couple_in_an_archdiocese_when_he_wins_then_the_baron_is_seated_unasked() -> None:
    """[V4, X5] An archdiocese takes Barons only: the Baron is the only option, so nobody is asked."""
    events, state = phase_v(couple(1, "koeln.aristocrat.0"), baron(1, "koeln.aristocrat.1", 15))
    assert seat_of(events, "koeln").new_owner == 1
    assert not [e for e in events if isinstance(e, ev.DecisionRequested) and e.prompt.decision == "choose_elector"]
    moved = of_type(events, ev.AristocratMoved)
    assert [(m.from_space, m.to_space, m.reason) for m in moved] == [
        ("koeln.aristocrat.1", "koeln.elector", "new_elector")
    ]
    assert tile_at(state, "koeln.elector") == (1, False, 15)
    assert tile_at(state, "koeln.aristocrat.0") == (1, True, 35)


def test_given_two_identical_barons_when_their_owner_wins_then_nobody_is_asked() -> None:
    """[V4, X5] Identical pieces on spaces of one kind are one option."""
    events, state = phase_v(baron(3, "bohemia.aristocrat.0"), baron(3, "bohemia.aristocrat.1"))
    assert seat_of(events, "bohemia").new_owner == 3
    assert not [e for e in events if isinstance(e, ev.DecisionRequested) and e.prompt.decision == "choose_elector"]
    assert tile_at(state, "bohemia.elector") == (3, False, 25)
    assert sum(1 for i in range(4) if piece(state, f"bohemia.aristocrat.{i}") is not None) == 1


def test_given_two_different_barons_when_their_owner_wins_then_he_chooses_among_them_only() -> None:
    """[V4] The winner chooses which of his aristocrats in that electorate becomes elector; nothing else."""
    events, state = phase_v(
        baron(3, "bohemia.aristocrat.0", 15),
        baron(3, "bohemia.aristocrat.1", 35),
        baron(2, "bohemia.aristocrat.2"),
        baron(3, "saxony.aristocrat.0"),
    )
    p = prompt(state)
    assert (p.decision, p.seats, p.electorate) == ("choose_elector", (3,), "bohemia")
    assert RULES.legal_commands(state, 3) == [
        cmd.ChooseAristocrat(seat=3, space="bohemia.aristocrat.0"),
        cmd.ChooseAristocrat(seat=3, space="bohemia.aristocrat.1"),
    ]
    rejected(state, cmd.ChooseAristocrat(seat=3, space="saxony.aristocrat.0"), "illegal_move")
    rejected(state, cmd.ChooseAristocrat(seat=3, space="bohemia.aristocrat.2"), "illegal_move")
    events, state = accepted(state, cmd.ChooseAristocrat(seat=3, space="bohemia.aristocrat.1"))
    assert tile_at(state, "bohemia.elector") == (3, False, 35)
    assert tile_at(state, "bohemia.aristocrat.0") == (3, False, 15)
    assert phase_v_points(events) == [(3, 2, "new elector in Kingdom of Bohemia")]


def test_given_only_couples_in_an_archdiocese_when_their_owner_wins_then_the_seat_is_empty_and_nobody_scores() -> None:
    """[V4] No suitable aristocrat (Couples cannot sit in an archdiocese): the seat ends up empty and nobody
    scores; the displaced elector goes to a free aristocrat space there."""
    events, state = phase_v(baron(2, "trier.elector"), couple(1, "trier.aristocrat.0"))
    changed = seat_of(events, "trier")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.winner, changed.power) == (2, None, 1, (0, 2, 1, 0))
    assert piece(state, "trier.elector") is None
    assert tile_at(state, "trier.aristocrat.1") == (2, False, 25)
    assert phase_v_points(events) == []


def test_given_only_knights_and_cities_when_their_owner_wins_an_empty_seat_then_it_stays_empty() -> None:
    """[V4] Power without an aristocrat wins nothing: the seat stays empty, nobody scores; no elector changed, and
    the event says so."""
    events, state = phase_v(knight(1, "saxony.aristocrat.0"), city(1, "saxony.city.0"), baron(2, "saxony.aristocrat.1"))
    empty = seat_of(events, "saxony")
    assert isinstance(empty, ev.ElectorSeatStaysEmpty)
    assert (empty.winner, empty.power, empty.tie_broken_by) == (1, (0, 2, 1, 0), None)
    assert "V4" in empty.rulings
    assert piece(state, "saxony.elector") is None
    assert phase_v_points(events) == []


def test_given_a_displaced_elector_when_the_new_one_leaves_an_aristocrat_space_then_he_takes_it() -> None:
    """[V4] The displaced elector goes to a free aristocrat space of that electorate: the vacated one."""
    events, state = phase_v(
        baron(0, "saxony.elector", 35),
        couple(1, "saxony.aristocrat.0"),
        city(1, "saxony.city.0"),
        knight(2, "saxony.aristocrat.1"),
        knight(3, "saxony.aristocrat.2"),
        knight(0, "saxony.aristocrat.3"),
    )
    assert seat_of(events, "saxony").power == (2, 3, 1, 1)
    moved = [(m.owner, m.from_space, m.to_space, m.rulings) for m in of_type(events, ev.AristocratMoved)]
    assert moved == [
        (0, "saxony.elector", "aside", ("V4",)),
        (1, "saxony.aristocrat.0", "saxony.elector", ("V4",)),
        (0, "aside", "saxony.aristocrat.0", ("V4",)),
    ]
    assert not of_type(events, ev.KnightPushed)
    assert tile_at(state, "saxony.aristocrat.0") == (0, False, 35)


def saxony_full_of_knights() -> list[Event]:
    """Seat 0 is Saxony's elector; seat 1 wins with its Gray eminence (so no aristocrat space is vacated);
    all four aristocrat spaces hold knights of seats 1, 2 and 3."""
    return [
        baron(0, "saxony.elector"),
        baron(1, "saxony.eminence", 45),
        knight(2, "saxony.aristocrat.0"),
        knight(3, "saxony.aristocrat.1"),
        knight(1, "saxony.aristocrat.2"),
        knight(1, "saxony.aristocrat.3"),
    ]


def test_given_no_free_space_and_knights_of_several_owners_when_the_elector_is_displaced_then_its_owner_picks() -> None:
    """[V4, D2, X6] The displaced elector's owner chooses which knight to push."""
    events, state = phase_v(*saxony_full_of_knights())
    changed = seat_of(events, "saxony")
    assert (changed.previous_owner, changed.new_owner, changed.power) == (0, 1, (1, 3, 1, 1))
    assert tile_at(state, "saxony.elector") == (1, False, 45)
    p = prompt(state)
    assert (p.decision, p.seats, p.electorate) == ("place_displaced", (0,), "saxony")
    assert {"V4", "D2", "X6"} <= set(of_type(events, ev.DecisionRequested)[-1].rulings)
    legal = RULES.legal_commands(state, 0)
    assert {c.push for c in legal} == {f"saxony.aristocrat.{i}" for i in range(4)}
    assert {(c.electorate, c.space_kind) for c in legal} == {("saxony", "aristocrat")}
    rejected(state, cmd.PlacePiece(seat=0, electorate="koeln", push=None), "illegal_move")
    rejected(state, cmd.PlacePiece(seat=0, electorate="saxony", push=None), "no_room")
    events, state = accepted(state, cmd.PlacePiece(seat=0, electorate="saxony", push="saxony.aristocrat.1"))
    pushed = of_type(events, ev.KnightPushed)
    assert [(k.owner, k.space, k.by) for k in pushed] == [(3, "saxony.aristocrat.1", 0)]
    assert "X6" in pushed[0].rulings
    assert tile_at(state, "saxony.aristocrat.1") == (0, False, 25)
    assert state.knights_in_supply[3] == 3


def test_given_no_free_space_and_knights_of_one_owner_when_the_elector_is_displaced_then_nobody_is_asked() -> None:
    """[V4, D2, X5] Knights of a single owner are one option: the push happens unasked."""
    facts = saxony_full_of_knights()
    facts[2] = baron(2, "saxony.aristocrat.0")
    facts[3] = baron(3, "saxony.aristocrat.1")
    events, state = phase_v(*facts)
    assert not [e for e in events if isinstance(e, ev.DecisionRequested) and e.prompt.decision == "place_displaced"]
    pushed = of_type(events, ev.KnightPushed)
    assert [(k.owner, k.by) for k in pushed] == [(1, 0)]
    assert tile_at(state, pushed[0].space) == (0, False, 25)


def mainz_full_of_tiles(**kwargs: Any) -> tuple[list[Event], Any]:
    """Seat 0 is Mainz's elector; seat 1 wins it with its Gray eminence Baron (its Couples cannot sit in an
    archdiocese); every aristocrat space holds a tile."""
    return phase_v(
        baron(0, "mainz.elector"),
        baron(1, "mainz.eminence", 45),
        couple(1, "mainz.aristocrat.0"),
        couple(1, "mainz.aristocrat.1"),
        baron(2, "mainz.aristocrat.2"),
        baron(3, "mainz.aristocrat.3"),
        **kwargs,
    )


def test_given_no_room_when_the_elector_is_displaced_then_he_goes_to_supply() -> None:
    """[V4, P8] No free aristocrat space and no knight: the displaced elector returns to supply. The Gray
    eminence Baron becomes elector, in an archdiocese too."""
    events, state = mainz_full_of_tiles()
    changed = seat_of(events, "mainz")
    assert (changed.previous_owner, changed.new_owner, changed.power) == (0, 1, (1, 5, 1, 1))
    returned = of_type(events, ev.AristocratReturned)
    assert [(r.owner, r.space) for r in returned] == [(0, "aside")]
    assert "V4" in returned[0].rulings
    assert tile_at(state, "mainz.elector") == (1, False, 45)
    assert piece(state, "mainz.eminence") is None
    assert state.tiles_in_supply[0] == 7


# --- V5 Mainz ---------------------------------------------------------------------------------------------
def test_given_a_new_mainz_elector_when_its_seat_is_decided_then_he_scores_3_vp() -> None:
    """[V3, V5] 2 VP for the new elector, then 1 VP for Mainz's elector."""
    events, state = mainz_full_of_tiles()
    assert phase_v_points(events) == [(1, 2, "new elector in Archdiocese of Mainz"), (1, 1, "elector of Mainz")]
    assert of_type(events, ev.VictoryPointsScored)[1].rulings == ("V5",)
    assert state.vp[1] == 3


def test_given_the_mainz_elector_stays_when_phase_v_then_he_scores_1_vp() -> None:
    """[V5] The incumbent who keeps Mainz takes its 1 VP (and nothing for staying)."""
    events, _ = phase_v(baron(2, "mainz.elector"))
    assert isinstance(seat_of(events, "mainz"), ev.ElectorRetained)
    assert phase_v_points(events) == [(2, 1, "elector of Mainz")]


def test_given_mainz_without_elector_or_power_when_phase_v_then_nobody_takes_its_vp() -> None:
    """[V5] An empty Mainz seat gives its point to nobody."""
    events, _ = phase_v(baron(2, "koeln.elector"))
    assert phase_v_points(events) == []


def test_given_the_option_elector_at_phase_v_start_when_mainz_changes_hands_then_the_old_elector_scores() -> None:
    """[V5 option] mainz_bonus="elector_at_phase_v_start": the player holding Mainz when phase V begins takes
    the point, before any seat is decided; the newcomer takes only his 2 VP."""
    events, state = mainz_full_of_tiles(settings={"mainz_bonus": "elector_at_phase_v_start"})
    assert phase_v_points(events) == [(0, 1, "mainz"), (1, 2, "new elector in Archdiocese of Mainz")]
    first_vp = next(i for i, e in enumerate(events) if isinstance(e, ev.VictoryPointsScored))
    first_seat = next(i for i, e in enumerate(events) if isinstance(e, Seated))
    assert first_vp < first_seat
    assert events[first_vp].rulings == ("V5",)
    assert state.vp[1] == 2


def test_given_the_option_elector_at_phase_v_start_and_an_empty_mainz_when_filled_then_nobody_takes_1_vp() -> None:
    """[V5 option] Nobody held Mainz when phase V began: no bonus point at all."""
    events, _ = phase_v(baron(3, "mainz.aristocrat.0"), settings={"mainz_bonus": "elector_at_phase_v_start"})
    assert phase_v_points(events) == [(3, 2, "new elector in Archdiocese of Mainz")]


# --- P8 / X13 Gray eminence -------------------------------------------------------------------------------
def test_given_the_gray_eminence_card_when_phase_v_starts_then_its_holder_may_place_it_first() -> None:
    """[P8, X13] Before any seat is decided the card's holder may put a Baron aged 45 in the Gray eminence slot
    of any open electorate, or decline."""
    events, state = phase_v(card(2, "gray_eminence"), baron(1, "koeln.aristocrat.0"))
    assert not [e for e in events if isinstance(e, Seated)]
    p = prompt(state)
    assert (p.decision, p.seats) == ("gray_eminence", (2,))
    assert {"P8", "X13"} <= set(of_type(events, ev.DecisionRequested)[-1].rulings)
    assert RULES.legal_commands(state, 2) == [
        *(cmd.PlacePiece(seat=2, electorate=k, space_kind="eminence") for k in ELECTORATES),
        cmd.Decline(seat=2),
    ]


def test_given_the_gray_eminence_placed_in_an_archdiocese_when_it_wins_then_it_becomes_elector() -> None:
    """[P8, V1, V4] The Gray eminence Baron is worth 1 power and may become an archdiocese's elector."""
    _, state = phase_v(card(2, "gray_eminence"))
    events, state = accepted(state, cmd.PlacePiece(seat=2, electorate="koeln", space_kind="eminence"))
    placed = of_type(events, ev.AristocratPlaced)
    assert [(a.owner, a.space, a.couple, a.age) for a in placed] == [(2, "koeln.eminence", False, 45)]
    assert "P8" in placed[0].rulings
    changed = seat_of(events, "koeln")
    assert (changed.previous_owner, changed.new_owner, changed.power) == (None, 2, (0, 0, 1, 0))
    assert tile_at(state, "koeln.elector") == (2, False, 45)
    assert phase_v_points(events) == [(2, 2, "new elector in Archdiocese of Köln")]


def test_given_the_gray_eminence_placed_in_a_tie_when_it_counts_then_it_breaks_the_tie() -> None:
    """[P8, V1] The Gray eminence's 1 power counts in that electorate's decision."""
    _, state = phase_v(card(2, "gray_eminence"), baron(2, "bohemia.elector"), baron(3, "bohemia.aristocrat.0"))
    events, _ = accepted(state, cmd.PlacePiece(seat=2, electorate="bohemia", space_kind="eminence"))
    retained = seat_of(events, "bohemia")
    assert isinstance(retained, ev.ElectorRetained)
    assert (retained.owner, retained.power) == (2, (0, 0, 2, 1))


def test_given_the_gray_eminence_card_when_its_holder_declines_then_nothing_is_placed() -> None:
    """[X13] The owner may decline to place the Gray eminence Baron."""
    _, state = phase_v(card(2, "gray_eminence"), baron(1, "koeln.aristocrat.0"))
    events, state = accepted(state, cmd.Decline(seat=2))
    assert not of_type(events, ev.AristocratPlaced)
    assert all(piece(state, f"{k}.eminence") is None for k in ELECTORATES)
    assert seat_of(events, "koeln").power == (0, 1, 0, 0)
    assert state.tiles_in_supply[2] == 7


def test_given_a_two_player_game_when_the_gray_eminence_is_placed_then_closed_electorates_are_not_offered() -> None:
    """[X13, T1] Only open electorates take the Gray eminence Baron."""
    _, state = phase_v(card(1, "gray_eminence"), players=2)
    closed = {ELECTORATES[e] for e in state.closed}
    assert len(closed) == 2
    offered = {c.electorate for c in RULES.legal_commands(state, 1) if isinstance(c, cmd.PlacePiece)}
    assert offered == set(ELECTORATES) - closed
    rejected(state, cmd.PlacePiece(seat=1, electorate=sorted(closed)[0], space_kind="eminence"), "closed_electorate")


def test_given_the_gray_eminence_card_and_an_empty_supply_when_phase_v_starts_then_nobody_is_asked() -> None:
    """[X13, B3] With no tile in supply there is nothing to place: phase V goes straight on."""
    spaces = [f"{k}.aristocrat.0" for k in ELECTORATES]
    events, state = phase_v(card(2, "gray_eminence"), *(baron(2, s) for s in spaces))
    assert state.tiles_in_supply[2] == 0
    assert not [e for e in events if isinstance(e, ev.DecisionRequested) and e.prompt.decision == "gray_eminence"]
    assert [e.electorate for e in events if isinstance(e, Seated)] == list(ELECTORATES)


# --- the rulebook's worked example ----------------------------------------------------------------------------
def test_given_the_rulebook_brandenburg_example_when_phase_v_then_green_takes_the_seat_with_his_baron() -> None:
    """[V1-V4] Red (seat 0) is Brandenburg's elector with a Couple and has a knight on an aristocrat space:
    3 power. Green (seat 1) has a Baron, a Couple, a knight on the castle space and a city: 5 power. Green
    wins, may choose his Baron or his Couple (a secular electorate) and chooses the Baron; he takes 2 VP and
    Red's Couple goes to the free aristocrat space in Brandenburg."""
    events, state = phase_v(
        couple(0, "brandenburg.elector"),
        knight(0, "brandenburg.aristocrat.2"),
        baron(1, "brandenburg.aristocrat.0"),
        couple(1, "brandenburg.aristocrat.1"),
        knight(1, "brandenburg.castle.0"),
        city(1, "brandenburg.city.0"),
    )
    changed = seat_of(events, "brandenburg")
    assert isinstance(changed, ev.ElectorChanged)
    assert (changed.previous_owner, changed.new_owner, changed.winner) == (0, 1, 1)
    assert changed.power == (3, 5, 0, 0)
    assert changed.rulings == ("V1", "V2", "V3", "V4")
    p = prompt(state)
    assert (p.decision, p.seats, p.electorate) == ("choose_elector", (1,), "brandenburg")
    assert RULES.legal_commands(state, 1) == [
        cmd.ChooseAristocrat(seat=1, space="brandenburg.aristocrat.0"),
        cmd.ChooseAristocrat(seat=1, space="brandenburg.aristocrat.1"),
    ]
    events, state = accepted(state, cmd.ChooseAristocrat(seat=1, space="brandenburg.aristocrat.0"))
    assert phase_v_points(events) == [(1, 2, "new elector in Marquessate of Brandenburg")]
    assert tile_at(state, "brandenburg.elector") == (1, False, 25)
    assert tile_at(state, "brandenburg.aristocrat.0") == (0, True, 35)
    assert tile_at(state, "brandenburg.aristocrat.1") == (1, True, 35)
    assert piece(state, "brandenburg.aristocrat.2") is not None  # Red's knight was not pushed
    assert not of_type(events, ev.KnightPushed)
    assert state.vp[1] == 2


def test_given_shadow_2_events_of_an_empty_seat_when_read_then_they_are_elector_seat_stays_empty() -> None:
    """[V2, V4] shadow-2 recorded an empty seat staying empty as ``ElectorRetained`` without owner (no power) or
    ``ElectorChanged`` without previous and new owner (no aristocrat may sit): both read as today's fact."""
    nobody = b'{"type":"ElectorRetained","electorate":"mainz","owner":null,"power":[0,0],"rulings":["V1","V2"]}'
    seatless = (
        b'{"type":"ElectorChanged","electorate":"saxony","previous_owner":null,"new_owner":null,"winner":1,'
        b'"power":[0,2],"tie_broken_by":null,"rulings":["V1","V2","V3","V4"]}'
    )
    assert RULES.parse_event(nobody) == ev.ElectorSeatStaysEmpty(
        electorate="mainz", winner=None, power=(0, 0), rulings=("V1", "V2")
    )
    assert RULES.parse_event(seatless) == ev.ElectorSeatStaysEmpty(
        electorate="saxony", winner=1, power=(0, 2), rulings=("V1", "V2", "V3", "V4")
    )

"""Phase III descendants: sons, daughters, the convent [D1, D2, D3, B3, B4, G1, G2, X5, X6].

Cards arranged with ``taken`` lie in the play areas of round 1's phase IV; the Emperor's phase VII empire city
then starts round 2, whose phase III counts them. Phase II runs first, so arranged tiles age one step
(tiles that must survive are arranged younger than 45).
"""

from __future__ import annotations

from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import Knight, Tile
from tests.games.shadow.round_support import before_round, next_round
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    copied,
    knight,
    of_type,
    prompt,
    rejected,
    taken,
    thalers,
    tile,
    types,
)

ELECTORATES = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")


def counted(events: list[ev.Event]) -> dict[int, ev.DescendantsCounted]:
    return {e.seat: e for e in of_type(events, ev.DescendantsCounted)}


def placements(state, seat: int) -> set[tuple[str, str | None]]:
    """(electorate, push) of every legal PlacePiece."""
    return {(c.electorate, c.push) for c in RULES.legal_commands(state, seat) if c.type == "PlacePiece"}


# --- D1: counting -------------------------------------------------------------------------------------------
def test_given_more_blue_than_pink_cards_when_phase_iii_counts_then_the_player_has_a_son() -> None:
    """[D1, B4] Blue > pink: a son (Doctor and Move are blue, Permit is pink)."""
    state = before_round(tile(0, "throne", 15), taken(0, "doctor"), taken(0, "move"), taken(0, "permit"))
    events, state = next_round(state)
    assert counted(events)[0] == ev.DescendantsCounted(seat=0, pink=1, blue=2, outcome="son", rulings=("D1", "B4"))
    p = prompt(state)
    assert (p.decision, p.seats, p.couple, p.age) == ("place_son", (0,), False, 15)


def test_given_as_many_pink_as_blue_cards_when_phase_iii_counts_then_the_player_has_a_daughter() -> None:
    """[D1, B4] Pink >= blue with at least one pink: a daughter (Indulgence pink, Pope blue)."""
    state = before_round(
        tile(0, "throne", 15),
        tile(2, "mainz.aristocrat.0", 15),
        taken(1, "indulgence"),
        taken(1, "pope"),
        taken(3, "church_influence"),
    )
    events, state = next_round(state)
    assert (counted(events)[1].pink, counted(events)[1].blue, counted(events)[1].outcome) == (1, 1, "daughter")
    assert prompt(state).decision == "daughter"
    assert prompt(state).seats == (1,)


def test_given_no_coloured_card_when_phase_iii_counts_then_there_is_no_descendant() -> None:
    """[D1] No pink and no blue card: nothing happens for that player."""
    events, _ = next_round(before_round(tile(0, "throne", 15), taken(3, "doctor")))
    assert [(e.seat, e.pink, e.blue, e.outcome) for e in of_type(events, ev.DescendantsCounted)] == [
        (0, 0, 0, "none"),
        (1, 0, 0, "none"),
        (2, 0, 0, "none"),
        (3, 0, 1, "son"),
    ]


def test_given_the_emperor_in_seat_two_when_phase_iii_runs_then_players_are_handled_clockwise_from_him() -> None:
    """[G1, D1] Phase III starts with the Emperor and goes clockwise."""
    events, _ = next_round(before_round(tile(2, "throne", 15), emperor=2))
    assert [e.seat for e in of_type(events, ev.DescendantsCounted)] == [2, 3, 0, 1]


def test_given_a_trier_copy_when_phase_iii_counts_then_it_takes_no_card_and_counts_for_nothing() -> None:
    """[D1, P6] A Trier use of an empty stack's effect takes no card: it is no blue card for a son."""
    state = before_round(tile(0, "throne", 15), copied(3, "doctor"))
    assert state.play_areas[3] == ()
    events, _ = next_round(state)
    assert (counted(events)[3].blue, counted(events)[3].outcome) == (0, "none")


def test_given_the_gray_eminence_card_when_phase_iii_counts_then_it_is_blue() -> None:
    """[D1, B4] Gray eminence is a blue card: alone it gives a son."""
    events, _ = next_round(before_round(tile(0, "throne", 15), taken(2, "gray_eminence")))
    assert (counted(events)[2].blue, counted(events)[2].outcome) == (1, "son")


def test_given_descendants_resolved_when_phase_iii_ends_then_the_cards_return_and_phase_iv_starts() -> None:
    """[D1] Once everyone has been handled the counted cards go back to their stacks (here every daughter
    goes to the convent on her own: no opponent has an unmarried Baron)."""
    state = before_round(
        tile(0, "throne", 15, couple=True),
        taken(0, "indulgence"),
        taken(1, "permit"),
        taken(1, "pope"),
        taken(2, "church_influence"),
    )
    events, state = next_round(state)
    kinds = types(events)
    assert kinds.index("CardsReturned") > max(i for i, k in enumerate(kinds) if k == "DescendantsCounted")
    assert of_type(events, ev.CardsReturned) == [ev.CardsReturned(rulings=("D1",))]
    assert state.play_areas == ((), (), (), ())
    assert (state.round, state.phase) == (2, 4)


def test_given_a_pending_daughter_when_phase_iii_waits_then_the_cards_are_still_out() -> None:
    """[D1] The cards return only after the last player's descendants."""
    state = before_round(tile(0, "throne", 15), tile(1, "mainz.aristocrat.0", 15), taken(0, "permit"))
    events, state = next_round(state)
    assert prompt(state).decision == "daughter"
    assert of_type(events, ev.CardsReturned) == []
    assert state.play_areas[0] == ("permit",)


# --- D2: sons -----------------------------------------------------------------------------------------------
def test_given_a_son_when_the_player_places_him_then_a_baron_15_takes_the_lowest_free_aristocrat_space() -> None:
    """[D2, X1] A son is a Baron aged 15 from supply on an empty aristocrat space of any electorate."""
    state = before_round(tile(0, "throne", 15), tile(1, "trier.aristocrat.0", 15), taken(0, "doctor"))
    _, state = next_round(state)
    assert len(placements(state, 0)) == 7
    events, state = accepted(state, cmd.PlacePiece(seat=0, electorate="trier"))
    assert events[0] == ev.AristocratPlaced(
        owner=0, space="trier.aristocrat.1", couple=False, age=15, reason="son", rulings=("D2", "X1")
    )
    assert at(state, "trier.aristocrat.1") == Tile(0, False, 15)
    assert state.tiles_in_supply[0] == 5
    assert [e.seat for e in of_type(events, ev.DescendantsCounted)] == [1, 2, 3]


def test_given_a_full_electorate_with_a_knight_when_a_son_is_placed_there_then_the_knight_is_pushed() -> None:
    """[D2, X6] With no empty aristocrat space, a knight on an aristocrat space may be pushed back to its
    owner's supply; the player names it."""
    state = before_round(
        tile(0, "throne", 15),
        taken(0, "doctor"),
        tile(1, "trier.aristocrat.0", 15),
        tile(2, "trier.aristocrat.1", 15),
        tile(3, "trier.aristocrat.2", 15),
        knight(1, "trier.aristocrat.3"),
    )
    _, state = next_round(state)
    assert ("trier", "trier.aristocrat.3") in placements(state, 0)
    assert ("trier", None) not in placements(state, 0)
    rejected(state, cmd.PlacePiece(seat=0, electorate="trier"), "no_room")
    events, state = accepted(state, cmd.PlacePiece(seat=0, electorate="trier", push="trier.aristocrat.3"))
    pushed = of_type(events, ev.KnightPushed)
    assert [(e.owner, e.space, e.by) for e in pushed] == [(1, "trier.aristocrat.3", 0)]
    assert "D2" in pushed[0].rulings
    assert of_type(events, ev.AristocratPlaced)[0].space == "trier.aristocrat.3"
    assert at(state, "trier.aristocrat.3") == Tile(0, False, 15)
    assert state.knights_in_supply[1] == 3


def test_given_an_electorate_with_a_free_space_when_a_son_pushes_a_knight_there_then_it_is_rejected() -> None:
    """[D2] A knight may be pushed only when the chosen electorate has no empty aristocrat space."""
    state = before_round(tile(0, "throne", 15), taken(0, "doctor"), knight(1, "koeln.aristocrat.0"))
    _, state = next_round(state)
    assert ("koeln", "koeln.aristocrat.0") not in placements(state, 0)
    rejection = rejected(
        state, cmd.PlacePiece(seat=0, electorate="koeln", push="koeln.aristocrat.0"), "push_not_allowed"
    )
    assert rejection.rulings == ("D2",)


def test_given_a_knight_on_a_castle_when_the_electorate_is_full_then_the_son_cannot_push_it() -> None:
    """[D2, X6] Knights on castle spaces are never pushed: a full electorate with only a castle knight is
    not offered."""
    state = before_round(
        tile(0, "throne", 15),
        taken(0, "doctor"),
        *(tile(1 + i % 3, f"koeln.aristocrat.{i}", 15) for i in range(4)),
        knight(2, "koeln.castle.0"),
    )
    _, state = next_round(state)
    assert not {option for option in placements(state, 0) if option[0] == "koeln"}
    rejected(state, cmd.PlacePiece(seat=0, electorate="koeln", push="koeln.castle.0"))
    rejected(state, cmd.PlacePiece(seat=0, electorate="koeln"))
    assert at(state, "koeln.castle.0") == Knight(2)


def test_given_a_single_free_space_when_a_son_is_born_then_he_is_placed_without_a_question() -> None:
    """[D2, X5] One possible place: the engine places the son itself."""
    full = [tile(1 + i % 3, f"{key}.aristocrat.0", 15) for i, key in enumerate(ELECTORATES[:6])]
    state = before_round(tile(0, "throne", 15), taken(0, "doctor"), *full, aristocrat_spaces=1)
    events, state = next_round(state)
    assert "place_son" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    son = [e for e in of_type(events, ev.AristocratPlaced) if e.reason == "son"]
    assert son == [
        ev.AristocratPlaced(
            owner=0, space="bohemia.aristocrat.0", couple=False, age=15, reason="son", rulings=("D2", "X5")
        )
    ]


def test_given_no_free_space_and_no_knight_when_a_son_is_born_then_he_is_lost() -> None:
    """[D2] No empty aristocrat space and no knight to push anywhere: the son is lost."""
    full = [tile(1 + i % 3, f"{key}.aristocrat.0", 15) for i, key in enumerate(ELECTORATES)]
    state = before_round(tile(0, "throne", 15), taken(0, "doctor"), *full, aristocrat_spaces=1)
    events, state = next_round(state)
    assert of_type(events, ev.SonLost) == [ev.SonLost(seat=0, reason="no free aristocrat space", rulings=("D2",))]
    assert state.tiles_in_supply[0] == 6
    assert (state.phase, prompt(state).decision) == (4, "actions")


def test_given_an_empty_supply_when_a_son_is_born_then_he_is_lost() -> None:
    """[D2, B3] No Baron left in supply: the son is lost (the effect fizzles)."""
    own = [tile(0, f"{key}.aristocrat.0", 15) for key in ELECTORATES[:6]]
    state = before_round(tile(0, "throne", 15), *own, taken(0, "move"))
    assert state.tiles_in_supply[0] == 0
    events, _ = next_round(state)
    assert of_type(events, ev.SonLost) == [ev.SonLost(seat=0, reason="no tile in supply", rulings=("D2", "B3"))]
    assert not [e for e in of_type(events, ev.AristocratPlaced) if e.reason == "son"]


# --- D3: daughters ------------------------------------------------------------------------------------------
def daughter_for_seat_one(*extra: ev.Event):
    """Seat 1 has a daughter; the board holds Barons and Couples of every kind of eligibility."""
    state = before_round(
        tile(0, "throne", 15),  # the Emperor: eligible
        tile(2, "mainz.elector", 15),  # archdiocese elector: not eligible
        tile(2, "saxony.elector", 15),  # secular elector: eligible
        tile(3, "koeln.aristocrat.0", 15, couple=True),  # a Couple: not eligible
        tile(3, "koeln.aristocrat.1", 25),  # eligible
        tile(1, "trier.aristocrat.0", 15),  # his own Baron: not eligible
        taken(1, "permit"),
        *extra,
    )
    return next_round(state)


def test_given_a_daughter_when_offers_are_listed_then_only_opponents_unmarried_barons_outside_archdioceses() -> None:
    """[D3] Offers go to an opponent's unmarried Baron: the Emperor and a secular elector may be chosen, an
    archdiocese elector, a Couple or one's own Baron may not; the convent is always possible."""
    _, state = daughter_for_seat_one()
    legal = RULES.legal_commands(state, 1)
    assert {c.space for c in legal if c.type == "OfferDaughter"} == {"throne", "saxony.elector", "koeln.aristocrat.1"}
    assert [c.type for c in legal if c.type != "OfferDaughter"] == ["SendDaughterToConvent"]
    for space in ("mainz.elector", "koeln.aristocrat.0", "trier.aristocrat.0"):
        rejected(state, cmd.OfferDaughter(seat=1, space=space))


def test_given_an_offer_when_the_opponent_accepts_then_his_baron_marries_and_the_offerer_takes_one_vp() -> None:
    """[D3] Yes: the Baron becomes a Couple at the same age and the offering player takes 1 VP."""
    _, state = daughter_for_seat_one()
    events, state = accepted(state, cmd.OfferDaughter(seat=1, space="saxony.elector"))
    assert events[0] == ev.DaughterOffered(seat=1, to_seat=2, space="saxony.elector", rulings=("D3",))
    p = prompt(state)
    assert (p.decision, p.seats, p.offer_from, p.space) == ("marriage_answer", (2,), 1, "saxony.elector")
    rejected(state, cmd.AnswerMarriage(seat=1, accept=True), "not_your_turn")
    events, state = accepted(state, cmd.AnswerMarriage(seat=2, accept=True))
    assert events[:3] == [
        ev.MarriageAnswered(seat=2, offer_from=1, space="saxony.elector", accepted=True, rulings=("D3",)),
        ev.AristocratMarried(owner=2, space="saxony.elector", reason="marriage", rulings=("D3",)),
        ev.VictoryPointsScored(seat=1, points=1, total=1, reason="daughter married", rulings=("D3",)),
    ]
    assert at(state, "saxony.elector") == Tile(2, True, 25)
    assert state.vp == (0, 1, 0, 0)
    assert of_type(events, ev.DaughterEnteredConvent) == []


def test_given_an_offer_to_the_emperor_when_accepted_then_the_throne_tile_becomes_a_couple() -> None:
    """[D3] The Emperor may be chosen."""
    _, state = daughter_for_seat_one()
    _, state = accepted(state, cmd.OfferDaughter(seat=1, space="throne"))
    assert prompt(state).seats == (0,)
    _, state = accepted(state, cmd.AnswerMarriage(seat=0, accept=True))
    assert at(state, "throne") == Tile(0, True, 25)


def test_given_an_offer_when_the_opponent_declines_then_the_daughter_enters_the_convent_without_a_second_offer() -> (
    None
):
    """[D3, G2] No: the daughter goes to the convent, +1 thaler for the offering player, no second offer;
    phase III moves on to the next player."""
    _, state = daughter_for_seat_one(thalers(1, 0))
    assert state.thalers[1] == 6
    _, state = accepted(state, cmd.OfferDaughter(seat=1, space="koeln.aristocrat.1"))
    events, state = accepted(state, cmd.AnswerMarriage(seat=3, accept=False))
    assert events[:3] == [
        ev.MarriageAnswered(seat=3, offer_from=1, space="koeln.aristocrat.1", accepted=False, rulings=("D3",)),
        ev.DaughterEnteredConvent(seat=1, rulings=("D3",)),
        ev.ThalersChanged(seat=1, delta=1, balance=7, reason="convent", rulings=("D3", "G2")),
    ]
    assert at(state, "koeln.aristocrat.1") == Tile(3, False, 35)
    assert state.vp[1] == 0
    assert events[3] == ev.DescendantsCounted(seat=2, pink=0, blue=0, outcome="none", rulings=("D1", "B4"))
    assert "daughter" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert (state.phase, prompt(state).decision) == (4, "actions")


def test_given_a_daughter_when_the_player_chooses_the_convent_then_he_gains_one_thaler() -> None:
    """[D3, G2] The player may send the daughter to the convent at once."""
    _, state = daughter_for_seat_one(thalers(1, 2))
    events, state = accepted(state, cmd.SendDaughterToConvent(seat=1))
    assert events[:2] == [
        ev.DaughterEnteredConvent(seat=1, rulings=("D3",)),
        ev.ThalersChanged(seat=1, delta=1, balance=9, reason="convent", rulings=("D3", "G2")),
    ]
    assert of_type(events, ev.DaughterOffered) == []
    assert state.thalers[1] == 9


def test_given_twelve_thalers_when_the_daughter_enters_the_convent_then_the_thaler_is_lost_to_the_cap() -> None:
    """[D3, G2] The convent thaler is capped at 12."""
    _, state = daughter_for_seat_one(thalers(1, 12))
    events, state = accepted(state, cmd.SendDaughterToConvent(seat=1))
    assert events[1] == ev.ThalersChanged(
        seat=1, delta=0, balance=12, reason="convent", lost_to_cap=1, rulings=("D3", "G2")
    )
    assert state.thalers[1] == 12


def test_given_no_eligible_baron_when_a_daughter_is_born_then_she_enters_the_convent_automatically() -> None:
    """[D3] With no eligible opponent Baron the convent is the only choice: no question is asked."""
    state = before_round(
        tile(0, "throne", 15, couple=True),
        tile(2, "koeln.elector", 15),
        tile(3, "bohemia.aristocrat.0", 15, couple=True),
        tile(1, "saxony.aristocrat.0", 15),
        thalers(1, 0),
        taken(1, "indulgence"),
    )
    events, state = next_round(state)
    assert "daughter" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    convent = events.index(ev.DaughterEnteredConvent(seat=1, rulings=("D3",)))
    assert events[convent + 1] == ev.ThalersChanged(seat=1, delta=1, balance=7, reason="convent", rulings=("D3", "G2"))
    assert state.thalers[1] == 7

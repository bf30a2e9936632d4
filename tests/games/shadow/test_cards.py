"""Every action card in phase IV: cost, effect, limits [P1-P5, X6, X10-X12, B4, D1, D2, A2, A3]."""

from __future__ import annotations

import pytest

from services.games.shadow.rules.state import Knight, Tile
from tests.games.shadow.phase4_support import fill, legal_of, phase4
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    cmd,
    ev,
    given,
    knight,
    of_type,
    passed,
    prompt,
    rejected,
    request,
    start,
    taken,
    thalers,
    tile,
    types,
)

ELECTORATES = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")


# --- Doctor [P3, X10, X11, A2, A3] ---------------------------------------------------------------------------


def test_given_an_own_aristocrat_aged_35_when_the_doctor_treats_it_then_it_is_25_for_one_thaler() -> None:
    """[P3] The Doctor makes an own tile one step younger; the card costs 1 thaler."""
    state = phase4(tile(0, "mainz.aristocrat.0", 35, couple=True), turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0"))
    assert types(events) == ["CardTaken", "ThalersChanged", "AristocratAgeChanged", "DecisionRequested"]
    card = of_type(events, ev.CardTaken)[0]
    assert (card.seat, card.card, card.cost) == (0, "doctor", 1)
    change = of_type(events, ev.AristocratAgeChanged)[0]
    assert (change.owner, change.space, change.age_before, change.age_after, change.by, change.cause) == (
        0,
        "mainz.aristocrat.0",
        35,
        25,
        0,
        "doctor",
    )
    assert "P3" in change.rulings
    assert at(after, "mainz.aristocrat.0") == Tile(0, True, 25)
    assert after.thalers[0] == 6
    assert after.play_areas[0] == ("doctor",)


def test_given_an_own_aristocrat_aged_15_when_the_doctor_treats_it_then_it_is_refused() -> None:
    """[P3, X10] Never younger than 15: not a legal target."""
    state = phase4(tile(0, "mainz.aristocrat.0", 15), tile(0, "mainz.aristocrat.1", 25), turn=0)
    rejected(state, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0"), "illegal_move")
    assert {c.target for c in legal_of(state, 0, "BuyDoctor")} == {"mainz.aristocrat.1"}


def test_given_an_own_emperor_aged_45_when_the_doctor_treats_him_then_he_is_35_not_dead() -> None:
    """[P3] An own tile only gets younger, even at 45 and on the throne."""
    state = phase4(tile(0, "throne", 45), turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="throne"))
    assert [(c.age_before, c.age_after) for c in of_type(events, ev.AristocratAgeChanged)] == [(45, 35)]
    assert not of_type(events, ev.AristocratDied)
    assert at(after, "throne") == Tile(0, False, 35)


def test_given_an_opponents_elector_aged_25_when_the_doctor_treats_it_then_it_is_35_and_still_elector() -> None:
    """[P3] An opponent's tile gets one step older; electors may be targeted."""
    state = phase4(tile(1, "saxony.elector", 25), turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="saxony.elector"))
    change = of_type(events, ev.AristocratAgeChanged)[0]
    assert (change.owner, change.by, change.age_before, change.age_after) == (1, 0, 25, 35)
    assert at(after, "saxony.elector") == Tile(1, False, 35)


def test_given_an_opponents_aristocrat_aged_45_when_the_doctor_treats_it_then_it_dies_to_supply() -> None:
    """[P3] Aged past 45, an opponent's tile dies and goes back to his supply."""
    state = phase4(tile(2, "bohemia.aristocrat.1", 45, couple=True), turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="bohemia.aristocrat.1"))
    died = of_type(events, ev.AristocratDied)
    assert [(d.owner, d.space, d.couple, d.cause) for d in died] == [(2, "bohemia.aristocrat.1", True, "doctor")]
    assert "P3" in died[0].rulings
    assert not of_type(events, ev.AristocratAgeChanged)
    assert at(after, "bohemia.aristocrat.1") is None
    assert after.tiles_in_supply[2] == state.tiles_in_supply[2] + 1


def test_given_an_opponents_elector_aged_45_when_the_doctor_kills_it_then_the_seat_is_empty() -> None:
    """[P3, A3] A dead elector leaves the seat empty: no privilege for its former owner."""
    facts = (tile(1, "koeln.elector", 45), tile(0, "mainz.aristocrat.0"), passed(2), passed(3))
    assert legal_of(phase4(*facts, turn=1), 1, "UseKoelnPrivilege")  # while he is elector, seat 1 may use it
    state = phase4(*facts, turn=0)
    events, after = accepted(state, cmd.BuyDoctor(seat=0, target="koeln.elector"))
    died = of_type(events, ev.AristocratDied)
    assert [(d.owner, d.space) for d in died] == [(1, "koeln.elector")]
    assert set(died[0].rulings) >= {"P3", "A3"}
    assert at(after, "koeln.elector") is None
    assert prompt(after).seats == (1,)
    assert legal_of(after, 1, "UseKoelnPrivilege") == []
    rejected(after, cmd.UseKoelnPrivilege(seat=1, target="throne"), "no_privilege")


def test_given_knights_when_the_doctor_targets_one_then_it_is_refused() -> None:
    """[P3, X10] Knights are not Doctor targets, on a castle or on an aristocrat space."""
    state = phase4(knight(1, "koeln.castle.0"), knight(1, "koeln.aristocrat.0"), turn=0)
    rejected(state, cmd.BuyDoctor(seat=0, target="koeln.castle.0"), "illegal_move")
    rejected(state, cmd.BuyDoctor(seat=0, target="koeln.aristocrat.0"), "illegal_move")
    rejected(state, cmd.BuyDoctor(seat=0, target="koeln.aristocrat.1"), "illegal_move")  # empty space
    assert legal_of(state, 0, "BuyDoctor") == []


def test_given_the_emperor_aged_45_with_two_candidates_when_the_doctor_kills_him_then_his_player_replaces_him() -> None:
    """[P3, A2, X11] The Emperor dies; his player picks the successor at once; then the player after the actor."""
    state = phase4(
        tile(0, "throne", 45), tile(0, "koeln.aristocrat.0", 25), tile(0, "trier.aristocrat.0", 35), emperor=0, turn=2
    )
    events, after = accepted(state, cmd.BuyDoctor(seat=2, target="throne"))
    assert [(d.owner, d.space) for d in of_type(events, ev.AristocratDied)] == [(0, "throne")]
    asked = of_type(events, ev.DecisionRequested)
    assert [(r.prompt.decision, r.prompt.seats, r.prompt.after) for r in asked] == [
        ("replace_emperor", (0,), "actions")
    ]
    assert set(asked[0].rulings) == {"A2", "X11"}
    assert {c.space for c in RULES.legal_commands(after, 0)} == {"koeln.aristocrat.0", "trier.aristocrat.0"}
    events, after = accepted(after, cmd.ChooseAristocrat(seat=0, space="trier.aristocrat.0"))
    moved = of_type(events, ev.AristocratMoved)
    assert [(m.from_space, m.to_space) for m in moved] == [("trier.aristocrat.0", "throne")]
    assert set(moved[0].rulings) >= {"A2", "X11"}
    assert at(after, "throne") == Tile(0, False, 35)  # keeps its age [A2]
    assert (prompt(after).decision, prompt(after).seats) == ("actions", (3,))
    assert after.emperor == 0


def test_given_the_emperor_with_one_candidate_when_the_doctor_kills_him_then_it_goes_to_the_throne_at_once() -> None:
    """[A2, X5, X11] One candidate: no question; play resumes with the player after the actor (wrapping)."""
    state = phase4(tile(1, "throne", 45), tile(1, "koeln.aristocrat.2", 15, couple=True), emperor=1, turn=3)
    events, after = accepted(state, cmd.BuyDoctor(seat=3, target="throne"))
    assert types(events) == ["CardTaken", "ThalersChanged", "AristocratDied", "AristocratMoved", "DecisionRequested"]
    moved = of_type(events, ev.AristocratMoved)[0]
    assert (moved.owner, moved.from_space, moved.to_space, moved.reason) == (
        1,
        "koeln.aristocrat.2",
        "throne",
        "emperor_replaced",
    )
    assert set(moved.rulings) >= {"A2", "X11"}
    assert at(after, "throne") == Tile(1, True, 15)
    assert prompt(after).seats == (0,)


def test_given_the_emperor_without_aristocrats_on_aristocrat_spaces_when_killed_then_a_baron_45_replaces_him() -> None:
    """[A2, X11] With no tile on an aristocrat space, a Baron aged 45 from supply (here the dead tile itself:
    it went back to supply) takes the throne; an elector is never a candidate."""
    electors = [tile(0, f"{e}.elector") for e in ELECTORATES[:6]]
    state = phase4(tile(0, "throne", 45, couple=True), *electors, emperor=0, turn=2)
    assert state.tiles_in_supply[0] == 0
    events, after = accepted(state, cmd.BuyDoctor(seat=2, target="throne"))
    placed = of_type(events, ev.AristocratPlaced)
    assert [(p.owner, p.space, p.couple, p.age) for p in placed] == [(0, "throne", False, 45)]
    assert set(placed[0].rulings) >= {"A2", "X11"}
    assert after.tiles_in_supply[0] == 0
    assert prompt(after).seats == (3,)


def test_given_a_doctor_kill_of_the_emperor_when_play_resumes_then_passed_players_stay_skipped() -> None:
    """[X11, P1] After the replacement the next player who has not passed acts."""
    state = phase4(tile(0, "throne", 45), tile(0, "koeln.aristocrat.0"), passed(3), passed(0), emperor=0, turn=2)
    _, after = accepted(state, cmd.BuyDoctor(seat=2, target="throne"))
    assert prompt(after).seats == (1,)


# --- Move [P4, D2, X6] ---------------------------------------------------------------------------------------


def test_given_an_own_aristocrat_when_moved_to_another_electorate_then_it_takes_the_lowest_free_space() -> None:
    """[P4, X1] Move: 1 thaler; the tile keeps its side and age."""
    state = phase4(tile(0, "saxony.aristocrat.2", 35, couple=True), tile(1, "trier.aristocrat.0"), turn=0)
    events, after = accepted(state, cmd.BuyMove(seat=0, source="saxony.aristocrat.2", electorate="trier"))
    assert types(events) == ["CardTaken", "ThalersChanged", "AristocratMoved", "DecisionRequested"]
    moved = of_type(events, ev.AristocratMoved)[0]
    assert (moved.owner, moved.from_space, moved.to_space, moved.reason) == (
        0,
        "saxony.aristocrat.2",
        "trier.aristocrat.1",
        "move_card",
    )
    assert "P4" in moved.rulings
    assert at(after, "trier.aristocrat.1") == Tile(0, True, 35)
    assert at(after, "saxony.aristocrat.2") is None
    assert after.thalers[0] == 6


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("throne", "the Emperor"),
        ("saxony.elector", "an elector"),
        ("mainz.aristocrat.0", "an opponent's tile"),
        ("koeln.castle.0", "a knight"),
    ],
)
def test_given_a_tile_that_may_not_move_when_moved_then_it_is_refused(source: str, why: str) -> None:
    """[P4] Only an own tile on an aristocrat space moves: never the Emperor, an elector, an opponent's tile."""
    state = phase4(
        tile(0, "throne"), tile(0, "saxony.elector"), tile(1, "mainz.aristocrat.0"), knight(0, "koeln.castle.0"), turn=0
    )
    rejected(state, cmd.BuyMove(seat=0, source=source, electorate="bohemia"), "illegal_move")
    assert legal_of(state, 0, "BuyMove") == [], why


def test_given_an_own_aristocrat_when_moved_within_its_electorate_then_it_is_refused() -> None:
    """[P4] The target must be another electorate."""
    state = phase4(tile(0, "saxony.aristocrat.0"), turn=0)
    rejected(state, cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="saxony"), "illegal_move")
    assert "saxony" not in {c.electorate for c in legal_of(state, 0, "BuyMove")}
    assert {c.electorate for c in legal_of(state, 0, "BuyMove")} == set(ELECTORATES) - {"saxony"}


def test_given_a_full_electorate_with_a_knight_when_a_tile_moves_there_then_the_named_knight_is_pushed() -> None:
    """[P4, D2, X6] A full electorate: the mover names a knight on an aristocrat space; it goes to its supply."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *fill("koeln", 1, -3, -4, 2), turn=0)
    events, after = accepted(
        state, cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln", push="koeln.aristocrat.2")
    )
    assert types(events) == ["CardTaken", "ThalersChanged", "KnightPushed", "AristocratMoved", "DecisionRequested"]
    pushed = of_type(events, ev.KnightPushed)[0]
    assert (pushed.owner, pushed.space, pushed.by) == (3, "koeln.aristocrat.2", 0)
    assert "D2" in pushed.rulings
    assert of_type(events, ev.AristocratMoved)[0].to_space == "koeln.aristocrat.2"
    assert at(after, "koeln.aristocrat.1") == Knight(2)
    assert after.knights_in_supply[3] == state.knights_in_supply[3] + 1
    assert {c.push for c in legal_of(state, 0, "BuyMove") if c.electorate == "koeln"} == {
        "koeln.aristocrat.1",
        "koeln.aristocrat.2",
    }


def test_given_a_full_electorate_when_a_tile_moves_there_without_naming_a_knight_then_no_room() -> None:
    """[D2, X6] With no free aristocrat space the mover must name the knight to push."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *fill("koeln", 1, -2, 2, 3), turn=0)
    rejection = rejected(state, cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln"), "no_room")
    assert rejection.rulings == ("D2", "X6")


def test_given_a_free_aristocrat_space_when_a_tile_moves_there_naming_a_knight_then_push_not_allowed() -> None:
    """[D2] A knight may be pushed only when the electorate has no free aristocrat space."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *fill("koeln", 1, -2, 2), turn=0)
    rejected(
        state,
        cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln", push="koeln.aristocrat.1"),
        "push_not_allowed",
    )


def test_given_a_full_electorate_when_the_push_names_a_castle_knight_then_it_is_refused() -> None:
    """[D2] Knights on castle spaces are never pushed; nor is an aristocrat."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *fill("koeln", 1, -2, 2, 3), knight(1, "koeln.castle.0"), turn=0)
    rejected(
        state,
        cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln", push="koeln.castle.0"),
        "illegal_move",
    )
    rejected(
        state,
        cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln", push="koeln.aristocrat.0"),
        "not_a_knight",
    )
    assert {c.push for c in legal_of(state, 0, "BuyMove") if c.electorate == "koeln"} == {"koeln.aristocrat.1"}


def test_given_a_full_electorate_without_knights_when_a_tile_moves_there_then_it_is_not_possible() -> None:
    """[P4, D2] No free space and no knight to push: that electorate is no Move target."""
    state = phase4(tile(0, "saxony.aristocrat.0"), *fill("koeln", 1, 2, 3, 1), turn=0)
    assert "koeln" not in {c.electorate for c in legal_of(state, 0, "BuyMove")}
    rejected(state, cmd.BuyMove(seat=0, source="saxony.aristocrat.0", electorate="koeln"), "no_room")


# --- Pope, Church influence, Excommunication [P2, E1, X7] ----------------------------------------------------


@pytest.mark.parametrize(
    ("command", "card", "cost"),
    [
        (cmd.BuyPope(seat=0), "pope", 1),
        (cmd.BuyChurchInfluence(seat=0), "church_influence", 2),
        (cmd.BuyExcommunication(seat=0), "excommunication", 1),
    ],
)
def test_given_an_empty_board_when_an_election_card_is_bought_then_it_is_always_taken(
    command: cmd.BuyPope, card: str, cost: int
) -> None:
    """[P2, E1] Pope, Church influence and Excommunication have no immediate effect: always takeable."""
    state = phase4(thalers(0, cost), turn=0)
    events, after = accepted(state, command)
    assert types(events) == ["CardTaken", "ThalersChanged", "DecisionRequested"]
    taken_event = of_type(events, ev.CardTaken)[0]
    assert (taken_event.seat, taken_event.card, taken_event.cost) == (0, card, cost)
    assert set(taken_event.rulings) >= {"P2", "E1"}
    assert after.thalers[0] == 0
    assert after.play_areas[0] == (card,)
    assert not [e for e in events if isinstance(e, ev.CardAimed | ev.VictoryPointsScored)]


@pytest.mark.parametrize(
    ("command", "cost"),
    [(cmd.BuyPope(seat=0), 1), (cmd.BuyChurchInfluence(seat=0), 2), (cmd.BuyExcommunication(seat=0), 1)],
)
def test_given_one_thaler_too_few_when_an_election_card_is_bought_then_cannot_afford(
    command: cmd.BuyPope, cost: int
) -> None:
    """[P2, G2] Always takeable means: whenever it can be paid."""
    state = phase4(thalers(0, cost - 1), turn=0)
    rejected(state, command, "cannot_afford")


# --- Indulgence [P5] -----------------------------------------------------------------------------------------


def test_given_two_thalers_when_an_indulgence_is_bought_then_one_victory_point() -> None:
    """[P5] Indulgence: 2 thalers, 1 VP."""
    state = phase4(thalers(0, 2), turn=0)
    events, after = accepted(state, cmd.BuyIndulgence(seat=0))
    assert types(events) == ["CardTaken", "ThalersChanged", "VictoryPointsScored", "DecisionRequested"]
    vp = of_type(events, ev.VictoryPointsScored)[0]
    assert (vp.seat, vp.points, vp.total) == (0, 1, 1)
    assert "P5" in vp.rulings
    assert (after.thalers[0], after.vp[0]) == (0, 1)


# --- Permit [P5, D2, X6] -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("couple", "cost"), [(False, 3), (True, 5)])
def test_given_a_free_space_when_a_permit_is_bought_then_a_tile_aged_15_is_placed(couple: bool, cost: int) -> None:
    """[P5, X1] Permit: a Baron (3) or a Couple (5) aged 15 from supply on the lowest free aristocrat space."""
    state = phase4(thalers(0, cost), tile(2, "brandenburg.aristocrat.0"), turn=0)
    events, after = accepted(state, cmd.BuyPermit(seat=0, couple=couple, electorate="brandenburg"))
    card = of_type(events, ev.CardTaken)[0]
    assert (card.card, card.cost) == ("permit", cost)
    placed = of_type(events, ev.AristocratPlaced)
    assert [(p.owner, p.space, p.couple, p.age) for p in placed] == [(0, "brandenburg.aristocrat.1", couple, 15)]
    assert "P5" in placed[0].rulings
    assert after.thalers[0] == 0
    assert after.tiles_in_supply[0] == state.tiles_in_supply[0] - 1


def test_given_four_thalers_when_a_couple_permit_is_bought_then_cannot_afford_and_only_barons_are_offered() -> None:
    """[P5, P2] A Couple costs 5."""
    state = phase4(thalers(0, 4), turn=0)
    rejected(state, cmd.BuyPermit(seat=0, couple=True, electorate="mainz"), "cannot_afford")
    offered = legal_of(state, 0, "BuyPermit")
    assert offered and {c.couple for c in offered} == {False}
    assert {c.electorate for c in offered} == set(ELECTORATES)


def test_given_a_full_electorate_when_a_permit_tile_goes_there_then_it_pushes_the_named_knight() -> None:
    """[P5, D2, X6] The buyer names the knight on an aristocrat space to push."""
    state = phase4(*fill("mainz", 1, 2, -4, 3), turn=0)
    events, after = accepted(state, cmd.BuyPermit(seat=0, electorate="mainz", push="mainz.aristocrat.2"))
    assert types(events) == ["CardTaken", "ThalersChanged", "KnightPushed", "AristocratPlaced", "DecisionRequested"]
    assert [(k.owner, k.space, k.by) for k in of_type(events, ev.KnightPushed)] == [(3, "mainz.aristocrat.2", 0)]
    assert at(after, "mainz.aristocrat.2") == Tile(0, False, 15)
    rejected(state, cmd.BuyPermit(seat=0, electorate="mainz"), "no_room")


# --- Ordinance [P5] ------------------------------------------------------------------------------------------


def test_given_three_ordinances_when_bought_one_after_another_then_they_score_one_one_and_two() -> None:
    """[P5, X1] First and second city 1 VP each, the third 2 VP."""
    state = phase4(thalers(0, 12), passed(1), passed(2), passed(3), turn=0)
    scored = []
    for electorate, space in (("saxony", "saxony.city.0"), ("saxony", "saxony.city.1"), ("mainz", "mainz.city.0")):
        events, state = accepted(state, cmd.BuyOrdinance(seat=0, electorate=electorate))
        assert [(c.owner, c.space) for c in of_type(events, ev.CityPlaced)] == [(0, space)]
        scored.append([(v.points, v.total) for v in of_type(events, ev.VictoryPointsScored)])
    assert scored == [[(1, 1)], [(1, 2)], [(2, 4)]]
    assert state.thalers[0] == 0
    assert state.cities_in_supply[0] == 0


def test_given_an_empire_city_on_the_first_space_when_an_ordinance_is_bought_then_the_city_takes_the_second() -> None:
    """[P5, X1] The city goes on the lowest free city space."""
    state = phase4(ev.EmpireCityPlaced(seat=0, space="trier.city.0"), turn=0)
    events, _ = accepted(state, cmd.BuyOrdinance(seat=0, electorate="trier"))
    assert [c.space for c in of_type(events, ev.CityPlaced)] == ["trier.city.1"]
    assert [(v.points, v.total) for v in of_type(events, ev.VictoryPointsScored)] == [(1, 1)]


# --- Promotion [P5] ------------------------------------------------------------------------------------------


def test_given_an_own_knight_on_an_aristocrat_space_when_promoted_then_a_baron_15_takes_its_space() -> None:
    """[P5] Promotion: the knight returns to supply, a Baron aged 15 from supply stands in its place."""
    state = phase4(knight(0, "palatinate.aristocrat.3"), turn=0)
    events, after = accepted(state, cmd.BuyPromotion(seat=0, knight="palatinate.aristocrat.3"))
    assert types(events) == ["CardTaken", "ThalersChanged", "KnightPromoted", "DecisionRequested"]
    promoted = of_type(events, ev.KnightPromoted)[0]
    assert (promoted.owner, promoted.space) == (0, "palatinate.aristocrat.3")
    assert "P5" in promoted.rulings
    assert at(after, "palatinate.aristocrat.3") == Tile(0, False, 15)
    assert after.knights_in_supply[0] == state.knights_in_supply[0] + 1
    assert after.tiles_in_supply[0] == state.tiles_in_supply[0] - 1
    assert after.thalers[0] == 5


def test_given_an_own_knight_on_a_castle_when_promoted_then_it_is_refused() -> None:
    """[P5] Only a knight on an aristocrat space can be promoted."""
    state = phase4(knight(0, "palatinate.castle.0"), turn=0)
    rejected(state, cmd.BuyPromotion(seat=0, knight="palatinate.castle.0"), "illegal_move")
    assert legal_of(state, 0, "BuyPromotion") == []


def test_given_an_opponents_knight_when_promoted_then_it_is_refused() -> None:
    """[P5] Only one's own knight."""
    state = phase4(knight(1, "palatinate.aristocrat.0"), knight(0, "palatinate.aristocrat.1"), turn=0)
    rejected(state, cmd.BuyPromotion(seat=0, knight="palatinate.aristocrat.0"), "illegal_move")
    assert [c.knight for c in legal_of(state, 0, "BuyPromotion")] == ["palatinate.aristocrat.1"]


# --- Foreign king's daughter [P5] ----------------------------------------------------------------------------


@pytest.mark.parametrize("space", ["bohemia.aristocrat.0", "palatinate.elector", "throne"])
def test_given_an_own_baron_when_the_foreign_kings_daughter_is_bought_then_it_becomes_a_couple(space: str) -> None:
    """[P5] One own Baron (aristocrat space, secular elector, the Emperor) becomes a Couple of the same age."""
    state = phase4(tile(0, space, 35), turn=0)
    events, after = accepted(state, cmd.BuyForeignKingsDaughter(seat=0, baron=space))
    married = of_type(events, ev.AristocratMarried)
    assert [(m.owner, m.space, m.reason) for m in married] == [(0, space, "foreign_kings_daughter")]
    assert "P5" in married[0].rulings
    assert of_type(events, ev.CardTaken)[0].cost == 2
    assert at(after, space) == Tile(0, True, 35)


@pytest.mark.parametrize("archdiocese", ["mainz", "koeln", "trier"])
def test_given_an_own_archdiocese_elector_when_the_foreign_kings_daughter_is_bought_for_it_then_it_is_refused(
    archdiocese: str,
) -> None:
    """[P5, B1] An archdiocese elector must stay a Baron."""
    state = phase4(tile(0, f"{archdiocese}.elector", 25), turn=0)
    rejected(state, cmd.BuyForeignKingsDaughter(seat=0, baron=f"{archdiocese}.elector"), "illegal_move")
    assert legal_of(state, 0, "BuyForeignKingsDaughter") == []


def test_given_an_opponents_baron_when_the_foreign_kings_daughter_is_bought_for_it_then_it_is_refused() -> None:
    """[P5] Only one's own Baron."""
    state = phase4(tile(1, "bohemia.aristocrat.0"), tile(0, "bohemia.aristocrat.1"), turn=0)
    rejected(state, cmd.BuyForeignKingsDaughter(seat=0, baron="bohemia.aristocrat.0"), "illegal_move")
    assert [c.baron for c in legal_of(state, 0, "BuyForeignKingsDaughter")] == ["bohemia.aristocrat.1"]


# --- Rival [P1, X12] -----------------------------------------------------------------------------------------


def test_given_zero_thalers_when_a_non_emperor_takes_the_rival_then_it_is_free_and_ends_his_phase_iv() -> None:
    """[P1, X12] Rival costs nothing; the taker's phase IV ends; the round now has a Rival."""
    state = phase4(thalers(2, 0), emperor=0, turn=2)
    events, after = accepted(state, cmd.BuyRival(seat=2))
    assert types(events) == ["CardTaken", "ActionsEnded", "DecisionRequested"]
    card = of_type(events, ev.CardTaken)[0]
    assert (card.seat, card.card, card.cost) == (2, "rival", 0)
    assert set(card.rulings) >= {"P1", "X12"}
    assert [p.seat for p in of_type(events, ev.ActionsEnded)] == [2]
    assert after.rival == 2
    assert 2 in after.passed
    assert after.thalers[2] == 0


def test_given_the_emperor_when_he_takes_the_rival_then_it_is_refused() -> None:
    """[P1, X12] The Emperor cannot take Rival."""
    state = phase4(emperor=1, turn=1)
    rejection = rejected(state, cmd.BuyRival(seat=1), "emperor_cannot_rival")
    assert "P1" in rejection.rulings
    assert legal_of(state, 1, "BuyRival") == []


def test_given_a_rival_was_taken_when_another_player_takes_it_then_stack_empty() -> None:
    """[X12, B5] One Rival per round."""
    state = phase4(taken(3, "rival"), passed(3), emperor=0, turn=1)
    assert state.rival == 3
    rejected(state, cmd.BuyRival(seat=1), "stack_empty")
    assert legal_of(state, 1, "BuyRival") == []


def test_given_a_rival_was_taken_when_everyone_has_passed_then_the_election_is_called() -> None:
    """[P1, E1] A Rival this round means phase VI holds an election."""
    state = phase4(taken(3, "rival"), passed(3), passed(1), passed(2), emperor=0, turn=0)
    events, after = accepted(state, cmd.Pass(seat=0))
    called = of_type(events, ev.ElectionCalled)
    assert [(c.emperor, c.rival) for c in called] == [(0, 3)]
    assert prompt(after).decision == "vote"
    assert prompt(after).seats == (1, 2)


# --- card colours decide descendants [B4, D1] ----------------------------------------------------------------


def descendants_after(*cards: str) -> list[ev.DescendantsCounted]:
    """Seat 1 took ``cards`` last round; phase III runs (entered by the Emperor's replacement after phase II)."""
    facts = [taken(1, card) for card in cards]
    state = given(
        [
            *start(4),
            ev.PhaseStarted(round=3, phase=2),
            tile(0, "mainz.aristocrat.0"),
            tile(0, "koeln.aristocrat.0", 35),
            *facts,
            request("replace_emperor", 0, after="phase_iii"),
        ]
    )
    events, _ = accepted(state, cmd.ChooseAristocrat(seat=0, space="koeln.aristocrat.0"))
    return of_type(events, ev.DescendantsCounted)


@pytest.mark.parametrize(
    ("card", "colour"),
    [
        ("permit", "pink"),
        ("ordinance", "pink"),
        ("indulgence", "pink"),
        ("foreign_kings_daughter", "pink"),
        ("promotion", "pink"),
        ("church_influence", "pink"),
        ("doctor", "blue"),
        ("move", "blue"),
        ("pope", "blue"),
        ("excommunication", "blue"),
        ("rival", "blue"),
        ("gray_eminence", "blue"),
    ],
)
def test_given_one_card_taken_when_descendants_are_counted_then_its_colour_decides(card: str, colour: str) -> None:
    """[B4, D1] Pink: Permit, Ordinance, Indulgence, Foreign king's daughter, Promotion, Church influence; blue:
    Doctor, Move, Pope, Excommunication, Rival, Gray eminence. One blue card: a son; one pink card: a daughter."""
    counted = {c.seat: c for c in descendants_after(card)}
    seat1 = counted[1]
    assert (seat1.pink, seat1.blue) == ((1, 0) if colour == "pink" else (0, 1))
    assert seat1.outcome == ("daughter" if colour == "pink" else "son")
    assert set(seat1.rulings) >= {"D1", "B4"}
    assert (counted[0].pink, counted[0].blue, counted[0].outcome) == (0, 0, "none")


@pytest.mark.parametrize(
    ("cards", "outcome"),
    [
        (("doctor", "permit"), "daughter"),  # blue = pink: a daughter
        (("doctor", "move", "permit"), "son"),  # blue > pink
        (("permit", "permit", "pope"), "daughter"),
    ],
)
def test_given_mixed_cards_when_descendants_are_counted_then_blue_must_outnumber_pink_for_a_son(
    cards: tuple[str, ...], outcome: str
) -> None:
    """[D1, B4] Blue > pink: a son; otherwise with any pink card: a daughter."""
    counted = {c.seat: c for c in descendants_after(*cards)}
    assert counted[1].outcome == outcome

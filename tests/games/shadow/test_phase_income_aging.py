"""Phase I income and phase II aging [I1, G2, A1, A2, A3, X4, X5].

Each scenario arranges the end of a round (the Emperor's phase VII empire city) and lets the Emperor place
it: phases VIII, I, II and III then run on their own, as in a real game.
"""

from __future__ import annotations

from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import Tile
from tests.games.shadow.round_support import before_round, next_round
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    city,
    empire_city,
    given,
    of_type,
    prompt,
    rejected,
    request,
    taken,
    thalers,
    tile,
    types,
)


def income(events: list[ev.Event]) -> dict[int, ev.IncomeCollected]:
    return {e.seat: e for e in of_type(events, ev.IncomeCollected)}


def broke(*seats: int) -> list[ev.ThalersChanged]:
    """The given seats start the round with 0 thalers."""
    return [thalers(seat, 0) for seat in seats]


# --- phase I ------------------------------------------------------------------------------------------------
def test_given_no_city_and_no_elector_when_income_is_paid_then_the_player_takes_the_basic_six() -> None:
    """[I1] Basic income is 6."""
    events, state = next_round(before_round(tile(0, "throne", 15), *broke(0, 1, 2, 3)))
    assert income(events)[3] == ev.IncomeCollected(
        seat=3, basic=6, own_cities=0, controlled_cities=0, saxony=0, balance=6, lost_to_cap=0, rulings=("I1", "G2")
    )
    assert state.thalers == (6, 6, 6, 6)


def test_given_own_cities_when_income_is_paid_then_each_counts_one_wherever_it_stands() -> None:
    """[I1] +1 per own city on the board, also in an electorate whose elector is another player's."""
    state = before_round(
        tile(0, "throne", 15),
        *broke(0, 1, 2, 3),
        city(2, "mainz.city.0"),
        city(2, "saxony.city.0"),
        tile(1, "saxony.elector", 25),
    )
    paid = income(next_round(state)[0])
    assert (paid[2].own_cities, paid[2].controlled_cities, paid[2].balance) == (2, 0, 8)


def test_given_an_elector_when_income_is_paid_then_other_players_cities_there_count_for_him() -> None:
    """[I1] +1 per other player's city in each electorate where the player holds the elector; his own city
    there counts once (as his own), an empire city never, and a city under an empty seat counts for nobody
    but its owner."""
    state = before_round(
        tile(0, "throne", 15),
        *broke(0, 1, 2, 3),
        tile(1, "mainz.elector", 25),
        city(0, "mainz.city.0"),
        empire_city("mainz.city.1"),
        tile(1, "koeln.elector", 25),
        city(1, "koeln.city.0"),
        city(3, "koeln.city.1"),
        city(2, "trier.city.0"),
    )
    paid = income(next_round(state)[0])
    assert (paid[1].own_cities, paid[1].controlled_cities, paid[1].balance) == (1, 2, 9)
    assert (paid[0].own_cities, paid[0].controlled_cities, paid[0].balance) == (1, 0, 7)
    assert (paid[2].own_cities, paid[2].controlled_cities, paid[2].balance) == (1, 0, 7)
    assert (paid[3].own_cities, paid[3].controlled_cities, paid[3].balance) == (1, 0, 7)


def test_given_the_saxony_elector_when_income_is_paid_then_he_takes_two_more() -> None:
    """[I1, P7] Saxony's elector adds 2 on his own, even if aged 45 (income comes before aging); nobody
    else does."""
    state = before_round(tile(0, "throne", 15), *broke(0, 1, 2, 3), tile(2, "saxony.elector", 45))
    events, state = next_round(state)
    paid = income(events)
    assert (paid[2].saxony, paid[2].balance) == (2, 8)
    assert [paid[seat].saxony for seat in (0, 1, 3)] == [0, 0, 0]
    assert types(events).index("IncomeCollected") < types(events).index("AristocratDied")


def test_given_an_empty_saxony_seat_when_income_is_paid_then_nobody_takes_the_saxony_bonus() -> None:
    """[I1, A3] A vacant Saxony seat gives no privilege."""
    state = before_round(tile(0, "throne", 15), *broke(0, 1, 2, 3), tile(2, "saxony.aristocrat.0", 25))
    paid = income(next_round(state)[0])
    assert [paid[seat].saxony for seat in range(4)] == [0, 0, 0, 0]


def test_given_a_rich_player_when_income_is_paid_then_it_stops_at_twelve_and_the_loss_is_recorded() -> None:
    """[I1, G2] Income is capped at 12; lost_to_cap records what the cap took."""
    state = before_round(
        tile(0, "throne", 15),
        thalers(1, 9),
        thalers(2, 12),
        thalers(3, 5),
        tile(1, "saxony.elector", 25),
        city(1, "saxony.city.0"),
        city(2, "saxony.city.1"),
    )
    events, state = next_round(state)
    paid = income(events)
    assert paid[1] == ev.IncomeCollected(
        seat=1, basic=6, own_cities=1, controlled_cities=1, saxony=2, balance=12, lost_to_cap=7, rulings=("I1", "G2")
    )
    assert (paid[2].balance, paid[2].lost_to_cap) == (12, 7)
    assert (paid[3].balance, paid[3].lost_to_cap) == (11, 0)
    assert state.thalers[1:] == (12, 12, 11)


def test_given_a_new_round_when_it_starts_then_income_comes_before_aging_and_descendants() -> None:
    """[I1, A1, D1] Phase VIII advances the round; phases I, II, III follow in order."""
    events, state = next_round(before_round(tile(0, "throne", 15)))
    phases = [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)]
    assert phases == [(1, 8), (2, 1), (2, 2), (2, 3), (2, 4)]
    order = types(events)
    assert order.index("IncomeCollected") < order.index("AristocratsAged") < order.index("DescendantsCounted")
    assert state.round == 2


# --- phase II -----------------------------------------------------------------------------------------------
def test_given_tiles_aged_45_everywhere_when_aging_then_all_die_first_and_the_others_age() -> None:
    """[A1, P8, A2] Every tile aged 45 dies (Emperor, electors, an elector that used its privilege, an
    aristocrat, the Gray eminence Baron); then the survivors age; then the dead Emperor is replaced."""
    state = before_round(
        tile(0, "throne", 45),
        tile(0, "palatinate.aristocrat.0", 25),
        tile(1, "mainz.elector", 45),
        tile(2, "koeln.elector", 45),
        ev.PrivilegeUsed(seat=2, electorate="koeln"),
        tile(1, "saxony.aristocrat.0", 45, couple=True),
        tile(3, "bohemia.eminence", 45),
        tile(2, "trier.aristocrat.0", 35),
        tile(3, "trier.aristocrat.1", 15),
        tile(1, "brandenburg.elector", 25),
    )
    events, state = next_round(state)
    died = of_type(events, ev.AristocratDied)
    assert [(e.owner, e.space, e.couple, e.cause, e.rulings) for e in died] == [
        (0, "throne", False, "old_age", ("A1",)),
        (1, "mainz.elector", False, "old_age", ("A1",)),
        (2, "koeln.elector", False, "old_age", ("A1",)),
        (1, "saxony.aristocrat.0", True, "old_age", ("A1",)),
        (3, "bohemia.eminence", False, "old_age", ("A1",)),
    ]
    aged = of_type(events, ev.AristocratsAged)
    assert aged == [
        ev.AristocratsAged(
            spaces=("trier.aristocrat.0", "trier.aristocrat.1", "palatinate.aristocrat.0", "brandenburg.elector"),
            rulings=("A1",),
        )
    ]
    order = [e.type for e in events if e.type in ("AristocratDied", "AristocratsAged", "AristocratMoved")]
    assert order == ["AristocratDied"] * 5 + ["AristocratsAged", "AristocratMoved"]
    assert at(state, "trier.aristocrat.0") == Tile(2, False, 45)
    assert at(state, "trier.aristocrat.1") == Tile(3, False, 25)
    assert at(state, "brandenburg.elector") == Tile(1, False, 35)
    for space in ("mainz.elector", "koeln.elector", "saxony.aristocrat.0", "bohemia.eminence"):
        assert at(state, space) is None
    assert state.tiles_in_supply == (6, 6, 6, 6)


def test_given_the_emperor_dies_with_one_aristocrat_when_aging_then_it_is_enthroned_at_its_age() -> None:
    """[A1, A2, X5] With one possible tile the engine replaces the Emperor without asking; the tile keeps its
    (just aged) age."""
    state = before_round(
        tile(0, "throne", 45), tile(0, "palatinate.aristocrat.0", 25, couple=True), tile(0, "bohemia.elector", 15)
    )
    events, state = next_round(state)
    moved = of_type(events, ev.AristocratMoved)
    assert moved == [
        ev.AristocratMoved(
            owner=0,
            from_space="palatinate.aristocrat.0",
            to_space="throne",
            reason="emperor_replaced",
            rulings=("A2", "X5"),
        )
    ]
    assert at(state, "throne") == Tile(0, True, 35)
    assert prompt(state).decision == "actions"
    assert state.emperor == 0


def test_given_identical_candidates_when_the_emperor_is_replaced_then_no_question_is_asked() -> None:
    """[A2, X5] Identical tiles on aristocrat spaces of one electorate are one option."""
    state = before_round(
        tile(1, "throne", 45), tile(1, "mainz.aristocrat.0", 15), tile(1, "mainz.aristocrat.1", 15), emperor=1
    )
    events, state = next_round(state)
    assert "replace_emperor" not in [e.prompt.decision for e in of_type(events, ev.DecisionRequested)]
    assert at(state, "throne") == Tile(1, False, 25)
    assert sum(1 for space in ("mainz.aristocrat.0", "mainz.aristocrat.1") if at(state, space) is not None) == 1


def test_given_the_emperor_dies_with_several_candidates_when_aging_then_his_player_chooses() -> None:
    """[A2] Several distinct tiles on aristocrat spaces: the Emperor's player is asked, before phase III."""
    state = before_round(
        tile(2, "throne", 45),
        tile(2, "mainz.aristocrat.0", 25),
        tile(2, "trier.aristocrat.0", 15, couple=True),
        tile(2, "saxony.elector", 25),
        taken(2, "doctor"),
        emperor=2,
    )
    events, state = next_round(state)
    p = prompt(state)
    assert (p.decision, p.seats, p.after) == ("replace_emperor", (2,), "phase_iii")
    assert events[-1].rulings == ("A2",)
    assert of_type(events, ev.DescendantsCounted) == []
    assert at(state, "throne") is None


def test_given_the_replacement_prompt_when_the_player_names_an_elector_then_it_is_rejected() -> None:
    """[A2] The new Emperor comes from an aristocrat space, never from an elector space."""
    state = before_round(
        tile(2, "throne", 45),
        tile(2, "mainz.aristocrat.0", 25),
        tile(2, "trier.aristocrat.0", 15, couple=True),
        tile(2, "saxony.elector", 25),
        emperor=2,
    )
    _, state = next_round(state)
    rejected(state, cmd.ChooseAristocrat(seat=2, space="saxony.elector"))
    rejected(state, cmd.ChooseAristocrat(seat=1, space="mainz.aristocrat.0"), "not_your_turn")


def test_given_the_replacement_prompt_when_the_player_chooses_then_the_tile_is_enthroned() -> None:
    """[A2, D1] The chosen tile moves to the throne at its age; phase III then starts with the Emperor."""
    state = before_round(
        tile(2, "throne", 45),
        tile(2, "mainz.aristocrat.0", 25),
        tile(2, "trier.aristocrat.0", 15, couple=True),
        emperor=2,
    )
    _, state = next_round(state)
    events, state = accepted(state, cmd.ChooseAristocrat(seat=2, space="trier.aristocrat.0"))
    assert events[0] == ev.AristocratMoved(
        owner=2, from_space="trier.aristocrat.0", to_space="throne", reason="emperor_replaced", rulings=("A2",)
    )
    assert at(state, "throne") == Tile(2, True, 25)
    assert [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)] == [(2, 3), (2, 4)]
    assert of_type(events, ev.DescendantsCounted)[0].seat == 2


def test_given_the_emperor_dies_without_aristocrats_when_aging_then_a_supply_baron_45_is_enthroned() -> None:
    """[A2] No tile on an aristocrat space (an elector does not qualify): a Baron aged 45 from supply."""
    state = before_round(tile(0, "throne", 45), tile(0, "bohemia.elector", 15))
    events, state = next_round(state)
    enthroned = [e for e in of_type(events, ev.AristocratPlaced) if e.space == "throne"]
    assert enthroned == [
        ev.AristocratPlaced(owner=0, space="throne", couple=False, age=45, reason="emperor_replaced", rulings=("A2",))
    ]
    assert at(state, "throne") == Tile(0, False, 45)
    assert at(state, "bohemia.elector") == Tile(0, False, 25)


def test_given_an_empty_throne_and_an_empty_supply_when_aging_then_the_throne_stays_empty() -> None:
    """[A2, X4] No eligible tile and no tile in supply: the throne stays empty and the player keeps the
    Emperor marker (phase III still starts with him)."""
    electors = [
        tile(0, f"{key}.elector", 15)
        for key in ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")
    ]
    state = before_round(*electors, emperor=0)
    assert state.tiles_in_supply[0] == 0
    events, state = next_round(state)
    assert at(state, "throne") is None
    assert not [e for e in of_type(events, ev.AristocratPlaced) if e.space == "throne"]
    assert state.emperor == 0
    assert of_type(events, ev.DescendantsCounted)[0].seat == 0
    assert (state.phase, prompt(state).decision, prompt(state).seats) == (4, "actions", (0,))


def test_given_a_dead_elector_when_phase_iv_comes_then_the_seat_is_empty_and_gives_no_privilege() -> None:
    """[A3, P7] The Köln elector died of old age: the seat stays empty until phase V and its former owner
    cannot use the privilege."""
    state = before_round(tile(0, "throne", 15), tile(0, "koeln.elector", 45), tile(1, "mainz.aristocrat.0", 15))
    _, state = next_round(state)
    assert at(state, "koeln.elector") is None
    assert prompt(state).seats == (0,)
    rejection = rejected(state, cmd.UseKoelnPrivilege(seat=0, target="mainz.aristocrat.0"), "no_privilege")
    assert rejection.rulings == ("P7",)
    assert not [c for c in RULES.legal_commands(state, 0) if c.type == "UseKoelnPrivilege"]


def test_given_a_dead_bohemia_elector_when_the_emperor_is_elected_then_the_seat_gives_no_vote() -> None:
    """[A3, E1] Bohemia's elector died in phase II: in that round's election its owner has no votes."""
    state = before_round(
        tile(0, "throne", 15),
        tile(3, "bohemia.elector", 45),
        tile(3, "saxony.elector", 15),
        tile(1, "mainz.elector", 15),
    )
    _, state = next_round(state)
    state = given(
        [
            ev.PhaseStarted(round=2, phase=4),
            taken(1, "rival"),
            ev.PhaseStarted(round=2, phase=6),
            ev.ElectionCalled(emperor=0, rival=1),
            request("vote", 2, 3),
        ],
        state,
    )
    _, state = accepted(state, cmd.CastVote(seat=2, candidate="rival"))
    events, _ = accepted(state, cmd.CastVote(seat=3, candidate="rival"))
    revealed = of_type(events, ev.VotesRevealed)[0]
    ballot = revealed.ballots[3]
    assert ballot.votes == 1
    assert [s.source for s in ballot.sources] == ["elector of Duchy of Saxony"]
    assert (revealed.emperor_votes, revealed.rival_votes) == (0, 2)


def test_given_an_empty_throne_that_cannot_be_filled_when_aging_then_an_event_cites_x4() -> None:
    """[X4] The empty throne is traceable in the record."""
    electors = [
        tile(0, f"{key}.elector", 15)
        for key in ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")
    ]
    events, _ = next_round(before_round(*electors, emperor=0))
    assert [e for e in events if "X4" in e.rulings]

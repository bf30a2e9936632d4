"""The seven privileges: who may use them, when, how often, and what they do [P6, P7, P8, I1, V5, E1, P3]."""

from __future__ import annotations

import orjson
import pytest
from pydantic import ValidationError

from events.base import Command
from services.games.shadow.rules.queries import BRANDENBURG, KOELN, PALATINATE, TRIER
from services.games.shadow.rules.state import GameState, Tile
from tests.games.shadow.phase4_support import fill, legal_of, phase4
from tests.games.shadow.support import (
    RULES,
    accepted,
    at,
    cmd,
    ev,
    knight,
    of_type,
    passed,
    prompt,
    rejected,
    taken,
    thalers,
    tile,
    types,
    used,
)

# --- Trier [P6, P7, D1] --------------------------------------------------------------------------------------

# Each Trier card: the copies that empty its stack (4 players), and a command whose effect is possible below.
TRIER_CASES = [
    ("doctor", 3, 1, cmd.BuyDoctor(seat=0, target="mainz.aristocrat.0", trier=True), "AristocratAgeChanged"),
    (
        "move",
        2,
        1,
        cmd.BuyMove(seat=0, source="koeln.aristocrat.0", electorate="bohemia", trier=True),
        "AristocratMoved",
    ),
    ("indulgence", 1, 2, cmd.BuyIndulgence(seat=0, trier=True), "VictoryPointsScored"),
    ("permit", 4, 3, cmd.BuyPermit(seat=0, electorate="bohemia", trier=True), "AristocratPlaced"),
    ("ordinance", 3, 4, cmd.BuyOrdinance(seat=0, electorate="bohemia", trier=True), "CityPlaced"),
    ("promotion", 1, 2, cmd.BuyPromotion(seat=0, knight="koeln.aristocrat.1", trier=True), "KnightPromoted"),
    (
        "foreign_kings_daughter",
        1,
        2,
        cmd.BuyForeignKingsDaughter(seat=0, baron="koeln.aristocrat.0", trier=True),
        "AristocratMarried",
    ),
]


def trier_position(card: str, copies: int, *extra: ev.Event, balance: int = 7) -> list[ev.Event]:
    """Seat 0 holds Trier; the other seats took every copy of ``card`` this round."""
    return [
        tile(0, "trier.elector", 25),
        tile(1, "mainz.aristocrat.0", 35),
        tile(0, "koeln.aristocrat.0", 25),
        knight(0, "koeln.aristocrat.1"),
        thalers(0, balance),
        *[taken(1 + i % 3, card) for i in range(copies)],
        *extra,
    ]


@pytest.mark.parametrize(("card", "copies", "cost", "command", "effect"), TRIER_CASES)
def test_given_an_empty_stack_when_the_trier_elector_uses_its_effect_then_he_pays_and_takes_no_card(
    card: str, copies: int, cost: int, command: Command, effect: str
) -> None:
    """[P6, P7, D1] Trier: the effect of an emptied stack at the card's price; no card is taken; a turn is used."""
    state = phase4(*trier_position(card, copies), turn=0)
    events, after = accepted(state, command)
    assert not of_type(events, ev.CardTaken)  # no card is taken: the event says so by its name
    copies = of_type(events, ev.CardEffectCopied)
    assert [(t.seat, t.card, t.cost) for t in copies] == [(0, card, cost)]
    assert "P6" in copies[0].rulings
    assert [(p.seat, p.electorate) for p in of_type(events, ev.PrivilegeUsed)] == [(0, "trier")]
    assert set(of_type(events, ev.PrivilegeUsed)[0].rulings) >= {"P6", "P7"}
    assert effect in types(events)
    assert after.thalers[0] == 7 - cost
    assert after.play_areas[0] == ()  # nothing counts for descendants [D1]
    assert after.privilege_used[TRIER]
    assert prompt(after).seats == (1,)  # the privilege used the turn [P7]


@pytest.mark.parametrize(("card", "copies", "cost", "command", "effect"), TRIER_CASES)
def test_given_a_card_left_in_its_stack_when_the_trier_elector_asks_for_a_copy_then_trier_not_needed(
    card: str, copies: int, cost: int, command: Command, effect: str
) -> None:
    """[P6] Trier works only for an empty stack."""
    state = phase4(*trier_position(card, copies - 1), turn=0)
    rejection = rejected(state, command, "trier_not_needed")
    assert rejection.rulings == ("P6",)
    offered = legal_of(state, 0, command.type)  # type: ignore[attr-defined]
    assert offered and {c.trier for c in offered} == {False}


def test_given_trier_was_used_this_round_when_its_elector_uses_it_again_then_no_privilege() -> None:
    """[P7] Once per round."""
    state = phase4(*trier_position("indulgence", 1, used(0, "trier")), turn=0)
    rejection = rejected(state, cmd.BuyIndulgence(seat=0, trier=True), "no_privilege")
    assert "P7" in rejection.rulings
    assert legal_of(state, 0, "BuyIndulgence") == []


def test_given_a_player_without_trier_when_he_asks_for_an_empty_stack_then_no_privilege() -> None:
    """[P6, P7] Only Trier's elector."""
    state = phase4(*trier_position("indulgence", 1), tile(1, "saxony.aristocrat.0"), turn=1)
    rejected(state, cmd.BuyIndulgence(seat=1, trier=True), "no_privilege")
    rejected(state, cmd.BuyIndulgence(seat=1), "stack_empty")
    assert legal_of(state, 1, "BuyIndulgence") == []


def test_given_too_few_thalers_when_trier_copies_an_ordinance_then_cannot_afford() -> None:
    """[P6, G2] Trier pays the card's price."""
    state = phase4(*trier_position("ordinance", 3, balance=3), turn=0)
    rejected(state, cmd.BuyOrdinance(seat=0, electorate="bohemia", trier=True), "cannot_afford")
    assert legal_of(state, 0, "BuyOrdinance") == []


@pytest.mark.parametrize("model", [cmd.BuyPope, cmd.BuyChurchInfluence, cmd.BuyExcommunication, cmd.BuyRival])
def test_given_a_card_trier_does_not_cover_when_it_is_asked_with_the_trier_flag_then_the_command_is_malformed(
    model: type[Command],
) -> None:
    """[P6] Pope, Church influence, Excommunication, Rival (and Gray eminence) do not qualify: no trier field."""
    with pytest.raises(ValidationError):
        model(seat=0, trier=True)


def test_given_the_pope_stack_is_empty_when_the_trier_elector_lists_his_commands_then_no_pope_is_offered() -> None:
    """[P6] An empty Pope stack stays empty even for Trier."""
    state = phase4(*trier_position("pope", 1), turn=0)
    assert legal_of(state, 0, "BuyPope") == []
    rejected(state, cmd.BuyPope(seat=0), "stack_empty")


# --- Köln [P3, P7, X10] --------------------------------------------------------------------------------------


def test_given_the_koeln_elector_with_no_thalers_when_he_uses_koeln_then_a_free_doctor_effect() -> None:
    """[P3, P7] A Doctor effect without a card and without paying; the privilege uses the turn."""
    state = phase4(tile(0, "koeln.elector", 25), tile(2, "saxony.aristocrat.0", 35), thalers(0, 0), turn=0)
    events, after = accepted(state, cmd.UseKoelnPrivilege(seat=0, target="saxony.aristocrat.0"))
    assert types(events) == ["PrivilegeUsed", "AristocratAgeChanged", "DecisionRequested"]
    used_event = of_type(events, ev.PrivilegeUsed)[0]
    assert (used_event.seat, used_event.electorate) == (0, "koeln")
    assert set(used_event.rulings) >= {"P3", "P7"}
    change = of_type(events, ev.AristocratAgeChanged)[0]
    assert (change.owner, change.age_before, change.age_after, change.by, change.cause) == (2, 35, 45, 0, "koeln")
    assert after.thalers[0] == 0
    assert after.play_areas[0] == ()
    assert after.privilege_used[KOELN]
    assert prompt(after).seats == (1,)


def test_given_an_opponent_aged_45_when_koeln_targets_it_then_it_dies() -> None:
    """[P3] Köln kills like the Doctor."""
    state = phase4(tile(0, "koeln.elector", 25), tile(3, "bohemia.elector", 45), turn=0)
    events, after = accepted(state, cmd.UseKoelnPrivilege(seat=0, target="bohemia.elector"))
    assert [(d.owner, d.space, d.cause) for d in of_type(events, ev.AristocratDied)] == [
        (3, "bohemia.elector", "koeln")
    ]
    assert at(after, "bohemia.elector") is None


def test_given_the_koeln_elector_himself_when_koeln_makes_him_younger_then_he_is_15() -> None:
    """[P3, X10] Köln may target its own elector; never below 15."""
    state = phase4(tile(0, "koeln.elector", 25), turn=0)
    _, after = accepted(state, cmd.UseKoelnPrivilege(seat=0, target="koeln.elector"))
    assert at(after, "koeln.elector") == Tile(0, False, 15)
    state = phase4(tile(0, "koeln.elector", 15), turn=0)
    rejected(state, cmd.UseKoelnPrivilege(seat=0, target="koeln.elector"), "illegal_move")


def test_given_koeln_was_used_this_round_when_its_elector_uses_it_again_then_privilege_used() -> None:
    """[P7] Once a round."""
    state = phase4(tile(0, "koeln.elector", 25), tile(2, "saxony.aristocrat.0"), used(0, "koeln"), turn=0)
    rejection = rejected(state, cmd.UseKoelnPrivilege(seat=0, target="saxony.aristocrat.0"), "privilege_used")
    assert rejection.rulings == ("P7",)
    assert legal_of(state, 0, "UseKoelnPrivilege") == []


def test_given_another_player_holds_koeln_when_a_player_uses_koeln_then_no_privilege() -> None:
    """[P7] Only the current elector."""
    state = phase4(tile(1, "koeln.elector", 25), tile(2, "saxony.aristocrat.0"), turn=0)
    rejection = rejected(state, cmd.UseKoelnPrivilege(seat=0, target="saxony.aristocrat.0"), "no_privilege")
    assert rejection.rulings == ("P7",)
    assert legal_of(state, 0, "UseKoelnPrivilege") == []


def test_given_the_doctor_stack_is_empty_when_koeln_is_used_then_it_still_works() -> None:
    """[P3, P7] Köln needs no Doctor card."""
    state = phase4(
        tile(0, "koeln.elector"),
        tile(2, "saxony.aristocrat.0"),
        taken(1, "doctor"),
        taken(2, "doctor"),
        taken(3, "doctor"),
        turn=0,
    )
    accepted(state, cmd.UseKoelnPrivilege(seat=0, target="saxony.aristocrat.0"))


# --- Palatinate [P7, D2, X6] ---------------------------------------------------------------------------------


def test_given_the_palatinate_elector_when_he_uses_it_then_a_free_baron_15_anywhere() -> None:
    """[P7, X1] A Baron aged 15 from supply onto any electorate's lowest free aristocrat space, free of charge."""
    state = phase4(tile(0, "palatinate.elector", 35, couple=True), tile(1, "mainz.aristocrat.0"), thalers(0, 0), turn=0)
    events, after = accepted(state, cmd.UsePalatinatePrivilege(seat=0, electorate="mainz"))
    assert types(events) == ["PrivilegeUsed", "AristocratPlaced", "DecisionRequested"]
    assert [(p.seat, p.electorate) for p in of_type(events, ev.PrivilegeUsed)] == [(0, "palatinate")]
    placed = of_type(events, ev.AristocratPlaced)[0]
    assert (placed.owner, placed.space, placed.couple, placed.age) == (0, "mainz.aristocrat.1", False, 15)
    assert "P7" in placed.rulings
    assert after.thalers[0] == 0
    assert after.privilege_used[PALATINATE]
    assert prompt(after).seats == (1,)


def test_given_a_full_electorate_when_palatinate_places_there_then_a_named_knight_is_pushed() -> None:
    """[P7, D2, X6] The push rule applies to the Palatinate's Baron."""
    state = phase4(tile(0, "palatinate.elector"), *fill("saxony", 1, -3, 2, 3), turn=0)
    events, after = accepted(state, cmd.UsePalatinatePrivilege(seat=0, electorate="saxony", push="saxony.aristocrat.1"))
    assert [(k.owner, k.space, k.by) for k in of_type(events, ev.KnightPushed)] == [(2, "saxony.aristocrat.1", 0)]
    assert at(after, "saxony.aristocrat.1") == Tile(0, False, 15)
    rejected(state, cmd.UsePalatinatePrivilege(seat=0, electorate="saxony"), "no_room")
    state = phase4(tile(0, "palatinate.elector"), *fill("saxony", 1, -3, 2), turn=0)
    rejected(
        state, cmd.UsePalatinatePrivilege(seat=0, electorate="saxony", push="saxony.aristocrat.1"), "push_not_allowed"
    )


def test_given_palatinate_was_used_when_used_again_or_by_another_then_it_is_refused() -> None:
    """[P7] Once a round, and only the Palatinate's elector."""
    state = phase4(tile(0, "palatinate.elector"), used(0, "palatinate"), turn=0)
    rejected(state, cmd.UsePalatinatePrivilege(seat=0, electorate="mainz"), "privilege_used")
    state = phase4(tile(0, "palatinate.elector"), turn=1)
    rejected(state, cmd.UsePalatinatePrivilege(seat=1, electorate="mainz"), "no_privilege")


def test_given_an_empty_tile_supply_when_palatinate_is_used_then_supply_empty() -> None:
    """[B3, P2] No tile in supply: the privilege's effect cannot be carried out."""
    tiles = [tile(0, f"{e}.aristocrat.0") for e in ("mainz", "koeln", "trier", "saxony", "brandenburg", "bohemia")]
    state = phase4(tile(0, "palatinate.elector"), *tiles, turn=0)
    rejected(state, cmd.UsePalatinatePrivilege(seat=0, electorate="mainz"), "supply_empty")
    assert legal_of(state, 0, "UsePalatinatePrivilege") == []


# --- Brandenburg [P8, P7] ------------------------------------------------------------------------------------


def test_given_the_brandenburg_elector_when_he_takes_the_gray_eminence_then_privilege_and_card() -> None:
    """[P8, P7] Taking the Gray eminence is Brandenburg's privilege; free; uses the turn."""
    state = phase4(tile(2, "brandenburg.elector"), thalers(2, 0), turn=2)
    events, after = accepted(state, cmd.TakeGrayEminence(seat=2))
    assert types(events) == ["PrivilegeUsed", "CardTaken", "DecisionRequested"]
    assert [(p.seat, p.electorate) for p in of_type(events, ev.PrivilegeUsed)] == [(2, "brandenburg")]
    assert set(of_type(events, ev.PrivilegeUsed)[0].rulings) >= {"P7", "P8"}
    card = of_type(events, ev.CardTaken)[0]
    assert (card.seat, card.card, card.cost) == (2, "gray_eminence", 0)
    assert after.play_areas[2] == ("gray_eminence",)
    assert after.privilege_used[BRANDENBURG]
    assert prompt(after).seats == (3,)


@pytest.mark.parametrize("holder", [None, 1])
def test_given_a_player_who_is_not_brandenburgs_elector_when_he_takes_the_gray_eminence_then_no_privilege(
    holder: int | None,
) -> None:
    """[P8, P7] Only Brandenburg's elector (an empty seat gives it to nobody)."""
    facts = [] if holder is None else [tile(holder, "brandenburg.elector")]
    state = phase4(*facts, tile(2, "koeln.elector"), turn=2)
    rejected(state, cmd.TakeGrayEminence(seat=2), "no_privilege")
    assert legal_of(state, 2, "TakeGrayEminence") == []


def test_given_brandenburg_was_used_when_its_elector_takes_the_gray_eminence_again_then_privilege_used() -> None:
    """[P7] Once a round."""
    state = phase4(tile(2, "brandenburg.elector"), used(2, "brandenburg"), turn=2)
    rejected(state, cmd.TakeGrayEminence(seat=2), "privilege_used")


def test_given_the_gray_eminence_card_was_taken_when_phase_v_starts_then_its_holder_may_place_the_baron() -> None:
    """[P8, X13] At the start of phase V the card's holder is asked first."""
    state = phase4(tile(2, "brandenburg.elector"), taken(2, "gray_eminence"), passed(0), passed(1), passed(2), turn=3)
    events, after = accepted(state, cmd.Pass(seat=3))
    assert of_type(events, ev.PhaseStarted)[0].phase == 5
    assert (prompt(after).decision, prompt(after).seats) == ("gray_eminence", (2,))
    assert not of_type(events, ev.ElectorRetained)  # asked before any electorate is settled


# --- Mainz, Saxony, Bohemia: automatic [V5, I1, E1, P7] -------------------------------------------------------


def round_four_ends(*facts: ev.Event, rival: int | None = None) -> tuple[list[ev.Event], GameState]:
    """Everyone but seat 0 (the Emperor) has passed in round 4; seat 0 passes and the game runs on."""
    extra = [] if rival is None else [taken(rival, "rival")]
    state = phase4(tile(0, "throne", 25), *facts, *extra, passed(1), passed(2), passed(3), round_=4, turn=0)
    return accepted(state, cmd.Pass(seat=0))


def test_given_a_mainz_elector_when_phase_v_settles_mainz_then_he_scores_one_point() -> None:
    """[V5, P7] Mainz's privilege: 1 VP in phase V, without any command."""
    events, _ = round_four_ends(tile(1, "mainz.elector"))
    mainz = [v for v in of_type(events, ev.VictoryPointsScored) if "V5" in v.rulings]
    assert [(v.seat, v.points, v.reason) for v in mainz] == [(1, 1, "elector of Mainz")]


def test_given_no_mainz_elector_when_phase_v_settles_mainz_then_nobody_scores_for_it() -> None:
    """[V5, A3] An empty seat has no privilege."""
    events, _ = round_four_ends(tile(1, "koeln.elector"))
    assert [v for v in of_type(events, ev.VictoryPointsScored) if "V5" in v.rulings] == []


def test_given_a_saxony_elector_when_the_next_round_pays_income_then_he_takes_two_more() -> None:
    """[I1, P7] Saxony: +2 income in phase I, automatically; nobody else gets it."""
    events, _ = round_four_ends(tile(2, "saxony.elector"), thalers(2, 0), thalers(1, 0))
    income = {i.seat: i for i in of_type(events, ev.IncomeCollected)}
    assert (income[2].saxony, income[2].balance) == (2, 8)
    assert (income[1].saxony, income[1].balance) == (0, 6)
    assert "I1" in income[2].rulings


def test_given_privileges_were_used_when_the_next_round_starts_then_they_are_usable_again() -> None:
    """[P7] Each privilege is used at most once a round: they reset at the start of the next round."""
    events, after = round_four_ends(
        tile(1, "koeln.elector"), used(1, "koeln"), tile(3, "trier.elector"), used(3, "trier")
    )
    assert (after.round, after.phase) == (5, 4)  # nothing asked on the way (round 4: no empire city)
    assert after.privilege_used == (False,) * 7
    starts = [(p.round, p.phase) for p in of_type(events, ev.PhaseStarted)]
    assert (5, 1) in starts


def test_given_a_bohemia_elector_when_the_votes_are_revealed_then_he_has_two_votes() -> None:
    """[E1, P7] Bohemia's seat is worth 2 votes; any other seat 1."""
    events, state = round_four_ends(tile(2, "bohemia.elector"), tile(3, "saxony.elector"), rival=1)
    assert (prompt(state).decision, prompt(state).seats) == ("vote", (2, 3))
    _, state = accepted(state, cmd.CastVote(seat=2, candidate="rival"))
    events, _ = accepted(state, cmd.CastVote(seat=3, candidate="emperor"))
    revealed = of_type(events, ev.VotesRevealed)[0]
    ballots = {b.seat: b for b in revealed.ballots}
    assert ballots[2].votes == 2
    assert [(s.source, s.votes) for s in ballots[2].sources] == [("elector of Kingdom of Bohemia", 2)]
    assert ballots[3].votes == 1
    assert (revealed.emperor_votes, revealed.rival_votes, revealed.winner) == (1, 2, 1)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_given_a_shadow_2_log_when_its_trier_copy_is_read_then_it_is_a_card_effect_copied(as_bytes: bool) -> None:
    """[P6, D1] shadow-2 recorded a Trier copy as ``CardTaken`` with ``via_trier``; it is read as the fact it
    was, a ``CardEffectCopied``, and a card really taken stays a ``CardTaken`` without the old flag."""
    copy = {"type": "CardTaken", "seat": 0, "card": "doctor", "cost": 1, "via_trier": True, "rulings": ["P2", "P3"]}
    take = {**copy, "via_trier": False, "without_effect": True}
    read = [RULES.parse_event(orjson.dumps(raw) if as_bytes else raw) for raw in (copy, take)]
    assert read == [
        ev.CardEffectCopied(seat=0, card="doctor", cost=1, rulings=("P2", "P3")),
        ev.CardTaken(seat=0, card="doctor", cost=1, without_effect=True, rulings=("P2", "P3")),
    ]


def test_given_a_shadow_2_log_when_its_rival_pass_is_read_then_it_is_actions_ended() -> None:
    """[P1] shadow-2 recorded the end of a Rival taker's phase IV as ``Passed`` with ``reason: "rival"``: it is
    read as ``ActionsEnded``; a real pass stays a ``Passed``."""
    rival = b'{"type": "Passed", "seat": 2, "reason": "rival", "rulings": ["P1"]}'
    real = b'{"type": "Passed", "seat": 1, "reason": "pass", "rulings": ["P1"]}'
    assert RULES.parse_event(rival) == ev.ActionsEnded(seat=2, rulings=("P1",))
    assert RULES.parse_event(real) == ev.Passed(seat=1, rulings=("P1",))

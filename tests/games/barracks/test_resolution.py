"""Resolving surrounded Emperors [K22-K27, K41]: values, cancelling, Cavalry, trump, Quaestor and Ambitus, value 0,
ties, capture by side or by player, the order chosen by the active player, and the clean-up of the board."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from tests.games.barracks.support import (
    E22,
    N22,
    ROMA,
    S22,
    W22,
    accepted,
    at,
    discard,
    emperor_at,
    legal,
    one,
    play,
    rejected,
    table,
    types,
    won,
)

SPARE = {"4,4": "blue-emperor-13"}  # a second Emperor, far away, so that the round goes on


def rome(colour: str = "red", **kw: object) -> dict[str, object]:
    return {"emperors": {ROMA: f"{colour}-emperor-01", **SPARE}, **kw}


def sides(event: object) -> dict[str, tuple[int, bool, bool]]:
    """Per side: (value, ignored, trump)."""
    return {s.side: (s.value, s.ignored, s.trump) for s in event.sides}  # type: ignore[attr-defined]


def test_given_three_sides_when_the_fourth_card_surrounds_a_red_emperor_then_the_highest_red_card_captures_it() -> None:
    """[K22, K23, K25, K27] The highest trump wins; the Emperor goes to the faction whose side it is on; the winning
    card is discarded and every card touching no Emperor any more is discarded too."""
    state = table(
        **rome(board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"}),
        hands={0: ["red-7-praetorian-guard", "blue-3-tribute"]},
    )
    events, after = accepted(state, play(0, "red-7-praetorian-guard", N22))
    assert types(events)[:4] == ["InfluencePlayed", "EmperorResolved", "CardsDiscarded", "CardsDiscarded"]
    resolved = one(events, F.EmperorResolved)
    assert resolved.trump == "red" and resolved.trump_reason == "emperor_colour"
    assert sides(resolved) == {
        "north": (7, False, True), "east": (5, False, False), "south": (3, False, True), "west": (6, False, False)
    }  # fmt: skip
    assert (resolved.winner, resolved.winning_side, resolved.outcome, resolved.reason) == (
        "red-7-praetorian-guard", "north", "captured", "highest_trump"
    )  # fmt: skip
    assert resolved.captured_by_seat == 0
    assert {"K22", "K23", "K25", "K27"} <= set(resolved.rulings)
    winning, orphans = events[2], events[3]
    assert (winning.reason, winning.cards) == ("winning_card", ("red-7-praetorian-guard",))
    assert orphans.reason == "orphaned" and set(orphans.cards) == {"blue-5-foederati", "red-3-cavalry", "yellow-6-mob"}
    assert won(after, 0) == ["red-emperor-01"] and emperor_at(after, ROMA) is None
    assert "red-7-praetorian-guard" in discard(after)


def test_given_a_card_still_touching_another_emperor_when_the_emperor_leaves_then_it_stays() -> None:
    """[K27] Only cards that touch no Emperor are cleaned up; the losing card on a shared side stays."""
    state = table(
        emperors={ROMA: "red-emperor-01", "2,4": "blue-emperor-01"},
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-7-praetorian-guard"]},
    )
    _, after = accepted(state, play(0, "red-7-praetorian-guard", N22))
    assert at(after, E22) == "blue-5-foederati"  # 2,3 is also the West side of 2,4
    assert at(after, S22) is None and at(after, W22) is None


def test_given_equal_values_of_different_suits_when_resolved_then_they_cancel_and_the_next_card_wins() -> None:
    """[K24] Cards of equal value are ignored whatever their suit; the highest remaining trump wins."""
    state = table(
        **rome(board={E22: "blue-7-triumph", S22: "red-3-castra", W22: "yellow-5-mob"}), hands={0: ["red-7-spiculum"]}
    )
    events, _ = accepted(state, play(0, "red-7-spiculum", N22, "decline"))
    resolved = one(events, F.EmperorResolved)
    assert sides(resolved)["north"] == (7, True, True) and sides(resolved)["east"] == (7, True, False)
    assert resolved.winner == "red-3-castra" and resolved.winning_side == "south"


def test_given_four_equal_values_when_resolved_then_the_emperor_dies_and_no_one_captures_it() -> None:
    """[K24] All four cards ignored: the Emperor dies (out of the game); nothing is won, the cards stay unless
    orphaned."""
    state = table(
        emperors={ROMA: "red-emperor-01", "2,4": "blue-emperor-01", **SPARE},
        board={E22: "blue-4-tribute", S22: "red-4-castra", W22: "yellow-4-quaestor"},
        hands={0: ["blue-4-princeps-senatus"]},
    )
    events, after = accepted(state, play(0, "blue-4-princeps-senatus", N22, "decline"))
    resolved = one(events, F.EmperorResolved)
    assert (resolved.outcome, resolved.reason, resolved.winner) == ("died", "all_ignored", None)
    assert all(s.ignored for s in resolved.sides)
    assert won(after, 0) == [] and after.T.emperor_index["red-emperor-01"] in after.out
    assert at(after, E22) == "blue-4-tribute"  # still touches 2,4


def test_given_cavalry_and_a_card_of_its_value_when_resolved_then_cavalry_stays_and_the_other_is_ignored() -> None:
    """[K24] Cavalry is never ignored; a card of its value still is."""
    state = table(
        **rome("blue", board={E22: "red-3-cavalry", S22: "yellow-3-ambitus", W22: "red-2-reinforcements"}),
        hands={0: ["blue-1-influence-peddling"]},
    )
    events, _ = accepted(state, play(0, "blue-1-influence-peddling", N22))
    resolved = one(events, F.EmperorResolved)
    assert sides(resolved)["east"][:2] == (3, False) and sides(resolved)["south"][:2] == (3, True)
    # Ambitus is ignored yet trump does not matter here: blue 1 is the only trump left, and it wins.
    assert resolved.winner == "blue-1-influence-peddling"


def test_given_two_cavalry_of_the_same_value_when_they_lead_then_the_emperor_dies_of_the_tie() -> None:
    """[K26] Two cards can tie for the win only as two Cavalry: the Emperor dies."""
    state = table(
        **rome(board={E22: "red-3-cavalry", S22: "blue-1-influence-peddling", W22: "yellow-2-popularity"}),
        hands={0: ["red-4-cavalry"]},
        counters={"red-3-cavalry": 1},
    )
    events, _ = accepted(state, play(0, "red-4-cavalry", N22))
    resolved = one(events, F.EmperorResolved)
    assert sides(resolved)["east"] == (4, False, True) and sides(resolved)["north"] == (4, False, True)
    assert (resolved.outcome, resolved.reason) == ("died", "tie") and "K26" in resolved.rulings


def test_given_counters_when_resolved_then_they_add_to_the_printed_value() -> None:
    """[K23, K18] A card's value is its printed value plus its counters."""
    state = table(
        **rome(board={E22: "red-6-force-march", S22: "red-3-castra", W22: "yellow-7-demagogue"}),
        hands={0: ["red-5-flanking-maneuver"]},
        counters={"red-3-castra": 0, "red-6-force-march": 2},
    )
    events, _ = accepted(state, play(0, "red-5-flanking-maneuver", N22, "decline"))
    resolved = one(events, F.EmperorResolved)
    east = next(s for s in resolved.sides if s.side == "east")
    assert (east.printed, east.counters, east.value) == (6, 2, 8)
    assert resolved.winner == "red-6-force-march"  # 6 + 2 beats the printed 7 and 5


def test_given_no_trump_card_when_resolved_then_the_highest_card_of_any_suit_wins() -> None:
    """[K25] With no card of the Emperor's colour remaining, the highest remaining card wins."""
    state = table(
        **rome("blue", board={E22: "red-6-force-march", S22: "yellow-8-pretender", W22: "red-3-castra"}),
        hands={0: ["yellow-5-mob"]},
    )
    events, _ = accepted(state, play(0, "yellow-5-mob", N22, "decline"))
    resolved = one(events, F.EmperorResolved)
    assert resolved.reason == "highest_card" and resolved.winner == "yellow-8-pretender"
    assert resolved.captured_by_seat == 2


def test_given_a_quaestor_when_resolved_then_there_is_no_trump_even_for_ambitus() -> None:
    """[K25] Any Quaestor on the Emperor means no trump (Ambitus included): the single highest card wins."""
    state = table(
        **rome("red", board={E22: "red-7-spiculum", S22: "blue-8-triumph", W22: "yellow-4-ambitus"}),
        hands={0: ["yellow-3-quaestor"]},
    )
    events, _ = accepted(state, play(0, "yellow-3-quaestor", N22))
    resolved = one(events, F.EmperorResolved)
    assert (resolved.trump, resolved.trump_reason) == (None, "quaestor")
    assert resolved.quaestors == ("yellow-3-quaestor",) and resolved.ambitus == ("yellow-4-ambitus",)
    assert not any(s.trump for s in resolved.sides)
    assert resolved.winner == "blue-8-triumph"


def test_given_an_ignored_quaestor_when_resolved_then_it_still_removes_the_trump() -> None:
    """[K25] Quaestor acts while face up and uncovered on a side, even when K24 ignores it."""
    state = table(
        **rome("red", board={E22: "red-3-castra", S22: "blue-6-foederati", W22: "yellow-3-quaestor"}),
        hands={0: ["blue-5-frumentarii"]},
    )
    events, _ = accepted(state, play(0, "blue-5-frumentarii", N22, "decline"))
    resolved = one(events, F.EmperorResolved)
    assert sides(resolved)["west"][1] is True and resolved.trump is None
    assert resolved.winner == "blue-6-foederati"  # not the red Castra: there is no trump


def test_given_an_ambitus_when_resolved_then_it_counts_as_trump() -> None:
    """[K25] Ambitus counts as the Emperor's colour."""
    state = table(
        **rome("blue", board={E22: "red-7-praetorian-guard", S22: "yellow-4-ambitus", W22: "red-8-spiculum"}),
        hands={0: ["blue-2-influence-peddling"]},
    )
    events, _ = accepted(state, play(0, "blue-2-influence-peddling", N22))
    resolved = one(events, F.EmperorResolved)
    assert sides(resolved)["south"] == (4, False, True)
    assert resolved.winner == "yellow-4-ambitus" and resolved.reason == "highest_trump"


def test_given_only_a_value_zero_card_left_when_resolved_then_no_card_can_win_and_the_emperor_dies() -> None:
    """[K26, K23, K3] A barbarian is 0 and never wins: with the three others cancelled, the Emperor dies."""
    state = table(
        **rome(board={E22: "barbarian-05", S22: "red-5-force-march", W22: "yellow-5-mob"}),
        hands={0: ["blue-5-foederati"]},
    )
    events, _ = accepted(state, play(0, "blue-5-foederati", N22))
    resolved = one(events, F.EmperorResolved)
    kinds = {s.side: (s.kind, s.value, s.suit, s.ignored) for s in resolved.sides}
    assert kinds["east"] == ("barbarian", 0, None, False)
    assert (resolved.outcome, resolved.reason) == ("died", "no_card_can_win") and "K26" in resolved.rulings


def test_given_a_face_down_card_when_resolved_then_it_counts_0_with_no_suit() -> None:
    """[K23, K33] A face-down card is 0 with no suit: a face-down red 8 does not win a red Emperor."""
    state = table(
        **rome(board={E22: "red-8-spiculum", S22: "blue-3-tribute", W22: "yellow-4-quaestor"}),
        hands={0: ["blue-5-foederati"]},
        face_down=["red-8-spiculum", "yellow-4-quaestor"],
    )
    events, _ = accepted(state, play(0, "blue-5-foederati", N22))
    resolved = one(events, F.EmperorResolved)
    kinds = {s.side: (s.kind, s.value, s.suit) for s in resolved.sides}
    assert kinds["east"] == ("face_down", 0, None) and kinds["west"] == ("face_down", 0, None)
    assert resolved.quaestors == () and resolved.trump == "red"  # a face-down Quaestor has no text
    assert resolved.winner == "blue-5-foederati" and resolved.reason == "highest_card"


def test_given_capture_by_player_when_a_card_played_by_another_seat_wins_then_that_seat_captures() -> None:
    """[K27] Option capture=player: the Emperor goes to whoever played the winning card, not the side's faction."""
    state = table(
        settings={"capture": "player"},
        **rome(board={E22: "red-8-spiculum", S22: "blue-3-tribute", W22: "yellow-3-quaestor"}),
        owners={"red-8-spiculum": 3},
        hands={0: ["blue-4-tribute"]},
    )
    events, after = accepted(state, play(0, "blue-4-tribute", N22))
    resolved = one(events, F.EmperorResolved)
    assert resolved.winning_side == "east" and resolved.captured_by_seat == 3
    assert won(after, 3) == ["red-emperor-01"] and won(after, 1) == []


def test_given_two_emperors_surrounded_at_once_when_the_active_player_orders_them_then_they_resolve_in_that_order() -> (
    None
):
    """[K22] Several surrounded Emperors: the active player chooses which resolves next; the board is checked again
    after each."""
    state = table(
        emperors={ROMA: "red-emperor-01", "2,4": "blue-emperor-01", **SPARE},
        board={N22: "red-8-spiculum", S22: "blue-3-tribute", W22: "yellow-3-quaestor",
               "1,4": "yellow-2-popularity", "2,5": "red-3-castra", "3,4": "red-4-castra"},
        hands={1: ["red-5-force-march"]},
        turn=1,
    )  # fmt: skip
    events, after = accepted(state, play(1, "red-5-force-march", E22))
    request = one(events, F.DecisionRequested)
    assert (request.decision, set(request.emperors)) == ("order", {"red-emperor-01", "blue-emperor-01"})
    assert "K22" in request.rulings
    assert {c.emperor for c in legal(after, 1, "ResolveEmperor")} == {"red-emperor-01", "blue-emperor-01"}
    rejected(after, F.ResolveEmperor(seat=1, emperor="blue-emperor-13"), "not_surrounded", "K22")
    events, after = accepted(after, F.ResolveEmperor(seat=1, emperor="blue-emperor-01"))
    resolutions = [e for e in events if type(e) is F.EmperorResolved]
    # The second Emperor lost its shared side (the winning card, red 5, was discarded): it is no longer surrounded.
    assert [r.emperor for r in resolutions] == ["blue-emperor-01"]
    assert resolutions[0].chosen_by == 1 and resolutions[0].winner == "red-5-force-march"
    assert resolutions[0].captured_by_seat == 3  # the red 5 lies on the West side of 2,4
    assert at(after, E22) is None and emperor_at(after, ROMA) == "red-emperor-01"


def test_given_the_last_emperor_resolved_when_none_is_left_then_the_round_ends_at_once() -> None:
    """[K21, K38] No Emperor left after the resolutions: the round ends, the Forum pick is skipped."""
    state = table(
        emperors={ROMA: "red-emperor-01"},
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-7-praetorian-guard"]},
    )
    events, after = accepted(state, play(0, "red-7-praetorian-guard", N22))
    assert "RoundEnded" in types(events) and "ForumTaken" not in types(events)
    ended = one(events, F.RoundEnded)
    assert (ended.round, ended.reason) == (1, "no_emperors")
    assert after.round == 2


def test_given_a_barbarian_covering_a_card_when_its_space_is_orphaned_then_both_are_discarded() -> None:
    """[K27, K19] A card touching no Emperor is discarded with the card it covers."""
    state = table(
        **rome(board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: ("barbarian-06", "yellow-6-mob")}),
        hands={0: ["red-7-praetorian-guard"]},
    )
    events, after = accepted(state, play(0, "red-7-praetorian-guard", N22))
    orphaned = next(e for e in events if type(e) is F.CardsDiscarded and e.reason == "orphaned")
    assert {"barbarian-06", "yellow-6-mob"} <= set(orphaned.cards)
    assert "yellow-6-mob" in discard(after) and "barbarian-06" in discard(after)

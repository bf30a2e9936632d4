"""Populace (yellow) abilities: Popularity, Quaestor, Ambitus, Mob, Mobile Vulgus, Pretender, Demagogue; each
used, with no legal target, and under another seat's Demagogue [K18, K25, K33, K36-K38]."""

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
    pick,
    place,
    play,
    rejected,
    table,
    types,
)

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}
NW = "-1,0"  # North side of 0,0


def first_pick(state: object) -> object:
    """The pick of the leftmost Forum card by the active seat."""
    seat = state.actor_seat[state.active]  # type: ignore[attr-defined]
    return pick(seat, state.T.card_ids[state.forum[0]])  # type: ignore[attr-defined]


# --- Popularity ----------------------------------------------------------------------------------------------------
def test_given_a_yellow_card_when_popularity_is_used_then_it_gets_a_counter() -> None:
    """[K18, K2] Popularity (value 2) puts a +2 counter on another face-up yellow card."""
    state = table(emperors=BOARD, board={E22: "yellow-5-mob"}, hands={0: ["yellow-2-popularity"]})
    events, after = accepted(state, play(0, "yellow-2-popularity", NW, "use", "yellow-5-mob"))
    assert one(events, F.CounterPlaced).total == 2
    assert after.counters[after.T.card_index["yellow-5-mob"]] == 2


def test_given_only_a_face_down_yellow_card_when_popularity_is_played_then_it_has_no_target() -> None:
    """[K18, K33, K17] A face-down card has no suit: it takes no counter."""
    state = table(
        emperors=BOARD, board={E22: "yellow-5-mob"}, face_down=["yellow-5-mob"], hands={0: ["yellow-1-popularity"]}
    )
    rejected(state, play(0, "yellow-1-popularity", NW, "use", "yellow-5-mob"), "no_ability_choice", "K17")
    assert one(accepted(state, play(0, "yellow-1-popularity", NW))[0], F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_popularity_is_played_then_no_counter() -> None:
    """[K37]"""
    state = table(emperors=BOARD, board={E22: "yellow-5-mob"}, hands={0: ["yellow-1-popularity"]}, demagogue=1)
    rejected(state, play(0, "yellow-1-popularity", NW, "use", "yellow-5-mob"), "no_ability_choice", "K37")
    assert one(accepted(state, play(0, "yellow-1-popularity", NW))[0], F.InfluencePlayed).ability == "suppressed"


# --- Quaestor and Ambitus --------------------------------------------------------------------------------------------
def test_given_a_demagogue_when_quaestor_and_ambitus_lie_on_an_emperor_then_they_still_act() -> None:
    """[K37, K25, K17] Quaestor and Ambitus are always on; a Demagogue does not touch them."""
    state = table(
        emperors=BOARD,
        board={E22: "red-6-force-march", S22: "yellow-4-quaestor", W22: "blue-8-triumph"},
        hands={0: ["yellow-3-ambitus"]},
        demagogue=2,
    )
    rejected(state, play(0, "yellow-3-ambitus", N22, "use"), "no_ability_choice")
    events, _ = accepted(state, play(0, "yellow-3-ambitus", N22))
    resolved = one(events, F.EmperorResolved)
    assert one(events, F.InfluencePlayed).ability == "always_on"
    assert resolved.trump is None and resolved.winner == "blue-8-triumph"


# --- Mob -----------------------------------------------------------------------------------------------------------
def test_given_a_card_with_counters_on_the_emperor_when_mob_flips_it_then_it_is_face_down_without_counters() -> None:
    """[K33, K18, KX1] Mob flips another face-up influence card on the Emperor it is played on; its counters are
    discarded."""
    state = table(
        emperors=BOARD, board={E22: "red-6-force-march"}, counters={"red-6-force-march": 2}, hands={0: ["yellow-5-mob"]}
    )
    events, after = accepted(state, play(0, "yellow-5-mob", N22, "use", "red-6-force-march"))
    flip = one(events, F.CardFlipped)
    assert (flip.target, flip.space, flip.counters_lost) == ("red-6-force-march", E22, 2)
    c = after.T.card_index["red-6-force-march"]
    assert after.face_down[c] and after.counters[c] == 0 and at(after, E22) == "red-6-force-march"


def test_given_only_castra_a_barbarian_and_a_face_down_card_when_mob_is_played_then_it_has_no_target() -> None:
    """[K33, K32, K17] Mob flips only a face-up influence card, never Castra."""
    state = table(
        emperors=BOARD,
        board={E22: "red-3-castra", S22: "barbarian-01", W22: "blue-6-foederati"},
        face_down=["blue-6-foederati"],
        hands={0: ["yellow-6-mob"]},
    )
    rejected(state, play(0, "yellow-6-mob", N22, "use", "red-3-castra"), "no_ability_choice")
    events, _ = accepted(state, play(0, "yellow-6-mob", N22))
    assert one(events, F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_mob_is_played_then_nothing_is_flipped() -> None:
    """[K37]"""
    state = table(emperors=BOARD, board={E22: "red-6-force-march"}, hands={0: ["yellow-5-mob"]}, demagogue=1)
    rejected(state, play(0, "yellow-5-mob", N22, "use", "red-6-force-march"), "no_ability_choice", "K37")
    _, after = accepted(state, play(0, "yellow-5-mob", N22))
    assert not after.face_down[after.T.card_index["red-6-force-march"]]


# --- Mobile Vulgus -------------------------------------------------------------------------------------------------
def test_given_a_yellow_card_anywhere_when_mobile_vulgus_is_used_then_it_is_discarded() -> None:
    """[K33] Mobile Vulgus discards another face-up Populace card anywhere on the board."""
    state = table(emperors=BOARD, board={"4,3": "yellow-8-pretender"}, hands={0: ["yellow-6-mobile-vulgus"]})
    events, after = accepted(state, play(0, "yellow-6-mobile-vulgus", NW, "use", "yellow-8-pretender"))
    assert one(events, F.CardsDiscarded).reason == "mobile_vulgus"
    assert at(after, "4,3") is None and "yellow-8-pretender" in discard(after)


def test_given_only_a_face_down_yellow_card_when_mobile_vulgus_is_played_then_it_has_no_target() -> None:
    """[K33, K17] A face-down card has no suit."""
    state = table(
        emperors=BOARD,
        board={"4,3": "yellow-8-pretender"},
        face_down=["yellow-8-pretender"],
        hands={0: ["yellow-5-mobile-vulgus"]},
    )
    assert one(accepted(state, play(0, "yellow-5-mobile-vulgus", NW))[0], F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_mobile_vulgus_is_played_then_nothing_is_discarded() -> None:
    """[K37]"""
    state = table(
        emperors=BOARD, board={"4,3": "yellow-8-pretender"}, hands={0: ["yellow-5-mobile-vulgus"]}, demagogue=2
    )
    rejected(state, play(0, "yellow-5-mobile-vulgus", NW, "use", "yellow-8-pretender"), "no_ability_choice", "K37")
    assert at(accepted(state, play(0, "yellow-5-mobile-vulgus", NW))[1], "4,3") == "yellow-8-pretender"


# --- Pretender -----------------------------------------------------------------------------------------------------
AROUND_ROME = {
    "0,2": "blue-emperor-03",
    "2,0": "red-emperor-04",
    "2,4": "blue-emperor-05",
    "4,2": "red-emperor-06",
    "0,0": "blue-emperor-02",
}


def test_given_an_empty_surrounded_emperor_space_when_pretender_is_used_then_the_new_emperor_resolves() -> None:
    """[K36, K22, K4] Pretender puts the next set-aside Pretender on an empty Emperor space; already surrounded, it
    resolves in the same turn (a yellow Emperor)."""
    state = table(
        emperors=AROUND_ROME,
        board={N22: "red-6-force-march", E22: "yellow-3-ambitus", S22: "blue-5-foederati", W22: "red-4-castra"},
        hands={0: ["yellow-8-pretender"]},
    )
    assert emperor_at(state, ROMA) is None
    events, after = accepted(state, play(0, "yellow-8-pretender", NW, "use", ROMA))
    placed = one(events, F.PretenderPlaced)
    assert (placed.emperor, placed.space) == ("pretender-1", ROMA)
    resolved = one(events, F.EmperorResolved)
    assert (resolved.emperor, resolved.colour, resolved.winner) == ("pretender-1", "yellow", "yellow-3-ambitus")
    assert after.aside[0] == after.T.emperor_index["pretender-2"]


def test_given_no_empty_emperor_space_when_pretender_is_played_then_it_has_no_target() -> None:
    """[K36, K17] Every Emperor space holds an Emperor (or no Pretender is left): the ability is skipped."""
    state = table(hands={0: ["yellow-7-pretender"]})
    assert all(x >= 0 for x in state.emp)
    space = next(c.space for c in legal(state, 0, "PlayInfluence"))
    assert one(accepted(state, play(0, "yellow-7-pretender", space))[0], F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_pretender_is_played_then_no_emperor_is_placed() -> None:
    """[K37]"""
    state = table(emperors=AROUND_ROME, hands={0: ["yellow-7-pretender"]}, demagogue=1)
    rejected(state, play(0, "yellow-7-pretender", NW, "use", ROMA), "no_ability_choice", "K37")
    assert emperor_at(accepted(state, play(0, "yellow-7-pretender", NW))[1], ROMA) is None


# --- Demagogue -----------------------------------------------------------------------------------------------------
def test_given_a_demagogue_played_when_other_seats_play_then_abilities_are_suppressed_until_its_next_turn() -> None:
    """[K37] From its play until the start of its player's next turn, other seats' triggered abilities are
    ignored; barbarian cards still work; a Demagogue played meanwhile has no effect."""
    state = table(
        emperors=BOARD,
        board={"4,3": "barbarian-01"},
        hands={
            0: ["yellow-7-demagogue", "red-3-castra"],
            1: ["yellow-8-demagogue", "barbarian-12"],
            2: ["blue-3-tribute"],
            3: ["red-5-force-march"],
        },
    )
    events, after = accepted(state, play(0, "yellow-7-demagogue", NW, "use"))
    assert one(events, F.DemagogueActive).seat == 0
    _, after = accepted(after, first_pick(after))
    assert after.actor_seat[after.active] == 1
    rejected(after, play(1, "yellow-8-demagogue", "0,1", "use"), "no_ability_choice", "K37")
    assert any(c.type == "PlaceBarbarian" for c in legal(after, 1))  # barbarian cards are unaffected
    events, after = accepted(after, play(1, "yellow-8-demagogue", "0,1"))
    assert one(events, F.InfluencePlayed).ability == "suppressed" and "DemagogueActive" not in types(events)
    _, after = accepted(after, first_pick(after))
    # seat 2 (South) under seat 0's Demagogue: Tribute has no choice
    events, after = accepted(after, play(2, "blue-3-tribute", "1,0"))
    assert one(events, F.InfluencePlayed).ability == "suppressed"
    _, after = accepted(after, first_pick(after))
    rejected(after, play(3, "red-5-force-march", E22), "illegal_space", "K37")
    events, after = accepted(after, play(3, "red-5-force-march", W22))
    events, after = accepted(after, first_pick(after))
    ended = one(events, F.DemagogueEnded)
    assert (ended.seat, ended.reason) == (0, "next_turn") and types(events).index("DemagogueEnded") > types(
        events
    ).index("TurnStarted")
    assert after.demagogue == -1


def test_given_a_demagogue_when_the_round_ends_then_it_ends_too() -> None:
    """[K37, K38] The suppression lasts at most until the end of the round."""
    state = table(
        emperors={ROMA: "red-emperor-01"},
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-7-praetorian-guard"]},
        demagogue=1,
    )
    events, after = accepted(state, play(0, "red-7-praetorian-guard", N22))
    ended = one(events, F.DemagogueEnded)
    assert ended.reason == "round_end" and types(events).index("DemagogueEnded") < types(events).index("RoundEnded")
    assert after.demagogue == -1


def test_given_demagogue_declined_when_played_then_nothing_is_suppressed() -> None:
    """[K17, K37] Declined: no suppression."""
    state = table(emperors=BOARD, hands={0: ["yellow-7-demagogue"], 1: ["blue-3-tribute"]})
    events, after = accepted(state, play(0, "yellow-7-demagogue", NW, "decline"))
    assert "DemagogueActive" not in types(events) and after.demagogue == -1
    rejected(state, place(0, "yellow-7-demagogue", NW), "not_a_barbarian", "K3")

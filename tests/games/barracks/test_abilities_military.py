"""Military (red) abilities: Reinforcements, Castra, Cavalry, Flanking Maneuver, Force March, Praetorian Guard,
Spiculum; each used, with no legal target, and under another seat's Demagogue [K1, K2, K16-K19, K24, K32, K34,
K35, K37]."""

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
    covered,
    discard,
    legal,
    move,
    one,
    place,
    play,
    rejected,
    table,
)

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}
NW = "-1,0"  # North side of 0,0 (a homeland)


def test_given_a_red_card_on_the_board_when_reinforcements_is_used_then_it_gets_a_counter_of_the_card_value() -> None:
    """[K18, K2, K17] Reinforcements (value 2) puts a +2 counter on another face-up red card already on the board."""
    state = table(emperors=BOARD, board={E22: "red-6-force-march"}, hands={0: ["red-2-reinforcements"]})
    assert {c.target for c in legal(state, 0, "PlayInfluence") if c.ability == "use"} == {"red-6-force-march"}
    events, after = accepted(state, play(0, "red-2-reinforcements", NW, "use", "red-6-force-march"))
    counter = one(events, F.CounterPlaced)
    assert (counter.target, counter.amount, counter.total, counter.space) == ("red-6-force-march", 2, 2, E22)
    assert "K18" in counter.rulings
    assert after.counters[after.T.card_index["red-6-force-march"]] == 2


def test_given_reinforcements_when_declined_then_no_counter_is_placed() -> None:
    """[K17] A triggered ability may be declined; its effect is lost."""
    state = table(emperors=BOARD, board={E22: "red-6-force-march"}, hands={0: ["red-1-reinforcements"]})
    events, _ = accepted(state, play(0, "red-1-reinforcements", NW, "decline"))
    assert one(events, F.InfluencePlayed).ability == "declined" and not [
        e for e in events if type(e) is F.CounterPlaced
    ]


def test_given_only_castra_a_covered_and_a_face_down_red_card_when_reinforcements_is_played_then_it_has_no_target() -> (
    None
):
    """[K18, K19, K32, K17, KX3] Counters never go on Castra, a covered card or a face-down card: no legal target, so
    the ability is skipped and the command names none."""
    state = table(
        emperors=BOARD,
        board={E22: "red-3-castra", W22: ("barbarian-01", "red-7-spiculum"), S22: "red-8-spiculum"},
        face_down=["red-8-spiculum"],
        hands={0: ["red-1-reinforcements"]},
    )
    rejected(state, play(0, "red-1-reinforcements", NW, "use", "red-3-castra"), "no_ability_choice", "K17")
    events, _ = accepted(state, play(0, "red-1-reinforcements", NW))
    assert one(events, F.InfluencePlayed).ability == "no_target"


def test_given_castra_beside_another_red_card_when_it_is_targeted_by_reinforcements_then_it_is_refused() -> None:
    """[K18, K32] Castra takes no counter even when another target exists."""
    state = table(
        emperors=BOARD, board={E22: "red-3-castra", S22: "red-6-force-march"}, hands={0: ["red-1-reinforcements"]}
    )
    rejected(state, play(0, "red-1-reinforcements", NW, "use", "red-3-castra"), "illegal_target", "K18")


def test_given_a_demagogue_of_another_seat_when_reinforcements_is_played_then_its_ability_is_suppressed() -> None:
    """[K37] Under another seat's Demagogue a triggered ability is ignored: no choice, nothing happens."""
    state = table(emperors=BOARD, board={E22: "red-6-force-march"}, hands={0: ["red-2-reinforcements"]}, demagogue=1)
    rejected(state, play(0, "red-2-reinforcements", NW, "use", "red-6-force-march"), "no_ability_choice", "K37")
    events, _ = accepted(state, play(0, "red-2-reinforcements", NW))
    assert one(events, F.InfluencePlayed).ability == "suppressed" and "K37" in events[0].rulings
    assert not [e for e in events if type(e) is F.CounterPlaced]


# --- Castra -----------------------------------------------------------------------------------------------------
def test_given_castra_on_a_homeland_when_a_barbarian_would_cover_it_then_it_is_refused() -> None:
    """[K19, K32] Outside solo a barbarian never lands on Castra, placed or moved."""
    state = table(
        emperors=BOARD, board={NW: "red-4-castra", "0,1": "barbarian-02"}, hands={0: ["barbarian-10", "blue-3-tribute"]}
    )
    rejected(state, place(0, "barbarian-10", NW), "castra", "K32")
    rejected(state, move(0, "barbarian-10", "0,1", NW), "castra", "K32")


def test_given_castra_when_praetorian_spiculum_or_flanking_aim_at_it_then_it_cannot_be_displaced() -> None:
    """[K32, K35, K34, K7] Castra cannot be displaced, removed or moved by any ability."""
    state = table(
        emperors=BOARD,
        board={N22: "red-3-castra", E22: "red-4-castra", "0,1": "yellow-5-mob"},
        hands={0: ["red-7-praetorian-guard", "red-8-spiculum", "red-5-flanking-maneuver"]},
    )
    rejected(state, play(0, "red-7-praetorian-guard", N22), "illegal_space", "K32", "K35")
    # Spiculum on the North side of 0,0 (the space -1,0): 0,1 is another side of 0,0; Castra on 1,2 is not.
    rejected(state, play(0, "red-8-spiculum", NW, "use", "red-3-castra"), "illegal_target", "K34")
    # Flanking on 0,-1 ... is not North; on -1,0 its diagonal 0,1 holds Mob (a legal target), not Castra.
    assert {c.target for c in legal(state, 0, "PlayInfluence") if c.card == "red-5-flanking-maneuver" and c.target} == {
        "yellow-5-mob"
    }


def test_given_castra_as_the_winning_card_when_the_emperor_is_captured_then_castra_is_still_discarded() -> None:
    """[K32, K27] Resolution and clean-up still remove Castra."""
    state = table(
        emperors=BOARD,
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-4-castra"]},
    )
    events, after = accepted(state, play(0, "red-4-castra", N22))
    assert one(events, F.EmperorResolved).winner == "red-4-castra"
    assert "red-4-castra" in discard(after)


def test_given_a_demagogue_when_cavalry_and_castra_are_in_play_then_their_always_on_effects_still_apply() -> None:
    """[K37, K24, K17] Cavalry (never ignored) keeps its effect under a Demagogue; so does Castra."""
    state = table(
        emperors=BOARD,
        board={E22: "red-3-cavalry", S22: "yellow-3-ambitus", W22: "blue-1-influence-peddling"},
        hands={0: ["blue-2-influence-peddling"]},
        demagogue=2,
    )
    events, _ = accepted(state, play(0, "blue-2-influence-peddling", N22))
    resolved = one(events, F.EmperorResolved)
    assert one(events, F.InfluencePlayed).ability == "suppressed"
    assert resolved.winner == "red-3-cavalry"  # cavalry 3 not ignored; ambitus 3 ignored; red Emperor
    castra = table(emperors=BOARD, board={NW: "red-4-castra"}, hands={0: ["barbarian-10"]}, demagogue=2)
    rejected(castra, place(0, "barbarian-10", NW), "castra", "K32")


def test_given_a_cavalry_played_when_the_card_is_placed_then_its_ability_is_recorded_as_always_on() -> None:
    """[K17] Castra, Cavalry, Quaestor and Ambitus are always on: nothing to use or decline."""
    state = table(emperors=BOARD, hands={0: ["red-3-cavalry"]})
    rejected(state, play(0, "red-3-cavalry", NW, "use"), "no_ability_choice", "K17")
    events, _ = accepted(state, play(0, "red-3-cavalry", NW))
    assert one(events, F.InfluencePlayed).ability == "always_on"


# --- Flanking Maneuver -------------------------------------------------------------------------------------------
def test_given_a_diagonal_card_with_counters_when_flanking_maneuver_swaps_then_the_counters_move_with_it() -> None:
    """[K7, K18, K17] Flanking Maneuver swaps places with a diagonally connected influence card (its counters
    move with it)."""
    state = table(
        emperors=BOARD,
        board={W22: "yellow-6-mob"},
        counters={"yellow-6-mob": 1},
        hands={0: ["red-5-flanking-maneuver"]},
    )
    events, after = accepted(state, play(0, "red-5-flanking-maneuver", N22, "use", "yellow-6-mob"))
    swap = one(events, F.CardsSwapped)
    assert (swap.card_space, swap.target_space) == (W22, N22)
    assert at(after, W22) == "red-5-flanking-maneuver" and at(after, N22) == "yellow-6-mob"
    assert after.counters[after.T.card_index["yellow-6-mob"]] == 1


def test_given_a_face_down_diagonal_card_when_flanking_maneuver_is_used_then_it_may_be_swapped() -> None:
    """[K7, K33, KX15] A face-down card is still an influence card; it keeps its player when swapped."""
    state = table(
        emperors=BOARD,
        board={W22: "yellow-6-mob"},
        face_down=["yellow-6-mob"],
        owners={"yellow-6-mob": 2},
        hands={0: ["red-6-flanking-maneuver"]},
    )
    events, after = accepted(state, play(0, "red-6-flanking-maneuver", N22, "use", "yellow-6-mob"))
    assert "KX15" in one(events, F.CardsSwapped).rulings
    mob = after.T.card_index["yellow-6-mob"]
    assert after.face_down[mob] and after.played_by[mob] == 2 and at(after, N22) == "yellow-6-mob"


def test_given_only_a_barbarian_diagonal_when_flanking_maneuver_is_played_then_it_has_no_target() -> None:
    """[K7, K17, K19] Only an uncovered influence card can be swapped; a barbarian (or what it covers) cannot."""
    state = table(emperors=BOARD, board={W22: ("barbarian-03", "yellow-6-mob")}, hands={0: ["red-5-flanking-maneuver"]})
    rejected(state, play(0, "red-5-flanking-maneuver", N22, "use", "yellow-6-mob"), "no_ability_choice", "K17")
    events, _ = accepted(state, play(0, "red-5-flanking-maneuver", N22))
    assert one(events, F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_flanking_maneuver_is_played_then_it_does_not_swap() -> None:
    """[K37] Suppressed: no swap."""
    state = table(emperors=BOARD, board={W22: "yellow-6-mob"}, hands={0: ["red-5-flanking-maneuver"]}, demagogue=3)
    rejected(state, play(0, "red-5-flanking-maneuver", N22, "use", "yellow-6-mob"), "no_ability_choice", "K37")
    events, after = accepted(state, play(0, "red-5-flanking-maneuver", N22))
    assert at(after, N22) == "red-5-flanking-maneuver" and not [e for e in events if type(e) is F.CardsSwapped]


# --- Force March ---------------------------------------------------------------------------------------------------
def test_given_an_empty_space_on_another_factions_side_when_force_march_goes_there_then_it_is_legal() -> None:
    """[K16, K10] Force March may go onto any empty influence space adjacent to an Emperor."""
    state = table(emperors=BOARD, hands={0: ["red-5-force-march", "blue-3-tribute"]})
    spaces = {c.space for c in legal(state, 0, "PlayInfluence") if c.card == "red-5-force-march"}
    assert E22 in spaces and W22 in spaces and "2,5" not in spaces  # 2,5 touches no Emperor here
    events, _after = accepted(state, play(0, "red-5-force-march", E22))
    played = one(events, F.InfluencePlayed)
    assert (played.placement, played.ability, played.emperors) == ("force_march", "used", ("red-emperor-01",))
    rejected(state, play(0, "blue-3-tribute", E22), "illegal_space", "K10")
    rejected(state, play(0, "red-5-force-march", "2,5"), "illegal_space", "K6")


def test_given_a_demagogue_when_force_march_is_played_then_only_the_factions_own_spaces_are_legal() -> None:
    """[K37] A suppressed Force March goes only onto an empty legal space of its player's faction."""
    state = table(emperors=BOARD, hands={0: ["red-6-force-march"]}, demagogue=1)
    rejected(state, play(0, "red-6-force-march", E22), "illegal_space", "K37")
    events, _ = accepted(state, play(0, "red-6-force-march", N22))
    assert one(events, F.InfluencePlayed).ability == "suppressed"


# --- Praetorian Guard ----------------------------------------------------------------------------------------------
def test_given_an_influence_card_on_a_legal_space_when_praetorian_guard_is_played_there_then_it_is_discarded() -> None:
    """[K35, K16] Praetorian Guard goes onto a legal space of its faction holding an influence card (face up or
    down, not Castra), which is discarded with its counters."""
    state = table(
        emperors=BOARD, board={N22: "blue-3-tribute"}, counters={"blue-3-tribute": 2}, face_down=[],
        hands={0: ["red-8-praetorian-guard"]},
    )  # fmt: skip
    events, after = accepted(state, play(0, "red-8-praetorian-guard", N22))
    played = one(events, F.InfluencePlayed)
    assert (played.placement, played.discarded) == ("praetorian_guard", ("blue-3-tribute",))
    assert at(after, N22) == "red-8-praetorian-guard" and "blue-3-tribute" in discard(after)
    assert after.counters[after.T.card_index["blue-3-tribute"]] == 0  # K18: counters leave with the card


def test_given_a_barbarian_or_another_factions_space_when_praetorian_guard_aims_there_then_it_is_refused() -> None:
    """[K35, K10] Not onto a barbarian, nor onto a space not on its faction's side."""
    state = table(
        emperors=BOARD, board={N22: "barbarian-04", E22: "blue-3-tribute"}, hands={0: ["red-7-praetorian-guard"]}
    )
    rejected(state, play(0, "red-7-praetorian-guard", N22), "illegal_space", "K35")
    rejected(state, play(0, "red-7-praetorian-guard", E22), "illegal_space")


def test_given_a_demagogue_when_praetorian_guard_aims_at_an_occupied_space_then_it_is_refused() -> None:
    """[K37] Suppressed: only an empty legal space."""
    state = table(emperors=BOARD, board={N22: "blue-3-tribute"}, hands={0: ["red-7-praetorian-guard"]}, demagogue=2)
    rejected(state, play(0, "red-7-praetorian-guard", N22), "illegal_space", "K37")


# --- Spiculum ------------------------------------------------------------------------------------------------------
def test_given_another_card_on_the_emperor_when_spiculum_is_used_then_it_is_discarded() -> None:
    """[K34, K16, KX1] Spiculum discards another card on the Emperor it is played on; the target names it."""
    state = table(
        emperors=BOARD, board={E22: "blue-6-foederati"}, counters={"blue-6-foederati": 1}, hands={0: ["red-7-spiculum"]}
    )
    events, after = accepted(state, play(0, "red-7-spiculum", N22, "use", "blue-6-foederati"))
    gone = one(events, F.CardsDiscarded)
    assert (gone.reason, gone.cards, gone.by_card, gone.emperor) == (
        "spiculum", ("blue-6-foederati",), "red-7-spiculum", "red-emperor-01"
    )  # fmt: skip
    assert at(after, E22) is None


def test_given_a_barbarian_covering_a_card_when_spiculum_removes_it_then_the_covered_card_stays() -> None:
    """[K34, K19] A removed barbarian uncovers what it covered."""
    state = table(emperors=BOARD, board={S22: ("barbarian-07", "yellow-5-mob")}, hands={0: ["red-8-spiculum"]})
    assert {c.target for c in legal(state, 0, "PlayInfluence") if c.card == "red-8-spiculum" and c.space == N22} >= {
        "barbarian-07"
    }
    rejected(state, play(0, "red-8-spiculum", N22, "use", "yellow-5-mob"), "illegal_target", "K19")
    _, after = accepted(state, play(0, "red-8-spiculum", N22, "use", "barbarian-07"))
    assert at(after, S22) == "yellow-5-mob" and covered(after, S22) is None


def test_given_a_card_on_another_emperor_when_spiculum_targets_it_then_it_is_refused() -> None:
    """[K34] Only cards on the Emperor it is played on."""
    state = table(
        emperors=BOARD, board={"0,1": "blue-6-foederati", E22: "blue-3-tribute"}, hands={0: ["red-7-spiculum"]}
    )
    rejected(state, play(0, "red-7-spiculum", N22, "use", "blue-6-foederati"), "illegal_target", "K34")


def test_given_no_other_card_on_the_emperor_when_spiculum_is_played_then_it_has_no_target() -> None:
    """[K17, K34] Nothing to discard: the ability is skipped."""
    state = table(emperors=BOARD, board={"0,1": "blue-6-foederati"}, hands={0: ["red-7-spiculum"]})
    events, _ = accepted(state, play(0, "red-7-spiculum", N22))
    assert one(events, F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_spiculum_is_played_then_nothing_is_discarded() -> None:
    """[K37] Suppressed."""
    state = table(emperors=BOARD, board={E22: "blue-6-foederati"}, hands={0: ["red-7-spiculum"]}, demagogue=1)
    rejected(state, play(0, "red-7-spiculum", N22, "use", "blue-6-foederati"), "no_ability_choice", "K37")
    _, after = accepted(state, play(0, "red-7-spiculum", N22))
    assert at(after, E22) == "blue-6-foederati"


def test_given_no_empty_space_off_its_sides_when_force_march_is_played_then_it_plays_as_a_plain_card() -> None:
    """[K16, K17] Force March with no empty space touching an Emperor off its faction's sides: its placement
    ability has nothing to add; the card goes onto its faction's legal spaces only."""
    state = table(
        emperors={ROMA: "red-emperor-01"},
        board={E22: "blue-3-tribute", S22: "blue-4-tribute", W22: "yellow-3-quaestor"},
        hands={0: ["red-6-force-march"]},
    )
    assert [(c.space, c.ability) for c in legal(state, 0, "PlayInfluence")] == [(N22, None)]
    assert one(accepted(state, play(0, "red-6-force-march", N22))[0], F.InfluencePlayed).placement == "faction"

"""A turn [K15, K16, K19, K20, K21]: one action (an influence card, a barbarian card placed or moved, or a pass),
then the decisions that follow in order, then the next seat clockwise."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from tests.games.barracks.support import (
    E22,
    N22,
    ROMA,
    accepted,
    at,
    covered,
    discard,
    given,
    hand,
    legal,
    move,
    one,
    pick,
    place,
    play,
    rejected,
    table,
    types,
)

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}


def test_given_a_turn_when_an_influence_card_is_played_and_a_forum_card_taken_then_the_next_seat_clockwise_plays() -> (
    None
):
    """[K15, K16, K21, K10] One action, the Forum pick, then the next faction clockwise."""
    state = table(emperors=BOARD, hands={0: ["red-3-cavalry"]})
    events, after = accepted(state, play(0, "red-3-cavalry", N22))
    played = one(events, F.InfluencePlayed)
    assert (played.seat, played.space, played.emperors, played.placement) == (0, N22, ("red-emperor-01",), "faction")
    assert one(events, F.DecisionRequested).decision == "pick" and after.phase == 4
    events, after = accepted(after, pick(0, after.T.card_ids[after.forum[0]]))
    assert one(events, F.TurnStarted).seat == 1 and one(events, F.TurnStarted).factions == ("east",)


def test_given_legal_spaces_when_listed_then_only_empty_spaces_on_the_factions_side_of_an_emperor() -> None:
    """[K10, K16] North plays only onto empty North sides of Emperors on the board."""
    state = table(emperors=BOARD, board={"3,4": "blue-3-tribute"}, hands={0: ["red-3-cavalry"]})
    assert {c.space for c in legal(state, 0, "PlayInfluence")} == {"-1,0", N22}
    rejected(state, play(0, "red-3-cavalry", "3,4"), "illegal_space", "K16")
    rejected(state, play(0, "red-3-cavalry", E22), "illegal_space", "K10")


def test_given_a_barbarian_card_when_placed_on_an_open_homeland_then_it_covers_the_card_there() -> None:
    """[K19, K8] A barbarian card goes onto a homeland holding no barbarian and adjacent to an Emperor; it may cover
    an influence card, which becomes inactive."""
    state = table(
        emperors=BOARD, board={"-1,0": "blue-6-foederati", "0,-1": "barbarian-03"}, hands={0: ["barbarian-12"]}
    )
    homelands = {c.space for c in legal(state, 0, "PlaceBarbarian")}
    assert homelands == {"-1,0", "4,5", "5,4"}  # 0,-1 holds a barbarian; the others touch no Emperor
    rejected(state, place(0, "barbarian-12", "0,-1"), "barbarian_there", "K19")
    rejected(state, place(0, "barbarian-12", "5,0"), "not_adjacent", "K19")
    rejected(state, place(0, "barbarian-12", N22), "not_a_homeland", "K8")
    events, after = accepted(state, place(0, "barbarian-12", "-1,0"))
    placed = one(events, F.BarbarianPlaced)
    assert (placed.covers, placed.source) == ("blue-6-foederati", "hand")
    assert at(after, "-1,0") == "barbarian-12" and covered(after, "-1,0") == "blue-6-foederati"
    assert one(events, F.DecisionRequested).allowed == 0  # a barbarian is value 0: any Forum card [K29]


def test_given_a_barbarian_on_the_board_when_moved_diagonally_then_it_uncovers_and_covers() -> None:
    """[K19, K7] Discard a barbarian card to move an active barbarian to a diagonally connected space holding no
    barbarian and adjacent to an Emperor; the card it left is uncovered."""
    state = table(
        emperors=BOARD, board={"0,1": ("barbarian-05", "red-6-force-march"), N22: "yellow-5-mob"},
        hands={0: ["barbarian-13", "blue-3-tribute"]},
    )  # fmt: skip
    moves = {(c.from_space, c.to_space) for c in legal(state, 0, "MoveBarbarian")}
    assert ("0,1", N22) in moves and ("0,1", "1,0") in moves and ("0,1", "-1,0") in moves
    rejected(state, move(0, "barbarian-13", "0,1", "0,3"), "not_diagonal", "K7")
    rejected(state, move(0, "barbarian-13", N22, "0,1"), "no_barbarian", "K19")
    rejected(state, move(0, "blue-3-tribute", "0,1", N22), "not_a_barbarian", "K3")
    events, after = accepted(state, move(0, "barbarian-13", "0,1", N22))
    moved = one(events, F.BarbarianMoved)
    assert (moved.barbarian, moved.covers, moved.uncovered) == ("barbarian-05", "yellow-5-mob", "red-6-force-march")
    assert at(after, "0,1") == "red-6-force-march" and at(after, N22) == "barbarian-05"
    assert "barbarian-13" in discard(after) and hand(after, 0) == ["blue-3-tribute"]


def test_given_no_possible_play_when_the_turn_comes_then_the_seat_passes_automatically_showing_its_hand() -> None:
    """[K20, K14] A seat with no possible play passes automatically; the pass shows its hand; no Forum pick."""
    state = table(
        emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"},
        board={N22: "red-3-castra", "3,4": "red-4-castra"},
        hands={0: ["blue-3-tribute"], 1: ["barbarian-15"]},
        turn=3,
    )
    state = given([F.HandDealt(seat=3, cards=("red-7-spiculum",), rulings=("K11",))], state)
    events, after = accepted(state, play(3, "red-7-spiculum", "2,1"))
    events, after = accepted(after, pick(3, after.T.card_ids[after.forum[0]]))
    passed = one(events, F.Passed)
    assert (passed.seat, passed.hand, passed.automatic) == (0, ("blue-3-tribute",), True)
    assert one(events, F.Passed).rulings == ("K20", "K14")
    assert after.actor_seat[after.active] == 1  # East plays on


def test_given_a_possible_play_when_the_seat_asks_to_pass_then_it_is_refused() -> None:
    """[K20, KX5] Pass only when no play is possible (an awaited seat always has one)."""
    state = table(emperors=BOARD, hands={0: ["red-3-cavalry"]})
    rejected(state, F.Pass(seat=0), "play_possible", "K20", "KX5")


def test_given_an_arranged_turn_without_any_play_when_the_seat_passes_then_its_hand_is_shown() -> None:
    """[K20, K14] The explicit pass of a seat without a play is recorded like an automatic one."""
    state = table(emperors={ROMA: "red-emperor-01"}, board={N22: "red-3-castra"}, hands={0: ["blue-3-tribute"]})
    assert [c.type for c in legal(state, 0)] == ["Pass"]
    events, after = accepted(state, F.Pass(seat=0))
    assert one(events, F.Passed).hand == ("blue-3-tribute",) and not one(events, F.Passed).automatic
    assert list(after.known[0]) == after.hands[0]


def test_given_a_play_with_princeps_when_it_surrounds_an_emperor_then_the_decisions_come_in_order() -> None:
    """[K21] Action, then the resolutions, then Princeps' draw, then the Forum pick."""
    state = table(
        emperors=BOARD,
        board={E22: "blue-5-foederati", "3,2": "red-3-cavalry", "2,1": "yellow-6-mob"},
        hands={0: ["blue-3-princeps-senatus"]},
    )
    events, _ = accepted(state, play(0, "blue-3-princeps-senatus", N22, "use"))
    assert types(events) == [
        "InfluencePlayed", "EmperorResolved", "CardsDiscarded", "CardsDiscarded", "CardDrawn", "DecisionRequested"
    ]  # fmt: skip

"""The Forum [K29, K30]: the pick limited by the printed value of the card played, the slide and the refill, a
shrinking Forum once the deck is empty, and no pick from an empty Forum."""

from __future__ import annotations

import pytest

from services.games.barracks.rules import facts as F
from tests.games.barracks.support import ROMA, accepted, given, legal, one, pick, place, play, rejected, table, types

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}
FORUM = [
    "blue-1-influence-peddling",
    "red-8-spiculum",
    "yellow-3-quaestor",
    "blue-6-frumentarii",
    "red-2-reinforcements",
]


@pytest.mark.parametrize(
    ("card", "allowed"),
    [
        ("red-1-reinforcements", 5),
        ("yellow-2-popularity", 5),
        ("red-3-cavalry", 3),
        ("blue-4-tribute", 3),
        ("yellow-5-mob", 2),
        ("red-6-force-march", 2),
        ("blue-7-triumph", 1),
        ("yellow-8-demagogue", 1),
    ],
)
def test_given_a_card_of_a_value_played_when_picking_then_only_the_leftmost_cards_allowed_may_be_taken(
    card: str, allowed: int
) -> None:
    """[K29] 0-2: any card; 3-4: one of the 3 leftmost; 5-6: one of the 2 leftmost; 7-8: the leftmost."""
    state = table(emperors=BOARD, hands={0: [card]}, forum=FORUM)
    command = next(c for c in legal(state, 0, "PlayInfluence") if c.space == "-1,0")
    _, after = accepted(state, command)
    assert {c.card for c in legal(after, 0)} == set(FORUM[:allowed])
    if allowed < len(FORUM):
        rejected(after, pick(0, FORUM[allowed]), "beyond_limit", "K29")
    rejected(after, pick(0, "red-7-spiculum"), "not_in_forum", "K29")


def test_given_a_barbarian_card_played_when_picking_then_any_forum_card_may_be_taken() -> None:
    """[K29, K3] A barbarian card is value 0."""
    state = table(emperors=BOARD, hands={0: ["barbarian-14"]}, forum=FORUM)
    _, after = accepted(state, place(0, "barbarian-14", "-1,0"))
    assert len(legal(after, 0)) == len(FORUM)


def test_given_a_pick_when_a_middle_card_is_taken_then_the_row_slides_left_and_the_top_deck_card_fills_the_end() -> (
    None
):
    """[K30, K14] The taken card goes to the hand (publicly); the row slides; the deck's top card refills."""
    state = table(emperors=BOARD, hands={0: ["red-1-reinforcements"]}, forum=FORUM, deck_top=["yellow-8-pretender"])
    _, after = accepted(state, play(0, "red-1-reinforcements", "-1,0"))
    events, after = accepted(after, pick(0, "yellow-3-quaestor"))
    taken = one(events, F.ForumTaken)
    assert (taken.slot, taken.refill, taken.allowed, taken.played_value) == (2, "yellow-8-pretender", 0, 1)
    assert [after.T.card_ids[c] for c in after.forum] == [*FORUM[:2], *FORUM[3:], "yellow-8-pretender"]
    quaestor = after.T.card_index["yellow-3-quaestor"]
    assert quaestor in after.hands[0] and after.known[0] == (quaestor,)


def test_given_an_empty_deck_when_a_card_is_picked_then_the_forum_shrinks() -> None:
    """[K30] No reshuffle during a round."""
    state = table(emperors=BOARD, hands={0: ["red-1-reinforcements"]}, forum=FORUM[:2])
    deck = tuple(state.T.card_ids[c] for c in state.deck)
    state = given(
        [F.CardsDiscarded(cards=deck, spaces=(None,) * len(deck), reason="orphaned", rulings=("K27",))], state
    )
    _, after = accepted(state, play(0, "red-1-reinforcements", "-1,0"))
    events, after = accepted(after, pick(0, FORUM[0]))
    assert one(events, F.ForumTaken).refill is None and [after.T.card_ids[c] for c in after.forum] == FORUM[1:2]


def test_given_an_empty_forum_when_a_card_is_played_then_there_is_no_pick() -> None:
    """[K29, K21] With an empty Forum the turn ends after the action."""
    state = table(emperors=BOARD, hands={0: ["red-1-reinforcements"]}, forum=[])
    events, _after = accepted(state, play(0, "red-1-reinforcements", "-1,0"))
    assert "DecisionRequested" not in types(events) and one(events, F.TurnStarted).seat == 1

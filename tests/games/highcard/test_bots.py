"""High Card's greedy bot: the cheapest card that takes the trick, else the weakest card."""

from __future__ import annotations

from services.games.highcard.bots import greedy_bot
from services.games.highcard.messages import PlayCard
from tests.games.highcard.support import RULES, dealt, given, played


def test_given_a_card_on_the_trick_when_the_bot_can_beat_it_then_it_plays_its_cheapest_winner() -> None:
    state = played(given(dealt(("2", "9"), ("5", "10"))), (0, "9"))
    assert greedy_bot(1).choose(RULES, state, 1) == PlayCard(seat=1, card="10")


def test_given_a_card_on_the_trick_when_the_bot_cannot_beat_it_then_it_throws_its_weakest_card() -> None:
    state = played(given(dealt(("4", "A"), ("3", "K"))), (0, "A"))
    assert greedy_bot(1).choose(RULES, state, 1) == PlayCard(seat=1, card="3")


def test_given_the_lowest_wins_option_when_the_bot_leads_then_it_spends_its_weakest_card_the_highest() -> None:
    state = given(dealt(("4", "A"), ("3", "K"), lowest_wins=True))
    assert greedy_bot(1).choose(RULES, state, 0) == PlayCard(seat=0, card="A")
    assert greedy_bot(1).choose(RULES, state, 1) is None  # not its turn

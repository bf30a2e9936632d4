"""Given-when-then helpers of High Card's tests: a table dealt by hand, so each test says which cards are where."""

from __future__ import annotations

from collections.abc import Sequence

from events.base import Event, Rejection
from services.games.highcard.messages import GameStarted, HandDealt, HighCardSettings, PlayCard
from services.games.highcard.rules import HighCardRules, HighCardState

RULES = HighCardRules()
NAMES = ("Ann", "Bob", "Cid", "Dee")


def dealt(*hands: Sequence[str], **settings: object) -> list[Event]:
    """The opening events of a table whose seats hold ``hands`` (one tuple of cards per seat)."""
    table = HighCardSettings.model_validate({"hand_size": len(hands[0]), **settings})
    opening: list[Event] = [GameStarted(players=NAMES[: len(hands)], settings=table, seed=0, rulings=("H6", "H1"))]
    return opening + [HandDealt(seat=s, cards=tuple(hand), rulings=("H1",)) for s, hand in enumerate(hands)]


def given(events: Sequence[Event]) -> HighCardState:
    """The state after ``events``."""
    return RULES.fold(events)


def play(state: HighCardState, seat: int, card: str) -> list[Event] | Rejection:
    """What the referee answers to ``seat`` playing ``card``."""
    return RULES.decide(state, PlayCard(seat=seat, card=card))


def played(state: HighCardState, *moves: tuple[int, str]) -> HighCardState:
    """The state after the accepted ``moves`` (seat, card), in order."""
    for seat, card in moves:
        outcome = play(state, seat, card)
        assert not isinstance(outcome, Rejection), outcome
        state = RULES.fold(outcome, state)
    return state

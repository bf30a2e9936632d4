"""The engine's fast paths agree with the plain rules they stand for (listing.py, decide.py).

The random bot's draw remembers the plan of the key it drew, so that executing the very command on the very state
skips the checks: that plan must be the one the checks give. Positions come from seeded random games of 1 to 4
players (every decision, for the seat awaited).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from events.base import Rejection
from services.games.barracks.rules import decide, listing
from services.games.barracks.rules.state import Game
from tests.games.barracks.support import NAMES, RULES


def positions(players: int, seed: int) -> Iterator[Game]:
    """Every state of a seeded random game at which a seat is asked for a decision."""
    state = RULES.fold(RULES.start(NAMES[:players], {}, seed))
    rng = random.Random(seed)
    while not RULES.is_over(state):
        yield state
        result = RULES.execute(state, RULES.sample_legal(state, RULES.awaited(state)[0], rng))
        assert not isinstance(result, Rejection)
        state = result[1]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_given_every_legal_key_when_its_plan_is_made_from_the_key_then_it_is_the_plan_the_checks_give(
    players: int,
) -> None:
    """[K15-K22, K29, K31, K43] ``plan_of`` a listed key is what ``check`` decodes from its command."""
    checked = 0
    for s in positions(players, seed=3):
        seat = RULES.awaited(s)[0]
        for key in listing.legal_keys(s, seat):
            decide._sampled = None
            assert decide.check(s, listing.command_of(s, seat, key)) == decide.plan_of(seat, key)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("players", [2, 4])
def test_given_a_drawn_command_when_executed_then_the_same_outcome_as_with_the_checks(players: int) -> None:
    """The remembered plan of a draw gives the events and state the checked command gives, and only for the very
    command drawn on the very state."""
    for s in positions(players, seed=5):
        seat = RULES.awaited(s)[0]
        drawn = RULES.sample_legal(s, seat, random.Random(s.version))
        assert decide._sampled is not None and decide._sampled[2] is drawn
        fast = RULES.execute(s, drawn)
        decide._sampled = None
        assert fast == RULES.execute(s, drawn)
        bogus = (print, ())  # a plan no check gives: seen only for the very state and command remembered
        decide.remember_sample(s, drawn, bogus)
        assert decide.check(s, drawn) is bogus
        assert decide.check(s.copy(), drawn) is not bogus

"""A first end-to-end check: seeded random games for 2, 3 and 4 players reach the end."""

import random

import pytest

from services.bots.random_bot import choose
from tests.games.shadow.support import RULES, given, start


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_random_bots_when_they_play_then_the_game_ends_after_round_five(players: int) -> None:
    state = given(start(players, seed=7))
    rng = random.Random(7)
    while not RULES.is_over(state):
        seat = RULES.awaited(state)[0]
        events = RULES.decide(state, choose(RULES, state, seat, rng))
        assert isinstance(events, list)
        state = given(events, state)
    assert state.round == 5
    assert RULES.result(state)["winners"]

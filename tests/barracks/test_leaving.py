"""[KX21] A player who leaves is replaced, not removed: the game's default bot takes the seat over from any
position, with what the seat holds, and plays it to the end by the same rules."""

from __future__ import annotations

import random

import pytest

from services.rules.registry import get_game


@pytest.mark.parametrize("leave_after", [0, 10, 40])
def test_given_a_player_leaving_mid_game_when_the_default_bot_takes_the_seat_then_the_game_ends_with_it(
    leave_after: int,
) -> None:
    """[KX21] Given seat 0 played by a person for ``leave_after`` commands, when the default bot plays it from there,
    then every bot move is accepted and the game ends with the seat in its result."""
    game = get_game("barracks")
    rules = game.rules
    state = rules.initial_state()
    for event in rules.start(["Ann", "Bob", "Cyd", "Dee"], {}, 4):
        state = rules.evolve(state, event)
    rng = random.Random(leave_after)
    bot = next(iter(game.bots.values()))(1)
    sent = 0
    for _ in range(5000):
        if rules.is_over(state):
            break
        seat = rules.awaited(state)[0]
        if seat == 0 and sent >= leave_after:
            command = bot.choose(rules, state, 0)  # the seat's holdings are the state's: nothing moves at hand-over
        else:
            command = rng.choice(list(rules.legal_commands(state, seat)))
            sent += seat == 0
        assert command is not None
        events = rules.decide(state, command)
        assert isinstance(events, list), events
        for event in events:
            state = rules.evolve(state, event)
    assert rules.is_over(state)
    assert sent == leave_after, "the person made the commands before leaving"
    assert len(rules.result(state)["scores"]) == 4  # the seat is still one of the game's, scored like the others

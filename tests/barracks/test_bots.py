"""The bots [K15]: the random bot sends only legal commands; the heuristic bot wins a clear majority of 4-player
games against three random bots (the 80% target over 200 games is measured by the bench, not here)."""

from __future__ import annotations

from services.rules.barracks import plugin
from services.rules.barracks.bench import heuristic_games
from tests.barracks.support import NAMES

PLUGIN = plugin()
RULES = PLUGIN.rules


def test_given_the_random_bot_when_it_plays_a_game_then_each_command_is_legal() -> None:
    """[K15] A random bot's choice is one of the legal commands."""
    bot = PLUGIN.bots["random"](3)
    state = RULES.fold(RULES.start(NAMES, {}, 3))
    for _ in range(60):
        (seat,) = RULES.awaited(state)
        command = bot.choose(RULES, state, seat)
        assert command in RULES.legal_commands(state, seat)
        _, state = RULES.execute(state, command)


def test_given_twenty_seeded_games_when_the_heuristic_bot_plays_three_random_bots_then_it_wins_most() -> None:
    """[K39] The heuristic bot (rotating seats) wins a clear majority."""
    wins, games = heuristic_games(20, seed=1)
    assert wins >= 14, f"{wins}/{games}"

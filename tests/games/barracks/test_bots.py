"""The bots [K15]: the random bot sends only legal commands; the heuristic bot wins a clear majority of 4-player
games against three random bots (the 80% target over 200 games is measured by the bench, not here)."""

from __future__ import annotations

import random

from services.bench.barracks import heuristic_games
from services.games.barracks import plugin
from services.games.barracks.rules import facts as F
from tests.games.barracks.support import NAMES

PLUGIN = plugin()
RULES = PLUGIN.game_rules


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


def test_given_two_positions_differing_only_in_the_deck_order_when_the_heuristic_bot_chooses_then_alike() -> None:
    """[K14] The heuristic bot never uses the secret deck order (its lookahead stops before any draw)."""
    rng = random.Random(5)
    state = RULES.fold(RULES.start(NAMES, {}, 5))
    compared = 0
    while not RULES.is_over(state) and compared < 60:
        (seat,) = RULES.awaited(state)
        order = tuple(state.T.card_ids[c] for c in reversed(state.deck))
        if len(order) > 1:
            shuffled = list(order)
            rng.shuffle(shuffled)
            other = RULES.fold(
                [F.DeckShuffled(round=state.round, order=tuple(shuffled), reason="round", rulings=("K11",))], state
            )
            mine = PLUGIN.bots["heuristic"](9).choose(RULES, state, seat)
            assert PLUGIN.bots["heuristic"](9).choose(RULES, other, seat) == mine
            compared += 1
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
    assert compared == 60

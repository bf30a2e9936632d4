"""High Card's bots: the generic random bot, and a greedy one that shows how a game writes its own.

A bot is made per decision from a seed (``GamePlugin.bots``: kind -> factory), so it must be cheap to build; it
reads only what its seat may know (the state's other hands are there, but a bot must not look at them).
"""

from __future__ import annotations

import random
from typing import Any

from services.bots.random_bot import RandomBot
from services.games.highcard.rules import HighCardState, rank, trick_winner
from services.rules.contract import Bot, Command, GameRules


class GreedyBot:
    """Takes the trick with its cheapest winning card when it can, else throws its weakest card away."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)  # unused by the strategy; kept so every bot is made the same way

    def choose(self, rules: GameRules[Any], state: HighCardState, seat: int) -> Command | None:
        """The bot's card for ``seat`` (None when it is not its turn)."""
        legal = rules.legal_commands(state, seat)
        if not legal:
            return None
        lowest_wins = state.settings.lowest_wins
        weakest_first = sorted(legal, key=lambda c: rank(c.card), reverse=lowest_wins)
        for command in weakest_first:  # the cheapest card that beats everything on the trick so far
            if trick_winner([*state.trick, (seat, command.card)], lowest_wins)[0] == seat:
                return command
        return weakest_first[0]


def greedy_bot(seed: int) -> Bot:
    """Factory of the greedy bot."""
    return GreedyBot(seed)


def random_bot(seed: int) -> Bot:
    """Factory of the random bot (``GameRules.sample_legal``)."""
    return RandomBot(seed)

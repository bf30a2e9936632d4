"""The random bot: picks uniformly among the legal commands of its seat, from a seeded generator. It plays
every game (through ``GameRules.sample_legal``)."""

from __future__ import annotations

import random
from typing import Any

from services.rules.contract import Command, GameRules


def choose(rules: GameRules[Any], state: Any, seat: int, rng: random.Random) -> Command | None:
    """A uniformly random legal command of ``seat`` (None if it has none)."""
    return rules.sample_legal(state, seat, rng)


class RandomBot:
    """A seeded random player for one or more seats."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, rules: GameRules[Any], state: Any, seat: int) -> Command | None:
        """The bot's next command for ``seat``."""
        return rules.sample_legal(state, seat, self.rng)

"""The random bot: picks uniformly among the legal commands of its seat, from a seeded generator."""

from __future__ import annotations

import random
from typing import Any

from events.base import Command
from services.rules.decider import Decider


def choose(decider: Decider, state: Any, seat: int, rng: random.Random) -> Command | None:
    """A uniformly random legal command of ``seat`` (None if it has none)."""
    sample = getattr(decider, "sample_legal", None)
    if sample is not None:
        return sample(state, seat, rng)
    options = decider.legal_commands(state, seat)
    return rng.choice(options) if options else None


class RandomBot:
    """A seeded random player for one or more seats."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, decider: Decider, state: Any, seat: int) -> Command | None:
        """The bot's next command for ``seat``."""
        return choose(decider, state, seat, self.rng)

"""What the sections of ``make bench`` share: the game measured, the sample sizes, the recorded games, the output.

A section is a function ``(ctx: Context) -> dict`` whose dict is merged into the final JSON line; it prints its
own figures through ``ctx.say``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from events.base import Rejection
from services.bots.random_bot import choose
from services.rules.contract import Command, Event, GamePlugin, GameRules

NAMES = ("Red", "Green", "Blue", "Yellow", "Purple", "Orange")


@dataclass
class RecordedGame:
    """One complete game: its opening events, then each command with the events it caused."""

    opening: list[Event]
    moves: list[tuple[Command, list[Event]]]

    @property
    def events(self) -> list[Event]:
        """Every event of the game, in order."""
        return self.opening + [e for _, events in self.moves for e in events]


@dataclass
class Context:
    """What sections share: the game measured, sample sizes, recorded games and the output."""

    game: GamePlugin
    games: int = 40
    seed: int = 1
    out: TextIO = field(default_factory=lambda: sys.stdout)
    recorded: list[RecordedGame] = field(default_factory=list)

    @property
    def rules(self) -> GameRules[Any]:
        """The rules of the game measured."""
        return self.game.rules

    @property
    def players(self) -> int:
        """Seats of the games played: as many as the game takes (at most the names we have)."""
        return min(self.game.rules.capabilities.max_players, len(NAMES))

    def say(self, line: str) -> None:
        """Print one figure line."""
        print(line, file=self.out, flush=True)


Section = Callable[[Context], dict[str, Any]]


def play_random_game(rules: GameRules[Any], seed: int, players: int = 4) -> RecordedGame:
    """One seeded random game, recorded (decide + evolve in one call: ``execute``)."""
    opening = rules.start(NAMES[:players], {}, seed)
    state = rules.initial_state()
    for event in opening:
        state = rules.evolve(state, event)
    rng = random.Random(seed)
    moves: list[tuple[Command, list[Event]]] = []
    while not rules.is_over(state):
        command = choose(rules, state, rules.awaited(state)[0], rng)
        assert command is not None
        result = rules.execute(state, command)
        if isinstance(result, Rejection):
            raise RuntimeError(f"legal command rejected: {result}")
        events, state = result
        moves.append((command, events))
    return RecordedGame(opening, moves)

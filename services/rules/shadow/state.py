"""The state of one game: immutable, rebuilt by folding events (see evolve.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from events.shadow.events import Prompt
from events.shadow.settings import ShadowSettings
from services.rules.clock import Clocks
from services.rules.shadow.board import Layout

EMPIRE = -1  # owner of an empire city


@dataclass(frozen=True, slots=True)
class Tile:
    """An aristocrat tile: Baron (1 power) or Couple (2 power) at one life stage."""

    owner: int
    couple: bool
    age: int

    @property
    def power(self) -> int:
        return 2 if self.couple else 1


@dataclass(frozen=True, slots=True)
class Knight:
    owner: int


@dataclass(frozen=True, slots=True)
class City:
    owner: int  # EMPIRE for an empire city


Piece = Tile | Knight | City


class GameState(NamedTuple):
    """Everything the rules need; no field is derived from the clock or a random generator.

    A named tuple: immutable, and ``_replace`` is several times faster than ``dataclasses.replace`` in the
    fold, which is the hot path of replays and of the rules worker."""

    layout: Layout
    players: tuple[str, ...]
    settings: ShadowSettings
    seed: int
    board: tuple[Piece | None, ...]
    thalers: tuple[int, ...]
    vp: tuple[int, ...]
    tiles_in_supply: tuple[int, ...]
    knights_in_supply: tuple[int, ...]
    cities_in_supply: tuple[int, ...]
    empire_cities_in_supply: int
    emperor: int
    closed: frozenset[int] = frozenset()
    round: int = 1
    phase: int = 0  # 0 = setup
    privilege_used: tuple[bool, ...] = (False,) * 7
    play_areas: tuple[tuple[str, ...], ...] = ()
    passed: frozenset[int] = frozenset()
    rival: int | None = None
    aims: tuple[tuple[str, int], ...] = ()  # (card, electorate index)
    votes: tuple[str | None, ...] = ()
    pending: Prompt | None = None
    turn: int | None = None
    winners: tuple[int, ...] | None = None
    clocks: Clocks | None = None  # the seats' clocks, on a table with the clock setting [X16]
    version: int = 0

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.players)

    @property
    def over(self) -> bool:
        return self.winners is not None


def awaited(s: GameState) -> tuple[int, ...]:
    """Seats the game waits for; during a vote, those who have not sealed theirs [E2]."""
    p = s.pending
    if p is None:
        return ()
    if p.decision == "vote":
        return tuple(seat for seat in p.seats if s.votes[seat] is None)
    return p.seats

"""The game-agnostic decider interface.

The bus, the rules worker, the store and the projections know a game only through this protocol: a second
game plugs in by registering another object that satisfies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from events.base import Command, Event, Rejection


@runtime_checkable
class Decider(Protocol):
    """Pure rules of one game. No IO, no clock, no unrecorded randomness."""

    name: str
    rules_version: str

    def start(self, players: Sequence[str], settings: dict[str, Any], seed: int) -> list[Event]:
        """The events that open a new game (the first one records players, settings and seed)."""
        ...

    def initial_state(self) -> Any:
        """The state before the first event (folding starts here)."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """Apply one recorded fact. Never re-runs a rule or draws at random."""
        ...

    def decide(self, state: Any, command: Command) -> list[Event] | Rejection:
        """The events a command causes, or a typed rejection (state unchanged)."""
        ...

    def legal_commands(self, state: Any, seat: int) -> list[Command]:
        """Every command the seat may send now; each one is accepted by ``decide``."""
        ...

    def awaited(self, state: Any) -> tuple[int, ...]:
        """Seats whose command the game waits for now (several during a secret vote)."""
        ...

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """The game as one seat (or a spectator, ``None``) may see it: JSON-ready."""
        ...

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""
        ...

    def parse_command(self, raw: bytes | str | dict[str, Any]) -> Command:
        """Validate a command from JSON (raises pydantic.ValidationError on bad input)."""
        ...

    def parse_event(self, raw: bytes | str | dict[str, Any]) -> Event:
        """Validate a recorded event from JSON."""
        ...

    def describe(self, event: Event) -> str:
        """The event in plain words."""
        ...

    def snapshot(self, state: Any) -> bytes:
        """Serialize a state (for snapshots); ``restore(snapshot(s)) == s``."""
        ...

    def restore(self, data: bytes) -> Any:
        """The state a snapshot was taken of."""
        ...

    def result(self, state: Any) -> dict[str, Any] | None:
        """The final result (scores, winners) once the game is over, else None."""
        ...


def fold(decider: Decider, events: Sequence[Event], state: Any = None) -> Any:
    """Rebuild a state by folding events from ``state`` (or the decider's initial state)."""
    current = decider.initial_state() if state is None else state
    for event in events:
        current = decider.evolve(current, event)
    return current

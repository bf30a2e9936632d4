"""Deprecated (issue [2/7]): the old game-agnostic decider interface, 21 methods mixing rules, codecs and display.

A game is now a :class:`~services.rules.contract.GamePlugin` (rules + presenter). The parts of the service not
migrated yet get this interface from ``registry.get_decider(name)`` (services/rules/legacy.py); new code uses
``registry.get_game(name)``.
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

    # --- read models (projections, replays, audit, the gateway) ------------------------------------------
    def redact(self, event: Event, seat: int | None, state: Any) -> dict[str, Any] | None:
        """``event`` as ``seat`` (None: a spectator) may see it, JSON-ready, or None to withhold it.

        ``state`` is the game as far as the reader's moment goes (at or after the event): a secret may be shown
        once ``state`` has revealed it, and everything once the game is over.
        """
        ...

    def replay_view(self, state: Any, seat: int | None, final: Any) -> dict[str, Any]:
        """Like :meth:`view` of ``state``, for a replay made when the game has reached ``final``: once ``final``
        is over every secret of the past is public, before that it is exactly ``view(state, seat)``."""
        ...

    def label(self, command: Command, state: Any = None) -> str:
        """A short readable label of a legal command (for buttons and chat), in the context of ``state``."""
        ...

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """Why the event happened, for a referee: the decision, its deciding inputs and the rulings cited."""
        ...

    def scoreboard(self, state: Any) -> dict[str, Any]:
        """The public standing: ``{"seats": [{"score": int | None, ...}], ...}`` plus game-specific fields.

        ``score`` is the number a leaderboard averages (None while hidden); other fields are the game's own.
        """
        ...

    def render_text(self, state: Any, seat: int | None, final: Any = None) -> str:
        """The board as plain text, as ``seat`` may see it (chat-bots, terminals); ``final`` as in
        :meth:`replay_view` (None: ``state`` is the latest)."""
        ...

    def render_svg(self, state: Any, seat: int | None, final: Any = None) -> str:
        """The board as a standalone SVG document, as ``seat`` may see it; ``final`` as in :meth:`render_text`."""
        ...


def fold(decider: Decider, events: Sequence[Event], state: Any = None) -> Any:
    """Rebuild a state by folding events from ``state`` (or the decider's initial state)."""
    current = decider.initial_state() if state is None else state
    for event in events:
        current = decider.evolve(current, event)
    return current

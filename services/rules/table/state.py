"""The table's part of a game's state, and how the table's recorded facts fold into it.

The game's own state sits inside (``TableState.game``) and never holds a clock, a seal or a left seat: the game
folds only its own events. What the table needs of the game to fold its facts is what the contract declares (the
seats awaited, for a clock stamp) and the first event's record of the players and the settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter

from events.clock import (
    ClockSettings,
    ClockStamped,
    LeaveSeat,
    SeatHandedOver,
    SeatLeft,
    SeatTimedOut,
    TakeSeat,
    TimeOut,
)
from events.fair import SeedCommitted, SeedRevealed
from services.rules.clock import Clocks
from services.rules.fair import Seal

State = TypeVar("State")

TABLE_EVENTS: dict[str, type[Any]] = {
    e.model_fields["type"].default: e
    for e in (ClockStamped, SeatTimedOut, SeatHandedOver, SeatLeft, SeedCommitted, SeedRevealed)
}
"""The table's recorded facts by type: no game's event union holds them."""
TABLE_COMMANDS: dict[str, type[Any]] = {c.model_fields["type"].default: c for c in (TimeOut, TakeSeat, LeaveSeat)}
"""The table's commands by type: no game's command union holds them."""
TABLE_EVENT_ADAPTERS = {kind: TypeAdapter(model) for kind, model in TABLE_EVENTS.items()}
TABLE_COMMAND_ADAPTERS = {kind: TypeAdapter(model) for kind, model in TABLE_COMMANDS.items()}


@dataclass(frozen=True, slots=True)
class TableState(Generic[State]):
    """A game's state with the table around it (immutable: every fact gives a new one)."""

    game: State
    """The game's own state (what its rules, presenter and bots read)."""
    started: bool = False
    """The game's first event is folded (the table knows the seats and the clock setting)."""
    players: tuple[str, ...] = ()
    """The players' names by seat, as the game's first event records them."""
    clock: ClockSettings | None = None
    """The table's clock setting (None: no clocks)."""
    clocks: Clocks | None = None
    """The seats' clocks, on a clocked table."""
    seal: Seal | None = None
    """The committed seed, on a table the service created (None: the engine alone, no commitment)."""
    left: tuple[tuple[int, str], ...] = ()
    """The seats whose players left the game, each with the kind of bot that plays it, in the order they left."""

    def has_left(self, seat: int) -> bool:
        """Whether ``seat``'s player left the game."""
        return any(s == seat for s, _ in self.left)

    def with_game(self, game: State) -> TableState[State]:
        """The same table around another position of the game."""
        return TableState(game, self.started, self.players, self.clock, self.clocks, self.seal, self.left)

    def to_json(self) -> dict[str, Any]:
        """The table's part, JSON-ready (snapshots); the game's own state is snapshotted by the game."""
        return {
            "started": self.started,
            "players": list(self.players),
            "clock": None if self.clock is None else self.clock.model_dump(mode="json"),
            "clocks": None if self.clocks is None else self.clocks.to_json(),
            "seal": None if self.seal is None else self.seal.to_json(),
            "left": [list(pair) for pair in self.left],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game: State) -> TableState[State]:
        """Inverse of :meth:`to_json`, around ``game``."""
        return cls(
            game=game,
            started=data["started"],
            players=tuple(data["players"]),
            clock=None if data["clock"] is None else ClockSettings.model_validate(data["clock"]),
            clocks=None if data["clocks"] is None else Clocks.from_json(data["clocks"]),
            seal=None if data["seal"] is None else Seal.from_json(data["seal"]),
            left=tuple((int(seat), str(kind)) for seat, kind in data["left"]),
        )

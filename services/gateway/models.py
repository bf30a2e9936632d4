"""Request and response bodies of the gateway (they make the published OpenAPI document precise)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.bus.envelope import MAX_PLAYERS
from services.bus.keys import COMMAND_ID_RE


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateGameRequest(_Request):
    """Open a game of ``game`` (its name in the registry) for ``players``, one name per seat."""

    game: str = Field(min_length=1, max_length=64, examples=["shadow"])
    players: list[str] = Field(min_length=1, max_length=MAX_PLAYERS, examples=[["Ann", "Bob", "Cid"]])
    settings: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63, description="drawn at random when left out")
    bots: dict[int, str] = Field(
        default_factory=dict,
        description='seats played by the bots process, e.g. {"1": "heuristic", "2": "random"}',
        examples=[{"1": "heuristic"}],
    )


class Seat(BaseModel):
    """One seat of a new game and its secret token (shown once: only its sha256 is stored).

    A bot's seat has ``bot`` (its kind) and no token: only the bots process acts for it.
    """

    seat: int
    player: str
    token: str | None
    bot: str | None = None


class CreatedGame(BaseModel):
    """A game just opened."""

    game_id: str
    game: str
    players: list[str]
    seed: int
    version: int
    seats: list[Seat]


class GameSummary(BaseModel):
    """What anyone may know of a game."""

    game_id: str
    game: str
    players: list[str]
    status: str
    version: int
    over: bool
    awaiting: list[int]
    result: dict[str, Any] | None


class CommandRequest(_Request):
    """A command of the token's seat; ``command`` is the game's command JSON (its ``seat`` may be left out)."""

    command: dict[str, Any] = Field(examples=[{"type": "Pass"}])
    expected_version: int | None = Field(
        default=None, ge=0, description="refused as stale_version unless the game has exactly this many events"
    )
    command_id: str | None = Field(
        default=None,
        pattern=COMMAND_ID_RE.pattern,
        description="idempotency key: sending the same id again returns the first outcome and changes nothing",
    )


class SeatEvent(BaseModel):
    """One event as a seat may see it (``event`` None: withheld from this seat)."""

    version: int
    event: dict[str, Any] | None


class CommandResult(BaseModel):
    """An accepted command: the versions of the events it caused, and those events as the seat sees them."""

    status: Literal["accepted"] = "accepted"
    command_id: str
    first_version: int
    version: int
    over: bool
    events: list[SeatEvent]


class LegalCommand(BaseModel):
    """A command the seat may send now, with a readable label."""

    index: int
    label: str
    command: dict[str, Any]


class SeatView(BaseModel):
    """The game as one seat (or a spectator, ``seat`` None) sees it, and what that seat may do."""

    game_id: str
    seat: int | None
    version: int
    over: bool
    awaiting: list[int]
    view: dict[str, Any]
    legal: list[LegalCommand]
    result: dict[str, Any] | None


class SeatEvents(BaseModel):
    """A seat's events after a version."""

    game_id: str
    seat: int | None
    version: int
    over: bool
    events: list[SeatEvent]


class ChatRequest(_Request):
    """One line of chat: empty, ``board`` or ``help`` shows the board and menu; a number or phrase picks a move."""

    text: str = Field(max_length=500)
    version: int | None = Field(
        default=None, ge=0, description="the version of the menu the text refers to (refused if the game moved)"
    )


class ChatReply(BaseModel):
    """The board as text for the seat, its numbered menu of legal moves, and what the line did."""

    game_id: str
    seat: int
    version: int
    over: bool
    board: str
    menu: list[str]
    result: dict[str, Any] | None

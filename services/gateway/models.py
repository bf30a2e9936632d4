"""Request and response bodies of the gateway (they make the published OpenAPI document precise).

Request bodies are validated strictly: no coercion (``"7"`` or ``true`` is no integer, ``"yes"`` no boolean;
``2.0`` is the integer 2, as JSON Schema says), no unknown fields, every integer bounded, player names checked
(:mod:`services.bus.names`). The free-form JSON of a command or of a game's settings is bounded too
(:mod:`services.gateway.jsonbounds`): integers fit in 64 bits (what the bus and the store can carry), floats
are finite, nesting is at most 16 deep; the game itself then validates the command and the settings (strictly:
see ``services/games/shadow/messages/settings.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from services.bus.client import BOT_KIND_RE
from services.bus.envelope import MAX_PLAYERS
from services.bus.keys import COMMAND_ID_RE
from services.bus.names import MAX_NAME, PlayerIds, PlayerNames
from services.gateway.boardlinks import DEFAULT_TTL, MAX_TTL
from services.gateway.jsonbounds import Int, JsonObject

MAX_SAFE_INT = 2**53 - 1
"""Largest seed or version a request may name: exact as a double, so every JSON client reads it right."""
MAX_VERSION = MAX_SAFE_INT


SeatKey = Annotated[str, Field(pattern=r"^(0|[1-9][0-9]?)$")]
BotKind = Annotated[str, Field(pattern=BOT_KIND_RE.pattern)]


Version = Int(0, MAX_VERSION)


class StrictRequest(BaseModel):
    """A request body: strict types, no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CreateGameRequest(StrictRequest):
    """Open a game of ``game`` (its name in the registry) for ``players``, one name per seat."""

    game: str = Field(min_length=1, max_length=64, examples=["shadow"])
    players: PlayerNames = Field(
        min_length=1,
        max_length=MAX_PLAYERS,
        examples=[["Ann", "Bob", "Cid"]],
        description=f"one name per seat: 1 to {MAX_NAME} printable characters (trimmed), unique ignoring case",
    )
    settings: JsonObject = Field(
        default_factory=dict, description="the game's table options, checked strictly by the game (no coercion)"
    )
    seed: Int(0, MAX_SAFE_INT) | None = Field(
        default=None,
        description="leave it out: the referee draws the seed from a CSPRNG, publishes only its commitment and "
        "reveals it when the game ends. A chosen seed makes a practice table (marked so wherever results show, "
        "counted on no leaderboard), allowed only where nobody else can gain from it: no open seat (every seat the "
        "creator's or a bot's), or a game without hidden information and chance; else refused (seed_not_allowed)",
    )
    bots: dict[SeatKey, BotKind] = Field(
        default_factory=dict,
        description='seats played by the bots process, e.g. {"1": "heuristic", "2": "random"}',
        examples=[{"1": "heuristic"}],
    )
    player_ids: PlayerIds | None = Field(
        default=None,
        description="one stable player id per seat, or null for a seat without one: 1 to 64 characters of "
        "A-Z a-z 0-9 _ . : - (unique). The leaderboard counts a player's games under it (names are only shown; a "
        "seat without an id is on no leaderboard). Not a secret: it is stored with the game and shown",
        examples=[["acct:ann", None, "acct:cid"]],
    )

    open: list[Int(0, MAX_PLAYERS - 1)] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS,
        json_schema_extra={"uniqueItems": True},
        description="seats left open: their tokens are not returned here; the lobby offers them "
        "(`GET /games?status=open`) and the first `POST /games/{id}/seats/{seat}/claim` receives the token",
        examples=[[2, 3]],
    )

    @model_validator(mode="after")
    def _one_player_id_per_seat(self) -> CreateGameRequest:
        if self.player_ids is not None and len(self.player_ids) != len(self.players):
            raise ValueError(f"player_ids has {len(self.player_ids)} entries for {len(self.players)} players")
        seats = set(self.open)
        if len(seats) != len(self.open) or any(seat >= len(self.players) for seat in seats):
            raise ValueError("open lists distinct seats of this game")
        if seats & {int(seat) for seat in self.bots}:
            raise ValueError("a seat is either open or a bot's, not both")
        return self

    @property
    def bot_seats(self) -> dict[int, str]:
        """``bots`` with the seats as integers."""
        return {int(seat): kind for seat, kind in self.bots.items()}


class Seat(BaseModel):
    """One seat of a new game and its secret token (shown once: only its sha256 is stored).

    A bot's seat has ``bot`` (its kind) and no token: only the bots process acts for it.
    """

    seat: int
    player: str
    token: str | None
    bot: str | None = None
    player_id: str | None = None
    open: bool = False
    """Left open: the lobby offers it, and whoever claims it first receives its token."""


class Fairness(BaseModel):
    """The fair shuffle of a game: the commitment to its seed published at the start, and after the end the seed
    and the salt it reveals (``sha256("throne-seed-v1|<seed>|<salt>")`` must equal ``commitment``)."""

    scheme: str
    commitment: str
    practice: bool = Field(description="the creator chose the seed: a practice table")
    revealed: bool
    seed: str | None = Field(default=None, description="once the game is over, in decimal")
    salt: str | None = Field(default=None, description="once the game is over")


class CreatedGame(BaseModel):
    """A game just opened."""

    game_id: str
    game: str
    players: list[str]
    seed: int | None = Field(description="the seed the creator chose (a practice table); null: secret until the end")
    practice: bool = Field(default=False, description="the creator chose the seed: a practice table")
    commitment: str | None = Field(
        default=None, description="sha256 commitment to the seed (see Fairness); null for a game without secrets"
    )
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
    practice: bool = Field(default=False, description="the creator chose the seed: a practice table")
    fairness: Fairness | None = None


class CommandRequest(StrictRequest):
    """A command of the token's seat; ``command`` is the game's command JSON (its ``seat`` may be left out)."""

    command: JsonObject = Field(examples=[{"type": "Pass"}])
    expected_version: Version | None = Field(
        default=None, description="refused as stale_version unless the game has exactly this many events"
    )
    command_id: str | None = Field(
        default=None,
        pattern=COMMAND_ID_RE.pattern,
        description="idempotency key: sending the same id again returns the first outcome and changes nothing",
    )

    @field_validator("command")
    @classmethod
    def _seat_is_a_seat(cls, command: dict[str, Any]) -> dict[str, Any]:
        seat = command.get("seat")
        if seat is not None and (type(seat) is not int or not 0 <= seat < MAX_PLAYERS):
            raise ValueError(f"command.seat is a seat number (an integer 0..{MAX_PLAYERS - 1}), or left out")
        return command


class SeatEvent(BaseModel):
    """One event as a seat may see it (``event`` None: withheld from this seat)."""

    version: int
    event: dict[str, Any] | None


class LegalCommand(BaseModel):
    """A command the seat may send now, with a readable label."""

    index: int
    label: str
    command: dict[str, Any]


class SeatView(BaseModel):
    """The game as one seat (or a spectator, ``seat`` None) sees it, and what that seat may do."""

    game_id: str
    game: str = Field(description="the game's name: which game's view ``view`` is")
    seat: int | None
    version: int
    over: bool
    awaiting: list[int]
    view: dict[str, Any]
    legal: list[LegalCommand]
    result: dict[str, Any] | None
    clocks: list[dict[str, Any]] | None = None
    """On a clocked table, per seat: ``remaining_ms`` (as of the answer), ``running``, ``deadline_ms`` (epoch ms),
    ``low``, ``timeouts`` in a row, ``autoplay``, the ``bot`` playing the seat (None: its player) and the ``setting``
    in words; None without clocks."""


class NarratedEvent(SeatEvent):
    """An event as a seat may see it, with its narration: ``text`` is the event in plain words as that seat may
    know it (None when the event is withheld); ``quiet`` marks an event a move-by-move narration may skip (it
    only moves the game along, e.g. a request for the next decision)."""

    text: str | None = None
    quiet: bool = False


class CommandResult(BaseModel):
    """An accepted command: the versions of the events it caused, and those events as the seat sees them, each
    with its narration (``text``: what happened in plain words, as this seat may know it)."""

    status: Literal["accepted"] = "accepted"
    game: str = Field(description="the game's name: which game's events ``events`` holds")
    command_id: str
    first_version: int
    version: int
    over: bool
    events: list[NarratedEvent]


class MenuGroup(BaseModel):
    """A group of a menu of legal commands: its title (levels separated by `` > ``) and the indexes of its
    commands in ``legal``."""

    title: str
    indexes: list[int]


class Turn(BaseModel):
    """The game waits for this seat: what it is asked and where (``prompt``, also as ``text``), every legal
    command with its label, and the game's grouping of them for menus."""

    kind: Literal["turn"] = "turn"
    version: int
    seat: int
    prompt: str
    text: str
    legal: list[LegalCommand]
    groups: list[MenuGroup]
    clocks: list[dict[str, Any]] | None = None
    """On a clocked table, every seat's clock as in :class:`SeatView` (the deadline of this decision included)."""


class SeatEvents(BaseModel):
    """A page of a seat's events after a version, each with its narration; ``turn`` when the game now waits for
    the seat (its own events route only). Walk the pages with ``after = next`` until ``next`` is null."""

    game_id: str
    game: str = Field(description="the game's name: which game's events ``events`` holds")
    seat: int | None
    version: int = Field(description="the game's latest version")
    over: bool
    events: list[NarratedEvent]
    turn: Turn | None = None
    after: int = Field(0, description="the page holds the events after this version (the request's ``after``)")
    next: int | None = Field(
        None, description="the ``after`` of the next page; null: this page reached ``version`` (poll from there)"
    )


class AuditPage(BaseModel):
    """A page of a game's audit: the entries (events, and the commands refused at each) of versions
    ``after < version <= next`` (or of one ``version``). Walk the pages with ``after = next`` until it is null."""

    game_id: str
    seat: int | None = Field(None, description="with ``?seat=``: only that seat's refused commands")
    last_version: int = Field(description="the game's latest version")
    over: bool
    after: int | None = Field(description="the page holds the entries after this version (null: one ``version``)")
    next: int | None = Field(description="the ``after`` of the next page; null: this page reached ``last_version``")
    only: Literal["refused"] | None = Field(None, description="with ``?only=refused``: the refused commands alone")
    entries: list[dict[str, Any]] = Field(
        description="``kind`` event (``version``, ``event_type``, ``event``, ``rulings``, ``cause``, ``command``, "
        "...) or refusal (``version`` judged at, ``code``, ``message``, ``command``, ...), in the order judged"
    )


class BoardLinkRequest(StrictRequest):
    """Ask for a short-lived link to the token's seat's board (for an ``<img src>``; the link holds no token)."""

    version: Version | None = Field(
        default=None, description="the board after this version; left out: the latest board whenever it is shown"
    )
    ttl: Int(1, MAX_TTL) = Field(default=DEFAULT_TTL, description=f"seconds the link lasts (at most {MAX_TTL})")


class BoardLink(BaseModel):
    """A signed link to one seat's SVG board: ``url`` is a path on this gateway (no token in it) that anyone
    holding it may load until ``expires`` (Unix seconds); changing any part of it breaks its signature."""

    url: str
    game_id: str
    seat: int
    version: int | Literal["latest"]
    expires: int

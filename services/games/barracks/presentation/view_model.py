"""The shape of a Barracks view (``BarracksPresenter.view``) as pydantic models: its JSON Schema is the
plug-in's ``view_schema`` (clients and the gateway's OpenAPI document type the view with it), and
tests/test_view_schemas.py checks that the views of played games conform to it. Fields that only some
decisions show (``looked``, ``forum_allowed``, ...) or only the end reveals (``seed``, ``deck``) are optional."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BoardCard(_Part):
    """A card on a space: a barbarian, or a played card (its value once face up, who played it, the card it
    covers)."""

    card: str
    barbarian: bool = False
    face_down: bool = False
    value: int = Field(default=0, description="printed value plus counters (absent while face down)")
    counters: int = 0
    player: int | None = Field(default=None, description="the seat that played it (null: a rival claimant)")
    rival: str | None = Field(default=None, description="the rival claimant's faction that played it")
    covers: BoardCard | None = None


class SeatFactions(_Part):
    """A seat and the factions it plays."""

    seat: int
    factions: list[str]


class Active(_Part):
    """Who acts now (``seat`` null: a rival claimant)."""

    seat: int | None
    factions: list[str]


class EmperorOnBoard(_Part):
    """The emperor card on an emperor space and its colour."""

    emperor: str
    colour: str


class Scoring(_Part):
    """One scoring area: a seat's, or a rival claimant's (``seat`` null)."""

    factions: list[str]
    seat: int | None
    emperors: list[str]
    barbarians: list[str]
    score: int


class Hand(_Part):
    """A seat's hand: its size and the cards others know; ``cards`` only to its own seat (or once over)."""

    seat: int
    size: int
    known: list[str]
    cards: list[str] | None = None


class Demagogue(_Part):
    """The demagogue in play."""

    seat: int
    card: str


class BarracksView(_Part):
    """The game as one seat (``seat``) or a spectator (``seat`` null) sees it."""

    game: Literal["barracks"]
    seat: int | None
    players: list[str]
    seats: list[SeatFactions]
    rivals: list[str]
    round: int
    turn: int
    active: Active
    decision: Literal["none", "action", "order", "keep", "pick", "rival_place", "over"]
    awaited: list[int]
    emperors: dict[str, EmperorOnBoard] = Field(description="by emperor space")
    board: dict[str, BoardCard] = Field(description="the occupied spaces by id")
    forum: list[str]
    deck_size: int
    discard: list[str]
    holding_box: list[str]
    pretenders_aside: list[str]
    emperors_out: list[str]
    emperor_deck_size: int
    scoring: list[Scoring]
    hands: list[Hand]
    demagogue: Demagogue | None
    passes: int
    over: bool
    result: dict[str, Any] | None
    version: int
    hand: list[str] | None = Field(default=None, description="this seat's own hand (a seat's view only)")
    surrounded: list[str] | None = None
    forum_allowed: int | None = None
    looked_count: int | None = None
    looked: list[str] | None = None
    rival_card: str | None = None
    seed: int | None = Field(default=None, description="once the game is over")
    deck: list[str] | None = Field(default=None, description="once the game is over")
    emperor_deck: list[str] | None = Field(default=None, description="once the game is over")


class NoTable(_Part):
    """Before the game's first event: there is no table yet."""

    seat: int | None
    started: Literal[False]
    over: Literal[False]
    version: Literal[0]


VIEW_ADAPTER: TypeAdapter[BarracksView | NoTable] = TypeAdapter(BarracksView | NoTable)
"""Validates a view and gives its JSON Schema."""

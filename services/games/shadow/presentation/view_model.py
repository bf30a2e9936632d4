"""The shape of a Shadow view (:func:`services.games.shadow.presentation.view.view`) as pydantic models: its JSON
Schema is the plug-in's ``view_schema`` (clients and the gateway's OpenAPI document type the view with it), and
tests/shadow/test_view_model.py checks that the views of played games conform to it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from services.games.shadow.messages.events import Prompt


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Supply(_Part):
    """What a seat has left in its supply."""

    aristocrats: int
    knights: int
    cities: int


class Aim(_Part):
    """A card aimed at an electorate."""

    card: str
    electorate: str


class Electorate(_Part):
    """One electorate: who holds its elector, whether it is closed, the power of each seat in it."""

    key: str
    name: str
    spiritual: bool
    closed: bool
    elector_owner: int | None
    privilege_used: bool
    power: list[int]


class Aristocrat(_Part):
    """A baron or a couple on the board."""

    piece: Literal["baron", "couple"]
    owner: int
    age: int


class KnightPiece(_Part):
    """A knight on the board."""

    piece: Literal["knight"]
    owner: int


class CityPiece(_Part):
    """A seat's city on the board."""

    piece: Literal["city"]
    owner: int


class EmpireCity(_Part):
    """An empire city on the board (no owner)."""

    piece: Literal["empire_city"]


BoardPiece = Annotated[Aristocrat | KnightPiece | CityPiece | EmpireCity, Field(discriminator="piece")]


class ShadowView(_Part):
    """The game as one seat (``seat``) or a spectator (``seat`` null) sees it. ``votes``: each seat's vote,
    ``"sealed"`` while another seat's is secret; ``victory_points``: null where hidden (option B6)."""

    seat: int | None
    players: list[str]
    round: int
    phase: int
    phase_name: str
    emperor: int
    thalers: list[int]
    victory_points: list[int | None]
    supply: list[Supply]
    empire_cities_in_supply: int
    play_areas: list[list[str]]
    passed: list[int]
    rival: int | None
    aims: list[Aim]
    votes: list[str | None]
    electorates: list[Electorate]
    board: dict[str, BoardPiece] = Field(description="the occupied spaces by id")
    awaiting: list[int]
    decision: Prompt | None
    over: bool
    winners: list[int] | None
    version: int


class NoTable(_Part):
    """Before the game's first event: there is no table yet."""

    seat: int | None
    version: Literal[0]
    started: Literal[False]
    over: Literal[False]


VIEW_ADAPTER: TypeAdapter[ShadowView | NoTable] = TypeAdapter(ShadowView | NoTable)
"""Validates a view and gives its JSON Schema."""

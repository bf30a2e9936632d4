"""The bodies of the lobby's routes: the list of games and open seats, a claimed seat, a left seat, the kinds
of game a table may open."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ListedSeat(BaseModel):
    """A seat of a listed game: who sits there, whether it is open, played by a bot, or left by its player."""

    seat: int
    player: str
    player_id: str | None
    open: bool
    bot: str | None
    left: bool


class ListedGame(BaseModel):
    """A game of the lobby: ``status`` is ``open`` (a seat can be claimed), ``running`` or ``over``."""

    game_id: str
    game: str
    status: Literal["open", "running", "over"]
    version: int
    created_ms: int | None
    ended_ms: int | None
    players: list[str]
    open_seats: list[int]
    seats: list[ListedSeat]
    result: dict[str, Any] | None


class GameList(BaseModel):
    """A page of the lobby, newest first; ``next`` is the cursor of the next page (None: the last one). A page
    may hold fewer games than asked and still have a next one (each request reads a bounded number of games)."""

    games: list[ListedGame]
    next: str | None


class ClaimedSeat(BaseModel):
    """An open seat just claimed, and its secret token (shown only here; keep it)."""

    game_id: str
    seat: int
    player: str
    token: str


class LeftSeat(BaseModel):
    """A seat whose player left: a bot of ``bot`` plays it from now on."""

    game_id: str
    seat: int
    bot: str


class GameKind(BaseModel):
    """A game the service referees, for a creation form."""

    game: str
    min_players: int
    max_players: int
    bots: list[str] = Field(description="its bot kinds, the default first")
    settings_schema: dict[str, Any] | None

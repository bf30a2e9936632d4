"""The bodies of the chat route (``POST /games/{id}/chat``): a line of text in, messages and a menu out."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from services.gateway.jsonbounds import Int
from services.gateway.models import StrictRequest, Version

MIN_CHAT_CHARS = 300
MAX_CHAT_CHARS = 65536
DEFAULT_CHAT_CHARS = 2000
"""A chat message's size limit (characters): 2,000 by default, within common platforms' limits."""


class ChatRequest(StrictRequest):
    """One line of chat: empty, ``board`` or ``help`` shows the board and menu; ``more`` and ``back`` page the
    menu; a group's key opens it; a number or phrase picks a move."""

    text: str = Field(max_length=500)
    version: Version | None = Field(
        default=None, description="the version of the menu the text refers to (refused if the game moved)"
    )
    since: Version | None = Field(
        default=None,
        description="the version this seat last saw: the reply narrates what happened after it (default: what "
        "the gateway remembers from this seat's last chat message)",
    )
    max_chars: Int(MIN_CHAT_CHARS, MAX_CHAT_CHARS) | None = Field(
        default=None,
        description=f"the longest message the chat platform takes (default {DEFAULT_CHAT_CHARS}, or the query's)",
    )


class ListingEntry(BaseModel):
    """One line of a menu listing: a move (``number``), a group (``key``, ``title``, ``count``) or a heading."""

    text: str
    number: int | None = None
    key: str | None = None
    title: str | None = None
    count: int | None = None


class Listing(BaseModel):
    """The part of the menu a reply shows: group ``key`` ("" the top), page ``page`` (from 0) of ``pages``."""

    key: str
    page: int
    pages: int
    entries: list[ListingEntry]


class ChatReply(BaseModel):
    """The board as text for the seat, its numbered menu of legal moves, and what the line did.

    ``messages`` is the whole reply as chat messages of at most ``max_chars`` characters each, in order: what
    happened since the seat's last message (``narration``), its own move (``result``), the board, and the
    menu listing (or the prompt and a page of it). ``menu`` lists every move, numbered in menu order.
    """

    game_id: str
    seat: int
    version: int
    over: bool
    board: str
    menu: list[str]
    result: dict[str, Any] | None
    since: int = Field(description="the narration tells what happened after this version")
    narration: list[str] = Field(description="what the others did since then, as lines (not this seat's move)")
    prompt: str | None = Field(description="what the game asks this seat now, and where (None: not its turn)")
    listing: Listing
    messages: list[str]
    max_chars: int

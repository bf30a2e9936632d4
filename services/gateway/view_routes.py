"""What a seat or a spectator sees: views, pages of narrated events, and the chat (one line in, board and menu out)."""

from __future__ import annotations

from fastapi import Query, Request, Response

from services.gateway import chatting, pages
from services.gateway.auth import seat_of
from services.gateway.chat_models import DEFAULT_CHAT_CHARS, MAX_CHAT_CHARS, MIN_CHAT_CHARS, ChatReply, ChatRequest
from services.gateway.games import History, Position
from services.gateway.models import (
    NarratedEvent,
    SeatEvents,
    SeatView,
    Turn,
)
from services.gateway.narration import narrate, plugin_of, turn
from services.gateway.route_common import (
    ERRORS,
    PAGE_ERRORS,
    SEAT,
    After,
    EventsLimit,
    GameId,
    SeatNo,
    gateway_of,
    is_seat_token,
    new_router,
    token_of,
)  # fmt: skip
from services.gateway.service import Gateway
from services.rules.contract import GamePlugin

router = new_router()


@router.get(
    "/games/{game_id}/seats/{seat}/view", response_model=SeatView, responses=ERRORS, tags=["views"], dependencies=SEAT
)
def seat_view(request: Request, game_id: str = GameId, seat: int = SeatNo) -> SeatView:
    """The game as this seat sees it, and the commands it may send now (with labels). Needs the seat's token."""
    gw = gateway_of(request)
    seat_of(gw.info_sync(game_id), token_of(request), seat)
    return gw.seat_view(gw.position(game_id), seat)


@router.get("/games/{game_id}/view", response_model=SeatView, responses=ERRORS, tags=["views"])
def spectator_view(request: Request, game_id: str = GameId) -> SeatView:
    """The game as a spectator sees it (no secrets, no commands)."""
    gw = gateway_of(request)
    return gw.seat_view(gw.position(game_id), None)


@router.get(
    "/games/{game_id}/seats/{seat}/events",
    response_model=SeatEvents,
    responses=PAGE_ERRORS,
    tags=["views"],
    dependencies=SEAT,
)
async def seat_events(
    request: Request, game_id: str = GameId, seat: int = SeatNo, after: int = After, limit: int = EventsLimit
) -> Response:
    """A page of this seat's events after version ``after`` (the polling twin of the WebSocket feed): at most
    ``limit`` versions; follow ``next``. Needs its token. A finished game's pages carry an ETag
    (``If-None-Match`` answers 304) and may be cached."""
    gw = gateway_of(request)
    seat_of(await gw.info(game_id), token_of(request), seat)
    key = ("events", game_id, seat, after, limit)
    return await pages.serve(request, key, lambda: _events_page(gw, game_id, seat, after, limit), seat=True,
                             private=True)  # fmt: skip


@router.get("/games/{game_id}/events", response_model=SeatEvents, responses=PAGE_ERRORS, tags=["views"])
async def spectator_events(
    request: Request, game_id: str = GameId, after: int = After, limit: int = EventsLimit
) -> Response:
    """A page of a spectator's events after version ``after``: at most ``limit`` versions; follow ``next``.
    A finished game's pages carry an ETag (``If-None-Match`` answers 304) and may be cached."""
    gw = gateway_of(request)
    is_seat = is_seat_token(await gw.info(game_id), token_of(request))
    key = ("events", game_id, None, after, limit)
    return await pages.serve(request, key, lambda: _events_page(gw, game_id, None, after, limit), seat=is_seat)


def _events_page(gw: Gateway, game_id: str, seat: int | None, after: int, limit: int) -> pages.Page:
    """The page ``after < version <= after + limit`` of ``seat``'s events, serialized (thread pool)."""
    pos, items = gw.history_page(game_id, after, after + limit)
    plugin = plugin_of(pos)
    message = None if seat is None else turn(plugin, pos.state, pos.version, seat)
    reply = SeatEvents(
        game_id=game_id, game=pos.name, seat=seat, version=pos.version, over=pos.over,
        events=_narrated(gw, plugin, pos, items, seat), turn=None if message is None else Turn(**message),
        after=after, next=pages.next_after(after, min(after + limit, pos.version), pos.version),
    )  # fmt: skip
    return pages.page_of(reply.__pydantic_serializer__.to_json(reply), final=pos.over)


def _narrated(gw: Gateway, plugin: GamePlugin, pos: Position, items: History, seat: int | None) -> list[NarratedEvent]:
    """Events as ``seat`` may see them, each with its narration."""
    shown = [e.event for e in gw.seat_events(pos, items, seat)]
    return [
        NarratedEvent(version=n.version, event=n.event, text=n.text, quiet=n.quiet)
        for n in narrate(plugin, pos, items, seat, shown)
    ]


# --- chat -------------------------------------------------------------------------------------------------
@router.post("/games/{game_id}/chat", response_model=ChatReply, responses=ERRORS, tags=["chat"], dependencies=SEAT)
async def chat(
    body: ChatRequest,
    request: Request,
    game_id: str = GameId,
    max_chars: int | None = Query(
        None, ge=MIN_CHAT_CHARS, le=MAX_CHAT_CHARS, description="the longest message the chat platform takes"
    ),
) -> ChatReply:
    """One line of text from a seat: what happened since its last message, the board as text, and its menu of
    legal moves, grouped and paged to fit ``max_chars`` (default 2,000); a number or a phrase plays a move.

    ``result`` is None when the line only looked or paged; else the accepted move (``label``, ``version``,
    ``events`` in plain words). ``messages`` is the reply as chat messages, each at most ``max_chars`` long.
    """
    limit = body.max_chars or max_chars or DEFAULT_CHAT_CHARS
    return await chatting.reply(gateway_of(request), game_id, token_of(request), body, limit)

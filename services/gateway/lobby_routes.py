"""The lobby's HTTP routes: ``GET /games`` (list, filter, page), claiming an open seat, leaving a seat.

The lobby itself (keys, the claim script, the listing's bounds) is :mod:`services.gateway.lobby`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, ParamSpec, TypeVar

from fastapi import Path, Query, Request
from starlette.concurrency import run_in_threadpool

from services.bots.kinds import bot_kinds, default_bot
from services.bus.keys import GAME_ID_RE
from services.gateway import errors as E
from services.gateway.auth import bearer_token, seat_of
from services.gateway.errors import ApiError
from services.gateway.lobby import CURSOR_PATTERN, MAX_LIMIT, Cursor, Lobby, LobbyError
from services.gateway.lobby_models import ClaimedSeat, GameKind, GameList, LeftSeat, ListedGame
from services.gateway.route_common import ERRORS, GAME_NAME_RE, SEAT, new_router
from services.gateway.service import Gateway
from services.rules.registry import game_names, get_game

router = new_router()

GameId = Path(pattern=GAME_ID_RE.pattern, max_length=64, description="the game's id")
SeatNo = Path(ge=0, lt=64, description="a seat (0-based)")
P = ParamSpec("P")
T = TypeVar("T")


def _gw(request: Request) -> tuple[Gateway, Lobby]:
    gw: Gateway = request.app.state.gateway
    assert gw.lobby is not None
    return gw, gw.lobby


def _lobby_call(fn: Callable[P, T], *args: P.args, **kw: P.kwargs) -> T:
    """``fn(*args, **kw)``, its :class:`LobbyError` raised as the typed HTTP error."""
    try:
        return fn(*args, **kw)
    except LobbyError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None


@router.get("/games", response_model=GameList, responses=ERRORS, tags=["lobby"])
def list_games(
    request: Request,
    status: Literal["open", "running", "over"] | None = Query(
        None, description="open: a seat can be claimed; running: every seat taken; over: ended (not archived)"
    ),
    game: str | None = Query(None, pattern=GAME_NAME_RE, description="only games of this game's name"),
    player: str | None = Query(None, min_length=1, max_length=64, description="a player's name or player id"),
    limit: int = Query(20, ge=1, le=MAX_LIMIT, description="most games on the page"),
    cursor: str | None = Query(
        None,
        max_length=120,
        description="the `next` of the previous page",
        json_schema_extra={"pattern": CURSOR_PATTERN},  # published; Cursor.parse applies it (422 bad_cursor)
    ),
) -> GameList:
    """The lobby: games newest first, filtered by status, game name and player, a page at a time (public).

    Each request reads a bounded number of games, so a filtered page may hold fewer than ``limit`` and still
    name a ``next`` cursor. Archived games are not listed."""
    _, lobby = _gw(request)
    after = _lobby_call(Cursor.parse, cursor) if cursor is not None else None
    games, nxt = lobby.list(status=status, game=game, player=player, limit=limit, cursor=after)
    return GameList(games=[ListedGame(**g) for g in games], next=None if nxt is None else nxt.encode())


@router.post("/games/{game_id}/seats/{seat}/claim", response_model=ClaimedSeat, responses=ERRORS, tags=["lobby"])
def claim_seat(request: Request, game_id: str = GameId, seat: int = SeatNo) -> ClaimedSeat:
    """Take an open seat and receive its secret token (shown only here; keep it). Only the first claim of a seat
    succeeds; later ones are 409 ``seat_taken``, and a game that ended is 409 ``game_over``."""
    gw, lobby = _gw(request)
    pos = gw.position(game_id)
    if not 0 <= seat < len(pos.players):
        raise ApiError(404, "bad_seat", f"game {game_id} has no seat {seat}")
    if pos.over:
        raise ApiError(409, E.GAME_OVER, f"game {game_id} is over: its seats can no longer be claimed")
    token = _lobby_call(lobby.claim, game_id, seat)
    gw.log.info("gateway.seat_claimed", game=game_id, seat=seat)
    return ClaimedSeat(game_id=game_id, seat=seat, player=pos.players[seat], token=token)


@router.post(
    "/games/{game_id}/seats/{seat}/leave", response_model=LeftSeat, responses=ERRORS, tags=["lobby"], dependencies=SEAT
)
async def leave_seat(request: Request, game_id: str = GameId, seat: int = SeatNo) -> LeftSeat:
    """Leave (resign) a running game with the seat's token: the game's record gets a ``SeatLeft`` fact, and the
    game's default bot plays the seat to the end (the referee's ruling on leaving is in the game's RULES.md).
    The token may send no more commands (403 ``seat_left``); it still reads what the seat may read."""
    gw, lobby = _gw(request)
    pos = await gw.position_async(game_id)
    token = bearer_token(request.headers)
    seat_of(pos, token, seat)
    assert token is not None  # seat_of refused a missing token
    if pos.over:
        raise ApiError(409, E.GAME_OVER, f"game {game_id} is over: there is nothing to leave")
    kind = default_bot(pos.name)
    await gw.record_leave(await gw.info(game_id), seat, token, kind)
    await run_in_threadpool(_lobby_call, lobby.leave, game_id, seat, kind)
    gw.log.info("gateway.seat_left", game=game_id, seat=seat, bot=kind)
    return LeftSeat(game_id=game_id, seat=seat, bot=kind)


@router.get("/lobby/games", response_model=list[GameKind], responses=ERRORS, tags=["lobby"])
def game_kinds() -> list[GameKind]:
    """The games this service referees: how many players each takes, its bots (the default first) and the JSON
    Schema of its table settings (what a creation form offers)."""
    out = []
    for name in game_names():
        plugin = get_game(name)
        caps = plugin.rules.capabilities
        first = default_bot(name)
        out.append(
            GameKind(
                game=name, min_players=caps.min_players, max_players=caps.max_players,
                bots=[first, *(k for k in bot_kinds(name) if k != first)], settings_schema=plugin.settings_schema,
            )
        )  # fmt: skip
    return out

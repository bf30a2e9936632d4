"""The HTTP routes of the gateway (the WebSocket feed is in :mod:`services.gateway.feed`).

Who may see what:

* anyone: a game's summary, the spectator view and events, the scoreboard, the leaderboard, replays and boards
  as a spectator, the JSON Schemas;
* a seat's token: that seat's view, legal commands, events, replay and board (with its own secrets), and its
  commands and chat; another seat's are refused (403 ``forbidden_seat``);
* once a game is over everything is public: any seat's replay and board, the audit and the verification.
  While it runs, audit and verification are refused (403 ``game_running``): both show every recorded event
  and command in full, sealed votes and refused commands included; a seat's token may read the audit of its own
  refused commands (``?seat=``) at any time, since what a seat sent is that seat's own;
* anyone: each game's rules reference (``/rules/{game}``, ``/rules/{game}/{ruling_id}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Response, Security
from fastapi.responses import PlainTextResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from projections.api import MAX_OFFSET, MAX_PAGE, ReadModelError
from services.bots.kinds import bot_kinds
from services.bus.client import GameNotCreated, new_id
from services.bus.keys import COMMAND_ID_RE, GAME_ID_RE
from services.bus.readiness import PROCESS
from services.gateway import chatting, pages
from services.gateway import errors as E
from services.gateway.auth import SCHEME, SEAT_TOKEN, TokenFirstRoute, bearer_token, seat_of, token_first
from services.gateway.boardlinks import LATEST, BadLink, BoardLinks
from services.gateway.errors import ApiError, ErrorResponse, JsonResponse
from services.gateway.games import GameInfo, History, Position
from services.gateway.models import (
    DEFAULT_CHAT_CHARS,
    MAX_CHAT_CHARS,
    MAX_VERSION,
    MIN_CHAT_CHARS,
    AuditPage,
    BoardLink,
    BoardLinkRequest,
    ChatReply,
    ChatRequest,
    CommandRequest,
    CommandResult,
    CreatedGame,
    CreateGameRequest,
    GameSummary,
    NarratedEvent,
    Seat,
    SeatEvents,
    SeatView,
    Turn,
)
from services.gateway.narration import narrate, plugin_of, turn
from services.gateway.service import Gateway, rejection_error
from services.rules.contract import GamePlugin
from services.rules.registry import game_names, get_game


async def _known_query_only(request: Request) -> None:
    """Refuse query parameters the route does not declare (a misspelt ``afer=3`` is an error, not ignored).

    A coroutine although it never awaits: FastAPI runs a plain function dependency in the thread pool, and a
    thread hop on every request (with the GIL handed back and forth) cost more than the whole check.
    """
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = {param.alias for param in dependant.query_params}
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        names = ", ".join(repr(name[:32]) for name in unknown[:5])
        raise ApiError(422, E.VALIDATION, f"unknown query parameter(s): {names}")


router = APIRouter(dependencies=[Depends(_known_query_only)], route_class=TokenFirstRoute)

GameId = Path(pattern=GAME_ID_RE.pattern, max_length=64, description="the game's id")
GAME_NAME_RE = r"^[A-Za-z0-9_.-]{1,64}$"
"""What a game's name may look like in a query (the registry's names are Python entry-point names)."""
SeatNo = Path(ge=0, lt=64, description="a seat (0-based)")
After = Query(0, ge=0, le=MAX_VERSION, description="the last version the client has (0: from the start)")
EventsLimit = Query(
    pages.DEFAULT_EVENTS_PAGE, ge=1, le=pages.MAX_EVENTS_PAGE,
    description=f"versions the page covers (default {pages.DEFAULT_EVENTS_PAGE}, at most {pages.MAX_EVENTS_PAGE})",
)  # fmt: skip
AtVersion = Query(None, ge=0, le=MAX_VERSION, description="a version of the game")
_ERROR_TEXTS = {
    400: "not_json / bad_request",
    401: "unauthorized: no token, or not a seat token of this game",
    403: "forbidden_seat: the token of another seat; game_running; bad_link_signature, link_expired (board links)",
    404: "unknown_game / not_found / unknown_command / bad_version, bad_seat (no such version or seat in the game); "
    "unknown_game_name, unknown_ruling (rules routes)",
    405: "method_not_allowed",
    408: "request_timeout: the request did not arrive whole in time",
    409: "a rules rejection (the game's own code, e.g. not_your_turn), stale_version, command_id_conflict, "
    "ambiguous_choice",
    413: "payload_too_large",
    422: "validation_error / bad_command / unknown_game_name",
    429: "rate_limited",
    431: "headers_too_large",
    501: "not_implemented: a read model this deployment does not serve",
    503: "redis_unavailable (with Retry-After): Redis refuses writes or does not answer for now; dead_letter",
    504: "outcome_timeout",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text} for code, text in _ERROR_TEXTS.items()
}
"""The error responses of a JSON route: each one the typed error shape."""
PAGE_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    304: {"description": "not modified: the client's copy (``If-None-Match``) is current"},
}
"""The responses of a route answering pages with an ETag."""
_ERROR_JSON = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
PICTURE_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"content": _ERROR_JSON, "description": text} for code, text in _ERROR_TEXTS.items()
}
"""The same for a route whose answer is a picture or text: its errors are still JSON."""
SEAT = [Security(SEAT_TOKEN)]
"""Dependencies of a route that needs a seat's token (declares the bearer scheme on it in the document)."""
MAY_TAKE_SEAT = {"security": [{}, {SCHEME: []}]}
"""``openapi_extra`` of a route that takes a seat's token only for a seat's own picture while the game runs."""
_READ_STATUS = {
    E.UNKNOWN_GAME: 404, "bad_version": 404, "bad_seat": 404, "unknown_game_name": 422, "bad_page": 422,
}  # fmt: skip
"""HTTP status of a read model's refusal by code (others: 400)."""


def _gw(request: Request) -> Gateway:
    return request.app.state.gateway


def _token(request: Request) -> str | None:
    return bearer_token(request.headers)


# --- games and commands -----------------------------------------------------------------------------------
@router.post("/games", status_code=201, response_model=CreatedGame, responses=ERRORS, tags=["games"])
def create_game(body: CreateGameRequest, request: Request) -> CreatedGame:
    """Open a game and get one secret token per seat (shown only here; keep them). Seats listed in ``open`` get
    no token here: the lobby offers them, and the first claim of each receives its token."""
    gw = _gw(request)
    if body.game not in game_names():
        raise ApiError(422, "unknown_game_name", f"no game called {body.game!r}; known: {', '.join(game_names())}")
    kinds = bot_kinds(body.game)
    bots = body.bot_seats
    for seat, kind in bots.items():
        if kind not in kinds:
            raise ApiError(422, "unknown_bot_kind", f"no bot {kind!r} for {body.game}; known: {', '.join(kinds)}")
        if not 0 <= seat < len(body.players):
            raise ApiError(422, E.VALIDATION, f"bot seat {seat} is not a seat of this game")
    clock_setting = body.settings.get("clock") if isinstance(body.settings, dict) else None
    handover = clock_setting.get("bot") if isinstance(clock_setting, dict) else None
    if isinstance(handover, str) and handover not in kinds:  # the rules check its form; the kinds live here
        raise ApiError(
            422, "unknown_bot_kind", f"clock bot {handover!r}: no such bot for {body.game}; known: {', '.join(kinds)}"
        )
    if body.seed is not None and body.open and get_game(body.game).rules.commits_seed:
        raise ApiError(
            422,
            "seed_not_allowed",
            "a chosen seed would let its chooser compute every hand and draw of a table strangers may join: leave "
            "the seed out (the referee draws it and reveals it at the end), or open no seat (a practice table)",
        )
    lobby = gw.lobby
    assert lobby is not None
    game_id = new_id()
    open_seats = lobby.new_open_seats(body.open)
    try:
        new = gw.service.create_game(
            body.game, body.players, body.settings, body.seed, timeout=gw.limits.command_timeout, bots=bots,
            player_ids=body.player_ids, game_id=game_id, tokens=open_seats.tokens(lobby.key, game_id),
        )  # fmt: skip
    except GameNotCreated as exc:
        raise rejection_error(exc.outcome) from None
    except TimeoutError:
        raise ApiError(504, E.OUTCOME_TIMEOUT, "the game was not created in time") from None
    except ValueError as exc:
        raise ApiError(422, E.VALIDATION, str(exc)[:300]) from None
    lobby.offer(new.game_id, open_seats)
    ids = body.player_ids or [None] * len(body.players)
    seats = [
        Seat(
            seat=i, player=p, token=None if i in bots or i in body.open else t, bot=bots.get(i), player_id=ids[i],
            open=i in body.open,
        )
        for i, (p, t) in enumerate(zip(body.players, new.tokens, strict=True))
    ]  # fmt: skip
    version = new.outcome.version if new.outcome is not None and new.outcome.version is not None else 0
    gw.log.info("gateway.game_created", game=new.game_id, name=body.game, players=len(body.players), version=version)
    return CreatedGame(
        game_id=new.game_id, game=body.game, players=body.players, seed=new.seed, practice=new.seed is not None,
        commitment=new.commitment if get_game(body.game).rules.commits_seed else None, version=version, seats=seats,
    )  # fmt: skip


@router.get("/games/{game_id}", response_model=GameSummary, responses=ERRORS, tags=["games"])
def game_summary(request: Request, game_id: str = GameId) -> GameSummary:
    """What anyone may know of a game: players, status, version, who is awaited, the result once over."""
    gw = _gw(request)
    pos = gw.position(game_id)
    rules = pos.rules
    fairness = rules.fairness(pos.state)
    return GameSummary(
        game_id=game_id,
        game=pos.name,
        players=list(pos.players),
        status=pos.status,
        version=pos.version,
        over=pos.over,
        awaiting=list(rules.awaited(pos.state)),
        result=rules.result(pos.state),
        practice=bool(fairness and fairness["practice"]),
        fairness=fairness,
    )


async def send_command(body: CommandRequest, request: Request, game_id: str = GameId) -> CommandResult:
    """Send a command for the token's seat and get its outcome: the events it caused, or a typed rejection."""
    gw = _gw(request)
    info = await gw.info(game_id)
    token = _token(request)
    seat = seat_of(info, token)
    assert token is not None
    env = gw.envelope(info, seat, token, body.command, body.expected_version, body.command_id)
    outcome = await gw.execute(env, fresh=body.command_id is None)
    return await gw.result(outcome, seat)


class _CommandRoute(TokenFirstRoute):
    """The route of :func:`send_command`, the gateway's hot path, with a short way for a plainly well-formed
    request: no query string, a JSON body that is a valid :class:`CommandRequest`, a game id of the right shape.
    Either way the token is checked first (:func:`token_first`): 401 whatever the body.
    Such a request is decided exactly as FastAPI would (the same body validation, in Python mode after
    ``json.loads``; the same endpoint; its errors raised to the same handlers; the answer serialized by the
    route's own response field), without the general machinery around it (dependency solving, parameter
    collection), which cost more CPU than the command's own work. Any other request takes FastAPI's way, which
    answers it with the same typed errors as before (422 ``validation_error``, 400 ``not_json``, ...).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, behind the token check and the short way."""
        general = APIRoute.get_route_handler(self)  # FastAPI's own: the token is checked here, once
        response_field = self.response_field
        assert response_field is not None

        async def handler(request: Request) -> Response:
            await token_first(request)
            body = await _plain_command(request)
            if body is None:
                return await general(request)
            result = await send_command(body, request, request.path_params["game_id"])
            return Response(response_field.serialize_json(result, by_alias=True), media_type="application/json")

        return handler


async def _plain_command(request: Request) -> CommandRequest | None:
    """The body of a plainly well-formed command request, else None (FastAPI's way will say what is wrong)."""
    if request.scope.get("query_string") or request.headers.get("content-type") != "application/json":
        return None
    game_id = request.path_params.get("game_id")
    if not isinstance(game_id, str) or GAME_ID_RE.fullmatch(game_id) is None:
        return None
    try:
        return CommandRequest.model_validate(json.loads(await request.body()))
    except Exception:  # not JSON, too deeply nested, not a command...: FastAPI's way answers it as it always did
        return None


router.add_api_route(
    "/games/{game_id}/commands", send_command, methods=["POST"], response_model=CommandResult, responses=ERRORS,
    tags=["commands"], dependencies=SEAT, route_class_override=_CommandRoute,
)  # fmt: skip


@router.get(
    "/games/{game_id}/commands/{command_id}",
    response_model=CommandResult,
    responses=ERRORS,
    tags=["commands"],
    dependencies=SEAT,
)
async def command_outcome(
    request: Request, game_id: str = GameId, command_id: str = Path(pattern=COMMAND_ID_RE.pattern)
) -> CommandResult:
    """The outcome of a command this seat sent earlier (e.g. after ``outcome_timeout``).

    Command ids belong to the seat that sent them: the token's seat sees only its own commands' outcomes, and
    any other id (none yet, expired, or another seat's) is 404 ``not_found``.
    """
    gw = _gw(request)
    info = await gw.info(game_id)
    seat = seat_of(info, _token(request))
    outcome = await gw.bus.outcome(game_id, seat, command_id)
    if outcome is None:
        raise ApiError(404, E.NOT_FOUND, f"no outcome of a command {command_id!r} of this seat (yet)")
    return await gw.result(outcome, seat)


# --- views and events -------------------------------------------------------------------------------------
@router.get(
    "/games/{game_id}/seats/{seat}/view", response_model=SeatView, responses=ERRORS, tags=["views"], dependencies=SEAT
)
def seat_view(request: Request, game_id: str = GameId, seat: int = SeatNo) -> SeatView:
    """The game as this seat sees it, and the commands it may send now (with labels). Needs the seat's token."""
    gw = _gw(request)
    seat_of(gw.info_sync(game_id), _token(request), seat)
    return gw.seat_view(gw.position(game_id), seat)


@router.get("/games/{game_id}/view", response_model=SeatView, responses=ERRORS, tags=["views"])
def spectator_view(request: Request, game_id: str = GameId) -> SeatView:
    """The game as a spectator sees it (no secrets, no commands)."""
    gw = _gw(request)
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
    gw = _gw(request)
    seat_of(await gw.info(game_id), _token(request), seat)
    key = ("events", game_id, seat, after, limit)
    return await pages.serve(request, key, lambda: _events_page(gw, game_id, seat, after, limit), seat=True,
                             private=True)  # fmt: skip


@router.get("/games/{game_id}/events", response_model=SeatEvents, responses=PAGE_ERRORS, tags=["views"])
async def spectator_events(
    request: Request, game_id: str = GameId, after: int = After, limit: int = EventsLimit
) -> Response:
    """A page of a spectator's events after version ``after``: at most ``limit`` versions; follow ``next``.
    A finished game's pages carry an ETag (``If-None-Match`` answers 304) and may be cached."""
    gw = _gw(request)
    is_seat = _is_seat(await gw.info(game_id), _token(request))
    key = ("events", game_id, None, after, limit)
    return await pages.serve(request, key, lambda: _events_page(gw, game_id, None, after, limit), seat=is_seat)


def _is_seat(info: GameInfo | Position, token: str | None) -> bool:
    """Whether ``token`` is a seat's of this game (a player reading a public route is no anonymous reader)."""
    return token is not None and info.seat_of(token) is not None


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
    return await chatting.reply(_gw(request), game_id, _token(request), body, limit)


# --- read models ------------------------------------------------------------------------------------------
def _read(gw: Gateway, method: str, *args: Any) -> Any:
    """Call a read-model query; its typed errors become typed HTTP errors."""
    try:
        return getattr(gw.read_models, method)(*args)
    except ReadModelError as exc:
        raise ApiError(_READ_STATUS.get(exc.code, 400), exc.code, exc.message) from None
    except NotImplementedError:
        raise ApiError(501, "not_implemented", f"the read model {method!r} is not available yet") from None


@router.get("/games/{game_id}/scoreboard", responses=ERRORS, tags=["read models"])
def scoreboard(request: Request, game_id: str = GameId) -> JsonResponse:
    """The live scoreboard (public)."""
    return JsonResponse(_read(_gw(request), "scoreboard", game_id))


@router.get("/leaderboard", responses=ERRORS, tags=["read models"])
def leaderboard(
    request: Request,
    game: str | None = Query(None, pattern=GAME_NAME_RE, description="a game's name (default: the default game)"),
    offset: int = Query(0, ge=0, le=MAX_OFFSET, description="rows to skip (the first row has rank offset + 1)"),
    limit: int = Query(20, ge=1, le=MAX_PAGE, description="rows to answer"),
) -> JsonResponse:
    """One game's leaderboard, best first (public): per stable player id its display name last used, games,
    wins (shared victories counted as the game says) and the game's own score (``score_label``) averaged.
    Seats created without a player id are on no leaderboard. An unknown game is 422 ``unknown_game_name``."""
    return JsonResponse(_read(_gw(request), "leaderboard", game, offset, limit))


@router.get("/games/{game_id}/replay", responses=PAGE_ERRORS, tags=["read models"], openapi_extra=MAY_TAKE_SEAT)
async def replay(
    request: Request,
    game_id: str = GameId,
    version: int = Query(ge=0, le=MAX_VERSION),
    seat: int | None = Query(None, ge=0, lt=64),
) -> Response:
    """The board after event ``version`` and that event, as a spectator or (with its token) a seat sees them.
    A finished game's steps carry an ETag (``If-None-Match`` answers 304) and may be cached."""
    gw = _gw(request)
    pos = await gw.position_async(game_id)
    is_seat = _is_seat(pos, _token(request))
    if seat is not None and not pos.over:
        seat_of(pos, _token(request), seat)
        is_seat = True

    def build() -> pages.Page:
        return pages.page_of(_dumps(_read(gw, "replay", game_id, version, seat)), final=pos.over)

    private = seat is not None and not pos.over
    return await pages.serve(request, ("replay", game_id, version, seat), build, seat=is_seat, private=private)


@router.get("/games/{game_id}/audit", response_model=AuditPage, responses=PAGE_ERRORS, tags=["read models"])
async def audit(
    request: Request,
    game_id: str = GameId,
    version: int | None = AtVersion,
    seat: int | None = Query(None, ge=0, lt=64, description="a seat: only its own refused commands (its token)"),
    after: int = After,
    limit: int = Query(
        pages.DEFAULT_AUDIT_PAGE,
        ge=1,
        le=pages.MAX_AUDIT_PAGE,
        description=f"versions the page covers (default {pages.DEFAULT_AUDIT_PAGE}, at most {pages.MAX_AUDIT_PAGE})",
    ),
) -> Response:
    """A page of why each event happened (command, sender, time, rulings with their texts) and every refused
    command (who, when, the command, its code, the sentence its sender was told, the rulings), versions
    ``after < v <= after + limit``: follow ``next``; ``version`` instead: that version's entries only. Public
    once the game is over. With ``seat`` and that seat's token, while the game runs too: that seat's own
    refused commands. A finished game's pages carry an ETag (``If-None-Match`` answers 304)."""
    gw = _gw(request)
    pos = await gw.position_async(game_id)
    is_seat = _is_seat(pos, _token(request))
    if seat is not None:
        if not pos.over:
            seat_of(pos, _token(request), seat)
            is_seat = True
    elif not pos.over:
        raise ApiError(403, E.GAME_RUNNING, "the audit of a game is public once it is over; this one still runs")

    def build() -> pages.Page:
        doc = _read(gw, "audit", game_id, version, seat, after, limit)
        # Refusals judged at the last version may still come (commands sent to an ended game are refused and
        # logged): every page but the last is final.
        settled = doc["next"] is not None or (version is not None and version < doc["last_version"])
        final = bool(doc["over"]) and settled
        return pages.page_of(_dumps(doc), final=final)

    key = ("audit", game_id, version, seat, after, limit)
    return await pages.serve(request, key, build, seat=is_seat, private=seat is not None and not pos.over)


@router.get("/games/{game_id}/verify", responses=PAGE_ERRORS, tags=["read models"])
async def verify(request: Request, game_id: str = GameId) -> Response:
    """Re-run the recorded commands through the current rules; public once the game is over (its answer then
    never changes: it carries an ETag, ``If-None-Match`` answers 304)."""
    gw = _gw(request)
    pos = await gw.position_async(game_id)
    if not pos.over:
        raise ApiError(403, E.GAME_RUNNING, "the verification of a game is public once it is over; this one still runs")

    def build() -> pages.Page:
        return pages.page_of(_dumps(_read(gw, "verify", game_id)), final=True)

    return await pages.serve(request, ("verify", game_id), build, seat=_is_seat(pos, _token(request)))


def _dumps(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)


@router.get(
    "/games/{game_id}/board.svg",
    responses={**PICTURE_ERRORS, 200: {"content": {"image/svg+xml": {}}}},
    response_class=Response,
    tags=["read models"],
    openapi_extra=MAY_TAKE_SEAT,
)
async def board_svg(
    request: Request,
    game_id: str = GameId,
    version: int | None = AtVersion,
    seat: int | None = Query(None, ge=0, lt=64),
) -> Response:
    """The board as SVG (latest, or after ``version``), for a spectator or (with its token) a seat."""
    svg = await _picture(request, game_id, "board_svg", version, seat)
    return Response(svg, media_type="image/svg+xml")


@router.get(
    "/games/{game_id}/board.txt",
    response_class=PlainTextResponse,
    responses=PICTURE_ERRORS,
    tags=["read models"],
    openapi_extra=MAY_TAKE_SEAT,
)
async def board_text(
    request: Request,
    game_id: str = GameId,
    version: int | None = AtVersion,
    seat: int | None = Query(None, ge=0, lt=64),
) -> PlainTextResponse:
    """The board as text, for a spectator or (with its token) a seat."""
    return PlainTextResponse(await _picture(request, game_id, "board_text", version, seat))


async def _picture(request: Request, game_id: str, method: str, version: int | None, seat: int | None) -> str:
    """A board picture, drawn in the thread pool: through the read gate unless the caller is a seat."""
    gw = _gw(request)
    pos = await gw.position_async(game_id)
    token = _token(request)
    is_seat = _is_seat(pos, token)
    if seat is not None and not pos.over:
        seat_of(pos, token, seat)
        is_seat = True
    if is_seat:
        return await run_in_threadpool(_read, gw, method, game_id, version, seat)  # type: ignore[no-any-return]
    return await pages.reads_of(request).gate.run(_read, gw, method, game_id, version, seat)  # type: ignore[no-any-return]


# --- rules references -------------------------------------------------------------------------------------
def _reference(game: str) -> dict[str, Any]:
    if game not in game_names():
        raise ApiError(404, "unknown_game_name", f"no game called {game[:64]!r}; known: {', '.join(game_names())}")
    return {rid: ruling.to_dict() for rid, ruling in get_game(game).rulings().items()}


@router.get("/rules/{game}", responses=ERRORS, tags=["rules"])
def rules_reference(game: str = Path(pattern=GAME_NAME_RE, description="a game's name")) -> JsonResponse:
    """A game's rules reference: every ruling id its events and refusals may cite, with its title and text (the
    project's own words; the product's rulings have the full statements)."""
    rulings = _reference(game)
    return JsonResponse({"game": game, "rulings": list(rulings.values())})


@router.get("/rules/{game}/{ruling_id}", responses=ERRORS, tags=["rules"])
def ruling(
    game: str = Path(pattern=GAME_NAME_RE, description="a game's name"),
    ruling_id: str = Path(pattern=r"^[A-Z]{1,4}[0-9]{1,3}$", description="a ruling id, e.g. X4 or K27"),
) -> JsonResponse:
    """One ruling of a game's rules reference: ``{"game", "id", "title", "text"}``; 404 ``unknown_ruling``."""
    found = _reference(game).get(ruling_id)
    if found is None:
        raise ApiError(404, "unknown_ruling", f"{game} has no ruling {ruling_id}")
    return JsonResponse({"game": game, **found})


# --- board links -----------------------------------------------------------------------------------------
def _links(request: Request) -> BoardLinks:
    return request.app.state.board_links  # type: ignore[no-any-return]


@router.post(
    "/games/{game_id}/board-links",
    status_code=201,
    response_model=BoardLink,
    responses=ERRORS,
    tags=["read models"],
    dependencies=SEAT,
)
async def create_board_link(body: BoardLinkRequest, request: Request, game_id: str = GameId) -> BoardLink:
    """A short-lived link to the token's seat's board as SVG, for an ``<img src>``: the link holds no token, only
    a signature of (game, seat, version, expiry); it shows that seat's board, with its secrets, until it
    expires (``ttl`` seconds, at most an hour). ``version`` left out: the latest board whenever it is loaded."""
    gw = _gw(request)
    seat = seat_of(await gw.info(game_id), _token(request))
    if body.version is not None:
        pos = await gw.position_async(game_id)
        if body.version > pos.version:
            raise ApiError(404, "bad_version", f"game {game_id} has events 0..{pos.version}, not {body.version}")
    url, expires = _links(request).make(game_id, seat, body.version, body.ttl)
    version = LATEST if body.version is None else body.version
    return BoardLink(url=url, game_id=game_id, seat=seat, version=version, expires=expires)


@router.get(
    "/games/{game_id}/seats/{seat}/board.svg",
    responses={**PICTURE_ERRORS, 200: {"content": {"image/svg+xml": {}}}},
    response_class=Response,
    tags=["read models"],
)
def linked_board(
    request: Request,
    game_id: str = GameId,
    seat: int = SeatNo,
    version: str = Query(pattern=r"^(latest|0|[1-9][0-9]{0,15})$", description="as the link says"),
    expires: int = Query(ge=0, le=MAX_VERSION, description="as the link says (Unix seconds)"),
    signature: str = Query(pattern=r"^[A-Za-z0-9_-]{43}$", description="as the link says"),
) -> Response:
    """A seat's board as SVG through a link made by ``POST /games/{id}/board-links`` (no token needed: the
    signature is the permission). An altered link is 403 ``bad_link_signature``, an old one 403
    ``link_expired``."""
    links = _links(request)
    try:
        at = links.check(game_id, seat, version, expires, signature)
    except BadLink as exc:
        raise ApiError(403, exc.code, exc.message) from None
    svg = _read(_gw(request), "board_svg", game_id, at, seat)
    # A fixed version never changes (cache it while the link lasts); the latest board must be asked again.
    cache = "private, no-cache" if at is None else f"private, max-age={links.remaining(expires)}"
    headers = {"Cache-Control": cache, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"}
    return Response(svg, media_type="image/svg+xml", headers=headers)


SCHEMA_KINDS = ("commands", "events", "views")


# --- schemas and health -----------------------------------------------------------------------------------
@router.get("/schemas", tags=["schemas"])
def schemas() -> JsonResponse:
    """The games whose command, event and view JSON Schemas can be downloaded."""
    from events.schemas import ADAPTERS

    games = sorted({name.split(".")[0] for name in ADAPTERS})
    return JsonResponse(
        {
            "games": [
                {"game": g, **{kind: f"/schemas/{kind}/{g}" for kind in SCHEMA_KINDS if f"{g}.{kind}" in ADAPTERS}}
                for g in games
            ]
        }
    )


@router.get("/schemas/{kind}/{game}", responses=ERRORS, tags=["schemas"])
def schema(kind: str, game: str) -> JsonResponse:
    """The JSON Schema (draft 2020-12) of a game's commands, events or views."""
    from events.schemas import ADAPTERS, schema_of

    name = f"{game}.{kind}"
    if kind not in SCHEMA_KINDS or name not in ADAPTERS:
        raise ApiError(404, "unknown_schema", f"no schema {kind}/{game}")
    return JsonResponse(schema_of(name), headers={"Content-Disposition": f'inline; filename="{name}.schema.json"'})


@router.get("/health", responses={503: ERRORS[503]}, tags=["health"])
async def health(request: Request) -> JsonResponse:
    """Whether this gateway is ready: it reaches its Redis (not loading, not refusing), and so does every loop it
    runs in-process (``--worker``, ``--bots``, ``--projections``)."""
    gw = _gw(request)
    try:
        ok = bool(await gw.bus.r.ping())
    except Exception as exc:  # report, do not raise: a health check answers
        return JsonResponse(E.error_body(E.UNAVAILABLE, f"redis: {exc}"), status_code=503)
    waiting = PROCESS.waiting_parts()
    if waiting:
        return JsonResponse(E.error_body(E.UNAVAILABLE, f"waiting for redis: {', '.join(waiting)}"), status_code=503)
    return JsonResponse({"ok": ok})

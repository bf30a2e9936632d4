"""The read models over HTTP: scoreboard, leaderboard, replay (one step, or every step at once), audit,
verification and board pictures, each a direct call of the projections' query API
(:class:`projections.api.ReadModels`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, ParamSpec, TypeVar

from fastapi import Query, Request, Response
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from projections.api import MAX_OFFSET, MAX_PAGE, ReadModelError, ReadModels
from services.gateway import errors as E
from services.gateway import pages
from services.gateway.auth import seat_of
from services.gateway.errors import ApiError, JsonResponse
from services.gateway.models import (
    MAX_VERSION,
    AuditPage,
)
from services.gateway.replay_models import ReplaySteps
from services.gateway.route_common import (
    ERRORS,
    GAME_NAME_RE,
    MAY_TAKE_SEAT,
    PAGE_ERRORS,
    PICTURE_ERRORS,
    After,
    AtVersion,
    GameId,
    dumps_doc,
    gateway_of,
    is_seat_token,
    new_router,
    token_of,
)  # fmt: skip

router = new_router()


P = ParamSpec("P")
T = TypeVar("T")
Picture = Callable[[str, int | None, int | None], str]
"""A board picture query: (game id, version, seat) -> the picture."""
_READ_STATUS = {
    E.UNKNOWN_GAME: 404, "bad_version": 404, "bad_seat": 404, "unknown_game_name": 422, "bad_page": 422,
}  # fmt: skip
"""HTTP status of a read model's refusal by code (others: 400)."""


def read(query: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Call a read-model query (a method of :class:`ReadModels`); its typed errors become typed HTTP errors."""
    try:
        return query(*args, **kwargs)
    except ReadModelError as exc:
        raise ApiError(_READ_STATUS.get(exc.code, 400), exc.code, exc.message) from None
    except NotImplementedError:
        name = getattr(query, "__name__", "query")
        raise ApiError(501, "not_implemented", f"the read model {name!r} is not available yet") from None


@router.get("/games/{game_id}/scoreboard", responses=ERRORS, tags=["read models"])
def scoreboard(request: Request, game_id: str = GameId) -> JsonResponse:
    """The live scoreboard (public)."""
    return JsonResponse(read(gateway_of(request).read_models.scoreboard, game_id))


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
    return JsonResponse(read(gateway_of(request).read_models.leaderboard, game, offset, limit))


@router.get("/games/{game_id}/replay", responses=PAGE_ERRORS, tags=["read models"], openapi_extra=MAY_TAKE_SEAT)
async def replay(
    request: Request,
    game_id: str = GameId,
    version: int = Query(ge=0, le=MAX_VERSION),
    seat: int | None = Query(None, ge=0, lt=64),
) -> Response:
    """The board after event ``version`` and that event, as a spectator or (with its token) a seat sees them.
    A finished game's steps carry an ETag (``If-None-Match`` answers 304) and may be cached."""
    gw = gateway_of(request)
    pos = await gw.position_async(game_id)
    is_seat = is_seat_token(pos, token_of(request))
    if seat is not None and not pos.over:
        seat_of(pos, token_of(request), seat)
        is_seat = True

    def build() -> pages.Page:
        return pages.page_of(dumps_doc(read(gw.read_models.replay, game_id, version, seat)), final=pos.over)

    private = seat is not None and not pos.over
    return await pages.serve(request, ("replay", game_id, version, seat), build, seat=is_seat, private=private)


@router.get(
    "/games/{game_id}/replay/steps",
    response_model=ReplaySteps,
    responses=PAGE_ERRORS,
    tags=["read models"],
    openapi_extra=MAY_TAKE_SEAT,
)
async def replay_steps(
    request: Request,
    game_id: str = GameId,
    seat: int | None = Query(None, ge=0, lt=64, description="that seat's perspective (its token while the game runs)"),
    after: int = After,
    limit: int = Query(
        pages.MAX_REPLAY_STEPS,
        ge=1,
        le=pages.MAX_REPLAY_STEPS,
        description=f"steps the page covers (default and at most {pages.MAX_REPLAY_STEPS}; with ``view`` or "
        f"``board``, at most {pages.MAX_REPLAY_DETAIL_STEPS}: follow ``next``)",
    ),
    view: bool = Query(False, description="each step with the reader's view after it"),
    board: bool = Query(False, description="each step with the board after it, as text"),
) -> Response:
    """Every step of the replay in one answer (versions ``after < v <= after + limit``): each event as a
    spectator or (with its token) a seat may see it and its text, the same as ``/replay?version=V`` at each
    version, read and folded once. A finished game's pages carry an ETag (``If-None-Match`` answers 304)."""
    gw = gateway_of(request)
    pos = await gw.position_async(game_id)
    is_seat = is_seat_token(pos, token_of(request))
    if seat is not None and not pos.over:
        seat_of(pos, token_of(request), seat)
        is_seat = True
    # A step with its view or board is some ten times larger: fewer of them make one bounded answer.
    covered = min(limit, pages.MAX_REPLAY_DETAIL_STEPS) if view or board else limit

    def build() -> pages.Page:
        doc = read(gw.read_models.replay_all, game_id, seat, after=after, limit=covered, views=view, boards=board)
        return pages.page_of(dumps_doc(doc), final=bool(doc["over"]))

    private = seat is not None and not pos.over
    key = ("replay-steps", game_id, seat, after, covered, view, board)
    return await pages.serve(request, key, build, seat=is_seat, private=private)


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
    only: Literal["refused"] | None = Query(None, description="``refused``: only the refused commands"),
) -> Response:
    """A page of why each event happened (command, sender, time, rulings with their texts) and every refused
    command (who, when, the command, its code, the sentence its sender was told, the rulings), versions
    ``after < v <= after + limit``: follow ``next``; ``version`` instead: that version's entries only. Public
    once the game is over. With ``seat`` and that seat's token, while the game runs too: that seat's own
    refused commands; ``only=refused``: the refused commands alone (who, when, why), for a referee. A finished
    game's pages carry an ETag (``If-None-Match`` answers 304)."""
    gw = gateway_of(request)
    pos = await gw.position_async(game_id)
    is_seat = is_seat_token(pos, token_of(request))
    if seat is not None:
        if not pos.over:
            seat_of(pos, token_of(request), seat)
            is_seat = True
    elif not pos.over:
        raise ApiError(403, E.GAME_RUNNING, "the audit of a game is public once it is over; this one still runs")

    def build() -> pages.Page:
        doc = read(gw.read_models.audit, game_id, version, seat, after, limit, refused_only=only == "refused")
        # Refusals judged at the last version may still come (commands sent to an ended game are refused and
        # logged): every page but the last is final.
        settled = doc["next"] is not None or (version is not None and version < doc["last_version"])
        final = bool(doc["over"]) and settled
        return pages.page_of(dumps_doc(doc), final=final)

    key = ("audit", game_id, version, seat, after, limit, only)
    return await pages.serve(request, key, build, seat=is_seat, private=seat is not None and not pos.over)


@router.get("/games/{game_id}/verify", responses=PAGE_ERRORS, tags=["read models"])
async def verify(request: Request, game_id: str = GameId) -> Response:
    """Re-run the recorded commands through the current rules; public once the game is over (its answer then
    never changes: it carries an ETag, ``If-None-Match`` answers 304)."""
    gw = gateway_of(request)
    pos = await gw.position_async(game_id)
    if not pos.over:
        raise ApiError(403, E.GAME_RUNNING, "the verification of a game is public once it is over; this one still runs")

    def build() -> pages.Page:
        return pages.page_of(dumps_doc(read(gw.read_models.verify, game_id)), final=True)

    return await pages.serve(request, ("verify", game_id), build, seat=is_seat_token(pos, token_of(request)))


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
    svg = await _picture(request, game_id, version, seat, lambda models: models.board_svg)
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
    return PlainTextResponse(await _picture(request, game_id, version, seat, lambda models: models.board_text))


async def _picture(
    request: Request, game_id: str, version: int | None, seat: int | None, picture: Callable[[ReadModels], Picture]
) -> str:
    """A board picture (``picture`` picks the query), drawn in the thread pool: through the read gate unless the
    caller is a seat."""
    gw = gateway_of(request)
    pos = await gw.position_async(game_id)
    token = token_of(request)
    is_seat = is_seat_token(pos, token)
    if seat is not None and not pos.over:
        seat_of(pos, token, seat)
        is_seat = True
    if is_seat:
        return await run_in_threadpool(read, picture(gw.read_models), game_id, version, seat)
    return await pages.reads_of(request).gate.run(read, picture(gw.read_models), game_id, version, seat)  # type: ignore[no-any-return]

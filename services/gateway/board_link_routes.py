"""Short-lived signed links to a seat's SVG board (for an ``<img src>``: the link holds no token)."""

from __future__ import annotations

from fastapi import Query, Request, Response

from services.gateway.auth import seat_of
from services.gateway.boardlinks import LATEST, BadLink, BoardLinks
from services.gateway.errors import ApiError
from services.gateway.models import (
    MAX_VERSION,
    BoardLink,
    BoardLinkRequest,
)
from services.gateway.read_routes import read
from services.gateway.route_common import (
    ERRORS,
    PICTURE_ERRORS,
    SEAT,
    GameId,
    SeatNo,
    gateway_of,
    new_router,
    token_of,
)  # fmt: skip

router = new_router()


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
    gw = gateway_of(request)
    seat = seat_of(await gw.info(game_id), token_of(request))
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
    svg = read(gateway_of(request).read_models.board_svg, game_id, at, seat)
    # A fixed version never changes (cache it while the link lasts); the latest board must be asked again.
    cache = "private, no-cache" if at is None else f"private, max-age={links.remaining(expires)}"
    headers = {"Cache-Control": cache, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"}
    return Response(svg, media_type="image/svg+xml", headers=headers)

"""What the gateway's route modules share: the query-parameter guard, the path and query parameters, the
error responses of the OpenAPI document, the seat-token dependency and the request's gateway and token."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Security

from services.bus.keys import GAME_ID_RE
from services.gateway import errors as E
from services.gateway import pages
from services.gateway.auth import SCHEME, SEAT_TOKEN, TokenFirstRoute, bearer_token
from services.gateway.errors import ApiError, ErrorResponse
from services.gateway.games import GameInfo, Position
from services.gateway.models import (
    MAX_VERSION,
)
from services.gateway.service import Gateway


async def known_query_only(request: Request) -> None:
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


def new_router() -> APIRouter:
    """A router of gateway routes: the token is checked first, and unknown query parameters are refused."""
    return APIRouter(dependencies=[Depends(known_query_only)], route_class=TokenFirstRoute)


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


def gateway_of(request: Request) -> Gateway:
    """The gateway serving ``request``."""
    return request.app.state.gateway  # type: ignore[no-any-return]


def token_of(request: Request) -> str | None:
    """The bearer token of ``request``, if any."""
    return bearer_token(request.headers)


def is_seat_token(info: GameInfo | Position, token: str | None) -> bool:
    """Whether ``token`` is a seat's of this game (a player reading a public route is no anonymous reader)."""
    return token is not None and info.seat_of(token) is not None


def dumps_doc(doc: Any) -> bytes:
    """A read model's answer as JSON bytes (integer keys allowed)."""
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)

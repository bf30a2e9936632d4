"""Seat tokens: a token acts and sees for its own seat only.

A request names its token as ``Authorization: Bearer <token>`` (a WebSocket may also pass ``?token=``, since
browsers can not set headers on one). The gateway hashes it and compares with the sha256 digests stored in the
game's metadata at creation; the secret itself is never stored. Which seat a token belongs to follows from
which digest it matches, so a command needs no ``seat``, and a token used for any other seat is refused:

* no token, or one that is no seat's token of this game: 401 ``unauthorized``;
* a seat's token used for another seat (its view, its feed, its replay, a command naming it): 403
  ``forbidden_seat``.

On a route that needs a seat's token (:class:`TokenFirstRoute`) the token is checked first, before the body and
the query are read: a request without a seat's token of the game is 401 whatever else it carries (a malformed
body included), so an outsider learns nothing of what the route would make of a request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer

from services.bus.keys import GAME_ID_RE
from services.gateway.errors import FORBIDDEN_SEAT, UNAUTHORIZED, ApiError
from services.gateway.games import GameInfo, Position

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="throne"'}
SCHEME = "seatToken"
"""The name of the bearer security scheme in the OpenAPI document."""
SEAT_TOKEN = HTTPBearer(
    scheme_name=SCHEME,
    bearerFormat="opaque seat token",
    description="A seat's secret token, as POST /games returned it: it acts and sees for that seat only.",
    auto_error=False,  # declares the scheme; the routes check the token themselves (typed 401/403)
)
"""Security dependency of the routes that need (or take) a seat's token: it only documents the scheme."""


def bearer_token(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str | None:
    """The token of ``Authorization: Bearer <token>``, else of a ``token`` query parameter, else None."""
    value = headers.get("authorization")
    if value:
        scheme, _, token = value.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    if query is not None:
        token = query.get("token")
        if token:
            return token
    return None


def seat_of(info: GameInfo | Position, token: str | None, wanted: int | None = None) -> int:
    """The seat ``token`` belongs to in this game; with ``wanted``, that seat or a refusal.

    Raises :class:`ApiError` 401 ``unauthorized`` (no token / not a token of this game) or 403
    ``forbidden_seat`` (the token of another seat than ``wanted``).
    """
    if not token:
        raise ApiError(401, UNAUTHORIZED, "this needs a seat's token: Authorization: Bearer <token>", CHALLENGE)
    seat = info.seat_of(token)
    if seat is None:
        raise ApiError(401, UNAUTHORIZED, f"the token is not a seat token of game {info.game_id}", CHALLENGE)
    if wanted is not None and wanted != seat:
        raise ApiError(403, FORBIDDEN_SEAT, f"this token acts and sees for seat {seat} only, not seat {wanted}")
    return seat


_SEAT_PATH = re.compile(r"0|[1-9][0-9]?")
"""A seat in a path as the routes take it (0 to 99, no sign, no leading zero); any other is the route's 422."""


def _needs_token(dependant: Dependant) -> bool:
    """Whether the route declares the seat token as required (``dependencies=[Security(SEAT_TOKEN)]``)."""
    return any(dep.call is SEAT_TOKEN or _needs_token(dep) for dep in dependant.dependencies)


async def token_first(request: Request) -> int | None:
    """The seat of the request's token, checked before anything else of the request: 404 ``unknown_game``, 401,
    or 403 for a seat in the path that is not the token's. None when the game id is malformed (the route's
    own validation answers that)."""
    game_id = request.path_params.get("game_id")
    if not isinstance(game_id, str) or GAME_ID_RE.fullmatch(game_id) is None:
        return None
    info = await request.app.state.gateway.info(game_id)
    path_seat = request.path_params.get("seat")
    wanted = int(path_seat) if isinstance(path_seat, str) and _SEAT_PATH.fullmatch(path_seat) else None
    return seat_of(info, bearer_token(request.headers), wanted)


class TokenFirstRoute(APIRoute):
    """A route of the gateway: one that requires a seat's token checks it (:func:`token_first`) before FastAPI
    reads the body and the parameters; any other is FastAPI's own."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, behind the token check where the route needs a token."""
        general = super().get_route_handler()
        if not _needs_token(self.dependant):
            return general

        async def handler(request: Request) -> Response:
            await token_first(request)
            return await general(request)

        return handler

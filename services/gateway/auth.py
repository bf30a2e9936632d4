"""Seat tokens: a token acts and sees for its own seat only.

A request names its token as ``Authorization: Bearer <token>`` (a WebSocket may also pass ``?token=``, since
browsers can not set headers on one). The gateway hashes it and compares with the sha256 digests stored in the
game's metadata at creation; the secret itself is never stored. Which seat a token belongs to follows from
which digest it matches, so a command needs no ``seat``, and a token used for any other seat is refused:

* no token, or one that is no seat's token of this game: 401 ``unauthorized``;
* a seat's token used for another seat (its view, its feed, its replay, a command naming it): 403
  ``forbidden_seat``.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi.security import HTTPBearer

from services.gateway.errors import FORBIDDEN_SEAT, UNAUTHORIZED, ApiError
from services.gateway.games import GameInfo

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


def seat_of(info: GameInfo, token: str | None, wanted: int | None = None) -> int:
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

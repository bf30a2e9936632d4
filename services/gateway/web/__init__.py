"""The web client: a page at ``/`` and its assets at ``/web/<file>``, shipped in this package.

Plain ES modules, a stylesheet and no build step, no CDN: the page works offline against its own gateway. It
talks to the public API only (the lobby, views, the seat's WebSocket feed, commands, replay, audit), with the
token of the one seat it plays, kept in the browser's ``localStorage`` (see ``app.js``).
"""

from __future__ import annotations

import re
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from services.gateway.errors import NOT_FOUND, ApiError

router = APIRouter(tags=["web client"])

_TYPES = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "png": "image/png",
    "svg": "image/svg+xml",
    "html": "text/html; charset=utf-8",
}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}\.(js|css|png|svg)$")
# The page loads nothing from elsewhere: scripts and styles of this origin, images of it and data: URLs (the
# SVG boards are inlined), and the feed's WebSocket back to this origin.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def asset(name: str) -> bytes:
    """The bytes of one shipped file of the web client."""
    return resources.files(__package__).joinpath(name).read_bytes()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index() -> HTMLResponse:
    """The web client's page (lobby, play, watch, replay and audit)."""
    return HTMLResponse(asset("index.html"), headers={"Content-Security-Policy": _CSP, "Cache-Control": "no-cache"})


@router.get("/web/{name}", include_in_schema=False)
def web_asset(name: str) -> Response:
    """One asset of the web client (script, stylesheet, picture)."""
    match = _NAME.match(name)
    if match is None:
        raise ApiError(404, NOT_FOUND, f"no web asset {name[:64]!r}")
    try:
        body = asset(name)
    except (FileNotFoundError, IsADirectoryError):
        raise ApiError(404, NOT_FOUND, f"no web asset {name!r}") from None
    return Response(body, media_type=_TYPES[match.group(1)], headers={"Cache-Control": "no-cache"})

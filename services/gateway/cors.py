"""Cross-origin requests from browsers (CORS), for the origins the operator names and no others.

A web page served from another origin than the gateway may call it only if the gateway says so: the browser
first sends a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``/``-Headers``) and
then the request, and reads the answer only when ``Access-Control-Allow-Origin`` names its origin. Starlette's
``CORSMiddleware`` answers both; this module only decides its settings:

* origins: env ``THRONE_CORS_ORIGINS`` (comma-separated, e.g. ``https://play.example,http://localhost:5173``) or
  ``--cors-origin`` (repeatable); ``*`` allows every origin. **Default: none** (a preflight is refused 400 and
  no answer carries an allow header, so only same-origin pages and non-browser clients use the gateway).
* no credentials (cookies): a seat acts with ``Authorization: Bearer <token>``, which browsers send on a
  cross-origin request only once the preflight allowed that header, as it does here.
* exposed headers: those a client needs to read from a refusal (``Retry-After`` of 429/503,
  ``WWW-Authenticate`` of 401) or a download (``Content-Disposition``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

ENV = "THRONE_CORS_ORIGINS"
ALLOW_METHODS = ("GET", "POST", "PUT", "DELETE")
ALLOW_HEADERS = ("Authorization", "Content-Type")
EXPOSE_HEADERS = ("Retry-After", "WWW-Authenticate", "Content-Disposition")
MAX_AGE = 600
"""Seconds a browser may remember a preflight's answer."""
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\*$")


def parse_origins(values: Iterable[str]) -> list[str]:
    """The origins named in ``values`` (each may hold several, comma-separated), checked: an origin is
    ``scheme://host[:port]`` with no path and no trailing slash (what a browser sends), or ``*``.

    ValueError names the first that is not: a typo would otherwise silently allow nothing.
    """
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            origin = part.strip()
            if not origin:
                continue
            if not _ORIGIN.match(origin):
                raise ValueError(f"not a CORS origin (scheme://host[:port] or *): {origin!r}")
            if origin not in out:
                out.append(origin)
    return out


def origins_from_env() -> list[str]:
    """The origins of env ``THRONE_CORS_ORIGINS`` (none when unset)."""
    return parse_origins([os.environ.get(ENV, "")])


def install_cors(app: FastAPI, origins: Sequence[str]) -> None:
    """Answer preflights and mark answers for ``origins`` (none: every cross-origin preflight is refused).

    Install it last, so that it is the outermost middleware: refusals of the inner ones (429, 413) carry the
    allow header too, and a browser can read them; and a preflight is answered before the rate limit counts it.
    """
    app.add_middleware(
        CORSMiddleware,  # type: ignore[arg-type]
        allow_origins=list(origins),
        allow_methods=list(ALLOW_METHODS),
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        allow_credentials=False,
        max_age=MAX_AGE,
    )

"""Board links: a seat's board in an ``<img src>``, without its seat token in any URL.

An ``<img>`` can send no ``Authorization`` header, and a URL is written to logs, browser history and
``Referer`` headers: a long-lived seat token must not go into one. Instead the seat asks (with its token)
``POST /games/{id}/board-links`` and gets a short-lived link to its own board:

    /games/{id}/seats/{seat}/board.svg?version=latest&expires=1767225600&signature=...

The signature is an HMAC-SHA256 of (game, seat, version, expiry) under the gateway's link key: the link shows
that one seat's board (at that version, or the latest one while it lasts) until it expires, and changing any
part of it (another seat, another game, a later expiry) breaks the signature. Nothing is stored: a link is
checked by recomputing its signature, so any number of links costs nothing to keep, and links are not
revoked one by one (they expire; changing the key ends them all).

The key comes from env ``THRONE_LINK_KEY`` (any string of 32 characters or more; give every gateway process
of a deployment the same one, so a link made by one works on all); without it each process draws a random key
at start, and its links work on that process only, until it restarts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

ENV = "THRONE_LINK_KEY"
MIN_KEY = 32
"""Shortest key accepted from the environment (characters)."""
DEFAULT_TTL = 300
"""Seconds a link lasts unless the seat asks for less or more."""
MAX_TTL = 3600
"""Longest a link may last: a link is a bearer capability to one seat's board, so it is kept short."""
LATEST = "latest"


class BadLink(Exception):
    """A board link that does not hold: ``code`` ``bad_link_signature`` or ``link_expired``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class BoardLinks:
    """Signs and checks board links with ``key``; ``clock`` gives the time in Unix seconds (a test's own)."""

    key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    clock: Callable[[], float] = time.time

    @classmethod
    def from_env(cls) -> BoardLinks:
        """With the key of env ``THRONE_LINK_KEY``, else a random one (this process's links only)."""
        configured = os.environ.get(ENV)
        if not configured:
            return cls()
        if len(configured) < MIN_KEY:
            raise ValueError(f"{ENV} must be at least {MIN_KEY} characters long")
        return cls(key=configured.encode())

    def signature(self, game_id: str, seat: int, version: int | str, expires: int) -> str:
        """The signature of a link (url-safe base64 of the HMAC-SHA256, no padding)."""
        # A fixed layout with a separator no field may contain: no two different links sign the same bytes.
        message = f"board-link\n{game_id}\n{seat}\n{version}\n{expires}".encode()
        digest = hmac.new(self.key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def make(self, game_id: str, seat: int, version: int | None, ttl: int) -> tuple[str, int]:
        """The path (with its query) of a link to ``seat``'s board of ``game_id`` at ``version`` (None: the
        latest) for ``ttl`` seconds, and its expiry (Unix seconds)."""
        shown: int | str = LATEST if version is None else version
        expires = int(self.clock()) + ttl
        query = urlencode(
            {"version": shown, "expires": expires, "signature": self.signature(game_id, seat, shown, expires)}
        )
        return f"/games/{game_id}/seats/{seat}/board.svg?{query}", expires

    def check(self, game_id: str, seat: int, version: str, expires: int, signature: str) -> int | None:
        """The version a link shows (None: the latest), or :class:`BadLink`. The signature is checked first
        (in constant time), so an altered link is refused as such whatever its expiry says."""
        expected = self.signature(game_id, seat, version, expires)
        if not hmac.compare_digest(expected.encode(), signature.encode()):
            raise BadLink("bad_link_signature", "this board link was not made by this gateway, or was altered")
        if self.clock() >= expires:
            raise BadLink("link_expired", "this board link has expired; ask for a new one")
        return None if version == LATEST else int(version)

    def remaining(self, expires: int) -> int:
        """Whole seconds until ``expires`` (at least 0)."""
        return max(0, int(expires - self.clock()))

"""The gateway's public API as the example chat-bot uses it: create a game, chat, follow a seat's feed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect


@dataclass
class Answer:
    """A gateway answer: ``status`` and the JSON body (a reply, or ``{"error": {...}}``)."""

    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        """Whether the gateway did what was asked."""
        return 200 <= self.status < 300

    @property
    def error(self) -> dict[str, Any]:
        """The typed error (``code``, ``message`` and its extra fields), or ``{}``."""
        found = self.body.get("error")
        return found if isinstance(found, dict) else {}


class GatewayClient:
    """HTTP and WebSocket calls to one gateway, for one seat token (or none, to create a game)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def close(self) -> None:
        """Close the HTTP connections."""
        self.http.close()

    def __enter__(self) -> GatewayClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def create_game(self, game: str, players: list[str], bots: dict[int, str], seed: int | None = None) -> Answer:
        """Open a game with bot seats; the answer holds each seat's token (none for bots)."""
        body: dict[str, Any] = {"game": game, "players": players, "bots": {str(s): k for s, k in bots.items()}}
        if seed is not None:
            body["seed"] = seed
        return self._answer(self.http.post("/games", json=body))

    def summary(self, game_id: str) -> Answer:
        """What anyone may know of a game (players, who is awaited, the result)."""
        return self._answer(self.http.get(f"/games/{game_id}"))

    def chat(self, game_id: str, text: str, since: int | None = None, max_chars: int | None = None) -> Answer:
        """One line of chat for this token's seat."""
        body: dict[str, Any] = {"text": text}
        if since is not None:
            body["since"] = since
        if max_chars is not None:
            body["max_chars"] = max_chars
        return self._answer(self.http.post(f"/games/{game_id}/chat", json=body))

    def events(
        self, game_id: str, seat: int | None = None, after: int = 0, limit: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """The game's events after version ``after`` (the seat's with its token, else a spectator's), a page at
        a time: each page's ``next`` is followed until it is null. A refused page ends it with ``{"error": ...}``."""
        return self._walk(
            f"/games/{game_id}/seats/{seat}/events" if seat is not None else f"/games/{game_id}/events",
            "events", after, limit,
        )  # fmt: skip

    def audit(self, game_id: str, after: int = 0, limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The audit's entries after version ``after`` (public once the game is over), a page at a time."""
        return self._walk(f"/games/{game_id}/audit", "entries", after, limit)

    def _walk(self, path: str, key: str, after: int, limit: int | None) -> Iterator[dict[str, Any]]:
        cursor: int | None = after
        while cursor is not None:
            params = {"after": cursor} if limit is None else {"after": cursor, "limit": limit}
            page = self._answer(self.http.get(path, params=params))
            if not page.ok:
                yield {"error": page.error}
                return
            yield from page.body[key]
            following = page.body.get("next")
            cursor = following if isinstance(following, int) and following > cursor else None

    def feed(
        self, game_id: str, seat: int, after: int = 0, stop: threading.Event | None = None
    ) -> Iterator[dict[str, Any]]:
        """The seat's feed messages after version ``after``, live, until the game ends or ``stop`` is set;
        a dropped connection is resumed from the last version received (a few tries, with backoff)."""
        stop = stop or threading.Event()
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        tries = 0
        while not stop.is_set():
            url = urlunsplit(
                (scheme, parts.netloc, f"{parts.path}/games/{game_id}/seats/{seat}/feed", f"after={after}", "")
            )
            try:
                with connect(url, additional_headers=headers, open_timeout=10) as ws:
                    while not stop.is_set():
                        try:
                            message = orjson.loads(ws.recv(timeout=0.5))
                        except TimeoutError:
                            continue
                        tries = 0
                        if message.get("kind") == "event":
                            after = max(after, int(message["version"]))
                        yield message
                        if message.get("kind") == "over" or "error" in message:
                            return
            except (ConnectionClosed, InvalidStatus, OSError) as exc:
                tries += 1
                if tries > 5:
                    yield {"error": {"code": "feed_lost", "message": f"the feed was lost: {exc}"}}
                    return
                time.sleep(min(0.2 * 2**tries, 5.0))

    @staticmethod
    def _answer(response: httpx.Response) -> Answer:
        try:
            body = response.json()
        except ValueError:
            body = {"error": {"code": "not_json", "message": response.text[:200]}}
        return Answer(response.status_code, body if isinstance(body, dict) else {"value": body})

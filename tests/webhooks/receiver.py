"""A webhook receiver for the tests: a real HTTP server on a free loopback port that checks every signature
with the hook's secret, answers what the test says, and deduplicates notices by id as a receiver should."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from services.webhooks.signing import verify


@dataclass
class Received:
    """One request as it arrived."""

    path: str
    notice_id: str
    timestamp: str
    signature: str
    attempt: int
    body: bytes

    @property
    def notice(self) -> dict[str, Any]:
        """The body as JSON."""
        return orjson.loads(self.body)  # type: ignore[no-any-return]


@dataclass
class Receiver:
    """What the receiver saw; ``answer(request) -> status`` decides each answer; ``secrets`` by path."""

    url: str
    secrets: dict[str, str] = field(default_factory=dict)
    answer: Callable[[Received], int] = lambda _r: 200
    requests: list[Received] = field(default_factory=list)
    unique: dict[str, Received] = field(default_factory=dict)
    """Notices accepted (2xx), deduplicated by id: the first accepted copy of each."""
    bad_signatures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hook_url(self, path: str) -> str:
        """The URL of one hook on this receiver."""
        return f"{self.url}{path}"

    def notices(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The unique notices accepted so far (of ``kind``), by version then seat."""
        with self.lock:
            found = [r.notice for r in self.unique.values()]
        return sorted((n for n in found if kind is None or n["kind"] == kind), key=lambda n: (n["version"], n["seat"]))


@contextmanager
def receiver() -> Iterator[Receiver]:
    """Serve a :class:`Receiver` on a free loopback port for the duration."""
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            got = Received(
                self.path, self.headers.get("X-Throne-Id", ""), self.headers.get("X-Throne-Timestamp", ""),
                self.headers.get("X-Throne-Signature", ""), int(self.headers.get("X-Throne-Attempt", "0")), body,
            )  # fmt: skip
            secret = state.secrets.get(self.path, "")
            with state.lock:
                state.requests.append(got)
                if not verify(secret, body, got.timestamp, got.signature):
                    state.bad_signatures += 1
                    status = 401
                else:
                    status = state.answer(got)
                    if 200 <= status < 300:
                        state.unique.setdefault(got.notice_id, got)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="webhook-receiver")
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()

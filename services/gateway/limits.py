"""Bounds on what one client may send: request body size and request rate; :class:`Limits` holds every bound.

The feed caps are enforced by :mod:`services.gateway.fanout`, the request head size and read timeout by
:mod:`services.gateway.protocol`. Body size and rate are plain ASGI middlewares, so they run before routing
and JSON parsing: an oversized body is refused after at most ``max_body`` bytes were read (whatever its
Content-Length claims), and a client over its rate costs a dictionary lookup. Refusals use the gateway's typed
error shape.

Rate limiting is a token bucket per client key, in process memory (one gateway process = one set of buckets;
several gateway processes each allow the rate, which is an accepted approximation). The key is the sha256 of
the bearer token when there is one (a seat is limited wherever it connects from), else the client address; a
second, wider bucket per client address bounds a client that makes up a new token for every request.

Requests are not all alike: a page of a long game's events costs the gateway a hundred times a command. So the
bytes of every answer are charged too (:class:`ByteBudget`: ``read_bytes_rate`` per key, ``address_bytes_rate``
per address for token requests), after the answer, and a key whose byte budget is spent is refused (429 with
Retry-After) until it refills: a reader is charged by what it is served, not by how often it asks.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import orjson

from services.gateway.errors import PAYLOAD_TOO_LARGE, RATE_LIMITED, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limits:
    """The gateway's bounds. The defaults suit a public deployment; tests and the bench change them."""

    max_body: int = 64 * 1024
    """Largest request body accepted, in bytes (413 ``payload_too_large`` beyond)."""
    rate: float = 20.0
    """Sustained requests per second per client key."""
    burst: int = 40
    """Requests a client key may make at once before the rate applies."""
    address_rate: float = 200.0
    """Sustained requests per second per client address, whatever tokens it sends (made-up tokens are free)."""
    address_burst: int = 400
    read_bytes_rate: float = 256 * 1024
    """Sustained bytes of answers per second per client key (a page of 100 events is some 40 KB)."""
    read_bytes_burst: int = 2 * 1024 * 1024
    """Bytes of answers a client key may be served at once before the byte rate applies."""
    address_bytes_rate: float = 2 * 1024 * 1024
    """Sustained bytes of answers per second per client address to its token requests (made-up tokens)."""
    address_bytes_burst: int = 16 * 1024 * 1024
    read_slots: int = 2
    """Anonymous heavy reads (pages, replays, verifications) built at once; the players' own reads bypass."""
    read_queue: int = 64
    """Anonymous heavy reads that may wait for a slot (more are refused at once: 429 ``rate_limited``)."""
    page_cache_bytes: int = 32 * 1024 * 1024
    """Bytes of finished games' pages kept serialized (least recently used go first)."""
    max_keys: int = 100_000
    """Buckets kept (least recently used ones are dropped; a dropped bucket starts full again)."""
    ws_max_message: int = 64 * 1024
    """Largest WebSocket message accepted from a client."""
    command_timeout: float = 10.0
    """How long a command waits for its outcome before ``outcome_timeout`` (the command may still be decided)."""
    feeds_per_address: int = 20
    """Open WebSocket feeds per client address (more are refused: ``too_many_feeds``, close code 4429)."""
    feeds_total: int = 2000
    """Open WebSocket feeds in this gateway process (more are refused: ``feeds_full``, close code 1013)."""
    feed_queue: int = 1024
    """Events a feed may fall behind its live game before it is closed (``slow_consumer``, 4408)."""
    feed_catchups: int = 8
    """Feeds reading their backlog at once (the rest wait their turn): feeds never crowd out the requests."""
    max_header: int = 16 * 1024
    """Largest request head (request line and headers) in bytes (431 ``headers_too_large`` beyond)."""
    read_timeout: float = 10.0
    """Seconds a client has to send a whole request, head and body, from its first byte (or from connecting)
    (408 ``request_timeout`` after that)."""
    keep_alive: float = 5.0
    """Seconds an idle keep-alive connection stays open."""
    webhooks_per_seat: int = 4
    """Webhooks one seat of one game may have at once (409 ``too_many_webhooks`` beyond)."""
    webhooks_allow_private: bool = False
    """Accept webhook URLs on loopback, private or reserved addresses (tests, development only: SSRF)."""


async def _send_error(
    send: Send, status: int, code: str, message: str, headers: list[tuple[bytes, bytes]], prefix: str = ""
) -> None:
    """A typed error response (``prefix`` "websocket." answers a WebSocket handshake)."""
    body = orjson.dumps(error_body(code, message))
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": f"{prefix}http.response.start", "status": status, "headers": head})
    await send({"type": f"{prefix}http.response.body", "body": body})


class BodySizeLimit:
    """Refuse request bodies larger than ``max_body`` bytes with 413 before the app sees them.

    The body is read (up to the limit) and replayed to the app: a lying or absent Content-Length (chunked
    uploads) cannot get more than ``max_body`` bytes past this point.
    """

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await _send_error(send, 413, PAYLOAD_TOO_LARGE, f"request body over {limit} bytes", [])
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _send_error(send, 413, PAYLOAD_TOO_LARGE, f"request body over {limit} bytes", [])
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect like the server would

        await self.app(scope, replay, send)


class TokenBuckets:
    """Token buckets by key: ``rate`` tokens per second, at most ``burst`` stored. Thread-safe."""

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0 if granted, else the seconds until one is available."""
        now = self.clock()
        with self._lock:
            tokens, stamp = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self.rate if self.rate > 0 else math.inf
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            return wait

    def spend(self, key: str, cost: float) -> None:
        """Take ``cost`` tokens for ``key`` after the fact: the bucket may go into debt (at most ``burst`` deep),
        which :meth:`wait` then reports."""
        now = self.clock()
        with self._lock:
            tokens, stamp = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - stamp) * self.rate) - cost
            self._buckets[key] = (max(tokens, -float(self.burst)), now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)

    def wait(self, key: str) -> float:
        """Seconds until ``key``'s bucket is out of debt (0.0: it is), taking nothing."""
        now = self.clock()
        with self._lock:
            tokens, stamp = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
        if tokens > 0.0:
            return 0.0
        return (1.0 - tokens) / self.rate if self.rate > 0 else math.inf


class ByteBudget:
    """Bytes answered per client key (and per address, for token requests), charged after each answer and
    checked before the next one."""

    def __init__(self, per_key: TokenBuckets, per_address: TokenBuckets) -> None:
        self.per_key = per_key
        self.per_address = per_address

    def wait(self, key: str, address: str) -> float:
        """Seconds until ``key`` may be served again (0.0: now)."""
        wait = self.per_key.wait(key)
        if key.startswith("t:"):
            wait = max(wait, self.per_address.wait(address))
        return wait

    def charge(self, key: str, address: str, cost: int) -> None:
        """Charge an answer of ``cost`` bytes to ``key`` (and to its address when ``key`` is a token's)."""
        self.per_key.spend(key, cost)
        if key.startswith("t:"):
            self.per_address.spend(address, cost)

    def charge_key(self, key: str, cost: int) -> None:
        """Charge ``cost`` bytes to ``key`` only (a made-up token's read, charged to its anonymous address)."""
        self.per_key.spend(key, cost)

    @staticmethod
    def retry(wait: float) -> dict[str, str]:
        """The Retry-After header of a refusal that must wait ``wait`` seconds."""
        return {"Retry-After": str(max(1, math.ceil(wait)) if math.isfinite(wait) else 3600)}

    @classmethod
    def of(cls, limits: Limits) -> ByteBudget:
        """The budget ``limits`` set."""
        return cls(
            TokenBuckets(limits.read_bytes_rate, limits.read_bytes_burst, limits.max_keys),
            TokenBuckets(limits.address_bytes_rate, limits.address_bytes_burst, limits.max_keys),
        )


def client_key(scope: Scope) -> str:
    """The rate-limit key of a request: its bearer token's hash, else its client address."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return "t:" + hashlib.sha256(value[7:].strip()).hexdigest()
    query = scope.get("query_string", b"")
    if b"token=" in query:
        for part in query.split(b"&"):
            if part.startswith(b"token="):
                return "t:" + hashlib.sha256(part[6:]).hexdigest()
    client = scope.get("client")
    return "a:" + (client[0] if client else "unknown")


class RateLimit:
    """Refuse requests (and WebSocket connections) over a client key's rate, or whose key has been served its
    budget of bytes (``budget``): 429 ``rate_limited``. Each HTTP answer's bytes are charged to ``budget``."""

    def __init__(
        self,
        app: ASGIApp,
        buckets: TokenBuckets,
        addresses: TokenBuckets | None = None,
        exempt: tuple[str, ...] = (),
        budget: ByteBudget | None = None,
    ) -> None:
        self.app = app
        self.buckets = buckets
        self.addresses = addresses
        self.exempt = exempt
        self.budget = budget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] not in ("http", "websocket") or scope.get("path", "") in self.exempt:
            await self.app(scope, receive, send)
            return
        key = client_key(scope)
        client = scope.get("client")
        address = client[0] if client else "unknown"
        budget = self.budget
        wait = budget.wait(key, address) if budget is not None else 0.0
        if wait <= 0.0:
            wait = self.buckets.take(key)
        if wait <= 0.0 and self.addresses is not None and key.startswith("t:"):
            wait = self.addresses.take(address)
        if wait <= 0.0:
            if budget is None or scope["type"] != "http":
                await self.app(scope, receive, send)
                return
            served = 0

            async def counting(message: Message) -> None:
                nonlocal served
                if message["type"] == "http.response.body":
                    served += len(message.get("body", b""))
                await send(message)

            try:
                await self.app(scope, receive, counting)
            finally:
                budget.charge(key, address, served)
            return
        retry = str(max(1, math.ceil(wait)) if math.isfinite(wait) else 3600)
        if scope["type"] == "websocket":
            if "websocket.http.response" in scope.get("extensions", {}):
                # The handshake is answered with the same typed 429 as a request (ASGI's denial response).
                await _send_error(
                    send, 429, RATE_LIMITED, "too many requests; retry later", [(b"retry-after", retry.encode())],
                    prefix="websocket.",
                )  # fmt: skip
                return
            # Closing before accepting makes the server answer the handshake with 403.
            await send({"type": "websocket.close", "code": 1008, "reason": RATE_LIMITED})
            return
        await _send_error(send, 429, RATE_LIMITED, "too many requests; retry later", [(b"retry-after", retry.encode())])

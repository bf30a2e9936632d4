"""Bounded pages of the read routes that grow with a game (events, audit, replay steps), and what keeps heavy
reads from slowing the players down.

* A page covers a bounded range of versions, ``after < version <= after + limit`` (``limit`` at most
  :data:`MAX_EVENTS_PAGE` / :data:`MAX_AUDIT_PAGE` / :data:`MAX_REPLAY_STEPS`); its reply names ``next``, the
  ``after`` of the following page, or None once it reached the game's latest version. Walking ``after = next``
  from 0 reads every entry exactly once.
* :class:`PageCache`: a finished game's pages never change, so each is serialized once and kept (an LRU bounded
  by bytes), with its ``ETag``; ``If-None-Match`` answers 304. Running games' pages get an ``ETag`` too (their
  content's hash) and ``Cache-Control: no-cache``.
* :class:`ReadGate`: anonymous heavy reads (building and serializing a page, a replay, a verification) run at
  most ``slots`` at a time in the thread pool, at most ``queue`` more wait; beyond that they are refused (429).
  A seat's own reads and every command bypass it, so a flood of anonymous reads never queues a player.
* The cost of an answer (its bytes) is charged to the caller's budget (:class:`~services.gateway.limits.ByteBudget`)
  by the rate-limit middleware; :func:`serve` also charges a made-up token's heavy read to its address's
  anonymous budget, so inventing tokens buys no extra reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from services.gateway import errors as E
from services.gateway.auth import bearer_token
from services.gateway.errors import ApiError
from services.gateway.limits import ByteBudget

DEFAULT_EVENTS_PAGE = 100
MAX_EVENTS_PAGE = 200
"""Versions one events page covers: by default, and at most."""
DEFAULT_AUDIT_PAGE = 50
MAX_AUDIT_PAGE = 1000
"""Versions one audit page covers (each version's event and the commands refused at it): at most a whole game of
some 800 events in one answer (about 1.4 MB), built from a constant few reads."""
MAX_REPLAY_STEPS = 1000
"""Steps one page of a replay covers (and by default): a whole game in one answer (some 250 bytes a step)."""
MAX_REPLAY_DETAIL_STEPS = 200
"""Steps a page covers at most when each carries its view or its board (some 2 to 4 KB a step)."""
FINISHED_MAX_AGE = 86_400
"""Seconds a client may keep a finished game's page without asking again (it never changes)."""
_ENTRY_OVERHEAD = 200
"""Bytes an entry of the page cache costs besides its body (key, ETag, bookkeeping), roughly."""


@dataclass(frozen=True, slots=True)
class Page:
    """A serialized answer: its JSON ``body``, ``etag`` and whether it is ``final`` (never changes again)."""

    body: bytes
    etag: str
    final: bool


def page_of(body: bytes, final: bool) -> Page:
    """``body`` with its ETag (a strong one: a hash of the exact bytes)."""
    return Page(body, '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"', final)


def next_after(after: int, upto: int, version: int) -> int | None:
    """The ``after`` of the page following ``(after, upto]`` in a game at ``version``; None: none yet."""
    return upto if upto < version else None


class PageCache:
    """Finished games' pages by key, at most ``max_bytes`` of them (least recently used go first). Thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self._pages: LRUCache[Hashable, Page] = LRUCache(
            maxsize=max(1, max_bytes), getsizeof=lambda page: len(page.body) + _ENTRY_OVERHEAD
        )
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Page | None:
        """The page kept under ``key`` (now the most recent), or None."""
        with self._lock:
            return self._pages.get(key)

    def put(self, key: Hashable, page: Page) -> None:
        """Keep a final page (a page larger than the whole cache is not kept)."""
        if not page.final:
            return
        with self._lock, contextlib.suppress(ValueError):  # larger than the whole cache
            self._pages[key] = page

    @property
    def size(self) -> int:
        """Bytes held (bodies and their overhead)."""
        return int(self._pages.currsize)

    def __len__(self) -> int:
        return len(self._pages)


class ReadGate:
    """At most ``slots`` anonymous heavy reads at once, at most ``queue`` more waiting (then 429 at once).

    The waiting is on the event loop (an asyncio semaphore), not in the thread pool: a waiting read holds no
    thread, so the players' own reads always find one.
    """

    def __init__(self, slots: int, queue: int) -> None:
        self.slots = slots
        self.queue = queue
        self.running = 0
        self.waiting = 0
        self._semaphore = asyncio.Semaphore(slots)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the block (raises 429 ``rate_limited`` when the queue is full)."""
        if self._semaphore.locked() and self.waiting >= self.queue:
            raise ApiError(429, E.RATE_LIMITED, "too many reads at once; retry later", headers={"Retry-After": "1"})
        self.waiting += 1
        try:
            await self._semaphore.acquire()
        finally:
            self.waiting -= 1
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
            self._semaphore.release()

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the thread pool, within a slot."""
        async with self.slot():
            return await run_in_threadpool(fn, *args)


@dataclass
class Reads:
    """What the heavy read routes share: the page cache, the gate, the byte budget."""

    cache: PageCache
    gate: ReadGate
    budget: ByteBudget


def reads_of(request: Request) -> Reads:
    """The app's :class:`Reads`."""
    return request.app.state.reads  # type: ignore[no-any-return]


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    wanted = etag.removeprefix("W/")
    for tag in if_none_match.split(","):
        tag = tag.strip()
        if tag == "*" or tag.removeprefix("W/") == wanted:
            return True
    return False


def respond(request: Request, page: Page, private: bool) -> Response:
    """``page`` as an answer: 304 when the client has it (``If-None-Match``), else the JSON; with its ETag and
    Cache-Control (a final page may be kept a day; another must be asked again)."""
    scope = "private" if private else "public"
    cache = f"{scope}, max-age={FINISHED_MAX_AGE}, immutable" if page.final else f"{scope}, no-cache"
    headers = {"ETag": page.etag, "Cache-Control": cache}
    if _matches(request.headers.get("if-none-match"), page.etag):
        return Response(status_code=304, headers=headers)
    return Response(page.body, media_type="application/json", headers=headers)


async def serve(
    request: Request, key: Hashable, build: Callable[[], Page], *, seat: bool, private: bool = False
) -> Response:
    """Answer a heavy read: from the cache when a finished game's page is kept, else built by ``build`` in the
    thread pool (through the gate unless the caller is a seat, ``seat``), kept when final.

    A caller that is no seat but sent a token (made up, or another game's) is charged as its address's
    anonymous reader too, and refused while that budget is spent.
    """
    reads = reads_of(request)
    page = reads.cache.get(key)
    if page is not None:
        return respond(request, page, private)
    unproven = not seat and bearer_token(request.headers) is not None
    address = request.client.host if request.client else "unknown"
    if unproven:
        wait = reads.budget.wait("a:" + address, address)
        if wait > 0:
            raise ApiError(429, E.RATE_LIMITED, "too many bytes read; retry later", headers=reads.budget.retry(wait))
    page = await (run_in_threadpool(build) if seat else reads.gate.run(build))
    reads.cache.put(key, page)
    if unproven:
        reads.budget.charge_key("a:" + address, len(page.body))
    return respond(request, page, private)

"""The app factory: ``create_app(client, layout)`` builds the FastAPI application of one gateway process."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio.to_thread
import redis
from fastapi import FastAPI

from projections.api import ReadModels
from services.bus.client import BusClient
from services.bus.keys import Layout
from services.bus.readiness import PROCESS, watch_redis
from services.gateway.asyncbus import AsyncBus, async_twin
from services.gateway.boardlinks import BoardLinks
from services.gateway.cors import install_cors, origins_from_env
from services.gateway.docs import install_docs
from services.gateway.errors import install_handlers
from services.gateway.fanout import FeedHub
from services.gateway.feed import router as feed_router
from services.gateway.game_routes import put_command_route_first
from services.gateway.games import Directory
from services.gateway.limits import BodySizeLimit, ByteBudget, Limits, RateLimit, TokenBuckets
from services.gateway.lobby import Lobby, seat_key_from_env
from services.gateway.lobby_routes import router as lobby_router
from services.gateway.openapi import install_openapi, operation_id
from services.gateway.pages import PageCache, ReadGate, Reads
from services.gateway.routes import router
from services.gateway.service import Gateway
from services.gateway.web import router as web_router
from services.gateway.webhooks import router as webhooks_router
from services.webhooks.hooks import HookStore

DESCRIPTION = """
HTTP and WebSocket gateway of **throne**, an event-sourced referee of board games.

* `POST /games` opens a game and returns one secret token per seat. Send it as `Authorization: Bearer <token>`:
  a token acts and sees for its own seat only.
* `POST /games/{id}/commands` sends a command and returns its outcome (the events it caused, as the seat may
  see them) or a typed rejection.
* `GET /games/{id}/seats/{seat}/view`: the seat's view and legal commands;
  `WS /games/{id}/seats/{seat}/feed?after=N`: its events after version N, then live (resumable).
* `POST /games/{id}/chat`: one line of text in, the board as text and a numbered menu of moves out.
* `POST /games/{id}/seats/{seat}/webhooks`: a seat's webhook, told (signed HMAC-SHA256) when the game waits for
  the seat and when it ends.
* `GET /games/{id}/events?after=N&limit=L` (and a seat's): a page of events; follow `next` until it is null.
  A finished game's pages (events, audit, replay steps, verification) carry an `ETag` (`If-None-Match`: 304).
* Scoreboard, leaderboard, replay, audit (every event and refused command; a seat reads its own refusals at
  any time), verification, SVG board; JSON Schemas under `/schemas`; each game's rules reference under `/rules`.
* `POST /games/{id}/board-links`: a short-lived signed link to the seat's SVG board, for an `<img src>` (the
  link holds no token).

Views, commands and events are typed with each installed game's own schemas (components `<game>.View`,
`<game>.Command`, `<game>.Event`).

Every error is `{"error": {"code": "...", "message": "..."}}`.
"""


def create_app(
    client: redis.Redis,
    layout: Layout | None = None,
    *,
    async_client: Any = None,
    feed_client: Any = None,
    limits: Limits | None = None,
    read_models: ReadModels | None = None,
    cache_size: int = 1000,
    threads: int = 64,
    cors_origins: Sequence[str] | None = None,
    board_links: BoardLinks | None = None,
    seat_key: bytes | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The gateway application over ``client`` (synchronous Redis) and ``layout``.

    ``async_client``: the asyncio Redis client for commands (default: one on the same server as ``client``).
    ``feed_client``: the asyncio Redis client of the WebSocket feeds' reader, with a connection pool of its own
    (default: another one on the same server). ``read_models``: the projections' query API (default:
    ``projections.api.ReadModels``).
    ``threads``: size of the thread pool for blocking work (Redis reads, folding, read models).
    ``cors_origins``: the web origins whose pages may call the gateway (default: env ``THRONE_CORS_ORIGINS``,
    else none; see :mod:`services.gateway.cors`). ``board_links``: signs and checks board links (default: the
    key of env ``THRONE_LINK_KEY``, else a random one; see :mod:`services.gateway.boardlinks`).
    ``seat_key``: the key open seats' tokens are derived with (default: ``THRONE_SEAT_KEY``, see
    services/gateway/lobby.py). ``clock``: the rate limits' clock in seconds (tests drive it by hand).
    """
    layout = layout or Layout.from_env()
    limits = limits or Limits()
    aclient = async_client if async_client is not None else async_twin(client)
    fclient = feed_client if feed_client is not None else async_twin(client)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        # Redis away or loading at start, or later: logged once (redis.waiting, redis.ready) and /health says
        # 503 meanwhile; requests are answered 503 redis_unavailable until it is back (services/bus/readiness.py).
        watch = asyncio.create_task(watch_redis(aclient.ping, f"gateway#{id(app)}", PROCESS))
        yield
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch
        await feeds.aclose()
        for each in (aclient, fclient):
            with contextlib.suppress(Exception):
                await each.aclose()

    app = FastAPI(
        title="throne gateway", version="1", description=DESCRIPTION, lifespan=lifespan, docs_url=None,
        redoc_url=None, generate_unique_id_function=operation_id,
    )  # fmt: skip
    app.state.board_links = board_links if board_links is not None else BoardLinks.from_env()
    app.state.gateway = Gateway(
        client=client,
        layout=layout,
        directory=Directory(client, layout, cache_size=cache_size),
        bus=AsyncBus(aclient, layout),
        service=BusClient(client, layout, max_payload=limits.max_body),
        limits=limits,
        read_models=read_models if read_models is not None else ReadModels(client, layout),
        lobby=Lobby(client, layout, seat_key if seat_key is not None else seat_key_from_env()),
    )
    gateway: Gateway = app.state.gateway
    feeds = FeedHub(
        fclient, layout, functools.partial(gateway.history_async, reads=fclient),
        per_address=limits.feeds_per_address, total=limits.feeds_total, queue_size=limits.feed_queue,
        catchups=limits.feed_catchups,
    )  # fmt: skip
    app.state.feeds = feeds
    app.state.hooks = HookStore(client, layout)
    budget = ByteBudget.of(limits)
    app.state.reads = Reads(PageCache(limits.page_cache_bytes), ReadGate(limits.read_slots, limits.read_queue), budget)
    install_handlers(app)
    app.include_router(router)
    put_command_route_first(app)
    app.include_router(lobby_router)
    app.include_router(feed_router)
    app.include_router(webhooks_router)
    app.include_router(web_router)
    install_docs(app)
    install_openapi(app)
    # Added last = outermost: the rate check runs first, then the body bound, then routing.
    app.add_middleware(BodySizeLimit, max_body=limits.max_body)  # type: ignore[arg-type]
    app.add_middleware(
        RateLimit,  # type: ignore[arg-type]
        buckets=TokenBuckets(limits.rate, limits.burst, limits.max_keys, clock=clock),
        addresses=TokenBuckets(limits.address_rate, limits.address_burst, limits.max_keys, clock=clock),
        exempt=("/health",),
        budget=budget,
    )
    install_cors(app, origins_from_env() if cors_origins is None else cors_origins)  # outermost: see install_cors
    return app

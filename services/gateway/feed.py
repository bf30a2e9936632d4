"""The WebSocket feed of a seat (or a spectator): every event after a version, then each new one as it happens.

``/games/{id}/seats/{seat}/feed?after=N`` (the seat's token as ``Authorization: Bearer`` or ``?token=``) and
``/games/{id}/feed?after=N`` (a spectator). Messages, JSON text frames, in version order:

* ``{"kind": "event", "version": v, "event": {...}, "text": "...", "quiet": false}``: the event at ``v`` as
  this seat may see it (``event`` null: withheld from this seat), and ``text``, the event in plain words as
  this seat may know it (the game's ``Presenter.narrate``: never what the redaction masks; null when the event
  is withheld). ``quiet`` marks an event a move-by-move narration may skip (it only moves the game along, e.g.
  a request for the next decision). Every version after ``N`` comes exactly once, so a client that
  reconnects with ``after`` = the last version it got misses nothing and gets nothing twice.
* ``{"kind": "turn", "version": v, "seat": s, "prompt": "...", "text": "...", "legal": [{"index", "label",
  "command"}], "groups": [{"title", "indexes"}]}`` (a seat's own feed only): the game waits for this seat at
  version ``v``: what it is asked and where (``prompt``, also as ``text``), every legal command with its label,
  and the game's menu groups (titles nest on `` > ``; the indexes point into ``legal``). Sent after the events
  whenever the feed has caught up with the game and the game waits for the seat, except when it would repeat
  the previous turn message word for word (the seat still awaited while others vote). A turn message is not an
  event: a resumed feed sends the current one, not the past ones.
* ``{"kind": "clock_low", "id", "seat", "version", "remaining_ms", "deadline_ms", "at_ms"}`` (a clocked table,
  every feed of the game): the timer process found that ``seat``'s clock has ``remaining_ms`` left (README
  "Clocks"); ``id`` names the seat's running clock, so a repeat (at least once) can be dropped.
* ``{"kind": "over", "version": v, "result": {...}}``: the game ended at ``v``; the server then closes (1000).
* ``{"error": {"code", "message"}}``, then a close with code 4400 (bad request), 4401 (unauthorized), 4403
  (another seat's feed), 4404 (unknown game), 4429 (``too_many_feeds``: this address has as many feeds open as
  it may), 1013 (``feeds_full``: the gateway has as many feeds open as it may; ``unavailable``: Redis can not
  be reached), 4408 (``slow_consumer``: the client fell too far behind; reconnect with ``after``) or 1011
  (``internal_error``). Every refusal comes with a close frame.

While the game runs, each event is redacted with the state right after it, so a resumed feed sends the very
same message for a version as the live feed did; once the game is over everything is public (a feed read
after the end shows the sealed votes). An open feed holds no Redis connection: the backlog is read once
(a few feeds at a time), then new events come from the process's :class:`~services.gateway.fanout.FeedHub`
through a bounded queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from services.bus.envelope import MAX_PLAYERS
from services.bus.keys import GAME_ID_RE
from services.gateway import errors as E
from services.gateway.auth import bearer_token, seat_of
from services.gateway.errors import ApiError
from services.gateway.fanout import FeedHub, Notice, Subscription
from services.gateway.games import History, Position
from services.gateway.models import MAX_VERSION
from services.gateway.narration import narrate, plugin_of, turn
from services.gateway.service import Gateway
from services.rules.contract import GamePlugin

router = APIRouter()

_CLOSE = {400: 4400, 401: 4401, 403: 4403, 404: 4404, 408: 4408, 422: 4400, 429: 4429, 503: 1013}
_CLOSE_WAIT = 2.0
"""Longest wait for a refusal to be written (a client that reads nothing must not hold the connection)."""
_DIGITS = re.compile(r"^[0-9]{1,16}$")


@router.websocket("/games/{game_id}/seats/{seat}/feed")
async def seat_feed(websocket: WebSocket, game_id: str, seat: int) -> None:
    """A seat's event feed (needs that seat's token)."""
    await _serve(websocket, game_id, seat)


@router.websocket("/games/{game_id}/feed")
async def spectator_feed(websocket: WebSocket, game_id: str) -> None:
    """A spectator's event feed."""
    await _serve(websocket, game_id, None)


async def _serve(websocket: WebSocket, game_id: str, seat: int | None) -> None:
    gw: Gateway = websocket.app.state.gateway
    hub: FeedHub = websocket.app.state.feeds
    await websocket.accept()
    sub: Subscription | None = None
    try:
        try:
            after = _after(websocket.query_params.get("after", "0"))
            if not GAME_ID_RE.match(game_id):
                raise ApiError(400, E.BAD_REQUEST, "invalid game id")
            if seat is not None and not 0 <= seat < MAX_PLAYERS:
                raise ApiError(400, E.BAD_REQUEST, f"seat must be 0..{MAX_PLAYERS - 1}")
            info = await gw.info(game_id)
            if seat is not None:
                seat_of(info, bearer_token(websocket.headers, websocket.query_params), seat)
            sub = hub.subscribe(game_id, websocket.client.host if websocket.client else "unknown")
            await hub.ready()
        except ApiError as exc:
            await _refuse(websocket, exc)
            return
        except Exception as exc:
            gw.log.error("gateway.feed_error", game=game_id, seat=seat, error=repr(exc))
            await _refuse(websocket, ApiError(500, E.INTERNAL, "internal error (logged)"))
            return
        gw.log.info("gateway.feed_open", game=game_id, seat=seat, after=after)
        await _run(gw, hub, websocket, sub, seat, after)
    finally:
        if sub is not None:
            hub.unsubscribe(sub)


async def _run(
    gw: Gateway, hub: FeedHub, websocket: WebSocket, sub: Subscription, seat: int | None, after: int
) -> None:
    """Push events until the game ends, the client leaves or falls too far behind."""
    listener = asyncio.create_task(_drain(websocket))
    pusher = asyncio.create_task(_push(gw, hub, websocket, sub, seat, after))
    overflow = asyncio.create_task(sub.overflow.wait())
    tasks = (listener, pusher, overflow)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await _stop(tasks)
    refusal: ApiError | None = None
    if overflow.done() and not overflow.cancelled() and overflow.exception() is None:
        refusal = ApiError(
            408, E.SLOW_CONSUMER,
            f"this feed fell more than {hub.queue_size} events behind; reconnect with after=<last version received>",
        )  # fmt: skip
    elif pusher.done() and not pusher.cancelled() and pusher.exception() is not None:
        exc = pusher.exception()
        if isinstance(exc, ApiError):
            refusal = exc
        elif not isinstance(exc, WebSocketDisconnect | RuntimeError):  # a client gone while we wrote is no error
            gw.log.error("gateway.feed_error", game=sub.game_id, seat=seat, error=repr(exc))
            refusal = ApiError(500, E.INTERNAL, "internal error (logged)")
    if refusal is not None:
        await _refuse(websocket, refusal)
    elif _is_open(websocket):
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, TimeoutError):
            await asyncio.wait_for(websocket.close(1000), _CLOSE_WAIT)
    gw.log.info("gateway.feed_closed", game=sub.game_id, seat=seat)


def _is_open(websocket: WebSocket) -> bool:
    """Neither side has closed the connection yet."""
    return websocket.client_state == websocket.application_state == WebSocketState.CONNECTED


async def _stop(tasks: tuple[asyncio.Task[Any], ...]) -> None:
    """Cancel the tasks and wait for them, a few times if need be: on Python 3.11 a cancellation that meets the
    end of an ``asyncio.wait_for`` inside redis-py is lost, and the task goes on to its next wait."""
    for _ in range(3):
        pending = [task for task in tasks if not task.done()]
        if not pending:
            break
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=_CLOSE_WAIT)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved (the pusher's is looked at by the caller)


async def _refuse(websocket: WebSocket, exc: ApiError) -> None:
    """Send a typed error, then close with the matching code (bounded in time: the client may read nothing)."""
    if not _is_open(websocket):
        return
    code = _CLOSE.get(exc.status, 1011)
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, TimeoutError):
        await asyncio.wait_for(websocket.send_json(exc.body()), _CLOSE_WAIT)
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, TimeoutError):
        await asyncio.wait_for(websocket.close(code, exc.code), _CLOSE_WAIT)


def _after(raw: str) -> int:
    after = int(raw) if _DIGITS.match(raw) else -1
    if not 0 <= after <= MAX_VERSION:
        raise ApiError(400, E.BAD_REQUEST, f"after must be a version: an integer from 0 to {MAX_VERSION}")
    return after


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the client sends, to notice when it goes away."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


async def _push(
    gw: Gateway, hub: FeedHub, websocket: WebSocket, sub: Subscription, seat: int | None, after: int
) -> None:
    game_id = sub.game_id
    async with hub.catchup:
        pos, items = await gw.history_async(game_id, after, reads=hub.r)
    if after > pos.version:
        raise ApiError(400, E.BAD_REQUEST, f"after={after} is beyond the game's last version {pos.version}")
    turns = _Turns(plugin_of(pos), seat)
    last = await _send(gw, websocket, pos, items, seat, after, turns)
    while not (pos.over and last >= pos.version):
        got = await sub.queue.get()
        if isinstance(got, Notice):
            await websocket.send_json(_clock_notice(got.data))
            continue
        pos, item = got
        version = item[0]
        if version <= last:
            continue  # read with the backlog already
        if version > last + 1:  # a gap: events the hub announced before this feed subscribed
            async with hub.catchup:
                pos, items = await gw.history_async(game_id, last, reads=hub.r)
        else:
            items = [item]
        last = await _send(gw, websocket, pos, items, seat, last, turns)
    result = pos.rules.result(pos.state)
    await websocket.send_json({"kind": "over", "version": last, "result": result})
    await websocket.close(1000)


def _clock_notice(data: dict[str, Any]) -> dict[str, Any]:
    """The feed message of a clock notice: public (every seat's clock is), so every feed of the game gets it."""
    keys = ("id", "seat", "version", "remaining_ms", "deadline_ms", "at_ms")
    return {"kind": "clock_low", **{k: data.get(k) for k in keys}}


class _Turns:
    """The "your turn" messages of one seat's feed: one whenever the feed has caught up with the game and the
    game waits for the seat, unless it says just what the last one said (the seat still awaited, e.g. while
    others vote)."""

    def __init__(self, plugin: GamePlugin, seat: int | None) -> None:
        self.plugin = plugin
        self.seat = seat
        self.last: tuple[Any, ...] | None = None

    def due(self, pos: Position, last: int) -> dict[str, Any] | None:
        """The turn message to send now that the feed has sent every event up to ``last`` (None: none)."""
        if self.seat is None or last != pos.version:
            return None
        message = turn(self.plugin, pos.state, last, self.seat)
        if message is None:
            self.last = None
            return None
        said = (message["prompt"], tuple(c["label"] for c in message["legal"]))
        if said == self.last:
            return None
        self.last = said
        return message


async def _send(
    gw: Gateway,
    websocket: WebSocket,
    pos: Position,
    items: History,
    seat: int | None,
    last: int,
    turns: _Turns,
) -> int:
    """Send the events of ``items`` after ``last`` as ``seat`` sees them, each with its narration, then the seat's
    turn message if the game waits for it; returns the last version sent."""
    fresh = [item for item in items if item[0] > last]
    shown = gw.seat_events(pos, fresh, seat)
    for told in narrate(turns.plugin, pos, fresh, seat, [e.event for e in shown]):
        await websocket.send_json(
            {"kind": "event", "version": told.version, "event": told.event, "text": told.text, "quiet": told.quiet}
        )
        last = told.version
    message = turns.due(pos, last)
    if message is not None:
        await websocket.send_json(message)
    return last

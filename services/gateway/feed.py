"""The WebSocket feed of a seat (or a spectator): every event after a version, then each new one as it happens.

``/games/{id}/seats/{seat}/feed?after=N`` (the seat's token as ``Authorization: Bearer`` or ``?token=``) and
``/games/{id}/feed?after=N`` (a spectator). Messages, JSON text frames, in version order:

* ``{"kind": "event", "version": v, "event": {...}}``: the event at ``v`` as this seat may see it (``event``
  null: withheld from this seat). Every version after ``N`` comes exactly once, so a client that reconnects
  with ``after`` = the last version it got misses nothing and gets nothing twice.
* ``{"kind": "over", "version": v, "result": {...}}``: the game ended at ``v``; the server then closes (1000).
* ``{"error": {"code", "message"}}``, then a close with code 4400 (bad request), 4401 (unauthorized), 4403
  (another seat's feed) or 4404 (unknown game).

While the game runs, each event is redacted with the state right after it, so a resumed feed sends the very
same message for a version as the live feed did; once the game is over everything is public (a feed read
after the end shows the sealed votes). New events are noticed with a blocking XREAD on the game's event
stream (one coroutine per connection, no thread); what to send is then read like any other event read (thread
pool).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from services.bus.keys import GAME_ID_RE
from services.gateway import errors as E
from services.gateway.auth import bearer_token, seat_of
from services.gateway.errors import ApiError
from services.gateway.service import Gateway

router = APIRouter()

BLOCK_MS = 5000
"""Longest wait in one XREAD: a quiet game costs one round trip per connection this often."""
_CLOSE = {400: 4400, 401: 4401, 403: 4403, 404: 4404, 422: 4400}


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
    await websocket.accept()
    try:
        after = _after(websocket.query_params.get("after", "0"))
        if not GAME_ID_RE.match(game_id):
            raise ApiError(400, E.BAD_REQUEST, "invalid game id")
        info = await gw.info(game_id)
        if seat is not None:
            seat_of(info, bearer_token(websocket.headers, websocket.query_params), seat)
    except ApiError as exc:
        await websocket.send_json(exc.body())
        await websocket.close(_CLOSE.get(exc.status, 4400), exc.code)
        return
    gw.log.info("gateway.feed_open", game=game_id, seat=seat, after=after)
    listener = asyncio.create_task(_drain(websocket))
    pusher = asyncio.create_task(_push(gw, websocket, game_id, seat, after))
    try:
        await asyncio.wait({listener, pusher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (listener, pusher):
            task.cancel()
        for task in (listener, pusher):
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                await task
        if pusher.done() and not pusher.cancelled() and pusher.exception() is not None:
            gw.log.error("gateway.feed_error", game=game_id, seat=seat, error=repr(pusher.exception()))
        if websocket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(RuntimeError):
                await websocket.close(1000)
        gw.log.info("gateway.feed_closed", game=game_id, seat=seat)


def _after(raw: str) -> int:
    try:
        after = int(raw)
    except ValueError:
        raise ApiError(400, E.BAD_REQUEST, "after must be a version (an integer >= 0)") from None
    if after < 0:
        raise ApiError(400, E.BAD_REQUEST, "after must be a version (an integer >= 0)")
    return after


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the client sends, to notice when it goes away."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


async def _push(gw: Gateway, websocket: WebSocket, game_id: str, seat: int | None, after: int) -> None:
    last = after
    while True:
        pos, items = await gw.history_async(game_id, last)
        if last > pos.version:
            await websocket.send_json(
                E.error_body(E.BAD_REQUEST, f"after={last} is beyond the game's last version {pos.version}")
            )
            await websocket.close(4400, E.BAD_REQUEST)
            return
        for shown in gw.seat_events(pos, items, seat):
            message: dict[str, Any] = {"kind": "event", "version": shown.version, "event": shown.event}
            await websocket.send_json(message)
            last = shown.version
        if pos.over and last >= pos.version:
            result = pos.info.decider.result(pos.state)
            await websocket.send_json({"kind": "over", "version": last, "result": result})
            await websocket.close(1000)
            return
        # Wake up as soon as the stream has an event after ``last`` (the reply itself is read again above, where
        # the state after each event is at hand for redaction).
        await gw.bus.events_after(game_id, last, BLOCK_MS, count=1)

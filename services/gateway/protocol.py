"""How the gateway is served: uvicorn's httptools protocol with a bounded request head and a read deadline.

uvicorn with httptools takes request heads of any size (``h11_max_incomplete_event_size`` only applies to the
h11 protocol) and waits forever for the rest of a request whose body is shorter than its Content-Length, or
for the first byte of a connection that sends nothing. :class:`GuardedHttpToolsProtocol` adds:

* a bound on the request head (request line and headers, ``Limits.max_header`` bytes): beyond it the client
  gets ``431 headers_too_large`` and the connection closes, before the app or the WebSocket handshake sees the
  request. Bytes are counted as they arrive, so an unfinished huge header is refused too;
* a deadline to read a whole request, head and body (``Limits.read_timeout`` seconds from its first byte, or
  from connecting): after it the client gets ``408 request_timeout`` (a connection that never sent a byte is
  just closed). An idle keep-alive connection is closed after ``Limits.keep_alive`` (uvicorn's own timer).

Both answers are the gateway's typed JSON errors. Besides, a response's head is written together with the first
part of its body (:class:`_HeadWithBody`): one send, one wake-up of the client, instead of two.
:func:`server_config` builds the uvicorn configuration used by ``python -m services.gateway`` (and by the tests).
"""

from __future__ import annotations

import asyncio
from asyncio import TimerHandle
from typing import Any

import httptools
import orjson
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.gateway.errors import HEADERS_TOO_LARGE, REQUEST_TIMEOUT, error_body
from services.gateway.limits import Limits

_DEFAULTS = Limits()
_LINGER = 0.5
"""Seconds a refused connection is still read (and what comes dropped) before it is closed."""
_REASONS = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class _Refused(Exception):
    """Raised inside a parser callback to stop parsing a refused request."""


class _HeadWithBody:
    """The transport as one request's response cycle sees it: the response head (the first write once the
    response started) is held until the first part of the body, and both go in one write.

    Anything else (a ``100 Continue`` before the response, what comes after the head, closing) passes through,
    the held head first.
    """

    __slots__ = ("_cycle", "_head", "_head_seen", "_transport")

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head: bytes | None = None
        self._head_seen = False

    def write(self, data: bytes) -> None:
        """Hold the response head; write anything else (after the head held, if any)."""
        if not self._head_seen and self._cycle.response_started:
            self._head_seen = True
            self._head = data
            return
        if self._head is not None:
            data, self._head = self._head + data, None
        self._transport.write(data)

    def close(self) -> None:
        """Close, after writing a head still held (a response that ended without a body)."""
        if self._head is not None:
            self._transport.write(self._head)
            self._head = None
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a request-head bound and a read deadline (see the module docstring).

    Subclass it with the bounds set (:func:`guarded_protocol`): uvicorn builds the protocol itself.
    """

    max_head: int = _DEFAULTS.max_header
    read_timeout: float = _DEFAULTS.read_timeout

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._reading_head = True
        self._begun = False
        self._refused = False
        self._deadline: TimerHandle | None = None

    # --- the deadline ---------------------------------------------------------------------------------------
    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.read_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if not self._begun or (self.cycle is not None and self.cycle.response_started):
            self.transport.close()  # nothing to answer: no request yet, or the answer is under way
            return
        self._refuse(408, REQUEST_TIMEOUT, f"the request did not arrive whole within {self.read_timeout:g} s")

    def _refuse(self, status: int, code: str, message: str) -> None:
        """Answer with a typed error and close the connection; nothing more of it is read."""
        self._refused = True
        self._disarm()
        body = orjson.dumps(error_body(code, message))
        head = (
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % (status, _REASONS[status], len(body))
        )
        self.transport.write(head + body)
        # Lingering close: stop sending, but read (and drop) what the client still sends for a moment before
        # closing, so that unread bytes do not make the kernel reset the connection before the client read this.
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(_LINGER, self.transport.close)
        else:
            self.transport.close()

    # --- connection events ----------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """A new connection: it has ``read_timeout`` seconds to send a whole request."""
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone: no deadline any more."""
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Feed the parser (as uvicorn does) and count the bytes of a request head still being read."""
        if self._refused:
            return
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError:
            if self._refused:
                return
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
            return
        if self._reading_head:  # the whole chunk belongs to a head not complete yet
            self._head_bytes += len(data)
            if self._head_bytes > self.max_head:
                self._refuse(431, HEADERS_TOO_LARGE, f"the request head is over {self.max_head} bytes")

    def handle_websocket_upgrade(self) -> None:
        """Hand over to the WebSocket protocol (which has its own timeouts)."""
        self._disarm()
        super().handle_websocket_upgrade()

    # --- parser callbacks -----------------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        """A request starts: it has ``read_timeout`` seconds to arrive whole."""
        super().on_message_begin()
        self._begun = True
        self._reading_head = True
        self._head_bytes = 0
        self._arm()

    def on_headers_complete(self) -> None:
        """The exact size of the head is known: refuse it when too large, else go on as uvicorn does."""
        self._reading_head = False
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.max_head:
            self._refuse(431, HEADERS_TOO_LARGE, f"the request head is over {self.max_head} bytes")
            raise _Refused
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle.transport is self.transport:  # a new request's cycle (not an upgrade)
            cycle.transport = _HeadWithBody(self.transport, cycle)

    def on_message_complete(self) -> None:
        """The request was read whole: the deadline is met."""
        self._disarm()
        super().on_message_complete()


def guarded_protocol(limits: Limits) -> type[GuardedHttpToolsProtocol]:
    """:class:`GuardedHttpToolsProtocol` with the bounds of ``limits``."""
    return type(
        "GatewayHttpProtocol",
        (GuardedHttpToolsProtocol,),
        {"max_head": limits.max_header, "read_timeout": limits.read_timeout},
    )


def server_config(app: Any, host: str, port: int, limits: Limits, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration of a gateway: the guarded protocol, the keep-alive and WebSocket bounds."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(limits),
        timeout_keep_alive=max(1, round(limits.keep_alive)),
        h11_max_incomplete_event_size=limits.max_header,
        ws_max_size=limits.ws_max_message,
        **options,
    )

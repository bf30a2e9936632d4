"""A lean socket.io client for the peer run of ``make bench`` (services/bench/peer.py): boardgame.io 0.50 takes
moves over socket.io only (its REST API is the lobby: create, join, leave; no move), so its moves are sent as a
browser's client sends them, a socket.io ``update`` event, and the ``update`` the server pushes back is awaited.

Spoken raw over asyncio streams, as the gateway's own measuring client speaks HTTP (services/bench/gateway.py,
``_Lane``): one WebSocket per lane, a pre-formatted frame per move, the answer read by its length. The
WebSocket is opened straight away (engine.io's ``transport=websocket``, no long-polling first); frames are masked
with the all-zero key, which RFC 6455 allows, so the payload goes as is (XOR-ing it in Python would measure
the client). Engine.io's heartbeat (``2``) is answered (``3``) wherever it comes.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from typing import Any
from urllib.parse import urlsplit

import orjson

_ZERO_MASK = b"\0\0\0\0"


class SocketLane:
    """One WebSocket to a boardgame.io server, connected to one game's socket.io namespace."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, namespace: str) -> None:
        self.reader = reader
        self.writer = writer
        self.prefix = f"42/{namespace},".encode()

    @classmethod
    async def open(cls, base: str, namespace: str) -> SocketLane:
        """A WebSocket to ``base`` (``http://host:port``), joined to socket.io namespace ``/namespace``."""
        parts = urlsplit(base)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nhost: {parts.netloc}\r\nupgrade: websocket\r\n"
            f"connection: Upgrade\r\nsec-websocket-key: {key}\r\nsec-websocket-version: 13\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"no WebSocket: {head[:200]!r}")
        lane = cls(reader, writer, namespace)
        opened = await lane._packet()  # engine.io OPEN: 0{"sid":...}
        if not opened.startswith(b"0"):
            raise RuntimeError(f"engine.io said {opened[:200]!r}")
        lane._send(f"40/{namespace},".encode())  # socket.io CONNECT to the game's namespace
        joined = await lane._packet()
        if not joined.startswith(f"40/{namespace},".encode()):
            raise RuntimeError(f"socket.io said {joined[:200]!r}")
        return lane

    async def emit(self, *args: Any) -> None:
        """Send one socket.io event (its name first)."""
        self._send(self.prefix + orjson.dumps(list(args)))

    async def event(self) -> list[Any]:
        """The next socket.io event the server pushes: ``[name, *args]``."""
        while True:
            packet = await self._packet()
            if packet.startswith(self.prefix):
                return list(orjson.loads(packet[len(self.prefix) :]))

    def _send(self, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.writer.write(head + _ZERO_MASK + payload)

    async def _packet(self) -> bytes:
        """The next engine.io packet of a text frame, after answering heartbeats."""
        while True:
            first, second = await self.reader.readexactly(2)
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(n)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("the server closed the WebSocket")
            if opcode != 0x1:
                continue  # (no ping frames are sent by engine.io; binary frames carry nothing asked for here)
            if payload == b"2":  # engine.io PING: the connection is closed unless answered
                self._send(b"3")
                continue
            return payload

    def close(self) -> None:
        """Close the connection."""
        self.writer.close()

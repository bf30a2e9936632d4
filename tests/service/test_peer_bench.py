"""The peer run's own pieces work (services/bench/peer.py): the socket.io client speaks the protocol, a process's
CPU is read from /proc, and without node the section says it is skipped (the figures come from ``make bench``)."""

from __future__ import annotations

import asyncio
import os
import struct

import pytest

from services.bench import peer
from services.bench.peer_socketio import SocketLane


async def _frame(reader: asyncio.StreamReader) -> bytes:
    """One masked client frame's payload (what a WebSocket server reads)."""
    _, second = await reader.readexactly(2)
    n = second & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", await reader.readexactly(2))
    mask = await reader.readexactly(4)
    data = await reader.readexactly(n)
    return bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _text(payload: bytes) -> bytes:
    return struct.pack("!BB", 0x81, len(payload)) + payload


def test_given_a_socketio_server_when_the_lane_connects_and_emits_then_it_speaks_engine_io_and_answers_pings() -> None:
    heard: list[bytes] = []

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        assert b"GET /socket.io/?EIO=4&transport=websocket" in head and b"upgrade: websocket" in head
        writer.write(b"HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n")
        writer.write(_text(b'0{"sid":"s","pingInterval":10000,"pingTimeout":20000}'))
        heard.append(await _frame(reader))  # the namespace's CONNECT
        writer.write(_text(b'40/tiny,{"sid":"n"}'))
        heard.append(await _frame(reader))  # an event
        writer.write(_text(b"2"))  # a heartbeat before the answer
        writer.write(_text(b'42/tiny,["update","m1",{"_stateID":1}]'))
        heard.append(await _frame(reader))  # the heartbeat's answer
        await writer.drain()

    async def main() -> list[object]:
        srv = await asyncio.start_server(server, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        lane = await SocketLane.open(f"http://127.0.0.1:{port}", "tiny")
        await lane.emit("update", {"type": "MAKE_MOVE"}, 0, "m1", "0")
        got = await lane.event()
        await asyncio.sleep(0.05)  # (the answer to the heartbeat is sent before the event is returned)
        lane.close()
        srv.close()
        return got

    # When a lane connects, emits an event and awaits the server's (a heartbeat coming first)
    got = asyncio.run(main())
    # Then it joined the namespace, sent the event as socket.io does, answered the heartbeat, and got the event
    assert heard == [b"40/tiny,", b'42/tiny,["update",{"type":"MAKE_MOVE"},0,"m1","0"]', b"3"]
    assert got == ["update", "m1", {"_stateID": 1}]


def test_given_work_done_when_a_process_cpu_is_read_then_it_has_grown() -> None:
    before = peer.cpu_seconds(os.getpid())
    sum(i * i for i in range(2_000_000))
    assert peer.cpu_seconds(os.getpid()) > before


def test_given_no_node_when_the_peer_section_runs_then_it_says_it_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peer.shutil, "which", lambda name: None)
    said: list[str] = []
    assert peer.bgio_modules(said.append) is None
    assert said and "skipped" in said[0] and "node" in said[0]

"""Raw sockets against a real gateway process (uvicorn): an oversized request head is refused with 431, and a
request that does not arrive whole in time (a body shorter than its Content-Length, a slow head, nothing at all)
does not hold its connection: 408 and closed."""

from __future__ import annotations

import contextlib
import socket
import time
import uuid
from collections.abc import Iterator

import orjson
import pytest

from services.bus.keys import Layout
from tests.gateway.conftest import spawn_gateway
from tests.service.conftest import redis_url  # noqa: F401 - fixture
from tests.waiting import patient

pytestmark = pytest.mark.redis

READ_TIMEOUT = 1.0
MAX_HEADER = 8192


@pytest.fixture(scope="module")
def address(redis_url: str) -> Iterator[tuple[str, int]]:  # noqa: F811 - the imported fixture
    """A gateway process with an 8 KiB head bound and a 1 s read deadline."""
    layout = Layout(prefix=f"h{uuid.uuid4().hex[:8]}", shards=2)
    proc, base = spawn_gateway(
        "--redis-url", redis_url, "--prefix", layout.prefix, "--shard-count", "2",
        "--max-header", str(MAX_HEADER), "--read-timeout", str(READ_TIMEOUT),
    )  # fmt: skip
    host, _, port = base.partition(":")
    try:
        yield host, int(port)
    finally:
        proc.terminate()
        assert proc.wait(15) == 0


def _connect(address: tuple[str, int]) -> socket.socket:
    # A connection the server held open would end the test with a socket timeout: a generous bound on a hang
    # (the server's read deadline is 1 s), not a speed figure.
    sock = socket.create_connection(address, timeout=patient(60))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _send_all(sock: socket.socket, data: bytes) -> None:
    """Send what the server takes: it may close before the whole of ``data`` went out."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        sock.sendall(data)


def _read_to_close(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def _response(sock: socket.socket) -> bytes:
    """One whole response (head and a Content-Length body) from a connection that stays open."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += sock.recv(65536)
    head, _, body = raw.partition(b"\r\n\r\n")
    lengths = [line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
    length = int(lengths[0])
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def _typed(raw: bytes, status: int, code: str) -> None:
    """``raw`` is one HTTP response with ``status``, ``Connection: close`` and the typed error ``code``."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} "), lines[0]
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert orjson.loads(body)["error"]["code"] == code


def test_a_request_head_over_the_bound_is_refused(address: tuple[str, int]) -> None:
    # Given a request head just under the bound: it is served
    with _connect(address) as sock:
        _send_all(sock, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (MAX_HEADER - 200) + b"\r\n\r\n")
        assert _response(sock).startswith(b"HTTP/1.1 200 ")
    # When a client sends a 1 MB header (with or without finishing the head), or a WebSocket handshake with one
    for tail in (b"\r\n\r\n", b""):
        with _connect(address) as sock:
            _send_all(sock, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 1_000_000 + tail)
            # Then it gets a typed 431 and the connection is closed
            _typed(_read_to_close(sock), 431, "headers_too_large")
    with _connect(address) as sock:
        _send_all(sock, b"GET /games/x/feed HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                        b"Cookie: " + b"c" * (2 * MAX_HEADER) + b"\r\n\r\n")  # fmt: skip
        _typed(_read_to_close(sock), 431, "headers_too_large")


def test_a_body_shorter_than_its_length_does_not_hold_the_connection(address: tuple[str, int]) -> None:
    # When a client declares a 100-byte body, sends 10 bytes and waits
    with _connect(address) as sock:
        started = time.monotonic()
        _send_all(sock, b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100\r\n\r\n" + b'{"game": "')  # fmt: skip
        raw = _read_to_close(sock)
        waited = time.monotonic() - started
    # Then (not before the read deadline) it gets a typed 408 and the connection is closed
    _typed(raw, 408, "request_timeout")
    assert waited >= READ_TIMEOUT - 0.1


def test_a_slow_head_or_a_silent_connection_does_not_hold_it(address: tuple[str, int]) -> None:
    # When a client sends its head a few bytes at a time, each well within any idle timeout
    with _connect(address) as sock:
        try:
            for piece in (b"GET /health HTTP/1.1\r\n", b"Host: x\r\n", b"X-A: 1\r\n", b"X-B: 2\r\n", b"X-C: 3\r\n"):
                sock.sendall(piece)
                time.sleep(0.3)
        except (BrokenPipeError, ConnectionResetError):
            pass
        raw = _read_to_close(sock)
    # Then the deadline counts from its first byte: 408, closed (an idle timeout would never end this head)
    _typed(raw, 408, "request_timeout")
    # When a client connects and sends nothing, then the connection is closed after the deadline
    with _connect(address) as sock:
        started = time.monotonic()
        assert _read_to_close(sock) == b""
        assert time.monotonic() - started >= READ_TIMEOUT - 0.1


def test_a_request_served_in_time_keeps_its_connection(address: tuple[str, int]) -> None:
    # Given a keep-alive connection
    with _connect(address) as sock:
        # When it sends two requests, the second after a pause longer than the read deadline
        for pause in (0.0, READ_TIMEOUT + 0.3):
            time.sleep(pause)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            # Then both are answered on the same connection (the deadline is per request, not per connection)
            assert _response(sock).startswith(b"HTTP/1.1 200 ")

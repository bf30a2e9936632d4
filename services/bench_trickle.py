"""Slow webhook receivers on purpose, for the webhooks bench (services/bench_webhooks.py) and its tests.

:func:`trickling_receiver` serves on many loopback addresses (127.0.0.2, 127.0.0.3, ...: each one another host
to the deliverer, so its per-host cap does not bind) and answers every request one byte at a time, a byte
every ``every_s`` seconds: an answer that never ends while each single read is quick. It counts what a test
or a bench needs to see: the connections it holds open, the ones the client cut before the answer ended, and
every request (path, ``X-Throne-Attempt``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Trickle: " + b"." * 4096 + b"\r\n\r\n"
"""The answer trickled: its head alone takes thousands of ``every_s`` to arrive."""


@dataclass
class Trickler:
    """What the trickling receiver saw (read under ``lock``)."""

    urls: list[str] = field(default_factory=list)
    """One base URL per address, ``http://127.0.0.N:port``."""
    open: int = 0
    """Connections whose request was read and whose answer is still being trickled."""
    cut: int = 0
    """Connections the client closed before the answer ended."""
    requests: list[tuple[str, int]] = field(default_factory=list)
    """Every request read: (path, attempt)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def attempts(self, path: str) -> list[int]:
        """The attempt numbers of the requests to ``path``."""
        with self.lock:
            return [attempt for p, attempt in self.requests if p == path]


@contextlib.contextmanager
def trickling_receiver(hosts: int, every_s: float = 1.0) -> Iterator[Trickler]:
    """Serve a :class:`Trickler` on ``hosts`` loopback addresses (127.0.0.2 on) in a thread of its own."""
    state = Trickler()
    loop = asyncio.new_event_loop()
    handlers: set[asyncio.Task[None]] = set()
    started = threading.Event()
    server: list[asyncio.Server] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            fields = dict(line.split(":", 1) for line in head[1:] if ":" in line)
            named = {k.strip().lower(): v.strip() for k, v in fields.items()}
            await reader.readexactly(int(named.get("content-length", "0")))
            path = head[0].split(" ")[1]
            attempt = int(named.get("x-throne-attempt", "0"))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError, ValueError):
            writer.close()
            return
        with state.lock:
            state.open += 1
            state.requests.append((path, attempt))
        try:
            for byte in ANSWER:
                writer.write(bytes((byte,)))
                await writer.drain()
                with contextlib.suppress(TimeoutError):  # waiting for the next byte, watching for the close
                    if not await asyncio.wait_for(reader.read(1), every_s):
                        with state.lock:
                            state.cut += 1
                        return
        except ConnectionError:
            with state.lock:
                state.cut += 1
        finally:
            with state.lock:
                state.open -= 1
            writer.close()
            handlers.discard(task)

    async def serve() -> None:
        addresses = [f"127.0.0.{2 + n}" for n in range(hosts)]
        server.append(await asyncio.start_server(handle, host=addresses, port=0, backlog=hosts * 4))
        state.urls = [f"http://{s.getsockname()[0]}:{s.getsockname()[1]}" for s in server[0].sockets]
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True, name="trickling-receiver")
    thread.start()
    asyncio.run_coroutine_threadsafe(serve(), loop).result(30)
    started.wait(30)
    try:
        yield state
    finally:

        async def stop() -> None:
            server[0].close()
            for task in list(handlers):
                task.cancel()
            await asyncio.gather(*handlers, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()

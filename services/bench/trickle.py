"""Slow webhook receivers on purpose, for the webhooks bench (services/bench/webhooks.py) and its tests.

:func:`honest_latencies`: an honest seat's notice, from the outbox to its receiver, with and without 64
trickling receivers holding their connections (the bench's figures ``webhook_honest_*``).

:func:`trickling_receiver` serves on many loopback addresses (127.0.0.2, 127.0.0.3, ...: each one another host
to the deliverer, so its per-host cap does not bind) and answers every request one byte at a time, a byte
every ``every_s`` seconds: an answer that never ends while each single read is quick. It counts what a test
or a bench needs to see: the connections it holds open, the ones the client cut before the answer ended, and
every request (path, ``X-Throne-Attempt``).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from services.client import ServiceClient
from services.webhooks.hooks import HookStore
from services.webhooks.notices import CLOCK_LOW
from services.webhooks.outbox import Outbox

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
    handlers: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
    stopping: list[bool] = []
    started = threading.Event()
    server: list[asyncio.Server] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers[task] = writer
        try:
            await trickle(reader, writer)
        finally:
            writer.close()
            handlers.pop(task, None)

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            fields = dict(line.split(":", 1) for line in head[1:] if ":" in line)
            named = {k.strip().lower(): v.strip() for k, v in fields.items()}
            await reader.readexactly(int(named.get("content-length", "0")))
            path = head[0].split(" ")[1]
            attempt = int(named.get("x-throne-attempt", "0"))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError, ValueError):
            return
        with state.lock:
            state.open += 1
            state.requests.append((path, attempt))
        finished = False
        try:
            for byte in ANSWER:
                writer.write(bytes((byte,)))
                await writer.drain()
                with contextlib.suppress(TimeoutError):  # waiting for the next byte, watching for the close
                    if not await asyncio.wait_for(reader.read(1), every_s):
                        break
            else:
                finished = True
        except ConnectionError:
            pass
        finally:
            with state.lock:
                state.open -= 1
                state.cut += 0 if finished or stopping else 1

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
            stopping.append(True)
            server[0].close()
            for writer in list(handlers.values()):
                writer.transport.abort()  # the handlers see the end of their connection, and end
            await asyncio.gather(*handlers, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def honest_latencies(
    service: ServiceClient,
    hooks: HookStore,
    outbox: Outbox,
    game: str,
    receiver: tuple[str, list[str], list[tuple[float, dict[str, Any]]]],
    *,
    samples: int = 10,
    slow_hosts: int = 64,
    cap_s: float = 20.0,
) -> dict[str, float]:
    """How long an honest seat's notice takes from the outbox to its receiver (a running webhooks process
    serves ``service``'s layout), quiet and while ``slow_hosts`` trickling receivers (for 16 seats, 4 webhooks
    each at most) hold their connections. ``receiver``: the bench's receiver (its hook URL, the secret it
    checks, what it accepted: (ms, notice)). A notice not there within ``cap_s`` counts as ``cap_s`` (and
    the samples stop there: the deliverer is blocked)."""
    hook_url, secret, got = receiver
    honest = service.create_game(game, ["A", "B"], seed=3).game_id
    secret[0] = hooks.register(honest, 0, hook_url, (CLOCK_LOW,), max_per_seat=1).key
    version = iter(range(1, 10_000))

    def latency_ms() -> float:
        started = time.time() * 1000
        nid = outbox.notify(hooks, honest, 0, CLOCK_LOW, next(version), {"text": "bench"})
        until = time.monotonic() + cap_s
        while time.monotonic() < until:
            arrived = [at for at, notice in list(got) if notice.get("id") == nid]
            if arrived:
                return arrived[0] - started
            time.sleep(0.002)
        return cap_s * 1000

    def run() -> list[float]:
        lags: list[float] = []
        while len(lags) < samples and (not lags or lags[-1] < cap_s * 1000):
            lags.append(latency_ms())
        return sorted(lags)

    quiet = run()
    with trickling_receiver(slow_hosts, every_s=2.0) as slow:
        seats: list[tuple[str, int]] = []
        for n, url in enumerate(slow.urls):
            if n % 8 == 0:
                gid = service.create_game(game, ["A", "B"], seed=10 + n).game_id
                seats += [(gid, 0), (gid, 1)]
            gid, seat = seats[n // 4]
            hooks.register(gid, seat, f"{url}/slow/{n}", (CLOCK_LOW,), max_per_seat=4)
        for gid, seat in seats:
            outbox.notify(hooks, gid, seat, CLOCK_LOW, 1, {"text": "slow"})
        until = time.monotonic() + 60
        while slow.open < slow_hosts and time.monotonic() < until:
            time.sleep(0.01)
        crowded = run()
    return {
        "webhook_honest_quiet_p50_ms": round(statistics.median(quiet), 1),
        "webhook_honest_64_slow_p50_ms": round(statistics.median(crowded), 1),
        "webhook_honest_64_slow_max_ms": round(crowded[-1], 1),
    }

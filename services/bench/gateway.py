"""The gateway's section of ``make bench`` (listed in services/bench/runner.py).

Everything runs as in production, each in its own process: redis-server (REDIS_URL if set, else one of its own
on a free loopback port), one rules worker (``python -m services.worker``) and one gateway
(``python -m services.gateway``, uvicorn). This process is the HTTP client (raw keep-alive
HTTP/1.1 over asyncio, see ``_Lane``). Games recorded with random
bots are created on the bus; then every command goes through HTTP, ``POST /games/{id}/commands`` with the
seat's token and the version it expects, and the reply (the outcome with the events as that seat sees them)
is awaited.

Figures:

* ``gateway_commands_per_s``: commands per second through the gateway, ``concurrency`` games in flight (each
  game's commands one after the other, as its players would send them);
* ``gateway_latency_p50_ms`` (and ``p99``): HTTP command to outcome, one command at a time (no queueing:
  what one player waits for);
* ``gateway_loaded_latency_p50_ms``: the same during the throughput run;
* ``read_attack_move_median_ratio``: a player's move median while one anonymous client loops
  ``GET /games/{id}/events?after=0`` of a game of ~700 versions, within the gateway's default rate limits
  (it waits out each 429's Retry-After), over the same player's median alone (``read_attack_move_p50_ms``,
  ``read_attack_alone_p50_ms``; goal: at most 2).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
import redis

from services.bench import perf
from services.bench.scripts import GameScript, record_games
from services.bus.client import BusClient
from services.bus.envelope import CommandEnvelope
from services.bus.keys import Layout
from services.log import configure

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_gateway(url: str, layout: Layout, limited: bool = False) -> Iterator[str]:
    """``python -m services.gateway`` on a free loopback port (no rate limit unless ``limited``: then the
    defaults), until the block ends; yields its base URL."""
    with gateway_process(url, layout, limited) as (base, _):
        yield base


@contextlib.contextmanager
def gateway_process(url: str, layout: Layout, limited: bool = False) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`running_gateway`, yielding the process too (its CPU is read from /proc by services/bench/peer.py)."""
    port = _free_port()
    unlimited = [
        "--rate", "1e9", "--burst", "1000000000", "--address-rate", "1e9", "--address-burst", "1000000000",
        "--read-bytes-rate", "1e15", "--read-bytes-burst", "1000000000000000", "--address-bytes-rate", "1e15",
        "--address-bytes-burst", "1000000000000000",
    ]  # fmt: skip
    cmd = [
        sys.executable, "-m", "services.gateway", "--redis-url", url, "--prefix", layout.prefix,
        "--shard-count", str(layout.shards), "--host", "127.0.0.1", "--port", str(port),
        *([] if limited else unlimited), "--log-level", "warning",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)  # (its "listening on" line)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the gateway process did not start")
            time.sleep(0.05)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _create(url: str, layout: Layout, scripts: Sequence[GameScript], tag: str) -> list[list[CommandEnvelope]]:
    """Create the scripts' games on the bus (not timed); their commands, per game."""
    client = BusClient(redis.Redis.from_url(url), layout)
    games = [s.envelopes(f"{tag}{i}") for i, s in enumerate(scripts)]
    client.submit_many([create for create, _ in games])
    for create, _ in games:
        if not client.wait_on(create, timeout=30).accepted:
            raise RuntimeError(f"game {create.game_id} not created")
    return [commands for _, commands in games]


class _Lane:
    """One keep-alive HTTP/1.1 connection to the gateway, spoken raw over asyncio streams.

    What a lean real client does (a pre-formatted request head, the answer read by its Content-Length): the
    measuring process shares the two cores with the gateway, and a general-purpose client (httpx costs about
    0.6 ms of CPU per request, more than the gateway's own work) would measure the client more than the gateway.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader = reader
        self.writer = writer
        self.host = host

    @classmethod
    async def open(cls, base: str) -> _Lane:
        """A connection to the gateway at ``base`` (``http://host:port``)."""
        parts = urlsplit(base)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        return cls(reader, writer, parts.netloc)

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        """POST a JSON body with a bearer token; the status and the body of the answer."""
        head = (
            f"POST {path} HTTP/1.1\r\nhost: {self.host}\r\nauthorization: Bearer {token}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status, _, answer = await self._answer()
        return status, answer

    async def get(self, path: str) -> tuple[int, dict[bytes, bytes], bytes]:
        """GET without a token (an anonymous reader); the status, the headers and the body of the answer."""
        self.writer.write(f"GET {path} HTTP/1.1\r\nhost: {self.host}\r\n\r\n".encode())
        return await self._answer()

    async def _answer(self) -> tuple[int, dict[bytes, bytes], bytes]:
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" not in headers:
            raise RuntimeError("the gateway answered without a Content-Length")
        return status, headers, await self.reader.readexactly(int(headers[b"content-length"]))

    def close(self) -> None:
        """Close the connection."""
        self.writer.close()


async def _play(lane: _Lane, commands: Sequence[CommandEnvelope], samples: list[float]) -> None:
    for env in commands:
        body = orjson.dumps({"command": env.payload, "expected_version": env.expected_version})
        token = GameScript.token(env.game_id, env.seat)
        t0 = time.perf_counter()
        status, answer = await lane.post(f"/games/{env.game_id}/commands", token, body)
        samples.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            raise RuntimeError(f"command refused: {status} {answer[:300]!r}")


def _run(base: str, per_game: Sequence[Sequence[CommandEnvelope]], concurrency: int) -> tuple[float, list[float]]:
    """Play the games ``concurrency`` at a time; returns (elapsed seconds, latency samples in ms).

    One lane (a keep-alive connection) per game in flight, all on one event loop in this process: it costs the
    measuring process far less CPU per request than a thread per connection, and this process shares the
    machine with the gateway.
    """
    samples: list[float] = []
    queue = list(per_game)

    async def lane() -> None:
        http = await _Lane.open(base)
        try:
            while queue:
                await _play(http, queue.pop(), samples)
        finally:
            http.close()

    async def main() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(lane() for _ in range(concurrency)))
        return time.perf_counter() - t0

    return asyncio.run(main()), samples


def measure_gateway(
    url: str, scripts: Sequence[GameScript], concurrency: int = 16, latency_commands: int = 300
) -> dict[str, Any]:
    """Throughput and latency of commands through a gateway process in front of a worker process on ``url``."""
    layout = Layout(prefix=f"gw{uuid.uuid4().hex[:6]}", shards=16)
    r = redis.Redis.from_url(url)
    stack = contextlib.ExitStack()  # the worker stops before the layout's keys go
    try:
        stack.enter_context(perf.leased_worker(url, layout, r))
        with running_gateway(url, layout) as base:
            # Unloaded latency: one game after another, one command at a time (after a short warm-up).
            solo = _create(url, layout, scripts[:2], "solo")
            warm, timed = solo[0][:30], [c for game in solo for c in game][30 : 30 + latency_commands]
            _run(base, [warm], 1)
            _, one_at_a_time = _run(base, [timed], 1)
            # Throughput: many games in flight.
            per_game = _create(url, layout, scripts, "load")
            elapsed, loaded = _run(base, per_game, concurrency)
    finally:
        stack.close()
        for key in r.scan_iter(match=layout.everything(), count=1000):
            r.unlink(key)
    one_at_a_time.sort()
    loaded.sort()
    return {
        "gateway_commands_per_s": round(len(loaded) / elapsed, 1),
        "gateway_commands": len(loaded),
        "gateway_concurrency": concurrency,
        "gateway_latency_p50_ms": round(statistics.median(one_at_a_time), 3),
        "gateway_latency_p99_ms": round(perf._percentile(one_at_a_time, 0.99), 3),
        "gateway_loaded_latency_p50_ms": round(statistics.median(loaded), 3),
        "gateway_loaded_latency_p99_ms": round(perf._percentile(loaded, 0.99), 3),
    }


async def _attack(base: str, path: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """One anonymous client looping ``GET path`` as fast as the gateway lets it: each 429's Retry-After is
    waited out (the client stays within the rate limit)."""
    lane = await _Lane.open(base)
    try:
        while not stop.is_set():
            status, headers, body = await lane.get(path)
            counts[str(status)] = counts.get(str(status), 0) + 1
            counts["bytes"] = counts.get("bytes", 0) + len(body)
            if status == 429:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), float(headers.get(b"retry-after", b"1")))
    finally:
        lane.close()


def _moves_beside(
    base: str, commands: Sequence[CommandEnvelope], attack_path: str | None
) -> tuple[list[float], dict[str, int]]:
    """A player's commands one at a time (latency samples in ms), with an anonymous reader looping
    ``attack_path`` meanwhile when given (its answers counted by status)."""
    samples: list[float] = []
    counts: dict[str, int] = {}

    async def main() -> None:
        stop = asyncio.Event()
        attacker = asyncio.create_task(_attack(base, attack_path, stop, counts)) if attack_path else None
        if attacker is not None:
            await asyncio.sleep(1.0)  # the attack runs before the player's first timed move
        lane = await _Lane.open(base)
        try:
            await _play(lane, commands, samples)
        finally:
            lane.close()
            stop.set()
            if attacker is not None:
                await attacker

    asyncio.run(main())
    return samples, counts


def measure_read_attack(url: str, scripts: Sequence[GameScript], moves: int = 120, rounds: int = 3) -> dict[str, Any]:
    """A player's move median alone and while one anonymous client loops ``GET /games/{id}/events?after=0`` of
    a long running game (the gateway with its default rate limits), and their ratio; ``moves`` moves each, in
    ``rounds`` alternating blocks."""
    layout = Layout(prefix=f"ra{uuid.uuid4().hex[:6]}", shards=16)
    r = redis.Redis.from_url(url)
    stack = contextlib.ExitStack()  # the worker stops before the layout's keys go
    try:
        stack.enter_context(perf.leased_worker(url, layout, r))
        longest = max(scripts, key=lambda s: s.moves[-1][2])
        client = BusClient(r, layout)
        # The attacked game: the longest script played to its last move (still running, ~700 versions).
        [(create, commands)] = [longest.envelopes("attacked")]
        client.submit_many([create])
        if not client.wait_on(create, timeout=30).accepted:
            raise RuntimeError("the attacked game was not created")
        for env in commands[:-1]:
            client.submit_many([env])
            if not client.wait_on(env, timeout=30).accepted:
                raise RuntimeError("the attacked game's command was refused")
        attacked_version = commands[-1].expected_version
        players = _create(url, layout, [s for s in scripts if s is not longest][:2], "player")
        with running_gateway(url, layout, limited=True) as base:
            for game in players:
                _moves_beside(base, game[:20], None)  # warm-up
            # Alone and attacked in alternating blocks: the machine's other load drifts alike for both.
            alone: list[float] = []
            attacked: list[float] = []
            counts: dict[str, int] = {}
            block = max(1, moves // rounds)
            for i in range(rounds):
                span = slice(20 + i * block, 20 + (i + 1) * block)
                alone += _moves_beside(base, players[0][span], None)[0]
                samples, seen = _moves_beside(base, players[1][span], "/games/attacked/events?after=0")
                attacked += samples
                for name, count in seen.items():
                    counts[name] = counts.get(name, 0) + count
    finally:
        stack.close()
        for key in r.scan_iter(match=layout.everything(), count=1000):
            r.unlink(key)
    alone_p50, attacked_p50 = statistics.median(alone), statistics.median(attacked)
    return {
        "read_attack_alone_p50_ms": round(alone_p50, 3),
        "read_attack_move_p50_ms": round(attacked_p50, 3),
        "read_attack_move_median_ratio": round(attacked_p50 / alone_p50, 2),
        "read_attack_game_version": attacked_version,
        "read_attack_reads": sum(v for k, v in counts.items() if k.isdigit()),
        "read_attack_refused": counts.get("429", 0),
        "read_attack_bytes": counts.get("bytes", 0),
    }


def bench(ctx: Any) -> dict[str, Any]:
    """Measure the gateway; ``ctx`` is services.bench.Context (``games`` sizes the samples, ``say`` prints)."""
    configure("warning")
    quick = ctx.games < 20
    scripts = record_games(ctx.game.name, 4 if quick else 24, seed=ctx.seed + 1000)
    with perf.local_redis(os.environ.get("REDIS_URL")) as url:
        figures = measure_gateway(url, scripts, concurrency=8 if quick else 16, latency_commands=60 if quick else 300)
        figures.update(measure_read_attack(url, scripts, moves=60 if quick else 150))
    ctx.say(
        f"gateway: {figures['gateway_commands']} HTTP commands, {figures['gateway_concurrency']} games in flight = "
        f"{figures['gateway_commands_per_s']:,.0f} commands/s (p50 {figures['gateway_loaded_latency_p50_ms']} ms); "
        f"one at a time: p50 {figures['gateway_latency_p50_ms']} ms, p99 {figures['gateway_latency_p99_ms']} ms"
    )
    ctx.say(
        f"gateway under a read attack: one anonymous client looping GET /games/{{id}}/events?after=0 of a "
        f"{figures['read_attack_game_version']}-version game ({figures['read_attack_reads']} reads, "
        f"{figures['read_attack_refused']} refused, {figures['read_attack_bytes']:,} bytes): a player's move p50 "
        f"{figures['read_attack_move_p50_ms']} ms against {figures['read_attack_alone_p50_ms']} ms alone = "
        f"{figures['read_attack_move_median_ratio']}x"
    )
    return figures


SECTIONS = [bench]

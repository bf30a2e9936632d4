"""Measurements of the service for ``make bench`` (services/bench/service.py and the other sections use them).

* :func:`measure_xadd_rtt`: raw round trip of one XADD (the floor under every command).
* :func:`measure_throughput`: commands per second through one rules worker (commands queued first, then the
  worker drains them: read batches, decide, one EVALSHA per command, pipelined).
* :func:`measure_latency`: submit-to-outcome latency (p50/p99) at a fixed command rate, with the worker in its
  own process and paced clients waiting for their replies.

Games come as :class:`~services.bench.scripts.GameScript` (recorded with the decider and random bots), so any
registered game works; :func:`local_redis` and :func:`local_cluster` start throw-away servers to measure on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import redis

from services.bench.scripts import GameScript, run_threads
from services.bus.connection import connect
from services.bus.envelope import CommandEnvelope
from services.bus.keys import Layout, scratch
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker, WorkerConfig

REDIS_SERVER = "/usr/bin/redis-server"


@contextlib.contextmanager
def local_redis(url: str | None = None) -> Iterator[str]:
    """``url`` if given, else a fresh redis-server on a free loopback port (no persistence) for the block."""
    if url:
        yield url
        return
    if not os.path.exists(REDIS_SERVER) and not shutil.which("redis-server"):
        raise RuntimeError("no redis-server binary: set REDIS_URL to measure on a running Redis")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    binary = REDIS_SERVER if os.path.exists(REDIS_SERVER) else str(shutil.which("redis-server"))
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def measure_xadd_rtt(url: str, n: int = 2000) -> dict[str, float]:
    """Round trip of single XADDs (no pipelining) to a scratch stream: p50/p99 in microseconds."""
    r = redis.Redis.from_url(url)
    key = scratch("rtt", uuid.uuid4().hex)
    samples = []
    try:
        for i in range(n + 100):
            t0 = time.perf_counter_ns()
            r.xadd(key, {"i": i})
            if i >= 100:  # warm-up
                samples.append((time.perf_counter_ns() - t0) / 1000)
    finally:
        r.delete(key)
    samples.sort()
    return {
        "xadd_rtt_p50_us": round(statistics.median(samples), 1),
        "xadd_rtt_p99_us": round(_percentile(samples, 0.99), 1),
    }


def _interleave(per_game: list[list[CommandEnvelope]]) -> list[CommandEnvelope]:
    out: list[CommandEnvelope] = []
    for i in range(max(len(cmds) for cmds in per_game)):
        out.extend(cmds[i] for cmds in per_game if i < len(cmds))
    return out


def measure_throughput(
    url: str, scripts: Sequence[GameScript], shards: int = 16, config: WorkerConfig | None = None
) -> dict[str, float]:
    """Commands per second one rules worker (in this process) commits, with every command already queued.

    The games are created first (not timed); then all their commands are queued, interleaved across games as
    concurrent players would send them, and the worker drains the streams. Every command must be accepted.
    """
    layout = Layout(prefix=f"bench{uuid.uuid4().hex[:6]}", shards=shards)
    client = ServiceClient(redis.Redis.from_url(url), layout)
    worker = RulesWorker(redis.Redis.from_url(url), range(shards), layout=layout, config=config or WorkerConfig())
    creates, per_game = [], []
    for i, script in enumerate(scripts):
        create, commands = script.envelopes(f"g{i}")
        creates.append(create)
        per_game.append(commands)
    client.submit_many(creates)
    worker.run_until_idle()
    commands = _interleave(per_game)
    for start in range(0, len(commands), 2000):
        client.submit_many(commands[start : start + 2000])
    t0 = time.perf_counter()
    worker.run_until_idle()
    elapsed = time.perf_counter() - t0
    accepted = worker.stats["append"]
    if accepted != len(commands):
        raise RuntimeError(f"{accepted} of {len(commands)} commands accepted: {dict(worker.stats)}")
    worker.release()
    _drop_prefix(client.r, layout)
    return {
        "service_commands_per_s": round(len(commands) / elapsed, 1),
        "service_commands": len(commands),
        "service_games": len(scripts),
    }


def memory_by_family(r: redis.Redis, layout: Layout) -> dict[str, int]:
    """Bytes Redis holds for the keys of ``layout``, by kind of key (MEMORY USAGE, every element counted)."""
    sizes: Counter[str] = Counter()
    for key in r.scan_iter(match=layout.everything(), count=1000):
        sizes[layout.family(key)] += int(r.memory_usage(key, samples=0) or 0)
    return dict(sizes)


def measure_game_memory(url: str, scripts: Sequence[GameScript], shards: int = 16) -> dict[str, Any]:
    """What the games of ``scripts`` cost in Redis memory, played to their end through one rules worker.

    ``used_memory`` before and after (per game, per event, per command), the bytes by kind of key right after
    the games (the commands ask for no reply, as the bots' do; a submitter that waits pops its reply at once)
    and once the ended games were archived (``archive_after_ms`` reached); the feed is trimmed by length
    (``feed_maxlen``), outcomes expire after their TTL. Needs a Redis that nothing else writes to meanwhile.
    """
    layout = Layout(prefix=f"mem{uuid.uuid4().hex[:6]}", shards=shards)
    r = redis.Redis.from_url(url)
    client = ServiceClient(redis.Redis.from_url(url), layout)
    worker = RulesWorker(
        redis.Redis.from_url(url), range(shards), layout=layout, config=WorkerConfig(archive_after_ms=0)
    )
    worker.refresh_leases()  # the leases and consumer groups, before the first measure
    before = int(r.info("memory")["used_memory"])
    creates, per_game = [], []
    for i, script in enumerate(scripts):
        create, commands = script.envelopes(f"m{i}", replies=False)  # nobody waits: as the bots submit
        creates.append(create)
        per_game.append(commands)
    client.submit_many(creates)
    worker.run_until_idle()
    commands = _interleave(per_game)
    for start in range(0, len(commands), 2000):
        client.submit_many(commands[start : start + 2000])
    worker.run_until_idle()
    if worker.stats["append"] != len(commands):
        raise RuntimeError(f"{worker.stats['append']} of {len(commands)} commands accepted: {dict(worker.stats)}")
    events = sum(len(client.read_events(c.game_id)) for c in creates)
    hot = memory_by_family(r, layout)
    after = int(r.info("memory")["used_memory"])
    worker.maintain()
    archived = memory_by_family(r, layout)
    worker.release()
    _drop_prefix(r, layout)
    games = len(scripts)
    used = after - before
    return {
        "memory_games": games,
        "memory_events": events,
        "memory_commands": len(commands) + games,
        "redis_bytes_per_game": round(used / games),
        "redis_bytes_per_event": round(used / events, 1),
        "redis_bytes_per_command": round(used / (len(commands) + games), 1),
        "memory_by_key_hot": hot,
        "memory_by_key_archived": archived,
    }


def _drop_prefix(r: redis.Redis, layout: Layout) -> None:
    for key in r.scan_iter(match=layout.everything(), count=1000):
        r.unlink(key)


@contextlib.contextmanager
def local_cluster() -> Iterator[str]:
    """A Redis Cluster of 3 masters of its own (``deploy/cluster.sh``, loopback ports), for the block; yields its
    ``redis+cluster://`` URL. Needs redis-server and redis-cli."""
    import tempfile

    script = Path(__file__).resolve().parents[2] / "deploy" / "cluster.sh"
    with tempfile.TemporaryDirectory(prefix="throne-bench-cluster-") as tmp:
        env = {**os.environ, "THRONE_CLUSTER_DIR": str(Path(tmp) / "state"), "PYTHON": sys.executable}
        env.pop("REDIS_URL", None)

        def run(action: str) -> str:
            done = subprocess.run(["bash", str(script), action], env=env, capture_output=True, text=True, timeout=90)
            if done.returncode != 0:
                raise RuntimeError(f"deploy/cluster.sh {action} failed: {done.stderr[-500:]}")
            return done.stdout

        started = run("start")
        try:
            yield started.strip().splitlines()[-1].removeprefix("REDIS_URL=")
        finally:
            run("stop")


def spawn_worker(url: str, layout: Layout, *extra: str) -> subprocess.Popen[bytes]:
    """``python -m services.worker`` over every shard of ``layout`` (warnings only)."""
    root = Path(__file__).resolve().parents[2]
    cmd = [
        sys.executable, "-m", "services.worker", "--redis-url", url, "--shards", "all",
        "--shard-count", str(layout.shards), "--prefix", layout.prefix, "--log-level", "warning", *extra,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.Popen(cmd, cwd=root, env=env)


@contextlib.contextmanager
def leased_worker(url: str, layout: Layout, r: Any, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """A rules worker process on ``url`` (spawn_worker), once it holds every shard's lease; stopped on exit."""
    proc = spawn_worker(url, layout, *extra)
    try:
        deadline = time.monotonic() + 20
        while not all(r.exists(layout.lease(s)) for s in range(layout.shards)):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the worker process did not take its leases")
            time.sleep(0.05)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def measure_latency(
    url: str, scripts: Sequence[GameScript], rate: float = 1000.0, seconds: float = 5.0, clients: int = 8,
    shards: int = 16, plugins: Sequence[str] = (), layout: Layout | None = None, keep: bool = False,
) -> dict[str, float]:  # fmt: skip
    """Submit-to-outcome latency at ``rate`` commands/s, the worker in its own process.

    ``clients`` threads each play their share of the games, one command at a time, paced to ``rate/clients``
    per second; each command's latency runs from its XADD to its reply (BLPOP). ``plugins``: modules the
    worker process imports to know the games (shadow is built in). ``layout``: the key layout to play in (its
    shard count wins over ``shards``), e.g. one that other processes (projections) watch; ``keep``: leave the
    games in Redis afterwards (the caller drops them).
    """
    clients = max(1, min(clients, len(scripts)))  # a client without games would lower the rate
    layout = layout or Layout(prefix=f"lat{uuid.uuid4().hex[:6]}", shards=shards)
    shards = layout.shards
    proc = spawn_worker(url, layout, *[arg for p in plugins for arg in ("--plugin", p)])
    r = connect(url)  # a cluster URL (redis+cluster://) as well as a single Redis
    try:
        deadline = time.monotonic() + 20
        while not all(r.exists(layout.lease(s)) for s in range(shards)):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the worker process did not take its leases")
            time.sleep(0.05)
        games = [s.envelopes(f"g{i}") for i, s in enumerate(scripts)]
        boot = ServiceClient(connect(url), layout)
        boot.submit_many([c for c, _ in games])
        for create, _ in games:
            if not boot.wait_on(create, timeout=20).accepted:
                raise RuntimeError(f"game {create.game_id} not created")
        samples: list[float] = []
        lock = threading.Lock()
        interval = clients / rate
        stop_at = time.monotonic() + seconds

        def play(index: int) -> None:
            client = ServiceClient(connect(url), layout)
            mine = [cmds for i, (_, cmds) in enumerate(games) if i % clients == index]
            queue = _interleave(mine) if mine else []
            next_at = time.monotonic()
            local = []
            # Each client plays its games round-robin; a game's commands go one by one (each waits).
            for env in queue:
                now = time.monotonic()
                if now >= stop_at:
                    break
                if next_at > now:
                    time.sleep(next_at - now)
                next_at += interval
                t0 = time.perf_counter()
                client.submit_many([env])
                outcome = client.wait_on(env, timeout=10)
                local.append((time.perf_counter() - t0) * 1000)
                if not outcome.accepted:
                    raise RuntimeError(f"rejected: {outcome}")
            with lock:
                samples.extend(local)

        elapsed = run_threads([functools.partial(play, i) for i in range(clients)])
        samples.sort()
        return {
            "latency_rate_target": rate,
            "latency_rate_achieved": round(len(samples) / elapsed, 1),
            "latency_p50_ms": round(statistics.median(samples), 3),
            "latency_p99_ms": round(_percentile(samples, 0.99), 3),
            "latency_samples": len(samples),
        }
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if not keep:
            _drop_prefix(r, layout)

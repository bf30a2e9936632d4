"""Every process waits for Redis instead of exiting, at start and when Redis goes away and comes back loading.

The rules worker, the projections, the bots, the timer, the webhooks process and the gateway are started (each
in its own process, as deployed) before their Redis exists: they stay up, say ``redis.waiting`` once, and are
not ready (no ready file; the gateway's ``/health`` answers 503). Then Redis starts: each says ``redis.ready``,
becomes ready, and a game of bots is played through and projected. Then Redis is killed (SIGKILL) and started
again on its append-only file, loading it slowly (``key-load-delay``: it answers ``LOADING`` for a while): every
process carries on by itself, is ready again, and a second game is played through and projected.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis

from services.bus.keys import Layout
from services.client import ServiceClient
from tests.projections.helpers import caught_up
from tests.service.conftest import REDIS_SERVER, ROOT, free_port
from tests.service.helpers import wait_for

pytestmark = pytest.mark.redis

FILLER_KEYS = 20_000
"""Keys written besides the games, so that loading the append-only file takes a while (with key-load-delay)."""
KEY_LOAD_DELAY_US = 200
"""Microseconds Redis sleeps per key while loading: FILLER_KEYS of them take seconds."""
WAIT_S = 180.0
"""A generous deadline for anything to happen (the machine is shared and busy)."""


@dataclass
class Proc:
    """One service process: its name, its process, its log file and its ready file (None: the gateway)."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    ready: Path | None

    def lines(self) -> str:
        """Its log so far."""
        return self.log.read_text(errors="replace")


class Fleet:
    """Every service process over one Redis URL and key layout, started before that Redis exists."""

    def __init__(self, tmp: Path, url: str, layout: Layout) -> None:
        self.tmp = tmp
        self.url = url
        self.layout = layout
        self.gateway_port = free_port()
        self.procs: list[Proc] = []

    def start(self) -> None:
        """Start them all (none of them can reach Redis yet)."""
        common = [
            "--redis-url", self.url, "--shard-count", str(self.layout.shards), "--prefix", self.layout.prefix,
            "--plugin", "tests.service.toy_game", "--log-level", "info",
        ]  # fmt: skip
        self._spawn("worker", ["services.worker", *common, "--lease-ttl-ms", "1000", "--claim-idle-ms", "300"])
        self._spawn("projections", ["projections", *common, "run", "--block-ms", "20", "--processes", "1"])
        self._spawn("bots", ["services.bots", *common])
        self._spawn("timer", ["services.timer", *common, "--poll-ms", "100"])
        self._spawn("webhooks", ["services.webhooks", *common])
        gateway = [
            "services.gateway", "--redis-url", self.url, "--shard-count", str(self.layout.shards), "--prefix",
            self.layout.prefix, "--plugin", "tests.service.toy_game", "--log-level", "info", "--port",
            str(self.gateway_port),
        ]  # fmt: skip
        self._spawn("gateway", gateway, ready_file=False)

    def _spawn(self, name: str, args: list[str], ready_file: bool = True) -> None:
        log = self.tmp / f"{name}.log"
        ready = self.tmp / f"{name}.ready" if ready_file else None
        cmd = [sys.executable, "-m", *args]
        if ready is not None:
            cmd[3:3] = ["--ready-file", str(ready)]  # (an option of the main parser: before any subcommand)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("REDIS_URL", None)
        env.pop("THRONE_READY_FILE", None)
        with log.open("wb") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
        self.procs.append(Proc(name, proc, log, ready))

    def health(self) -> int | None:
        """The gateway's /health status code (None: not listening yet)."""
        try:
            return httpx.get(f"http://127.0.0.1:{self.gateway_port}/health", timeout=5).status_code
        except httpx.HTTPError:
            return None

    def all_ready(self) -> bool:
        """Whether every process says it is ready (ready files, the gateway's /health)."""
        return all(p.ready.exists() for p in self.procs if p.ready is not None) and self.health() == 200

    def none_ready(self) -> bool:
        """Whether every process says it is not ready (no ready file; the gateway answers 503)."""
        return not any(p.ready.exists() for p in self.procs if p.ready is not None) and self.health() == 503

    def alive(self) -> list[str]:
        """The names of the processes still running."""
        return [p.name for p in self.procs if p.proc.poll() is None]

    def stop(self) -> None:
        """SIGTERM them all, then wait (SIGKILL what does not stop)."""
        for p in self.procs:
            if p.proc.poll() is None:
                p.proc.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.proc.wait(20)
            except subprocess.TimeoutExpired:
                p.proc.kill()
                p.proc.wait(10)


@contextlib.contextmanager
def _redis(tmp: Path, port: int, *options: str) -> Iterator[subprocess.Popen[bytes]]:
    """redis-server on ``port`` with its append-only file in ``tmp`` (fsync always: a SIGKILL loses nothing)."""
    cmd = [
        REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp), "--save", "",
        "--appendonly", "yes", "--appendfsync", "always", *options,
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _play_bot_game(client: ServiceClient, seed: int) -> str:
    """Create a toy21 game of two bots and wait until the bots played it to its end; its id."""
    game = client.create_game("toy21", ["a", "b"], seed=seed, bots={0: "random", 1: "random"}, timeout=WAIT_S)
    wait_for(lambda: (client.game_info(game.game_id) or {}).get("status") == "over", seconds=WAIT_S, every=0.1)
    return game.game_id


def _loading(r: redis.Redis) -> bool:
    try:
        r.ping()
    except redis.exceptions.BusyLoadingError:
        return True
    except redis.ConnectionError:
        return False
    return False


def test_every_process_waits_for_redis_and_carries_on_after_a_restart_with_a_slow_load(tmp_path: Path) -> None:
    if not (os.path.exists(REDIS_SERVER)):
        pytest.skip(f"no redis-server at {REDIS_SERVER}")
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    layout = Layout(prefix=f"w{uuid.uuid4().hex[:6]}", shards=4)
    fleet = Fleet(tmp_path, url, layout)
    data = tmp_path / "redis"
    data.mkdir()
    try:
        # Given every process started before its Redis exists
        fleet.start()

        # Then each stays up, says once that it waits, and is not ready
        wait_for(lambda: all('"redis.waiting"' in p.lines() for p in fleet.procs), seconds=WAIT_S, every=0.2)
        assert fleet.alive() == [p.name for p in fleet.procs]
        wait_for(fleet.none_ready, seconds=WAIT_S, every=0.2)
        time.sleep(1.0)  # (a while of refused connections: still one line each)
        for p in fleet.procs:
            assert p.lines().count('"redis.waiting"') == 1, (p.name, p.lines()[-2000:])

        with _redis(data, port) as first:
            # When Redis starts
            client = ServiceClient(redis.Redis.from_url(url), layout)
            wait_for(lambda: not _loading(client.r) and _pings(client.r), seconds=WAIT_S)

            # Then every process is ready by itself, says so once, and does its job: a game of bots is played
            # through and every read model catches up with it
            wait_for(fleet.all_ready, seconds=WAIT_S, every=0.2)
            for p in fleet.procs:
                assert p.lines().count('"redis.ready"') == 1, (p.name, p.lines()[-2000:])
            first_game = _play_bot_game(client, seed=3)
            wait_for(lambda: caught_up(client.r, layout, [first_game]), seconds=WAIT_S, every=0.1)
            summary = httpx.get(f"http://127.0.0.1:{fleet.gateway_port}/games/{first_game}", timeout=10)
            assert summary.status_code == 200 and summary.json()["status"] == "over"

            # When Redis holds many keys, all in its append-only file, and is killed (SIGKILL)
            filler = client.r.pipeline(transaction=False)
            for i in range(FILLER_KEYS):
                filler.set(f"filler:{i}", "x" * 16)
            filler.execute()
            client.r.bgrewriteaof()  # (the file's base is then an RDB image: key-load-delay applies per key)
            wait_for(lambda: _rewritten(client.r), seconds=WAIT_S, every=0.1)
            first.kill()
            first.wait(10)

        # Then every process stays up and is not ready while Redis is away
        wait_for(fleet.none_ready, seconds=WAIT_S, every=0.2)
        assert fleet.alive() == [p.name for p in fleet.procs]

        # When Redis starts again on its append-only file, answering LOADING while it loads it slowly
        options = ("--key-load-delay", str(KEY_LOAD_DELAY_US), "--loading-process-events-interval-bytes", "1024")
        with _redis(data, port, *options):
            probe = redis.Redis.from_url(url, socket_timeout=5)
            wait_for(lambda: _loading(probe) or _pings(probe), seconds=WAIT_S, every=0.02)
            wait_for(lambda: _pings(probe), seconds=WAIT_S, every=0.1)

            # Then every process carries on by itself: ready again, a second game is played through, and the read
            # models catch up with both games
            wait_for(fleet.all_ready, seconds=WAIT_S, every=0.2)
            assert fleet.alive() == [p.name for p in fleet.procs]
            client = ServiceClient(redis.Redis.from_url(url), layout)
            assert client.r.dbsize() > FILLER_KEYS  # (the data came back from the file)
            second_game = _play_bot_game(client, seed=4)
            wait_for(lambda: caught_up(client.r, layout, [first_game, second_game]), seconds=WAIT_S, every=0.1)
            # and each process said once that it waited, and once that it was ready again
            for p in fleet.procs:
                assert p.lines().count('"redis.waiting"') == 2, (p.name, p.lines()[-3000:])
                assert p.lines().count('"redis.ready"') == 2, (p.name, p.lines()[-3000:])
            # and the restart was met loading by some of them (the episode's kinds of fault)
            assert any("BusyLoadingError" in p.lines() for p in fleet.procs)
            # and nothing was dead-lettered
            assert sum(client.r.xlen(layout.dead(s)) for s in range(layout.shards)) == 0
    finally:
        fleet.stop()


def _pings(r: redis.Redis) -> bool:
    try:
        return bool(r.ping())
    except redis.RedisError:
        return False


def _rewritten(r: redis.Redis) -> bool:
    info = r.info("persistence")
    return not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]

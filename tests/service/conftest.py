"""Fixtures of the service suite: every test runs on a real redis-server and on fakeredis.

The real server is started by the suite itself on a free loopback port (no persistence) and stopped at the
end. On the fakeredis side, in-process tests use the embedded default (one shared FakeServer); tests that need
another process (the worker killed with SIGKILL) reach fakeredis over TCP through fakeredis' TcpFakeServer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import redis

import tests.service.toy_game  # noqa: F401 - registers toy21
from services.bus.keys import Layout
from services.client import ServiceClient
from services.log import configure
from services.worker.rules_worker import RulesWorker, WorkerConfig
from tests.waiting import patient

REDIS_SERVER = os.environ.get("THRONE_REDIS_SERVER", "/usr/bin/redis-server")
ROOT = Path(__file__).resolve().parents[2]

# Test timings: leases and claims in fractions of a second, so that recovery tests stay short.
FAST = WorkerConfig(
    block_ms=20,
    lease_ttl_ms=1000,
    claim_idle_ms=300,
    recover_every_ms=200,
    snapshot_every=5,
    maintenance_every_ms=3_600_000,
)


def free_port() -> int:
    """A TCP port free on the loopback interface right now (another process may take it before it is bound:
    whoever starts a server on it checks that the server came up, and tries again on another port if not)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bound_socket() -> socket.socket:
    """A listening-ready TCP socket bound to a free loopback port: a server handed this socket has its port with
    no race against other processes (other xdist workers, other checkouts running their suites)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def _wait_ping(make: Callable[[], redis.Redis], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + patient(seconds)
    while True:
        try:
            if make().ping():
                return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _own_server_answers(proc: subprocess.Popen[bytes], url: str) -> bool:
    """Wait until the redis-server ``proc`` answers on ``url``: True once it does, False if it exited first
    (its port was taken between picking and binding). Ours is told apart from a stranger on the same port by
    its process id."""
    deadline = time.monotonic() + patient(60)
    while proc.poll() is None:
        try:
            if int(redis.Redis.from_url(url).info("server")["process_id"]) == proc.pid:
                return True
        except redis.ConnectionError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"redis-server {proc.pid} did not answer on {url}")
        time.sleep(0.02)
    return False


@dataclass
class RedisServer:
    """A redis-server of a test's own (see :func:`redis_server`)."""

    url: str
    proc: subprocess.Popen[bytes]
    dir: Path

    def client(self, **kw: Any) -> redis.Redis:
        """A client of this server."""
        return redis.Redis.from_url(self.url, **kw)


@contextlib.contextmanager
def redis_server(tmp: Path, *options: str) -> Iterator[RedisServer]:
    """A redis-server on a free loopback port with its files in ``tmp`` and extra ``options`` (e.g.
    ``"--appendonly", "yes"``), stopped (and resumed first, if a test froze it) at the end. A port taken by
    another process before the server bound it is given up for another one."""
    if not (shutil.which(REDIS_SERVER) or os.path.exists(REDIS_SERVER)):
        pytest.skip(f"no redis-server at {REDIS_SERVER}")
    for _ in range(10):
        port = free_port()
        cmd = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp), "--save", "", *options]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server = RedisServer(f"redis://127.0.0.1:{port}/0", proc, tmp)
        try:
            if _own_server_answers(proc, server.url):
                break
        except BaseException:
            proc.kill()
            proc.wait(10)
            raise
    else:
        raise RuntimeError("no free port for a redis-server after 10 tries")
    try:
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="session", autouse=True)
def _quiet_logs() -> None:
    configure("warning")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of our own on a free loopback port, for the whole session."""
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.url


@pytest.fixture(scope="session")
def fake_tcp_url() -> Iterator[str]:
    """fakeredis served over TCP (for a worker in another process)."""
    from fakeredis import TcpFakeServer

    server = TcpFakeServer(("127.0.0.1", 0))  # port 0: the kernel picks a free one as it binds
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _wait_ping(lambda: redis.Redis.from_url(url))
        yield url
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Backend:
    """One Redis flavour under test: how to connect in this process, and a URL for another process."""

    kind: str
    make: Callable[[], redis.Redis]
    url_for_subprocess: Callable[[], str]
    layout: Layout = field(default_factory=lambda: Layout(prefix=f"t{uuid.uuid4().hex[:8]}", shards=4))
    workers: list[tuple[RulesWorker, threading.Event, threading.Thread]] = field(default_factory=list)

    def client(self) -> ServiceClient:
        """A service client on a connection of its own."""
        return ServiceClient(self.make(), self.layout)

    def worker(
        self, shards: list[int] | None = None, config: WorkerConfig = FAST, worker_id: str | None = None
    ) -> RulesWorker:
        """A rules worker (not running) over ``shards`` (default: all)."""
        shards = list(range(self.layout.shards)) if shards is None else shards
        return RulesWorker(self.make(), shards, layout=self.layout, config=config, worker_id=worker_id)

    def start(self, worker: RulesWorker) -> RulesWorker:
        """Run ``worker`` in a thread until the test ends."""
        stop = threading.Event()
        thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
        thread.start()
        self.workers.append((worker, stop, thread))
        return worker

    def stop_all(self) -> None:
        """Stop every worker thread started with :meth:`start`."""
        for _, stop, _ in self.workers:
            stop.set()
        for _, _, thread in self.workers:
            thread.join(10)
        self.workers.clear()


@pytest.fixture(params=["redis", "fakeredis"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The same test on a real redis-server and on fakeredis (the embedded default)."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        b = Backend("redis", lambda: redis.Redis.from_url(url), lambda: url)
    else:
        server = fakeredis.FakeServer()

        def tcp_url() -> str:
            # A separate process cannot share an in-process FakeServer: such tests switch the whole test
            # (client included) to fakeredis over TCP.
            return request.getfixturevalue("fake_tcp_url")

        b = Backend("fakeredis", lambda: fakeredis.FakeRedis(server=server), tcp_url)
    try:
        yield b
    finally:
        b.stop_all()
        with contextlib.suppress(redis.RedisError):
            b.make().flushall()


@dataclass
class WorkerProcess:
    """``python -m services.worker`` in a subprocess."""

    proc: subprocess.Popen[bytes]

    def kill9(self) -> None:
        """SIGKILL: no cleanup, no lease release, pending entries left behind."""
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM and wait."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def spawn_worker(url: str, layout: Layout, *extra: str, env: dict[str, str] | None = None) -> WorkerProcess:
    """Start a worker process over all shards of ``layout`` on ``url`` (toy21 registered)."""
    cmd = [
        sys.executable, "-m", "services.worker", "--redis-url", url, "--shards", "all",
        "--shard-count", str(layout.shards), "--prefix", layout.prefix, "--plugin", "tests.service.toy_game",
        "--lease-ttl-ms", "1000", "--claim-idle-ms", "300", "--recover-every-ms", "200",
        "--snapshot-every", "5", "--log-level", "warning", *extra,
    ]  # fmt: skip
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("REDIS_URL", None)
    return WorkerProcess(subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL))

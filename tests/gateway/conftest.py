"""Fixtures of the gateway suite: a real redis-server (started by the suite), a rules worker in a thread, and the
gateway served by uvicorn on a free loopback port in a thread, reached with real HTTP and WebSocket clients.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import redis
import uvicorn

from projections.models import ALL_MODELS
from projections.runner import ProjectionWorker, RunnerConfig
from services.bots.runner import BotConfig, BotRunner
from services.bus.keys import Layout
from services.gateway.app import create_app
from services.gateway.limits import Limits
from services.gateway.protocol import server_config
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST, ROOT, _quiet_logs, bound_socket, free_port, redis_url  # noqa: F401 - fixtures
from tests.waiting import patient, wait_until

# High enough that only the rate-limit tests meet the limit.
OPEN = Limits(
    rate=1e5, burst=10**5, address_rate=1e5, address_burst=10**5, command_timeout=10, read_bytes_rate=1e12,
    read_bytes_burst=10**12, address_bytes_rate=1e12, address_bytes_burst=10**12, read_slots=8,
)  # fmt: skip


@dataclass
class Served:
    """A gateway served on ``base_url`` in front of a rules worker, on one Redis key layout."""

    base_url: str
    ws_url: str
    layout: Layout
    redis: redis.Redis
    server: uvicorn.Server
    app: Any
    threads: list[threading.Thread] = field(default_factory=list)
    stops: list[Callable[[], None]] = field(default_factory=list)

    def http(self, token: str | None = None, **kw: Any) -> httpx.Client:
        """An HTTP client on the gateway (with the seat token as bearer when given)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=patient(60), **kw)

    def close(self) -> None:
        """Stop the server and the worker."""
        self.server.should_exit = True
        for stop in self.stops:
            stop()
        for thread in self.threads:
            thread.join(10)


def serve(
    url: str, limits: Limits = OPEN, worker: bool = True, projections: bool = False, bots: bool = False, **app_kw: Any
) -> Served:
    """Start (in threads) a rules worker, the projection workers and the bots runner if asked, and a
    uvicorn-served gateway, on a fresh key layout of ``url``."""
    layout = Layout(prefix=f"g{uuid.uuid4().hex[:8]}", shards=4)
    client = redis.Redis.from_url(url)
    app = create_app(client, layout, limits=limits, **app_kw)
    sock = bound_socket()  # bound here, handed to uvicorn: no other process can take the port meanwhile
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, limits, log_level="warning", access_log=False))
    served = Served(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", layout, client, server, app)
    if worker:
        rules = RulesWorker(redis.Redis.from_url(url), range(layout.shards), layout=layout, config=FAST)
        stop = threading.Event()
        t = threading.Thread(target=rules.run, args=(stop,), daemon=True, name="rules-worker")
        t.start()
        served.threads.append(t)
        served.stops.append(stop.set)
    if projections:
        for name, model in ALL_MODELS.items():
            proj = ProjectionWorker(redis.Redis.from_url(url), model(), layout=layout, config=RunnerConfig(block_ms=20))
            stop = threading.Event()
            t = threading.Thread(target=proj.run, args=(stop,), daemon=True, name=f"projection-{name}")
            t.start()
            served.threads.append(t)
            served.stops.append(stop.set)
    if bots:
        runner = BotRunner(
            redis.Redis.from_url(url), range(layout.shards), layout=layout, config=BotConfig(block_ms=20)
        )
        stop = threading.Event()
        t = threading.Thread(target=runner.run, args=(stop,), daemon=True, name="bots")
        t.start()
        served.threads.append(t)
        served.stops.append(stop.set)
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="gateway")
    t.start()
    served.threads.append(t)
    try:
        wait_until(lambda: server.started or not t.is_alive(), deadline=60, every=0.01, what="the gateway's start")
        if not server.started:
            raise RuntimeError("the gateway did not start")
    except BaseException:
        served.close()
        raise
    return served


@pytest.fixture(scope="module")
def gateway(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """One gateway + rules worker for the whole test module (games are independent of each other)."""
    served = serve(redis_url)
    try:
        yield served
    finally:
        served.close()


def new_game(
    served: Served,
    game: str = "shadow",
    players: tuple[str, ...] = ("Ann", "Bob", "Cid", "Dee"),
    seed: int | None = 7,
    player_ids: list[str | None] | None = None,
) -> dict[str, Any]:
    """Create a game through HTTP; returns the response body (``game_id``, ``seats`` with tokens, ...). A chosen
    ``seed`` makes a practice table (no leaderboard counts it); None: the referee draws it."""
    body: dict[str, Any] = {"game": game, "players": list(players)}
    if seed is not None:
        body["seed"] = seed
    if player_ids is not None:
        body["player_ids"] = player_ids
    with served.http() as http:
        r = http.post("/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def error_of(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The typed error of ``response``, checked: its status, JSON with only ``error``, the code, a message."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]  # type: ignore[no-any-return]


def game_version(served: Served, game_id: str) -> int:
    """The game's version (number of events), read through the gateway."""
    with served.http() as http:
        return int(http.get(f"/games/{game_id}").json()["version"])


def spawn_gateway(*args: str) -> tuple[subprocess.Popen[bytes], str]:
    """``python -m services.gateway`` as a process of its own (with the toy21 game); returns it and its
    ``host:port`` once it listens. It binds a port the kernel picks (``--port 0``) and says which on its first
    line of output: no other process can take the port between picking and binding."""
    cmd = [sys.executable, "-m", "services.gateway", "--port", "0", "--plugin", "tests.service.toy_game",
           "--log-level", "warning", *args]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE)
    lines: queue.Queue[bytes] = queue.Queue()

    def drain() -> None:  # read every line, so that the process never blocks on a full pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(b"")

    threading.Thread(target=drain, daemon=True, name="gateway-stdout").start()
    try:
        first = lines.get(timeout=patient(60))
    except queue.Empty:
        first = b""
    found = re.search(rb"listening on http://(\S+?)[\s/]", first)
    if not found:
        proc.kill()
        proc.wait(10)
        raise RuntimeError(f"the gateway process did not start: {first!r}")
    base = found.group(1).decode()
    wait_until(lambda: _healthy(base), deadline=60, every=0.05, what="the gateway's /health")
    return proc, base


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"http://{base}/health", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def walk(http: httpx.Client, path: str, key: str = "events", **params: Any) -> list[dict[str, Any]]:
    """Every entry (``key``: ``events`` or ``entries``) of a paged read route, page after page from ``after=0``
    following ``next`` until it is null."""
    got: list[dict[str, Any]] = []
    after: int | None = int(params.pop("after", 0))
    while after is not None:
        r = http.get(path, params={**params, "after": after})
        assert r.status_code == 200, r.text
        body = r.json()
        got.extend(body[key])
        assert body["next"] is None or body["next"] > after, body["next"]
        after = body["next"]
    return got

"""The webhooks' section of ``make bench`` (listed in services/bench/runner.py).

On a real local Redis (REDIS_URL, else a redis-server of its own on a free loopback port), with a rules worker,
the bots and the webhooks process each in a process of its own (``python -m ...``), and a local receiver in this
process (Python's threading HTTP server) that checks every signature:

* ``webhook_latency_p50_ms`` (and ``_p99``): from a commit to its notice accepted by the receiver, over a game of
  the measured game played by random bots with a webhook on every seat;
* ``webhook_deliveries_per_s``: notices queued at once in the outbox, delivered and settled per second (the
  receiver and the deliverer share this machine's cores), and ``webhook_cpu_ms_per_notice``: the CPU time the
  webhooks process spent per notice meanwhile (a figure that does not depend on how busy the machine is);
* ``webhook_honest_quiet_p50_ms``, ``webhook_honest_64_slow_p50_ms`` (and ``_max_ms``): an honest seat's notice
  from the outbox to its receiver, alone and while 64 receivers on 64 hosts trickle their answers a byte at a
  time (services/bench/trickle.py).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import redis

from services.bench import perf
from services.bench.context import Context
from services.bench.trickle import honest_latencies
from services.bus.keys import Layout
from services.client import ServiceClient
from services.log import configure
from services.webhooks.hooks import HookStore
from services.webhooks.outbox import Outbox, encode
from services.webhooks.signing import verify

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def _receiver(secret: list[str]) -> Iterator[tuple[str, list[tuple[float, dict[str, Any]]]]]:
    got: list[tuple[float, dict[str, Any]]] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            ok = verify(secret[0], body, self.headers["X-Throne-Timestamp"], self.headers["X-Throne-Signature"])
            if ok:
                with lock:
                    got.append((time.time() * 1000, orjson.loads(body)))
            self.send_response(200 if ok else 401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", got
    finally:
        server.shutdown()
        server.server_close()


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _following(r: redis.Redis, layout: Layout) -> bool:
    """Whether the webhooks process follows every shard's feed and outbox (its groups exist)."""
    for shard in range(layout.shards):
        for key, group in ((layout.feed(shard), b"webhooks"), (layout.webhooks(shard), b"deliver")):
            try:
                if group not in {g["name"] for g in r.xinfo_groups(key)}:
                    return False
            except redis.ResponseError:
                return False
    return True


def _wait(predicate: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the webhooks bench did not finish in time")
        time.sleep(0.005)


def measure(url: str, game: str, notices: int = 2000, whole_game: bool = True) -> dict[str, Any]:
    """The figures of the module docstring, on the Redis at ``url`` (``whole_game`` False: the latency of the
    first 10 notices only, for a quick run)."""
    layout = Layout(prefix=f"whb{uuid.uuid4().hex[:6]}", shards=4)
    common = ["--redis-url", url, "--prefix", layout.prefix, "--shard-count", str(layout.shards)]
    common += ["--log-level", "error"]
    procs = [
        subprocess.Popen([sys.executable, "-m", module, *common, *extra], cwd=ROOT, stdout=subprocess.DEVNULL)
        for module, extra in (
            ("services.worker", []),
            ("services.bots", []),
            ("services.webhooks", ["--allow-private", "--consumer", "bench", "--per-host", "64"]),
        )
    ]
    r = redis.Redis.from_url(url)
    secret = [""]
    try:
        with _receiver(secret) as (hook_url, got):
            service = ServiceClient(redis.Redis.from_url(url), layout)
            hooks = HookStore(r, layout)
            _wait(lambda: _following(r, layout), 60)  # the processes have started and follow the streams
            # Latency: a game of two random bots, seat 0 hooked (from the commit after its registration on)
            bot_game = service.create_game(game, ["A", "B"], seed=2, bots={0: "random", 1: "random"})
            gid = bot_game.game_id
            secret[0] = hooks.register(gid, 0, hook_url, ("turn", "game_over"), max_per_seat=1).key
            if whole_game:
                _wait(lambda: (service.game_info(gid) or {}).get("status") == "over", 120)
                _wait(lambda: any(n["kind"] == "game_over" for _, n in got), 30)
            else:
                _wait(lambda: len(got) >= 10, 60)
            lags = [at - n["committed_ms"] for at, n in got if n["game_id"] == gid]
            # Throughput: notices queued at once for one hook, delivered and settled
            got.clear()
            items = [
                ("0:" + hooks.of_seat(gid, 0)[0].id, encode({"id": f"bench:{i}", "game_id": gid, "n": i}))
                for i in range(notices)
            ]
            outbox = Outbox(r, layout)
            hooked = int(r.get(layout.hooked(layout.shard_of(gid), gid)) or 0)
            started, cpu = time.monotonic(), _cpu_s(procs[-1].pid)
            outbox.enqueue(gid, hooked, hooked, items)
            _wait(lambda: len(got) >= notices and r.xlen(layout.webhooks(layout.shard_of(gid))) == 0, 300)
            rate = notices / (time.monotonic() - started)
            cpu_ms = (_cpu_s(procs[-1].pid) - cpu) * 1000 / notices
            honest = honest_latencies(
                service, hooks, outbox, game, (hook_url, secret, got), samples=20 if whole_game else 5
            )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        for key in r.scan_iter(match=layout.everything(), count=1000):
            r.unlink(key)
    lags.sort()
    return {
        "webhook_latency_p50_ms": round(statistics.median(lags), 1),
        "webhook_latency_p99_ms": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 1),
        "webhook_deliveries_per_s": round(rate),
        "webhook_cpu_ms_per_notice": round(cpu_ms, 2),
        **honest,
    }


def section_webhooks(ctx: Context) -> dict[str, Any]:
    """The bench section (see the module docstring)."""
    configure("error")
    with perf.local_redis(os.environ.get("REDIS_URL")) as url:
        quick = ctx.games <= 3
        figures = measure(url, ctx.game.name, notices=200 if quick else 2000, whole_game=not quick)
    ctx.say(
        f"webhooks: commit to receiver p50 {figures['webhook_latency_p50_ms']} ms, "
        f"p99 {figures['webhook_latency_p99_ms']} ms; {figures['webhook_deliveries_per_s']} deliveries/s, "
        f"{figures['webhook_cpu_ms_per_notice']} ms of CPU each; an honest notice p50 "
        f"{figures['webhook_honest_quiet_p50_ms']} ms, {figures['webhook_honest_64_slow_p50_ms']} ms "
        f"(max {figures['webhook_honest_64_slow_max_ms']} ms) while 64 receivers trickle their answers"
    )
    return figures


SECTIONS = [section_webhooks]

"""The peer run of ``make bench``: throne against boardgame.io 0.50.2 on the same machine, in the same run.

boardgame.io (node, its socket.io transport, its in-memory store: nothing is durable) serves a tiny two-player
game whose one move adds one to a counter and ends the turn (services/bench/peer_bgio/server.js). throne runs as
deployed, each part its own process: a redis-server of its own with ``deploy/redis.conf`` (append-only file on,
fsync every second: every move is in the AOF before its answer), one rules worker and one gateway; its game is
High Card for two (the smallest game throne ships; six moves a game, each a card played, its events redacted
per seat). boardgame.io is installed from npm into a cache folder (``THRONE_BGIO_CACHE``, default
``~/.cache/throne/bgio``) on first use; without node and npm the section says so and is skipped.

Both sides are driven by this process with the same pattern: one keep-alive connection per game in flight, each
game's moves one after the other, every move's answer awaited; raw and pre-formatted on both (HTTP/1.1 for the
gateway, services/bench/gateway.py ``_Lane``; socket.io over a WebSocket for boardgame.io, whose moves go over
socket.io only, services/bench/peer_socketio.py). Credentials are checked on both: boardgame.io's from its lobby's
join, throne's seat tokens.

Figures (``peer_`` prefix): each side's moves/s with 16 games in flight and its p50 there, its p50 and p99 one
move at a time, server CPU per move by process during the 16-in-flight run (utime + stime from /proc), and
``peer_moves_ratio`` (throne's moves/s over boardgame.io's; goal >= 1) and ``peer_p50_ratio`` (throne's p50 one
at a time over boardgame.io's; goal <= 1.5).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import redis

from services.bench import gateway as gw_bench
from services.bench import perf
from services.bench.peer_socketio import SocketLane
from services.bench.scripts import record_games
from services.bus.keys import Layout
from services.log import configure

BGIO_PACKAGE = "boardgame.io@0.50.2"
SERVER_JS = Path(__file__).with_name("peer_bgio") / "server.js"
REDIS_CONF = gw_bench.ROOT / "deploy" / "redis.conf"
THRONE_GAME = "highcard"
_TICK = os.sysconf("SC_CLK_TCK")


def bgio_modules(say: Any) -> Path | None:
    """The ``node_modules`` folder holding boardgame.io 0.50.2 (installed there by npm when missing); None, said
    through ``say``, when node or npm is missing or the install fails."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        say("peer: skipped (no node and npm on this machine: boardgame.io can not run)")
        return None
    cache = Path(os.environ.get("THRONE_BGIO_CACHE") or Path.home() / ".cache" / "throne" / "bgio")
    modules = cache / "node_modules"
    installed = modules / "boardgame.io" / "package.json"
    if not installed.exists() or '"version": "0.50.2"' not in installed.read_text():
        cache.mkdir(parents=True, exist_ok=True)
        say(f"peer: installing {BGIO_PACKAGE} into {cache} (once)")
        done = subprocess.run(
            ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", BGIO_PACKAGE],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if done.returncode != 0:
            say(f"peer: skipped (npm could not install {BGIO_PACKAGE}: {done.stderr.strip()[-300:]})")
            return None
    return modules


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime: fields 14 and 15 of the whole line


def _wait_http(url: str, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextlib.contextmanager
def running_bgio(modules: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The boardgame.io server of services/bench/peer_bgio/server.js on a free loopback port, for the block."""
    port = gw_bench._free_port()
    env = {**os.environ, "NODE_PATH": str(modules), "NODE_ENV": "production"}
    proc = subprocess.Popen(["node", str(SERVER_JS), str(port)], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(base + "/games", proc, "the boardgame.io server")
        yield base, proc
    finally:
        _stop(proc)


@contextlib.contextmanager
def durable_redis() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server as deployed (``deploy/redis.conf``: AOF on, fsync every second) on a free loopback port,
    its files in a temporary folder, for the block."""
    port = gw_bench._free_port()
    with tempfile.TemporaryDirectory(prefix="throne-peer-redis-") as data:
        os.mkdir(Path(data) / "data")  # (the file's ``dir ./data`` is taken from the working folder)
        cmd = [perf.REDIS_SERVER if os.path.exists(perf.REDIS_SERVER) else "redis-server", str(REDIS_CONF),
               "--port", str(port), "--bind", "127.0.0.1"]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=data, stdout=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    if redis.Redis.from_url(url).ping():
                        break
                except redis.ConnectionError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise
                    time.sleep(0.02)
            yield url, proc
        finally:
            _stop(proc)


# --- boardgame.io's side ------------------------------------------------------------------------------------
def _bgio_matches(base: str, count: int) -> list[tuple[str, list[str]]]:
    """``count`` matches of the tiny game, both seats joined: (match id, each seat's credentials)."""
    matches = []
    with httpx.Client(base_url=base, timeout=10) as http:
        for _ in range(count):
            match = http.post("/games/tiny/create", json={"numPlayers": 2}).json()["matchID"]
            creds = [
                http.post(f"/games/tiny/{match}/join", json={"playerID": str(p), "playerName": f"P{p}"}).json()[
                    "playerCredentials"
                ]
                for p in range(2)
            ]  # fmt: skip
            matches.append((match, creds))
    return matches


async def _bgio_lane(base: str, match: str, creds: list[str]) -> SocketLane:
    """A WebSocket synced to ``match`` as its seat 0 (the server pushes a match's updates to synced sockets)."""
    lane = await SocketLane.open(base, "tiny")
    await lane.emit("sync", match, "0", creds[0], 2)
    while (await lane.event())[0] != "sync":
        pass
    return lane


async def _bgio_game(lane: SocketLane, match: str, creds: list[str], moves: int, samples: list[float]) -> None:
    """Play ``moves`` moves of one match on ``lane``, the seats in turn, each answer awaited."""
    for state_id in range(moves):
        player = str(state_id % 2)
        action = {"type": "MAKE_MOVE", "payload": {"type": "play", "args": [], "playerID": player,
                                                   "credentials": creds[state_id % 2]}}  # fmt: skip
        t0 = time.perf_counter()
        await lane.emit("update", action, state_id, match, player)
        while True:
            got = await lane.event()
            if got[0] == "update" and got[1] == match:
                break
        samples.append((time.perf_counter() - t0) * 1000)
        if got[2]["_stateID"] != state_id + 1:
            raise RuntimeError(f"boardgame.io did not take move {state_id}: {got[2]!r:.300}")


def _bgio_run(base: str, matches: Sequence[tuple[str, list[str]]], moves: int) -> tuple[float, list[float]]:
    """Play ``moves`` moves of each match, all at once (a lane each, connected and synced before the clock
    starts, as throne's games are created before theirs); (elapsed seconds, latency samples in ms)."""
    samples: list[float] = []

    async def main() -> float:
        lanes = await asyncio.gather(*(_bgio_lane(base, match, creds) for match, creds in matches))
        try:
            t0 = time.perf_counter()
            await asyncio.gather(
                *(
                    _bgio_game(lane, match, creds, moves, samples)
                    for lane, (match, creds) in zip(lanes, matches, strict=True)
                )
            )
            return time.perf_counter() - t0
        finally:
            for lane in lanes:
                lane.close()

    return asyncio.run(main()), samples


# --- both sides -----------------------------------------------------------------------------------------------
def _side(prefix: str, solo: list[float], loaded: list[float], elapsed: float, cpu: dict[str, float]) -> dict[str, Any]:
    solo, loaded = sorted(solo), sorted(loaded)
    moves = len(loaded)
    figures: dict[str, Any] = {
        f"{prefix}_moves_per_s": round(moves / elapsed, 1),
        f"{prefix}_moves": moves,
        f"{prefix}_loaded_p50_ms": round(statistics.median(loaded), 3),
        f"{prefix}_p50_ms": round(statistics.median(solo), 3),
        f"{prefix}_p99_ms": round(perf._percentile(solo, 0.99), 3),
    }
    for name, seconds in cpu.items():
        figures[f"{prefix}_cpu_ms_per_move_{name}"] = round(seconds * 1000 / moves, 3)
    figures[f"{prefix}_cpu_ms_per_move"] = round(sum(v for k, v in cpu.items() if k != "client") * 1000 / moves, 3)
    return figures


def _cpu(procs: dict[str, int]) -> dict[str, float]:
    seen = {name: cpu_seconds(pid) for name, pid in procs.items()}
    seen["client"] = time.process_time()
    return seen


def _spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after[name] - before[name] for name in before}


def _add(total: dict[str, float], spent: dict[str, float]) -> None:
    for name, seconds in spent.items():
        total[name] = total.get(name, 0.0) + seconds


def measure_peer(
    modules: Path, concurrency: int = 16, moves: int = 3200, solo_moves: int = 900, rounds: int = 3
) -> dict[str, Any]:
    """Both sides on the same machine, in ``rounds`` alternating blocks (the machine's other load drifts alike
    for both): one move at a time, then ``concurrency`` games in flight (``moves`` moves in all, about, per
    side); the figures are the blocks' together."""
    per_match = max(20, moves // (concurrency * rounds))
    solo_block = max(10, solo_moves // rounds)
    scripts = record_games(THRONE_GAME, (moves + solo_moves) // 6 + 20 + 10 * rounds, seed=4242, players=2)
    layout = Layout(prefix=f"peer{uuid.uuid4().hex[:6]}", shards=16)
    bgio_solo: list[float] = []
    bgio_loaded: list[float] = []
    throne_solo: list[float] = []
    throne_loaded: list[float] = []
    bgio_cpu: dict[str, float] = {}
    throne_cpu: dict[str, float] = {}
    bgio_elapsed = throne_elapsed = 0.0
    with contextlib.ExitStack() as stack:
        bgio_base, node = stack.enter_context(running_bgio(modules))
        url, redis_proc = stack.enter_context(durable_redis())
        r = redis.Redis.from_url(url)
        worker = stack.enter_context(perf.leased_worker(url, layout, r))
        base, gateway = stack.enter_context(gw_bench.gateway_process(url, layout))
        # Everything set up first, untimed: boardgame.io's matches (both seats joined), throne's games.
        matches = _bgio_matches(bgio_base, 1 + rounds * (1 + concurrency))
        games = gw_bench._create(url, layout, scripts, "p")
        solo_games = solo_block * rounds // 6 + 10 + 10 * rounds  # (games of six moves, a warm-up's ten)
        solo_cmds = [c for g in games[:solo_games] for c in g]
        loaded_games = games[solo_games:]
        # Warm-ups: each side's code paths run before anything is timed.
        _bgio_run(bgio_base, [matches.pop()], 60)
        gw_bench._run(base, [solo_cmds[:60]], 1)
        throne_procs = {"gateway": gateway.pid, "worker": worker.pid, "redis": redis_proc.pid}
        for i in range(rounds):
            _, solo = _bgio_run(bgio_base, [matches.pop()], solo_block)
            bgio_solo += solo
            _, solo = gw_bench._run(base, [solo_cmds[60 + i * solo_block : 60 + (i + 1) * solo_block]], 1)
            throne_solo += solo
            before = _cpu({"node": node.pid})
            elapsed, loaded = _bgio_run(bgio_base, [matches.pop() for _ in range(concurrency)], per_match)
            _add(bgio_cpu, _spent(before, _cpu({"node": node.pid})))
            bgio_elapsed += elapsed
            bgio_loaded += loaded
            before = _cpu(throne_procs)
            elapsed, loaded = gw_bench._run(base, loaded_games[i::rounds], concurrency)
            _add(throne_cpu, _spent(before, _cpu(throne_procs)))
            throne_elapsed += elapsed
            throne_loaded += loaded
    figures = {
        **_side("peer_bgio", bgio_solo, bgio_loaded, bgio_elapsed, bgio_cpu),
        **_side("peer_throne", throne_solo, throne_loaded, throne_elapsed, throne_cpu),
        "peer_concurrency": concurrency,
    }
    figures["peer_moves_ratio"] = round(figures["peer_throne_moves_per_s"] / figures["peer_bgio_moves_per_s"], 3)
    figures["peer_p50_ratio"] = round(figures["peer_throne_p50_ms"] / figures["peer_bgio_p50_ms"], 3)
    return figures


def bench(ctx: Any) -> dict[str, Any]:
    """The peer run; ``ctx`` is services.bench.Context (``games`` sizes the samples, ``say`` prints)."""
    configure("warning")
    modules = bgio_modules(ctx.say)
    if modules is None:
        return {}
    quick = ctx.games < 20
    f = measure_peer(modules, concurrency=16, moves=480 if quick else 3200, solo_moves=60 if quick else 900)
    for side, name in (("bgio", "boardgame.io 0.50.2 (node, in memory)"), ("throne", "throne (AOF on)")):
        p = f"peer_{side}"
        cpu = ", ".join(f"{k.removeprefix(p + '_cpu_ms_per_move_')} {v}" for k, v in f.items() if "_per_move_" in k
                        and k.startswith(p))  # fmt: skip
        ctx.say(
            f"peer {name}: {f[p + '_moves_per_s']:,.0f} moves/s with {f['peer_concurrency']} in flight (p50 "
            f"{f[p + '_loaded_p50_ms']} ms); one at a time p50 {f[p + '_p50_ms']} ms, p99 {f[p + '_p99_ms']} ms; "
            f"CPU ms per move: {cpu}"
        )
    ctx.say(f"peer ratios (throne over boardgame.io): moves/s {f['peer_moves_ratio']}x, p50 {f['peer_p50_ratio']}x")
    return f


SECTIONS = [bench]

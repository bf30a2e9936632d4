"""The projections' section of ``make bench`` (listed in services/bench/runner.py).

On real local Redis (REDIS_URL, else a redis-server of its own on a free loopback port):

* ``projection_lag_p99_ms`` (and ``_p50``): from an event's commit to its write in a read model, for every
  event and every model (scoreboard, replay, audit, feed), while the service benchmark's load runs: the rules
  worker in its own process, paced clients at 500 commands/s (``services.bench.perf.measure_latency``), and
  ``python -m projections run`` (all four models) following the feeds. Target <= 100 ms.
* ``replay_seek_ms`` (mean, and ``replay_seek_p99_ms``): ``ReadModels.replay`` of a finished game at a random
  version, seat view, event text and board text included. Target <= 20 ms.
* ``verify_games_per_s`` (and ``verify_events_per_s``): ``throne verify --all`` over stored finished games in one
  process (projections/verify_all.py): each game read in pipelined batches and re-run against today's rules.
* ``replay_game_ms`` / ``audit_game_ms`` (median): ``throne replay`` and ``throne audit`` of a finished 4-player
  game of some 750 events with refused commands (sent out of turn and stale), every read model projected, each
  run as a process of its own (Python's start and the imports included, some 0.5 s: what its user waits for);
  every step of the replay (as a spectator) and the whole audit printed. Target < 1000. Their reads alone, in
  this process on fresh read models: ``_read_ms`` and ``_round_trips``; the first, uncached, answer of
  ``GET /games/{id}/replay/steps`` and ``GET /games/{id}/audit?limit=1000`` from a ``python -m services.gateway``
  without rate limits: ``_http_ms`` (the default byte budget serves an anonymous reader one whole audit, some
  1.4 MB, then makes it wait a few seconds); and ``replay_game_stepwise_ms`` (and its round trips): the
  one-step replay at every version, as ``throne replay`` read the game before, for comparison.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis

from projections.api import ReadModels
from projections.models import ALL_MODELS, ReplayModel
from projections.runner import ProjectionWorker
from projections.store import MODELS, RMKeys, group_of
from projections.verify_all import verify_all
from services.bench import perf
from services.bench.scripts import GameScript, record_games
from services.bus.keys import Layout, scratch
from services.client import ServiceClient
from services.log import configure
from services.worker.rules_worker import RulesWorker

ROOT = Path(__file__).resolve().parents[2]


def _drop(r: redis.Redis, pattern: str) -> None:
    for key in r.scan_iter(match=pattern, count=1000):
        r.unlink(key)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _groups_ready(r: redis.Redis, layout: Layout) -> bool:
    for shard in range(layout.shards):
        try:
            names = {g["name"] for g in r.xinfo_groups(layout.feed(shard))}
        except redis.ResponseError:
            return False
        if not all(group_of(m).encode() in names for m in MODELS):
            return False
    return True


def _caught_up(r: redis.Redis, layout: Layout, games: list[str]) -> bool:
    keys = RMKeys(layout)
    pipe = r.pipeline(transaction=False)
    for gid in games:
        shard = layout.shard_of(gid)
        pipe.hget(layout.meta(shard, gid), "version")
        for model in MODELS:
            pipe.hget(keys.applied(shard, model), gid)
    got = pipe.execute()
    step = 1 + len(MODELS)
    return all(len(set(got[i : i + step])) == 1 for i in range(0, len(got), step))


def measure_lag(url: str, scripts: list[GameScript], seconds: float, rate: float = 500.0) -> dict[str, Any]:
    """Projection lag under the service benchmark's load (see the module docstring)."""
    r = redis.Redis.from_url(url)
    layout = Layout(prefix=f"plag{uuid.uuid4().hex[:6]}", shards=16)
    stats_key = scratch("plag", layout.prefix)
    cmd = [
        sys.executable, "-m", "projections", "--redis-url", url, "--prefix", layout.prefix,
        "--shard-count", str(layout.shards), "--log-level", "warning", "run", "--stats-key", stats_key,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while not _groups_ready(r, layout):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the projection process did not start")
            time.sleep(0.05)
        time.sleep(1.0)  # the children finish warming up: the figure is the steady state, not the start
        figures = perf.measure_latency(url, scripts, rate=rate, seconds=seconds, layout=layout, keep=True)
        games = [f"g{i}" for i in range(len(scripts))]
        deadline = time.monotonic() + 60
        while not _caught_up(r, layout, games):
            if time.monotonic() > deadline:
                raise RuntimeError("the projections did not catch up within 60 s")
            time.sleep(0.05)
    finally:
        proc.terminate()  # SIGTERM: the process flushes its last lag samples, then exits
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    samples = [float(x) for x in r.lrange(stats_key, 0, -1)]
    r.delete(stats_key)
    _drop(r, layout.everything())
    if not samples:
        raise RuntimeError("no lag samples")
    return {
        "projection_lag_p50_ms": round(statistics.median(samples), 3),
        "projection_lag_p99_ms": round(_percentile(samples, 0.99), 3),
        "projection_lag_samples": len(samples),
        "projection_load_commands_per_s": figures["latency_rate_achieved"],
    }


def measure_replay_seek(url: str, scripts: list[GameScript], samples: int = 1000) -> dict[str, Any]:
    """Seeks into finished games at random versions, with the replay model projected (see the docstring)."""
    r = redis.Redis.from_url(url)
    layout = Layout(prefix=f"pseek{uuid.uuid4().hex[:6]}", shards=16)
    try:
        client = ServiceClient(redis.Redis.from_url(url), layout)
        worker = RulesWorker(redis.Redis.from_url(url), range(layout.shards), layout=layout)
        games = []
        for i, script in enumerate(scripts):
            create, commands = script.envelopes(f"s{i}")
            client.submit_many([create, *commands])
            games.append(create.game_id)
        worker.run_until_idle()
        worker.release()
        ProjectionWorker(redis.Redis.from_url(url), ReplayModel(), layout=layout).run_until_idle()
        models = ReadModels(redis.Redis.from_url(url), layout)
        last = {g: int(r.hget(layout.meta(layout.shard_of(g), g), "version") or 0) for g in games}
        if not all(r.hget(layout.meta(layout.shard_of(g), g), "status") == b"over" for g in games):
            raise RuntimeError("a benchmark game did not finish")
        rng = random.Random(7)
        for g in games:  # warm-up: imports, the final states of the ended games
            models.replay(g, last[g], seat=0)
        times = []
        for _ in range(samples):
            g = rng.choice(games)
            version, seat = rng.randint(0, last[g]), rng.choice([None, 0, 1, 2, 3])
            t0 = time.perf_counter()
            models.replay(g, version, seat=seat)
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        _drop(r, layout.everything())
    return {
        "replay_seek_ms": round(statistics.fmean(times), 3),
        "replay_seek_p99_ms": round(_percentile(times, 0.99), 3),
        "replay_seek_samples": len(times),
    }


def measure_verify(url: str, scripts: list[GameScript], copies: int = 1) -> dict[str, Any]:
    """``throne verify --all`` in one process: finished games stored through a rules worker, then every one
    re-run against today's rules (streamed by SCAN, pipelined reads); games and events per second."""
    r = redis.Redis.from_url(url)
    layout = Layout(prefix=f"pver{uuid.uuid4().hex[:6]}", shards=16)
    try:
        client = ServiceClient(redis.Redis.from_url(url), layout)
        worker = RulesWorker(redis.Redis.from_url(url), range(layout.shards), layout=layout)
        for copy in range(copies):
            for i, script in enumerate(scripts):
                create, commands = script.envelopes(f"v{copy}-{i}")
                client.submit_many([create, *commands])
            worker.run_until_idle()
        worker.release()
        t0 = time.perf_counter()
        verdicts = list(verify_all(r, layout))
        elapsed = time.perf_counter() - t0
        events = sum(int(r.hget(layout.meta(layout.shard_of(v["game_id"]), v["game_id"]), "version") or 0)
                     for v in verdicts)  # fmt: skip
        if len(verdicts) != copies * len(scripts) or any(v["status"] != "ok" for v in verdicts):
            raise RuntimeError(f"verify --all did not find every game ok: {len(verdicts)} verdicts")
    finally:
        _drop(r, layout.everything())
    return {
        "verify_games_per_s": round(len(verdicts) / elapsed, 1),
        "verify_events_per_s": round(events / elapsed),
        "verify_games": len(verdicts),
    }


class _Counted(redis.Connection):
    """A connection that counts its round trips (each command, or each whole pipeline, written is one)."""

    sent = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        """Count, then send."""
        _Counted.sent += 1
        super().send_packed_command(command, check_health)


def _timed(fn: Callable[[], Any], runs: int) -> tuple[float, int]:
    """The median wall ms of ``runs`` calls of ``fn``, and the round trips of one call (counted connections)."""
    times, trips = [], 0
    for _ in range(runs):
        before = _Counted.sent
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        trips = _Counted.sent - before
    return statistics.median(times), trips


def measure_whole_game(url: str, scripts: list[GameScript], runs: int = 5) -> dict[str, Any]:
    """The whole replay and the whole audit of finished 4-player games with refused commands (see the module
    docstring): ``throne replay`` / ``throne audit`` as processes of their own, their read in this process (its
    round trips counted), and through HTTP."""
    from services.bench.gateway import running_gateway

    r = redis.Redis.from_url(url)
    layout = Layout(prefix=f"pwhole{uuid.uuid4().hex[:6]}", shards=16)
    games = [f"w{i}" for i in range(len(scripts))]
    figures: dict[str, Any] = {}
    try:
        client = ServiceClient(redis.Redis.from_url(url), layout)
        for gid, script in zip(games, scripts, strict=True):
            client.submit_many(script.with_refusals(gid))
        worker = RulesWorker(redis.Redis.from_url(url), range(layout.shards), layout=layout)
        worker.run_until_idle()
        worker.release()
        for model in ALL_MODELS.values():
            ProjectionWorker(redis.Redis.from_url(url), model(), layout=layout).run_until_idle()
        if not all(r.hget(layout.meta(layout.shard_of(g), g), "status") == b"over" for g in games):
            raise RuntimeError("a benchmark game did not finish")
        versions = {g: int(r.hget(layout.meta(layout.shard_of(g), g), "version") or 0) for g in games}
        gid = max(games, key=versions.__getitem__)  # the longest of the games
        figures["replay_game_events"] = versions[gid]
        # The CLI as its user runs it: a process of its own (start and imports included), printing every step.
        env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": url, "THRONE_PREFIX": layout.prefix,
               "THRONE_SHARDS": str(layout.shards)}  # fmt: skip
        for name in ("replay", "audit"):
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "services.cli", name, gid], cwd=ROOT, env=env, check=True,
                               stdout=subprocess.DEVNULL)  # fmt: skip
                times.append((time.perf_counter() - t0) * 1000)
            figures[f"{name}_game_ms"] = round(statistics.median(times), 1)
        # The same reads in this process, on fresh read models (what one `throne` run has: no cached game).
        counted = redis.Redis(connection_pool=redis.ConnectionPool.from_url(url, connection_class=_Counted))
        counted.ping()
        ReadModels(counted, layout).replay_all(gid)  # warm-up: the game's presenter, lazy imports
        for name, read in (("replay", lambda m: m.replay_all(gid)), ("audit", lambda m: m.audit(gid))):
            ms, trips = _timed(lambda read=read: read(ReadModels(counted, layout)), runs)
            figures[f"{name}_game_read_ms"], figures[f"{name}_game_round_trips"] = round(ms, 1), trips
        models = ReadModels(counted, layout)
        ms, trips = _timed(lambda: [models.replay(gid, v) for v in range(1, versions[gid] + 1)], 1)
        figures["replay_game_stepwise_ms"], figures["replay_game_stepwise_round_trips"] = round(ms, 1), trips
        with running_gateway(url, layout) as base, httpx.Client(base_url=base, timeout=60) as http:
            for name, path in (("replay", "/replay/steps"), ("audit", "/audit?limit=1000")):
                times = []
                for g in games:  # each game's first answer: built, not taken from the page cache
                    t0 = time.perf_counter()
                    http.get(f"/games/{g}{path}").raise_for_status()
                    times.append((time.perf_counter() - t0) * 1000)
                figures[f"{name}_game_http_ms"] = round(statistics.median(times), 1)
    finally:
        _drop(r, layout.everything())
    return figures


def bench(ctx: Any) -> dict[str, Any]:
    """Measure the projections; ``ctx`` is services.bench.Context (``games`` sizes the run, ``say`` prints)."""
    configure("warning")
    quick = ctx.games < 20
    scripts = record_games(ctx.game.name, 6 if quick else 40, seed=ctx.seed)
    figures: dict[str, Any] = {}
    with perf.local_redis(os.environ.get("REDIS_URL")) as url:
        figures.update(measure_lag(url, scripts, seconds=1 if quick else 5))
        ctx.say(
            f"projections: lag from commit to read model at {figures['projection_load_commands_per_s']:.0f} "
            f"commands/s: p50 {figures['projection_lag_p50_ms']} ms, p99 {figures['projection_lag_p99_ms']} ms "
            f"({figures['projection_lag_samples']} event writes, 4 models)"
        )
        figures.update(measure_replay_seek(url, scripts[: 4 if quick else 10], samples=200 if quick else 1000))
        ctx.say(
            f"replay: seek into a finished game at a random version: mean {figures['replay_seek_ms']} ms, "
            f"p99 {figures['replay_seek_p99_ms']} ms"
        )
        whole = record_games(ctx.game.name, 3, seed=ctx.seed + 1000, players=4)
        figures.update(measure_whole_game(url, whole, runs=3 if quick else 5))
        ctx.say(
            f"whole game: a finished 4-player game of {figures['replay_game_events']} events: throne replay "
            f"{figures['replay_game_ms']} ms, throne audit {figures['audit_game_ms']} ms (processes); their reads "
            f"{figures['replay_game_read_ms']} ms in {figures['replay_game_round_trips']} round trips and "
            f"{figures['audit_game_read_ms']} ms in {figures['audit_game_round_trips']} (step by step: "
            f"{figures['replay_game_stepwise_ms']} ms in {figures['replay_game_stepwise_round_trips']}); over HTTP "
            f"{figures['replay_game_http_ms']} / {figures['audit_game_http_ms']} ms"
        )
        figures.update(measure_verify(url, scripts, copies=1 if quick else 5))
        ctx.say(
            f"verify --all: {figures['verify_games']} stored games re-run against today's rules in one process: "
            f"{figures['verify_games_per_s']:,.1f} games/s ({figures['verify_events_per_s']:,} events/s)"
        )
    return figures


SECTIONS = [bench]

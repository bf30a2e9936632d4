"""The service's section of ``make bench`` (listed in services/bench/runner.py).

Runs on real local Redis: REDIS_URL if set, else a redis-server of its own on a free loopback port. Figures:
``redis_xadd_rtt_p50_ms`` (the raw round trip, so the others read as a ratio; also ``xadd_rtt_p50_us``/``p99``),
``service_commands_per_s`` (one rules worker, target >= 3000), ``service_latency_p50_ms``/``p99`` (submitted
to outcome visible, at 1000 commands/s; target p50 <= 2) and ``redis_bytes_per_game`` (``used_memory`` a whole
game adds, also per event and per command; docs/pages/service.md, Memory).

``cluster_latency_p50_ms`` (section :func:`bench_cluster`, when redis-server and redis-cli are present): one
command at a time (one client, 200 commands/s) on a local Redis Cluster of 3 masters (``deploy/cluster.sh``),
beside ``single_latency_p50_ms``, the same on one Redis in the same run; target: the ratio
``cluster_latency_ratio`` <= 1.5. On a cluster the worker polls its shards' streams (a blocking read may name
only one slot): 1 ms after a command, backing off to 10 ms when idle (``services/bus/streams.py``).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from services.bench import perf
from services.bench.scripts import record_games
from services.log import configure


def bench(ctx: Any) -> dict[str, Any]:
    """Measure the service; ``ctx`` is services.bench.Context (``games`` sizes the samples, ``say`` prints)."""
    configure("warning")
    quick = ctx.games < 20
    game = ctx.game.name
    scripts = record_games(game, 6 if quick else 40, seed=ctx.seed)
    figures: dict[str, Any] = {}
    with perf.local_redis(os.environ.get("REDIS_URL")) as url:
        figures.update(perf.measure_xadd_rtt(url, n=300 if quick else 5000))
        ctx.say(f"redis: XADD round trip p50 {figures['xadd_rtt_p50_us']} us, p99 {figures['xadd_rtt_p99_us']} us")
        figures.update(perf.measure_throughput(url, scripts))
        ctx.say(
            f"service: {figures['service_commands']} commands of {figures['service_games']} games through one "
            f"rules worker = {figures['service_commands_per_s']:,.0f} commands/s"
        )
        memory = perf.measure_game_memory(url, scripts[:10])
        figures.update({k: v for k, v in memory.items() if not k.startswith("memory_by_key")})
        ctx.say(
            f"memory: {figures['redis_bytes_per_game']:,} bytes of Redis per game right after it ended "
            f"({figures['redis_bytes_per_event']} per event, {figures['redis_bytes_per_command']} per command)"
        )
        latency = perf.measure_latency(url, scripts, rate=1000, seconds=1 if quick else 5)
        figures["service_latency_p50_ms"] = latency.pop("latency_p50_ms")
        figures["service_latency_p99_ms"] = latency.pop("latency_p99_ms")
        figures.update(latency)
        ctx.say(
            f"service latency at {figures['latency_rate_achieved']:.0f} commands/s: "
            f"p50 {figures['service_latency_p50_ms']} ms, p99 {figures['service_latency_p99_ms']} ms"
        )
    figures["redis_xadd_rtt_p50_ms"] = round(figures["xadd_rtt_p50_us"] / 1000, 4)
    return figures


def bench_cluster(ctx: Any) -> dict[str, Any]:
    """Single-command latency on a 3-master cluster against one Redis, in the same run (see the docstring)."""
    if not (shutil.which("redis-server") and shutil.which("redis-cli")):
        ctx.say("cluster: skipped (needs redis-server and redis-cli)")
        return {}
    configure("warning")
    quick = ctx.games < 20
    scripts = record_games(ctx.game.name, 4, seed=ctx.seed + 77)
    seconds = 1.5 if quick else 5.0
    with perf.local_redis(None) as url:
        single = perf.measure_latency(url, scripts, rate=200, seconds=seconds, clients=1)
    with perf.local_cluster() as url:
        cluster = perf.measure_latency(url, scripts, rate=200, seconds=seconds, clients=1)
    figures = {
        "single_latency_p50_ms": single["latency_p50_ms"],
        "cluster_latency_p50_ms": cluster["latency_p50_ms"],
        "cluster_latency_p99_ms": cluster["latency_p99_ms"],
        "cluster_latency_ratio": round(cluster["latency_p50_ms"] / single["latency_p50_ms"], 2),
    }
    ctx.say(
        f"cluster: one command at a time on 3 masters p50 {figures['cluster_latency_p50_ms']} ms "
        f"(p99 {figures['cluster_latency_p99_ms']}), one Redis p50 {figures['single_latency_p50_ms']} ms: "
        f"x{figures['cluster_latency_ratio']} (target <= 1.5)"
    )
    return figures


SECTIONS = [bench, bench_cluster]

"""The service's section of ``make bench`` (picked up by services/bench.py when this module exists).

Runs on real local Redis: REDIS_URL if set, else a redis-server of its own on a free loopback port. Figures:
``redis_xadd_rtt_p50_ms`` (the raw round trip, so the others read as a ratio; also ``xadd_rtt_p50_us``/``p99``),
``service_commands_per_s`` (one rules worker, target >= 3000), ``service_latency_p50_ms``/``p99`` (submitted
to outcome visible, at 1000 commands/s; target p50 <= 2) and ``redis_bytes_per_game`` (``used_memory`` a whole
game adds, also per event and per command; README "Memory").
"""

from __future__ import annotations

import os
from typing import Any

from services.log import configure
from services.worker import perf


def bench(ctx: Any) -> dict[str, Any]:
    """Measure the service; ``ctx`` is services.bench.Context (``games`` sizes the samples, ``say`` prints)."""
    configure("warning")
    quick = ctx.games < 20
    game = ctx.game.name
    scripts = perf.record_games(game, 6 if quick else 40, seed=ctx.seed)
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


SECTIONS = [bench]

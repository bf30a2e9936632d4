"""The bench's measuring functions work (tiny samples; the figures themselves come from ``make bench``)."""

from __future__ import annotations

import pytest

from services.worker import perf

pytestmark = pytest.mark.redis


def test_the_bench_functions_measure_the_service_on_real_redis(redis_url: str) -> None:
    # Given a few recorded toy games
    scripts = perf.record_games("toy21", 4, seed=3, players=2)

    # When the three measurements run on the suite's redis-server
    rtt = perf.measure_xadd_rtt(redis_url, n=50)
    throughput = perf.measure_throughput(redis_url, scripts, shards=4)
    latency = perf.measure_latency(
        redis_url, scripts, rate=200, seconds=0.5, clients=2, shards=4, plugins=["tests.service.toy_game"]
    )

    # Then each returns its figures, every command having been accepted
    assert 0 < rtt["xadd_rtt_p50_us"] <= rtt["xadd_rtt_p99_us"]
    assert throughput["service_commands"] == sum(len(s.moves) for s in scripts)
    assert throughput["service_commands_per_s"] > 0
    assert latency["latency_samples"] > 0 and 0 < latency["latency_p50_ms"] <= latency["latency_p99_ms"]

"""The bench's measuring functions work (tiny samples; the figures themselves come from ``make bench``)."""

from __future__ import annotations

import pytest

from services.bench import perf
from services.bench.scripts import record_games

pytestmark = pytest.mark.redis


def test_the_bench_functions_measure_the_service_on_real_redis(redis_url: str) -> None:
    # Given a few recorded toy games
    scripts = record_games("toy21", 4, seed=3, players=2)

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


def test_given_quick_mode_when_the_service_section_runs_then_it_reports_the_figures_by_their_names(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue names these keys: the raw XADD round trip, commands/s and latency through the service."""
    import io

    from services.bench import Context
    from services.bench import service as bench_service
    from services.rules.registry import get_game

    monkeypatch.setenv("REDIS_URL", redis_url)
    figures = bench_service.bench(Context(game=get_game("shadow"), games=4, out=io.StringIO()))

    for key in ("redis_xadd_rtt_p50_ms", "service_commands_per_s", "service_latency_p50_ms", "service_latency_p99_ms"):
        assert figures[key] > 0, key
    assert figures["service_latency_p50_ms"] <= figures["service_latency_p99_ms"]

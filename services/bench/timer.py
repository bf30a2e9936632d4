"""The timer's section of ``make bench``: what clocks cost the timer process, per alarm and per game-hour.

On real local Redis (REDIS_URL, else a redis-server of its own). Clocked games (60 s per decision, a low-time
notice at 15 s) are created through one rules worker on a controlled clock; then the clock is moved so that every
game's low-time notice comes due, then every game's deadline, and the timer handles them all. Measured, for the
timer alone (the rules worker's side is the ordinary cost of a command, plus one ZADD in its commit):

- ``timer_poll_redis_calls`` / ``timer_poll_cpu_us``: one idle poll of 16 shards (one pipelined round trip);
- ``timer_redis_calls_per_alarm`` (every Redis command, those run inside the claim and reschedule scripts
  included) and ``timer_cpu_us_per_alarm``: one alarm handled (the claim, the game's load, the timeout or notice
  written, the next alarm set), averaged over notices and timeouts;
- derived: ``timer_redis_calls_per_game_hour`` and ``timer_cpu_ms_per_game_hour`` for a live game whose every
  decision (one each 20 s) wakes the timer once (a seat answering before its low mark wakes nobody: the commit
  moves the alarm), and ``timer_redis_calls_per_s_10k`` / ``timer_cores_10k``: 10,000 such games at once.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import redis

from services.bench import perf
from services.bus.client import BusClient
from services.bus.connection import connect
from services.bus.keys import Layout
from services.log import configure
from services.timer.timer import ClockTimer, TimerConfig
from services.worker.rules_worker import RulesWorker

T0 = 1_900_000_000_000
ALARMS_PER_GAME_HOUR = 180
"""A live game, one decision each 20 s, every decision waking the timer once (the model's upper bound)."""
CONCURRENT = 10_000
SHARDS = 16


def _events(r: redis.Redis, layout: Layout) -> list[bytes]:
    """Every event JSON of every game of the bench's layout."""
    keys = r.scan_iter(layout.game_keys("events"), count=1000)
    return [f[b"e"] for key in keys for _, f in r.xrange(key)]


def _calls(r: redis.Redis) -> tuple[int, int, float]:
    """(every command Redis ran, scripts' inner commands included; Redis CPU seconds)."""
    stats = r.info("commandstats")
    calls = sum(int(v["calls"]) for v in stats.values())
    info = r.info("cpu")
    return calls, float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def measure_timer(url: str, game: str, games: int) -> dict[str, Any]:
    """Create ``games`` clocked games of ``game`` and measure the timer handling their notices and timeouts."""
    layout = Layout(prefix=f"bt{uuid.uuid4().hex[:6]}", shards=SHARDS)
    now = [T0]
    worker = RulesWorker(connect(url), range(SHARDS), layout=layout, clock=lambda: now[0])
    worker.refresh_leases()
    client = BusClient(connect(url), layout)
    settings = {"clock": {"mode": "per_decision", "per_decision_s": 60, "low_s": 15}}
    players = ["Ann", "Bob"]
    for seed in range(games):
        client.create_game(game, players, settings, seed=seed, timeout=None)
    worker.run_until_idle(max_steps=1_000_000)
    timer = ClockTimer(connect(url), range(SHARDS), layout=layout, config=TimerConfig(batch=1000), clock=lambda: now[0])
    probe = connect(url)
    # Idle polls: nothing due.
    polls = 50
    before, cpu = _calls(probe), time.process_time()
    for _ in range(polls):
        timer.step()
    after, cpu_after = _calls(probe), time.process_time()
    poll_calls = (after[0] - before[0] - 2) / polls  # (less the probe's own INFO calls)
    poll_cpu_us = (cpu_after - cpu) / polls * 1e6
    # Every game's low-time notice, then every game's deadline.
    handled = 0
    before, cpu = _calls(probe), time.process_time()
    for at in (T0 + 46_000, T0 + 61_000):
        now[0] = at
        while (done := timer.step()) > 0:
            handled += done
    after, cpu_after = _calls(probe), time.process_time()
    timeouts = timer.stats["timeouts"]
    worker.refresh_leases()  # (the leases ran out while only the timer worked)
    worker.run_until_idle(max_steps=1_000_000)
    applied = sum(b'"type":"SeatTimedOut"' in e for e in _events(probe, layout))
    worker.release()
    per_alarm_calls = (after[0] - before[0] - 4) / handled
    per_alarm_cpu_us = (cpu_after - cpu) / handled * 1e6
    redis_cpu_us = (after[1] - before[1]) / handled * 1e6
    calls_per_game_hour = ALARMS_PER_GAME_HOUR * per_alarm_calls
    cpu_ms_per_game_hour = ALARMS_PER_GAME_HOUR * per_alarm_cpu_us / 1000
    polls_per_s = 1000 / TimerConfig().poll_ms
    for key in probe.scan_iter(layout.everything(), count=1000):
        probe.delete(key)
    return {
        "timer_games": games,
        "timer_alarms_handled": handled,
        "timer_timeouts": timeouts,
        "timer_timeouts_applied": applied,
        "timer_poll_redis_calls": round(poll_calls, 1),
        "timer_poll_cpu_us": round(poll_cpu_us, 1),
        "timer_redis_calls_per_alarm": round(per_alarm_calls, 2),
        "timer_cpu_us_per_alarm": round(per_alarm_cpu_us, 1),
        "timer_redis_cpu_us_per_alarm": round(redis_cpu_us, 1),
        "timer_redis_calls_per_game_hour": round(calls_per_game_hour),
        "timer_cpu_ms_per_game_hour": round(cpu_ms_per_game_hour, 1),
        "timer_redis_calls_per_s_10k": round(CONCURRENT * calls_per_game_hour / 3600 + polls_per_s * poll_calls),
        "timer_cores_10k": round(CONCURRENT * cpu_ms_per_game_hour / 3_600_000 + polls_per_s * poll_cpu_us / 1e6, 3),
    }


def bench(ctx: Any) -> dict[str, Any]:
    """Measure the timer; ``ctx`` is services.bench.Context (``games`` sizes the sample, ``say`` prints)."""
    configure("warning")
    games = 100 if ctx.games < 20 else 1000
    with perf.local_redis(os.environ.get("REDIS_URL")) as url:
        f = measure_timer(url, ctx.game.name, games)
    ctx.say(
        f"timer: {f['timer_alarms_handled']} alarms of {f['timer_games']} clocked games, "
        f"{f['timer_timeouts_applied']} timeouts applied; {f['timer_redis_calls_per_alarm']} Redis calls and "
        f"{f['timer_cpu_us_per_alarm']:.0f} us CPU per alarm; an idle poll of {SHARDS} shards "
        f"{f['timer_poll_redis_calls']} calls, {f['timer_poll_cpu_us']:.0f} us"
    )
    ctx.say(
        f"timer per game-hour ({ALARMS_PER_GAME_HOUR} alarms): {f['timer_redis_calls_per_game_hour']:,} Redis calls, "
        f"{f['timer_cpu_ms_per_game_hour']} ms CPU; {CONCURRENT:,} games: {f['timer_redis_calls_per_s_10k']:,} "
        f"calls/s, {f['timer_cores_10k']} cores"
    )
    return f


SECTIONS = [bench]

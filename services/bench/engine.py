"""The engine's sections of ``make bench``: the machine's plain-Python speed, random games, fold, decide, codec.

The engine figures are pure Python, on one core; ``engine_games_per_mops`` (computed by the runner) divides the
games per second by ``machine_python_mops`` so that figures of different machines compare.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from services.bench.context import Context, Section, play_random_game


def section_engine_games(ctx: Context) -> dict[str, Any]:
    """Complete random games (of the most players the game takes, up to 6) per second on one core (bot choice
    included)."""
    rules, players = ctx.rules, ctx.players
    play_random_game(rules, ctx.seed - 1, players)  # warm-up (imports, caches)
    t0 = time.perf_counter()
    for i in range(ctx.games):  # the games are dropped as they end: the timing holds no growing heap
        play_random_game(rules, ctx.seed + i, players)
    elapsed = time.perf_counter() - t0
    ctx.recorded = [play_random_game(rules, ctx.seed + i, players) for i in range(ctx.games)]
    gc.collect()
    gc.freeze()  # the recorded games are read-only from here: keep the collector off them
    commands = sum(len(g.moves) for g in ctx.recorded)
    events = sum(len(g.events) for g in ctx.recorded)
    rate = ctx.games / elapsed
    ctx.say(
        f"engine: {ctx.games} random {players}-player games in {elapsed:.2f} s = {rate:.1f} games/s "
        f"({commands / ctx.games:.0f} commands, {events / ctx.games:.0f} events per game)"
    )
    return {
        "engine_games_per_s": round(rate, 2),
        "engine_games": ctx.games,
        "commands_per_game": round(commands / ctx.games, 1),
        "events_per_game": round(events / ctx.games, 1),
        "engine_commands_per_s": round(commands / elapsed, 1),
    }


def section_fold(ctx: Context) -> dict[str, Any]:
    """Folding every event of the recorded games from scratch with ``evolve``."""
    rules = ctx.rules
    streams = [g.events for g in ctx.recorded]
    total = sum(len(s) for s in streams)
    elapsed = float("inf")
    for _ in range(3):  # best of three
        t0 = time.perf_counter()
        for stream in streams:
            state = rules.initial_state()
            for event in stream:
                state = rules.evolve(state, event)
        elapsed = min(elapsed, time.perf_counter() - t0)
    rate = total / elapsed
    ctx.say(f"fold: {total} events of {len(streams)} games in {elapsed:.2f} s = {rate:,.0f} events/s")
    return {"fold_events_per_s": round(rate, 1)}


def section_decide(ctx: Context) -> dict[str, Any]:
    """Latency of ``decide`` alone over every command of the recorded games (state before it, precomputed)."""
    rules = ctx.rules
    samples: list[float] = []
    clock = time.perf_counter_ns
    for game in ctx.recorded:
        state = rules.initial_state()
        for event in game.opening:
            state = rules.evolve(state, event)
        for command, events in game.moves:
            t0 = clock()
            rules.decide(state, command)
            samples.append((clock() - t0) / 1000)
            for event in events:
                state = rules.evolve(state, event)
    samples.sort()
    p50 = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    ctx.say(f"decide: {len(samples)} commands, p50 {p50:.1f} us, p99 {p99:.1f} us, max {samples[-1]:.1f} us")
    return {"decide_p50_us": round(p50, 2), "decide_p99_us": round(p99, 2), "decide_max_us": round(samples[-1], 2)}


def section_codec(ctx: Context) -> dict[str, Any]:
    """JSON round trip of recorded events (what the store and the bus pay per event)."""
    rules = ctx.rules
    events = [e for g in ctx.recorded[:5] for e in g.events]
    t0 = time.perf_counter()
    for event in events:
        rules.parse_event(rules.encode_event_bytes(event))
    elapsed = time.perf_counter() - t0
    rate = len(events) / elapsed
    ctx.say(f"codec: {len(events)} events serialized and parsed back in {elapsed:.2f} s = {rate:,.0f} events/s")
    return {"event_codec_per_s": round(rate, 1)}


def python_mops() -> float:
    """Millions of plain-Python loop additions per second on this machine, best of five."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.perf_counter() - t0)
    return 2.0 / best


def section_machine(ctx: Context) -> dict[str, Any]:
    """How fast this machine runs plain Python: a fixed loop of integer additions, best of five.

    The engine figures are pure Python and scale with it: figures taken on different machines compare through
    this one."""
    rate = python_mops()
    ctx.say(f"machine: plain Python runs {rate:.1f} million loop additions/s (best of 5)")
    return {"machine_python_mops": round(rate, 2)}


SECTIONS: list[Section] = [section_machine, section_engine_games, section_fold, section_decide, section_codec]

"""``make bench``: throughput of the rules engine (and, once they exist, of the services).

Prints figures line by line; the LAST line is one JSON object with every figure, e.g.::

    {"engine_games_per_s": 70.1, "fold_events_per_s": 410000.0, "decide_p50_us": 95.0, ...}

``python -m services.bench --engine`` (``throne bench --engine``) measures only the machine and the engine's random
games: ``engine_games_per_s``, ``machine_python_mops`` and their ratio ``engine_games_per_mops``, in seconds.

A section is a function ``(ctx) -> dict`` whose dict is merged into that JSON. Sections from modules that do not
exist yet are skipped: ``services.bench_service`` may define ``SECTIONS`` (a list of such functions) or
``bench(ctx)``; it is picked up when present. The game measured (``--game``, default: the default game)
adds its own sections (``GamePlugin.bench_sections``). Each section prints its own figures through ``ctx.say``.
"""

from __future__ import annotations

import gc
import importlib
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import orjson

from events.base import Rejection
from services.bots.random_bot import choose
from services.rules.contract import Command, Event, GamePlugin, GameRules
from services.rules.registry import default_game, get_game

NAMES = ("Red", "Green", "Blue", "Yellow", "Purple", "Orange")
OPTIONAL_SECTION_MODULES = (
    "services.bench_service",
    "services.gateway.bench",
    "projections.bench",
    "services.bench_webhooks",
    "services.timer.bench",
)


@dataclass
class RecordedGame:
    """One complete game: its opening events, then each command with the events it caused."""

    opening: list[Event]
    moves: list[tuple[Command, list[Event]]]

    @property
    def events(self) -> list[Event]:
        """Every event of the game, in order."""
        return self.opening + [e for _, events in self.moves for e in events]


@dataclass
class Context:
    """What sections share: the game measured, sample sizes, recorded games and the output."""

    game: GamePlugin
    games: int = 40
    seed: int = 1
    out: TextIO = field(default_factory=lambda: sys.stdout)
    recorded: list[RecordedGame] = field(default_factory=list)

    @property
    def rules(self) -> GameRules[Any]:
        """The rules of the game measured."""
        return self.game.rules

    @property
    def players(self) -> int:
        """Seats of the games played: as many as the game takes (at most the names we have)."""
        return min(self.game.rules.capabilities.max_players, len(NAMES))

    def say(self, line: str) -> None:
        """Print one figure line."""
        print(line, file=self.out, flush=True)


Section = Callable[[Context], dict[str, Any]]


def play_random_game(rules: GameRules[Any], seed: int, players: int = 4) -> RecordedGame:
    """One seeded random game, recorded (decide + evolve in one call: ``execute``)."""
    opening = rules.start(NAMES[:players], {}, seed)
    state = rules.initial_state()
    for event in opening:
        state = rules.evolve(state, event)
    rng = random.Random(seed)
    moves: list[tuple[Command, list[Event]]] = []
    while not rules.is_over(state):
        command = choose(rules, state, rules.awaited(state)[0], rng)
        assert command is not None
        result = rules.execute(state, command)
        if isinstance(result, Rejection):
            raise RuntimeError(f"legal command rejected: {result}")
        events, state = result
        moves.append((command, events))
    return RecordedGame(opening, moves)


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


def section_machine(ctx: Context) -> dict[str, Any]:
    """How fast this machine runs plain Python: a fixed loop of integer additions, best of five.

    The engine figures are pure Python and scale with it: figures taken on different machines compare through
    this one."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.perf_counter() - t0)
    rate = 2.0 / best
    ctx.say(f"machine: plain Python runs {rate:.1f} million loop additions/s (best of 5)")
    return {"machine_python_mops": round(rate, 2)}


SECTIONS: list[Section] = [section_machine, section_engine_games, section_fold, section_decide, section_codec]


def optional_sections(game: GamePlugin | None = None) -> list[Section]:
    """Sections of modules that exist (e.g. ``services.bench_service``; missing ones are skipped), then the
    game's own (``GamePlugin.bench_sections``)."""
    found: list[Section] = []
    for name in OPTIONAL_SECTION_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        sections = getattr(module, "SECTIONS", None)
        if sections is None and callable(getattr(module, "bench", None)):
            sections = [module.bench]
        found.extend(sections or [])
    if game is not None:
        found.extend(game.bench_sections)
    return found


def run(ctx: Context, sections: list[Section] | None = None) -> dict[str, Any]:
    """Run the sections in order; a failing optional section is reported and skipped."""
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "game": ctx.game.name,
        "rules_version": ctx.rules.rules_version,
    }
    core = SECTIONS if sections is None else sections
    extra = optional_sections(ctx.game) if sections is None else []
    for section in core:
        figures.update(section(ctx))
    if "engine_games_per_s" in figures and figures.get("machine_python_mops"):
        # the engine's speed on this machine's Python: comparable between machines and runs (same run's figures)
        figures["engine_games_per_mops"] = round(figures["engine_games_per_s"] / figures["machine_python_mops"], 2)
        ctx.say(f"engine per machine: {figures['engine_games_per_mops']} games/s per million loop additions/s")
    for section in extra:
        try:
            figures.update(section(ctx))
        except Exception as exc:  # an unfinished service section must not hide the engine figures
            ctx.say(f"{section.__module__}.{section.__name__}: skipped ({type(exc).__name__}: {exc})")
    gc.unfreeze()
    return figures


def main(
    quick: bool = False, out: TextIO | None = None, game: str | None = None, engine: bool = False
) -> dict[str, Any]:
    """Print the figures of ``game`` (None: the default game), then the JSON line. ``quick``: small samples
    (seconds, for tests); ``engine``: only the machine and the engine's games (``engine_games_per_mops``)."""
    plugin = get_game(game or default_game())
    ctx = Context(game=plugin, games=3 if quick else 200, out=out or sys.stdout)
    figures = run(ctx, [section_machine, section_engine_games] if engine else None)
    print(orjson.dumps(figures).decode(), file=ctx.out, flush=True)
    return figures


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:], engine="--engine" in sys.argv[1:])

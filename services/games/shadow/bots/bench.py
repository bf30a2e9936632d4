"""Shadow's section of ``make bench`` (listed in the plugin's ``bench_sections``): ``heuristic_win_rate``.

The share of 200 seeded 4-player games (1 heuristic bot against 3 random bots, the heuristic seat rotating)
that the heuristic bot wins, as :func:`services.games.shadow.bots.arena.heuristic_win_rate` defines it; the
target is at least 0.8. The games are independent, so they are spread over a few processes; the figure does not
depend on how (each game is seeded by its number).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from services.games.shadow.bots.arena import heuristic_game

GAMES = 200
QUICK_GAMES = 12
SEED = 0


def _wins(games: range, seed: int) -> int:
    won = 0
    for game in games:
        hero, state = heuristic_game(game, seed)
        won += hero in (state.winners or ())
    return won


def win_rate(games: int = GAMES, seed: int = SEED, processes: int | None = None) -> float:
    """``heuristic_win_rate`` over ``games`` games, in ``processes`` processes (default: the CPUs, at most 4)."""
    processes = processes or max(1, min(4, os.cpu_count() or 1))
    if processes == 1 or games < 8:
        return _wins(range(games), seed) / games if games else 0.0
    slices = [range(i, games, processes) for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        return sum(pool.map(_wins, slices, [seed] * processes)) / games


def bench(ctx: Any) -> dict[str, Any]:
    """``heuristic_win_rate`` over 200 games (12 with ``--quick``); ``ctx`` is services.bench.Context."""
    games = QUICK_GAMES if getattr(ctx, "games", GAMES) < 20 else GAMES
    started = time.perf_counter()
    rate = win_rate(games)
    elapsed = time.perf_counter() - started
    ctx.say(
        f"bots: heuristic bot won {rate:.1%} of {games} seeded 4-player games against 3 random bots "
        f"(target >= 80%) in {elapsed:.1f} s"
    )
    return {"heuristic_win_rate": round(rate, 3), "heuristic_games": games}


SECTIONS = [bench]

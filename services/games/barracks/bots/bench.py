"""Speed and strength of The Barracks Emperors' rules core, on one core.

- ``barracks_games_per_s``: complete random 4-player games per second on one core (the random bot's
  ``sample_legal`` and ``execute``, from the opening events to GameEnded), best of a few batches, timed by CPU time
  (``barracks_games_per_s_wall``: by the wall clock, lower when other work shares the cores);
- ``barracks_games_per_mops``: that divided by ``machine_python_mops`` (services/bench.py's calibration: how fast
  this machine runs plain Python), so figures of different machines compare (target >= 7);
- ``barracks_heuristic_win_rate``: the share of seeded 4-player games the heuristic bot wins against three random
  bots, its seat rotating (target >= 0.8).

``python -m services.games.barracks.bots.bench [--quick]`` prints the figures, the last line one JSON object;
``SECTIONS`` plugs into ``make bench`` once the lead lists this module in services/bench.py.
"""

from __future__ import annotations

import io
import random
import sys
import time
from typing import Any

import orjson

from services.games.barracks.bots.heuristic import HeuristicBot, RandomBot
from services.games.barracks.rules.decider import BarracksRules

NAMES = ("North", "East", "South", "West")
RULES = BarracksRules()


def random_game(seed: int, players: int = 4) -> int:
    """One complete random game; returns its number of commands."""
    events = RULES.start(NAMES[:players], {}, seed)
    state = RULES.fold(events)
    rng = random.Random(seed)
    commands = 0
    while not state.over:
        (seat,) = RULES.awaited(state)
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))  # type: ignore[misc]
        commands += 1
    return commands


def games_per_s(games: int = 60, batches: int = 3, seed: int = 1) -> tuple[float, float, float]:
    """(games per second of CPU time, games per second of wall time, commands per game): the best of ``batches``
    batches of ``games``. CPU time is the one-core figure even on a machine shared with other work; on an idle
    machine the two agree."""
    random_game(seed - 1)  # warm-up
    best_cpu = best_wall = 0.0
    commands = 0
    for b in range(batches):
        wall, cpu = time.perf_counter(), time.process_time()
        commands = sum(random_game(seed + b * games + i) for i in range(games))
        best_cpu = max(best_cpu, games / max(time.process_time() - cpu, 1e-9))
        best_wall = max(best_wall, games / (time.perf_counter() - wall))
    return best_cpu, best_wall, commands / games


def machine_python_mops() -> float:
    """services/bench.py's calibration of this machine (millions of plain-Python loop additions per second)."""
    from services.bench import Context, section_machine

    return float(section_machine(Context(decider=None, out=io.StringIO()))["machine_python_mops"])  # type: ignore[arg-type]


def heuristic_games(games: int, seed: int = 1, players: int = 4) -> tuple[int, int]:
    """(games won or shared by the heuristic bot, games played) against random bots, the heuristic seat rotating."""
    wins = 0
    for i in range(games):
        hero = i % players
        state = RULES.fold(RULES.start(NAMES[:players], {}, seed + i))
        bots = [HeuristicBot(seed + i) if s == hero else RandomBot(1000 * (seed + i) + s) for s in range(players)]
        while not state.over:
            (seat,) = RULES.awaited(state)
            _, state = RULES.execute(state, bots[seat].choose(RULES, state, seat))  # type: ignore[misc]
        result = RULES.result(state)
        wins += hero in result["winners"]  # type: ignore[index]
    return wins, games


def section_barracks(ctx: Any) -> dict[str, Any]:
    """The figures above; ``ctx`` needs ``say(line)`` and may have ``games`` (small: a quick run)."""
    quick = getattr(ctx, "games", 200) < 20
    mops_before = machine_python_mops()
    rate, wall_rate, commands = games_per_s(games=10 if quick else 60, batches=2 if quick else 3)
    mops = max(mops_before, machine_python_mops())
    ctx.say(
        f"barracks: {rate:.1f} random 4-player games/s of CPU time ({wall_rate:.1f} by the wall clock; "
        f"{commands:.0f} commands per game), {rate / mops:.2f} per Mops"
    )
    played = 10 if quick else 200
    wins, _ = heuristic_games(played)
    ctx.say(f"barracks: the heuristic bot won {wins} of {played} games against three random bots")
    return {
        "barracks_games_per_s": round(rate, 2),
        "barracks_games_per_s_wall": round(wall_rate, 2),
        "barracks_commands_per_game": round(commands, 1),
        "barracks_machine_python_mops": round(mops, 2),  # its own calibration, beside the main section's
        "barracks_games_per_mops": round(rate / mops, 3),
        "barracks_heuristic_win_rate": round(wins / played, 3),
    }


SECTIONS = [section_barracks]


class _Out:
    def __init__(self, quick: bool) -> None:
        self.games = 3 if quick else 200

    def say(self, line: str) -> None:
        print(line, flush=True)


def main(quick: bool = False) -> dict[str, Any]:
    """Print the figures, then one JSON line."""
    figures = section_barracks(_Out(quick))
    print(orjson.dumps(figures).decode(), flush=True)
    return figures


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])

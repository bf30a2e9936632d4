"""The engine's instructions per random game, counted by callgrind: a deterministic engine figure.

Timed figures (``engine_games_per_s``) move with the machine's load; the instructions a game executes do not. The
section runs a small driver (this module, ``python -m services.bench.instructions play GAME GAMES``) under
``valgrind --tool=callgrind`` twice per game, once playing the seeded random games and once playing none (imports,
startup, one warm-up game in both), and divides the difference by the games: the instructions of one game alone.

Beside each count, the same driver's games timed in this process over the machine's plain-Python speed
(``machine_python_mops``, as ``engine_games_per_mops``): the games per Mops of each game, whatever game the bench
measures. The loop's own instructions do not convert (an addition runs at a far higher rate of instructions per
cycle than the rules do): the timed ratio is the one to compare, the count the one that does not move with the load.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from services.bench.context import NAMES, Context
from services.bench.engine import python_mops

GAMES = ("shadow", "barracks")
"""The games counted (both, whatever game the bench measures)."""
PLAYERS = 4
SEED = 1
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def play(game: str, games: int, warm_up: bool = True, seed: int = SEED, players: int = PLAYERS) -> int:
    """Play one warm-up game (seed ``seed - 1``; ``warm_up``), then ``games`` seeded random games of ``game`` with
    its own rules (``GamePlugin.game_rules``: no table around them), as the random bot plays: ``sample_legal`` then
    ``execute`` until over. Returns the commands played (after the warm-up)."""
    from services.rules.registry import get_game

    rules = get_game(game).game_rules
    commands = 0
    for i in range(-1 if warm_up else 0, games):
        state = rules.fold(rules.start(NAMES[:players], {}, seed + i))
        rng = random.Random(seed + i)
        while not rules.is_over(state):
            command = rules.sample_legal(state, rules.awaited(state)[0], rng)
            result = rules.execute(state, command)
            if not isinstance(result, tuple):
                raise RuntimeError(f"legal command rejected: {result}")
            state = result[1]
            commands += i >= 0
    return commands


def callgrind(*args: str) -> int:
    """The instructions of this module's driver run with ``args`` under callgrind (the whole process)."""
    with tempfile.TemporaryDirectory() as tmp:
        # PYTHONHASHSEED: the same iteration order of str-keyed sets in every run, hence the same instructions
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", "--dump-line=no",
            sys.executable, "-m", "services.bench.instructions", *args,
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind failed ({done.returncode}): {done.stderr[-2000:]}")
    return int(found.group(1))


def per_game(game: str, games: int) -> float:
    """Instructions of one seeded random game of ``game`` (mean over ``games``), startup excluded."""
    return (callgrind("play", game, str(games)) - callgrind("play", game, "0")) / games


def games_per_mops(game: str, games: int) -> float:
    """Seeded random games of ``game`` per second in this process over the machine's plain-Python speed (millions
    of loop additions per second), each measured right before the games it divides (the machine's load moves
    both), best of three."""
    play(game, 0)  # imports, caches
    best = 0.0
    for _ in range(3):
        mops = python_mops()
        t0 = time.perf_counter()
        play(game, games, warm_up=False)
        best = max(best, games / (time.perf_counter() - t0) / mops)
    return best


def section_engine_instructions(ctx: Context) -> dict[str, Any]:
    """Instructions per seeded random 4-player game of Shadow and Barracks (millions, callgrind) and each game's
    timed games per Mops; skipped (no figures) when valgrind is missing."""
    if shutil.which("valgrind") is None:
        ctx.say("engine instructions: skipped (valgrind is not installed: apt-get install valgrind)")
        return {}
    games = 2 if ctx.games < 10 else 10
    figures: dict[str, Any] = {"engine_instruction_games": games}
    for game in GAMES:
        instructions = per_game(game, games)
        rate = games_per_mops(game, games)
        figures[f"engine_instructions_per_game_{game}"] = round(instructions / 1e6, 2)
        figures[f"engine_games_per_mops_{game}"] = round(rate, 2)
        ctx.say(
            f"engine instructions: {game} {instructions / 1e6:.2f} M per random {PLAYERS}-player game "
            f"(callgrind, {games} games); timed {rate:.2f} games per Mops"
        )
    return figures


SECTIONS = [section_engine_instructions]


def main(argv: list[str]) -> None:
    """The driver run under callgrind: ``play GAME GAMES``."""
    if len(argv) != 3 or argv[0] != "play":
        raise SystemExit(f"usage: python -m services.bench.instructions play GAME GAMES (not {argv})")
    play(argv[1], int(argv[2]))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Bot arena: seeded games of In the Shadow of the Emperor between bots, and the heuristic bot's win rate.

Run ``python -m services.games.shadow.bots.arena`` to print progress figures of the 200-game measure.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from services.bots.random_bot import RandomBot
from services.games.shadow.bots.heuristic import HeuristicBot
from services.games.shadow.rules.decider import ShadowRules
from services.games.shadow.rules.state import GameState
from services.rules.contract import Bot

PLAYERS = 4
NAMES = ("Red", "Green", "Blue", "Yellow")


def play_game(rules: ShadowRules, bots: Sequence[Bot], seed: int, settings: dict[str, Any] | None = None) -> GameState:
    """Play one seeded game to its end, each seat driven by ``bots[seat]``; return the final state."""
    state: GameState | None = None
    for event in rules.start(NAMES[: len(bots)], settings or {}, seed):
        state = rules.evolve(state, event)
    assert state is not None
    while not state.over:
        seat = rules.awaited(state)[0]
        command = bots[seat].choose(rules, state, seat)
        result = rules.execute(state, command)
        assert isinstance(result, tuple), f"seat {seat} sent an illegal command {command}: {result}"
        state = result[1]
    return state


def heuristic_game(game: int, seed: int = 0, rules: ShadowRules | None = None) -> tuple[int, GameState]:
    """Game number ``game`` of a series: the heuristic bot on seat ``game % 4`` (so it is the first Emperor
    in one game of four), random bots on the other seats, all seeded from ``seed`` and ``game``."""
    rules = rules or ShadowRules()
    base = seed * 1_000_003 + game
    hero = game % PLAYERS
    bots: list[Bot] = [
        HeuristicBot(base) if seat == hero else RandomBot(base * PLAYERS + seat + 1) for seat in range(PLAYERS)
    ]
    return hero, play_game(rules, bots, base)


def heuristic_win_rate(
    games: int = 200, seed: int = 0, progress: Callable[[int, int, float], None] | None = None
) -> float:
    """Fraction of ``games`` seeded 4-player games the heuristic bot wins against three random bots.

    The heuristic bot's seat rotates from game to game (seat ``game % 4``; seat 0 is always the first
    Emperor), so it starts as Emperor in a quarter of the games. A shared victory (players tied for the most
    VP all win [G3]) that includes the heuristic bot counts as a win. Deterministic for a given ``seed``.
    ``progress(done, wins, seconds)`` is called after each game if given."""
    rules = ShadowRules()
    wins = 0
    started = time.perf_counter()
    for game in range(games):
        hero, state = heuristic_game(game, seed, rules)
        if hero in (state.winners or ()):
            wins += 1
        if progress is not None:
            progress(game + 1, wins, time.perf_counter() - started)
    return wins / games if games else 0.0


def main(argv: Sequence[str] = ()) -> None:
    """Print the heuristic bot's win rate over 200 games (or ``argv[0]`` games), with progress."""
    games = int(argv[0]) if argv else 200

    def report(done: int, wins: int, seconds: float) -> None:
        if done % 20 == 0 or done == games:
            print(f"{done:4d} games  {wins:4d} wins  win rate {wins / done:.3f}  {1000 * seconds / done:.1f} ms/game")

    rate = heuristic_win_rate(games, 0, report)
    print(f"heuristic win rate: {rate:.3f} over {games} games (1 heuristic vs 3 random, 4 players)")


if __name__ == "__main__":
    main(sys.argv[1:])

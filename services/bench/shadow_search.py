"""The search bot against the heuristic bot: seeded 4-player games, and Shadow's ``make bench`` section
``search_bot_win_rate``.

Two measures (docs/pages/search-bot.md says what they mean and which target is met):

- ``search_bot_win_rate``: games of one search bot against three heuristic bots, the search seat rotating over
  the four seats (seat ``game % 4``; seat 0 is the first Emperor). The search bot scores 1 when it wins the
  game alone, 1/k when it shares the victory with k - 1 others (players tied for the most VP all win [G3]),
  0 otherwise; the rate is the mean score. The target is 0.6 (an equal bot would score about 0.25).
- ``search_bot_head_to_head``: games of two search bots against two heuristic bots, sitting alternately
  (search on seats ``g % 2`` and ``g % 2 + 2``, so each pairing of seats occurs). Each of the four (search,
  heuristic) pairs of a game scores 1 when the search seat ends with more VP, 1/2 with as many, 0 with fewer;
  the rate is the mean over all pairs (an equal bot would score 0.5).

Every game is seeded by its number (the search bots and the heuristic bots alike), so a figure does not depend
on how the games are spread over processes. Run ``python -m services.bench.shadow_search [games]``
for a bigger sample.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from services.bots.search import SearchBot, SearchKit
from services.games.shadow.bots.arena import NAMES, PLAYERS
from services.games.shadow.bots.heuristic import HeuristicBot
from services.games.shadow.bots.search import kit
from services.games.shadow.rules.decider import ShadowRules
from services.games.shadow.rules.state import GameState
from services.rules.contract import Bot, Command

GAMES = 8
HEAD_TO_HEAD_GAMES = 2
QUICK_GAMES = 2
QUICK_HEAD_TO_HEAD_GAMES = 1
QUICK_ITERATIONS = 2
"""``--quick`` plays fewer games, and at a smaller budget (its figures only show the section works)."""
SEED = 0


@dataclass
class Tally:
    """Scores and costs summed over games."""

    games: int = 0
    score: float = 0.0
    """Sum of the per-game scores (see the module docstring)."""
    count: int = 0
    """What ``score`` is averaged over: games (one against three) or pairs (head to head)."""
    search_seconds: float = 0.0
    search_moves: int = 0

    def add(self, other: Tally) -> Tally:
        """The sum of two tallies."""
        return Tally(
            self.games + other.games,
            self.score + other.score,
            self.count + other.count,
            self.search_seconds + other.search_seconds,
            self.search_moves + other.search_moves,
        )

    @property
    def rate(self) -> float:
        """The mean score."""
        return self.score / self.count if self.count else 0.0

    @property
    def ms_per_move(self) -> float:
        """Mean time of a search bot's decision, in milliseconds."""
        return 1000 * self.search_seconds / self.search_moves if self.search_moves else 0.0


class _Timed:
    """A bot whose decisions are timed (the search bots of a game share one clock)."""

    def __init__(self, bot: Bot, tally: Tally) -> None:
        self.bot, self.tally = bot, tally

    def choose(self, rules: Any, state: Any, seat: int) -> Command | None:
        started = time.perf_counter()
        command = self.bot.choose(rules, state, seat)
        self.tally.search_seconds += time.perf_counter() - started
        self.tally.search_moves += 1
        return command


def play(bots: Sequence[Bot], seed: int, rules: ShadowRules) -> GameState:
    """One seeded game to its end, seat ``i`` played by ``bots[i]``."""
    state: GameState | None = None
    for event in rules.start(NAMES[: len(bots)], {}, seed):
        state = rules.evolve(state, event)
    assert state is not None
    while not state.over:
        seat = rules.awaited(state)[0]
        result = rules.execute(state, bots[seat].choose(rules, state, seat))
        assert isinstance(result, tuple), f"seat {seat} sent an illegal command: {result}"
        state = result[1]
    return state


KitFactory = Callable[[], SearchKit]


def one_against_three(game: int, seed: int = SEED, make_kit: KitFactory = kit) -> Tally:
    """Game ``game``: the search bot on seat ``game % 4``, heuristic bots elsewhere; its score (see above)."""
    base = seed * 1_000_003 + game
    hero = game % PLAYERS
    tally = Tally(games=1, count=1)
    bots: list[Bot] = [
        _Timed(_Fresh(base, make_kit), tally) if seat == hero else HeuristicBot(base * PLAYERS + seat + 1)
        for seat in range(PLAYERS)
    ]
    state = play(bots, base, ShadowRules())
    winners = state.winners or ()
    tally.score = 1.0 / len(winners) if hero in winners else 0.0
    return tally


def head_to_head(game: int, seed: int = SEED, make_kit: KitFactory = kit) -> Tally:
    """Game ``game``: search bots on seats ``game % 2`` and ``game % 2 + 2``, heuristic bots on the others;
    the score of its four (search, heuristic) pairs (see above)."""
    base = seed * 1_000_003 + game
    search = {game % 2, game % 2 + 2}
    tally = Tally(games=1)
    bots: list[Bot] = [
        _Timed(_Fresh(base * PLAYERS + seat, make_kit), tally)
        if seat in search
        else HeuristicBot(base * PLAYERS + seat + 1)
        for seat in range(PLAYERS)
    ]
    vp = play(bots, base, ShadowRules()).vp
    for s in search:
        for h in set(range(PLAYERS)) - search:
            tally.score += 1.0 if vp[s] > vp[h] else 0.5 if vp[s] == vp[h] else 0.0
            tally.count += 1
    return tally


class _Fresh:
    """A search bot made anew for each decision (as the bots process does), seeded from the game and the
    position's version: a game replays the same way however often it is played."""

    def __init__(self, base: int, make_kit: KitFactory) -> None:
        self.base, self.make_kit = base, make_kit

    def choose(self, rules: Any, state: GameState, seat: int) -> Command | None:
        return SearchBot(self.base * 100_003 + state.version, self.make_kit()).choose(rules, state, seat)


def _series(kind: str, games: list[int], seed: int, make_kit: KitFactory | None = None) -> Tally:
    play_one = one_against_three if kind == "one" else head_to_head
    total = Tally()
    for game in games:
        total = total.add(play_one(game, seed, make_kit or kit))
    return total


def measure(
    kind: str, games: int, seed: int = SEED, processes: int | None = None, make_kit: KitFactory | None = None
) -> Tally:
    """``games`` games of ``kind`` (``one``: one against three; ``pairs``: head to head), over ``processes``
    processes (default: the CPUs, at most 4; ``make_kit`` must then be a module-level function); the same
    figures however they are spread. ``make_kit``: the search's settings (default: Shadow's ``kit``)."""
    processes = max(1, min(processes or min(4, os.cpu_count() or 1), games))
    if processes == 1:
        return _series(kind, list(range(games)), seed, make_kit)
    slices = [list(range(i, games, processes)) for i in range(processes)]
    total = Tally()
    with ProcessPoolExecutor(processes) as pool:
        for part in pool.map(_series, [kind] * processes, slices, [seed] * processes, [make_kit] * processes):
            total = total.add(part)
    return total


def quick_kit() -> SearchKit:
    """The search at the ``--quick`` budget."""
    return kit(iterations=QUICK_ITERATIONS, width=2)


def bench(ctx: Any, make_kit: KitFactory | None = None, processes: int | None = None) -> dict[str, Any]:
    """``search_bot_win_rate`` over 8 games and the head-to-head rate over 2 (2 and 1 with ``--quick``, at a
    smaller budget); ``ctx`` is services.bench.Context (``make_kit`` and ``processes`` as in :func:`measure`)."""
    quick = getattr(ctx, "games", GAMES) < 20
    games, pairs = (QUICK_GAMES, QUICK_HEAD_TO_HEAD_GAMES) if quick else (GAMES, HEAD_TO_HEAD_GAMES)
    make_kit = make_kit or (quick_kit if quick else kit)
    budget = make_kit().iterations
    started = time.perf_counter()
    one = measure("one", games, processes=processes, make_kit=make_kit)
    two = measure("pairs", pairs, processes=processes, make_kit=make_kit)
    elapsed = time.perf_counter() - started
    both = one.add(two)
    ctx.say(
        f"bots: search bot scored {one.rate:.1%} in {games} seeded 4-player games against 3 heuristic bots "
        f"(target >= 60%), {two.rate:.1%} of its pairs against a heuristic bot in {pairs} games of 2 against 2 "
        f"(target >= 60%); {budget} iterations and {both.ms_per_move:.0f} ms per move over {both.search_moves} "
        f"moves, in {elapsed:.1f} s"
    )
    return {
        "search_bot_win_rate": round(one.rate, 3),
        "search_bot_games": games,
        "search_bot_head_to_head": round(two.rate, 3),
        "search_bot_head_to_head_games": pairs,
        "search_bot_ms_per_move": round(both.ms_per_move, 1),
        "search_bot_iterations": budget,
    }


def main(argv: Sequence[str] = ()) -> None:
    """Print both rates over ``argv[0]`` and ``argv[1]`` games (default 8 and half as many)."""
    games = int(argv[0]) if argv else GAMES
    pairs = int(argv[1]) if len(argv) > 1 else max(1, games // 2)
    one = measure("one", games)
    print(f"one against three: {one.rate:.3f} over {games} games, {one.ms_per_move:.0f} ms/move", flush=True)
    two = measure("pairs", pairs)
    print(f"head to head: {two.rate:.3f} over {two.count} pairs in {pairs} games, {two.ms_per_move:.0f} ms/move")


if __name__ == "__main__":
    main(sys.argv[1:])

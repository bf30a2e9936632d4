"""The bots' bench section: ``heuristic_win_rate`` in ``make bench``."""

from __future__ import annotations

import io

from services import bench
from services.bots import bench as bots_bench
from services.bots.arena import heuristic_win_rate


def test_given_the_bench_when_its_optional_sections_are_listed_then_the_bots_section_is_one_of_them() -> None:
    assert bots_bench.bench in bench.optional_sections()


def test_given_a_quick_bench_context_when_the_bots_section_runs_then_it_prints_and_returns_the_win_rate() -> None:
    # Given a quick context (as `throne bench --quick` makes)
    out = io.StringIO()
    ctx = bench.Context(decider=bench.get_decider("shadow"), games=3, out=out)
    # When the section runs
    figures = bots_bench.bench(ctx)
    # Then it measured the quick number of games, and its figure is the arena's over the same games
    assert figures["heuristic_games"] == bots_bench.QUICK_GAMES
    assert figures["heuristic_win_rate"] == round(heuristic_win_rate(bots_bench.QUICK_GAMES), 3)
    assert "heuristic bot won" in out.getvalue()


def test_given_the_games_spread_over_processes_when_counted_then_the_rate_is_the_same_as_in_one_process() -> None:
    assert bots_bench.win_rate(10, processes=2) == bots_bench.win_rate(10, processes=1) == heuristic_win_rate(10)

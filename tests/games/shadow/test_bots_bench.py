"""Shadow's bench section: ``heuristic_win_rate`` in ``make bench``."""

from __future__ import annotations

import io

import pytest

from services import bench
from services.games.shadow.bots import bench as bots_bench
from services.games.shadow.bots.arena import heuristic_win_rate
from services.rules.registry import get_game


def test_given_the_bench_of_shadow_when_its_sections_are_listed_then_the_heuristic_section_is_one_of_them() -> None:
    # Given the Shadow plug-in, When the bench lists the optional sections for it
    sections = bench.optional_sections(get_game("shadow"))
    # Then the game's own section (the heuristic bot's win rate) is among them, and only for that game
    assert any(s.__module__ == "services.games.shadow" for s in sections)
    assert all(s.__module__ != "services.games.shadow" for s in bench.optional_sections())


def test_given_a_quick_bench_context_when_the_bots_section_runs_then_it_prints_and_returns_the_win_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a quick context (as `throne bench --quick` makes), its number of games made smaller for the test (the
    # games spread over processes are the next test's)
    monkeypatch.setattr(bots_bench, "QUICK_GAMES", 4)
    out = io.StringIO()
    ctx = bench.Context(game=get_game("shadow"), games=3, out=out)
    # When the section runs
    figures = bots_bench.bench(ctx)
    # Then it measured the quick number of games, and its figure is the arena's over the same games
    assert figures["heuristic_games"] == bots_bench.QUICK_GAMES
    assert figures["heuristic_win_rate"] == round(heuristic_win_rate(bots_bench.QUICK_GAMES), 3)
    assert "heuristic bot won" in out.getvalue()


def test_given_the_games_spread_over_processes_when_counted_then_the_rate_is_the_same_as_in_one_process() -> None:
    # (8 games: the fewest that win_rate spreads over processes)
    assert bots_bench.win_rate(8, processes=2) == bots_bench.win_rate(8, processes=1) == heuristic_win_rate(8)

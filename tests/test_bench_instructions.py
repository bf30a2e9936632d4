"""The bench's instruction counts (services/bench/instructions.py): the driver plays the bench's random games, the
section divides the difference of two callgrind runs by the games, and skips without valgrind."""

from __future__ import annotations

import io

import pytest

from services.bench import Context, instructions
from services.rules.registry import get_game


def test_given_the_driver_when_it_plays_then_the_same_commands_as_the_bench_games_with_the_game_rules() -> None:
    # Given the bench's random games of the game's own rules (warm-up excluded), when the driver plays two of them
    from services.bench.context import play_random_game

    played = instructions.play("highcard", 2)
    # Then it played as many commands as the bench's recorded games of the same seeds (the table adds none)
    rules = get_game("highcard").rules
    assert played == sum(len(play_random_game(rules, seed).moves) for seed in (1, 2))


def test_given_two_counts_when_a_game_is_measured_then_the_difference_per_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given callgrind counts of 1,000 instructions at startup and 100 more per game
    calls: list[tuple[str, ...]] = []

    def counted(*args: str) -> int:
        calls.append(args)
        return 1_000 + 100 * int(args[2])

    monkeypatch.setattr(instructions, "callgrind", counted)
    # When four games are measured, then one game is 100 instructions, from a run of 4 games and one of none
    assert instructions.per_game("shadow", 4) == 100
    assert calls == [("play", "shadow", "4"), ("play", "shadow", "0")]


def test_given_no_valgrind_when_the_section_runs_then_it_says_so_and_gives_no_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    out = io.StringIO()
    assert instructions.section_engine_instructions(Context(game=get_game("highcard"), out=out)) == {}
    assert "skipped (valgrind is not installed" in out.getvalue()


def test_given_valgrind_when_the_section_runs_then_each_game_has_its_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given counts and a timing made up (the real ones take minutes)
    monkeypatch.setattr(instructions.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(instructions, "per_game", lambda game, games: 25e6 if game == "shadow" else 40e6)
    monkeypatch.setattr(instructions, "games_per_mops", lambda game, games: 7.0)
    # When the section runs, then it reports millions of instructions per game and the timed ratio, per game
    figures = instructions.section_engine_instructions(Context(game=get_game("shadow"), out=io.StringIO()))
    assert figures == {
        "engine_instruction_games": 10,
        "engine_instructions_per_game_shadow": 25.0,
        "engine_games_per_mops_shadow": 7.0,
        "engine_instructions_per_game_barracks": 40.0,
        "engine_games_per_mops_barracks": 7.0,
    }

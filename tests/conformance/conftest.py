"""The conformance suite runs over every installed game (``game_names()``) and the toy game of the tests."""

from __future__ import annotations

from typing import Any

import pytest

import tests.service.toy_game
from services.rules.contract import GamePlugin
from services.rules.registry import game_names, get_game
from tests.conformance.harness import Played, play, player_counts, settings_variants

GAMES = sorted({*game_names(), tests.service.toy_game.NAME})
SEEDS = (1, 2)
"""Seeded games per table (player count x settings): enough to meet every kind of decision, in seconds."""

_played: dict[tuple[Any, ...], Played] = {}


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> GamePlugin:
    """Each game plug-in in turn."""
    return get_game(request.param)


def games_of(game: GamePlugin) -> list[Played]:
    """The seeded random games of ``game``: each player count it takes at its ends, each settings variant, each
    seed (played once per test session)."""
    out = []
    for players in player_counts(game):
        for settings in settings_variants(game):
            for seed in SEEDS:
                key = (game.name, players, tuple(sorted(settings.items())), seed)
                if key not in _played:
                    _played[key] = play(game, players, seed, settings)
                out.append(_played[key])
    return out

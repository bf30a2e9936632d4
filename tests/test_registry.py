"""The game registry: games come from the ``throne.games`` entry points (or register_game), by name; a game
package is added without touching generic code."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tests.service.toy_game as toy
from services.bots.kinds import UnknownBot, bot_kinds, default_bot, make_bot
from services.rules import registry
from services.rules.contract import GamePlugin
from services.rules.registry import UnknownGame, game_names, get_game, register_game


def _distribution(root: Path, name: str, entry_points: str) -> Path:
    """A minimal installed distribution in ``root``: its METADATA and its entry_points.txt."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    return root


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """After the test (monkeypatch has taken its distributions off sys.path): the registry forgets what it read,
    and toy21 is registered again as the rest of the suite expects."""
    yield
    registry.clear_cache()
    register_game(toy.plugin())


def test_given_a_game_package_installed_when_looked_up_then_its_entry_point_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    # Given toy21 known to nobody: not registered, and no distribution declaring it
    registry.unregister_game("toy21")
    registry.clear_cache()
    assert "toy21" not in game_names()
    with pytest.raises(UnknownGame) as missing:
        get_game("toy21")
    assert isinstance(missing.value, KeyError) and "toy21" in str(missing.value)

    # When a distribution declaring the entry point toy21 = tests.service.toy_game:plugin is put on sys.path
    monkeypatch.syspath_prepend(
        str(_distribution(tmp_path, "throne_toy21", "[throne.games]\ntoy21 = tests.service.toy_game:plugin\n"))
    )
    registry.clear_cache()

    # Then the game is there by name, whole, and every generic lookup reaches it
    assert "toy21" in game_names() and "shadow" in game_names()
    game = get_game("toy21")
    assert isinstance(game, GamePlugin) and isinstance(game.game_rules, toy.ToyRules) and game.name == "toy21"
    assert get_game("toy21") is game  # loaded once
    assert bot_kinds("toy21") == ["random", "search"] and default_bot("toy21") == "random"
    assert game.rules.choose(make_bot("random", "toy21", 1), game.rules.fold(game.rules.start(["a", "b"], {}, 1)), 0)


@pytest.mark.parametrize(
    ("target", "error"),
    [("tests.service.toy_game:ToyRules", TypeError), ("services.games.shadow:plugin", ValueError)],
)
def test_given_an_entry_point_that_is_not_that_game_when_loaded_then_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None, target: str, error: type[Exception]
) -> None:
    # Given an entry point naming something that is not a GamePlugin factory, or the plug-in of another game
    monkeypatch.syspath_prepend(str(_distribution(tmp_path, "throne_bad", f"[throne.games]\nbad = {target}\n")))
    registry.clear_cache()
    # When it is looked up, Then the error says which entry point is wrong
    with pytest.raises(error, match="entry point bad"):
        get_game("bad")


def test_given_the_installed_project_when_listing_games_then_shadow_comes_from_its_entry_point() -> None:
    # Given the project installed (pyproject.toml declares shadow under throne.games)
    points = registry._entry_points()
    # Then shadow is an entry point, not something generic code registers
    assert points["shadow"].value == "services.games.shadow:plugin"
    reference = get_game("shadow").rules_reference
    assert reference is not None and reference.name == "RULES.md" and reference.is_file()
    assert registry.default_game() == "shadow"  # named under throne.default_game, whatever order the names sort in


def test_given_a_game_when_asking_for_bots_then_its_own_first_and_random_always() -> None:
    # Given Shadow (a heuristic bot of its own) and toy21 (none)
    # Then the kinds, the default kind and the errors follow the plug-in's list
    assert bot_kinds("shadow") == ["heuristic", "random", "search"] and default_bot("shadow") == "heuristic"
    assert type(make_bot("heuristic", "shadow", 1)).__name__ == "HeuristicBot"
    with pytest.raises(UnknownBot):
        make_bot("heuristic", "toy21", 1)
    with pytest.raises(UnknownBot):
        make_bot("random", "no-such-game", 1)


def test_given_register_game_when_given_something_else_then_type_error() -> None:
    with pytest.raises(TypeError):
        register_game(toy.ToyRules())  # type: ignore[arg-type]
    assert sys.modules["tests.service.toy_game"] is toy

"""The architecture, whichever games are installed: the games are what the ``throne.games`` entry points name
(services/rules/import_contracts.py, which also generates the import-linter contracts ``make lint`` checks), and
this test agrees with those contracts without naming a game: generic code imports no game, no game imports
another, and the generated configuration holds every installed game."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import grimp

from services.rules.import_contracts import MEASURING_TOOLS, game_packages, generated_contracts, generic_modules, render
from services.rules.registry import GROUP

ROOT = Path(__file__).resolve().parents[1]


def _under(module: str, packages: dict[str, str]) -> str | None:
    """The game whose package ``module`` is or belongs to (``packages``: game by package), or None."""
    return next((g for p, g in packages.items() if module == p or module.startswith(p + ".")), None)


def test_given_the_entry_points_when_game_packages_are_read_then_every_installed_game_has_an_existing_package() -> None:
    packages = game_packages()
    assert sorted(packages) == sorted(point.name for point in entry_points(group=GROUP))
    graph = grimp.build_graph("services", "events", "projections")
    assert all(package in graph.modules for package in packages.values()), packages


def test_given_the_source_tree_when_read_then_every_package_under_services_games_is_an_installed_game() -> None:
    folders = {
        f"services.games.{p.name}" for p in (ROOT / "services" / "games").iterdir() if (p / "__init__.py").exists()
    }
    assert folders <= set(game_packages().values()), sorted(folders - set(game_packages().values()))


def test_given_the_import_graph_when_modules_are_read_then_generic_code_imports_no_game_and_no_game_another() -> None:
    # Given every module of the service, each either generic or of one game
    games = {package: game for game, package in game_packages().items()}
    generic = set(generic_modules(games))
    graph = grimp.build_graph("services", "events", "projections")
    owner = {module: _under(module, games) for module in graph.modules}
    unplaced = [
        m for m, game in owner.items() if game is None and not any(m == g or m.startswith(g + ".") for g in generic)
    ]
    holders = {p.rsplit(".", i)[0] for p in games for i in range(1, p.count(".") + 1)}  # a game's parents
    measuring = [m for m in unplaced if any(m == t or m.startswith(t + ".") for t in MEASURING_TOOLS)]
    assert set(unplaced) - set(measuring) <= holders | {"services", "events", "projections"}, unplaced
    # Then no generic module imports a module of a game, and no game a module of another game (any chain
    # across starts with such a direct import)
    found = [
        f"{module} -> {imported}"
        for module in sorted(set(graph.modules) - set(measuring))
        for imported in graph.find_modules_directly_imported_by(module)
        if owner.get(imported) is not None and owner[imported] != owner[module]
    ]
    assert not found, found


def test_given_the_installed_games_when_the_configuration_is_rendered_then_it_holds_every_game_in_each_contract() -> (
    None
):
    # Given pyproject.toml's contracts and the generated ones
    static = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    packages = game_packages()
    config = tomllib.loads(render(static, generated_contracts(packages), packages.values()))["tool"]["importlinter"]
    # Then it is pyproject.toml's configuration, with the contracts naming games after its own
    assert config["root_packages"][: len(static["root_packages"])] == static["root_packages"]
    assert config["contracts"][: len(static["contracts"])] == static["contracts"]
    by_type = {c["type"]: c for c in config["contracts"] if c["type"] != "forbidden"}
    games = sorted(packages.values())
    assert by_type["independence"]["modules"] == games
    layered = {part.strip() for layer in by_type["layers"]["layers"] for part in layer.replace(":", "|").split("|")}
    assert set(games) <= layered
    forbidden = [c for c in config["contracts"] if c["name"].startswith("Generic code imports no game")]
    assert len(forbidden) == 1 and forbidden[0]["forbidden_modules"] == games


def test_given_a_game_installed_from_another_distribution_when_rendered_then_its_package_joins_the_roots() -> None:
    static = {"root_packages": ["services", "events"], "contracts": []}
    config = tomllib.loads(render(static, [], ["acme_chess", "services.games.highcard"]))["tool"]["importlinter"]
    assert config["root_packages"] == ["services", "events", "acme_chess"]

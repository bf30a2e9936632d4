"""Generic code imports no game, and no game imports another, whichever games exist: a game is every package
under services/games/ (this test needs no update when another game is added)."""

from __future__ import annotations

import grimp


def _game_of(module: str) -> str | None:
    """The game package ``module`` belongs to (``services.games.shadow``), or None for generic code."""
    parts = module.split(".")
    if parts[:2] == ["services", "games"] and len(parts) > 2:
        return ".".join(parts[:3])
    return None


def _imports_across(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import whose importer and imported module belong to different games (or to none)."""
    return [
        f"{module} -> {imported}"
        for module in sorted(graph.modules)
        for imported in graph.find_modules_directly_imported_by(module)
        if _game_of(imported) is not None and _game_of(imported) != _game_of(module)
    ]


def test_given_the_import_graph_when_read_then_no_generic_module_and_no_other_game_imports_a_game() -> None:
    # Given every module of the service and which game, if any, each belongs to
    graph = grimp.build_graph("services", "events", "projections")
    games = {_game_of(m) for m in graph.modules} - {None}
    assert {"services.games.shadow", "services.games.barracks"} <= games
    # Then no module imports a module of a game other than its own (any chain from generic code or another game
    # into a game starts with such a direct import)
    assert not _imports_across(graph)

"""Generic code imports no game, whichever games exist: a game is every package under services/rules/ and
events/ that is not the contract's own (import-linter in pyproject.toml names today's game; this test needs no
update when another game is added)."""

from __future__ import annotations

import grimp

GENERIC_RULES = {"services.rules." + m for m in ("contract", "registry", "reference", "schemas", "clock", "fair")}
GENERIC_EVENTS = {"events.base", "events.schemas", "events.clock", "events.fair"}
MEASURING_TOOLS = {"services.bench"}
"""Packages that, like the tests, may measure a game's internals (a game's own bench section): not generic code."""


def _game_of(module: str) -> str | None:
    """The game package ``module`` belongs to (``services.rules.shadow``, ``events.shadow``), or None."""
    parts = module.split(".")
    if parts[:2] == ["services", "rules"] and len(parts) > 2 and ".".join(parts[:3]) not in GENERIC_RULES:
        return ".".join(parts[:3])
    if parts[0] == "events" and len(parts) > 1 and ".".join(parts[:2]) not in GENERIC_EVENTS:
        return ".".join(parts[:2])
    return None


def _measures(module: str) -> bool:
    """Whether ``module`` belongs to a measuring tool (:data:`MEASURING_TOOLS`)."""
    return any(module == tool or module.startswith(tool + ".") for tool in MEASURING_TOOLS)


def test_given_the_import_graph_when_generic_modules_are_read_then_none_imports_a_game() -> None:
    # Given every module of the service and which game, if any, each belongs to
    graph = grimp.build_graph("services", "events", "projections")
    games = {_game_of(m) for m in graph.modules} - {None}
    assert {"services.rules.shadow", "events.shadow"} <= games
    # Then no module outside the games imports a module of a game (any chain from generic code into a game
    # starts with such a direct import)
    found = [
        f"{module} -> {imported}"
        for module in sorted(graph.modules)
        if _game_of(module) is None and not _measures(module)
        for imported in graph.find_modules_directly_imported_by(module)
        if _game_of(imported) is not None
    ]
    assert not found, found

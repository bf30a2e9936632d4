"""The import-linter contracts that name games, generated from the installed games (``make lint``).

``python -m services.rules.import_contracts OUT`` writes OUT: the hand-written contracts of pyproject.toml's
``[tool.importlinter]`` (they name no game) followed by the contracts below, made from the ``throne.games``
entry points, so a game installed through its entry point is held to them without a line of configuration:

- the rules and messages of every game import no IO;
- generic code (every module of the service that is no game's) imports no game;
- no game imports another (import-linter's ``independence``);
- the layers, with every game in the game layer;
- a game's ``messages`` (``services/games/<game>/messages``) import nothing of the service, not even the game's
  rules.

A game's package is the one its entry point names (the entry point's module, or the package holding it):
``services.games.<game>`` for the games of this repository, anywhere for a game installed from elsewhere (its
top-level package then joins the root packages). Everything is read from the entry points and the file system:
no game is imported. The file is generated at each lint into the virtual environment (it follows
what is installed there, so it is never stale and never committed).
"""

from __future__ import annotations

import importlib.util
import json
import pkgutil
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from services.rules.registry import GROUP

ROOTS = ("services", "events", "projections")
IO_MODULES = (
    "redis", "fakeredis", "fastapi", "starlette", "uvicorn", "httpx", "websockets", "structlog",
    "services.bus", "services.store", "services.worker", "services.gateway", "services.log", "services.process",
    "projections",
)  # fmt: skip
"""What the rules and the messages never import: IO libraries and the service's IO layers."""
MEASURING_TOOLS = ("services.bench",)
"""Packages that, like the tests, measure games: a game's own benchmark section may reach into that game, so they
are no generic code (nothing of the service imports them but the command line)."""
GAME_PARTS = ("rules", "presentation", "bots")
"""The modules (or packages) of a game beside its ``messages``."""
GAMES_LAYER = "{games}"
LAYERS = (
    "services.cli",
    "services.cli_records : services.cli_dead_letters : services.chatbot",
    "services.serve : services.play : services.demo : services.bench : services.adjudicator : services.engine_demo",
    "services.gateway",
    "projections",
    "services.worker : services.bots.runner : services.bots.games : services.bots.moves : services.bots.__main__ : "
    "services.webhooks : services.timer",
    "services.process : services.metrics.endpoint : services.metrics.roles : services.metrics.collectors",
    "services.client",
    "services.store",
    "services.bus",
    "services.log : services.menus : services.metrics.catalog",
    "services.bots.kinds : services.rules.registry : services.rules.schemas",
    GAMES_LAYER,
    "services.bots.random_bot : services.bots.search",
    "services.rules.contract",
    "services.rules.clock : services.rules.fair",
    "events.schemas",
    "events.clock : events.fair",
    "events.base",
)
"""Top to bottom; a module imports only from its own layer (``:`` siblings, ``|`` independent ones) or below. The
placeholder is the game layer: every game's package, independent of each other (``|``)."""


def module_path(module: str) -> Path | None:
    """Where ``module`` lives: a package's folder or a module's file (None: no such module). Found on the file
    system from its root package, so that no game code runs."""
    root, *rest = module.split(".")
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    if (path / "__init__.py").is_file():
        return path
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def game_packages() -> dict[str, str]:
    """Each installed game's package, by game name (see the module's docstring)."""
    found: dict[str, str] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        module = point.value.split(":")[0].strip()
        path = module_path(module)
        found[point.name] = module if path is not None and path.is_dir() else module.rpartition(".")[0]
    return found


def generic_modules(games: Iterable[str]) -> list[str]:
    """The children of the root packages that belong to no game: a package holding a game is descended into."""
    games = set(games)
    out: list[str] = []

    def visit(package: str) -> None:
        path = module_path(package)
        assert path is not None and path.is_dir(), package
        for child in pkgutil.iter_modules([str(path)]):
            name = f"{package}.{child.name}"
            if name in games or name in MEASURING_TOOLS:
                continue
            if child.ispkg and any(game.startswith(name + ".") for game in games):
                visit(name)
            else:
                out.append(name)

    for root in ROOTS:
        visit(root)
    return sorted(out)


def generated_contracts(packages: Mapping[str, str]) -> list[dict[str, Any]]:
    """The contracts that name games, for games with these packages."""
    games = sorted(packages.values())
    generic = generic_modules(games)
    layers = [" | ".join(games) if layer == GAMES_LAYER else layer for layer in LAYERS]
    contracts: list[dict[str, Any]] = [
        {
            "name": "The rules (the contract, the registry, every game) and the messages import no IO",
            "type": "forbidden",
            "source_modules": ["services.rules", "events", *games],
            "forbidden_modules": list(IO_MODULES),
        },
        {
            "name": "Generic code imports no game: a game is reached through its entry point and the contract only",
            "type": "forbidden",
            "source_modules": generic,
            "forbidden_modules": games,
        },
        {"name": "No game imports another", "type": "independence", "modules": games},
        {
            "name": "Layers: no cycle between the command line, the IO shells, the bus and store, the rules and the "
            "messages; every game in the game layer",
            "type": "layers",
            "layers": layers,
        },
    ]
    for game in games:
        if module_path(f"{game}.messages") is None:
            continue
        own = [f"{game}.{part}" for part in GAME_PARTS if module_path(f"{game}.{part}") is not None]
        contracts.append(
            {
                "name": f"The messages of {game} import nothing of the service, not even the game's rules",
                "type": "forbidden",
                "source_modules": [f"{game}.messages"],
                "forbidden_modules": [*(m for m in generic if m.startswith("services.")), *own],
            }
        )
    return contracts


def render(static: Mapping[str, Any], contracts: Sequence[Mapping[str, Any]], games: Iterable[str] = ()) -> str:
    """An import-linter TOML configuration: ``static`` (pyproject.toml's ``[tool.importlinter]``) with its
    contracts, then ``contracts`` (JSON strings and lists of strings are TOML too); the top-level package of each
    of ``games`` joins the root packages."""
    lines = ["# Generated by `python -m services.rules.import_contracts` (make lint): do not edit.", ""]
    lines.append("[tool.importlinter]")
    settings = {key: value for key, value in static.items() if key != "contracts"}
    roots = list(settings.get("root_packages", ()))
    settings["root_packages"] = roots + sorted({g.split(".")[0] for g in games} - set(roots))
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    for contract in [*static.get("contracts", ()), *contracts]:
        lines += ["", "[[tool.importlinter.contracts]]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in contract.items()]
    return "\n".join(lines) + "\n"


def write(out: Path, pyproject: Path = Path("pyproject.toml")) -> None:
    """Write the whole configuration to ``out``."""
    static = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    out.parent.mkdir(parents=True, exist_ok=True)
    packages = game_packages()
    out.write_text(render(static, generated_contracts(packages), packages.values()), encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]))

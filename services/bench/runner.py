"""Running ``make bench``: the engine's sections, then the optional ones (the service's, the gateway's, ...,
the game's own), and the last line: one JSON object with every figure."""

from __future__ import annotations

import gc
import importlib
import platform
import sys
from typing import Any, TextIO

import orjson

from services.bench.context import Context, Section
from services.bench.engine import SECTIONS, section_engine_games, section_machine
from services.bench.instructions import section_engine_instructions
from services.rules.contract import GamePlugin
from services.rules.registry import default_game, get_game

# Modules whose ``SECTIONS`` (or ``bench(ctx)``) run after the engine's, in this order; a module that is missing
# (an install without it) is skipped.
OPTIONAL_SECTION_MODULES = (
    "services.bench.instructions",
    "services.bench.service",
    "services.bench.gateway",
    "services.bench.projections",
    "services.bench.webhooks",
    "services.bench.timer",
    "services.bench.peer",
)
# A game's own sections, by game name: they measure that game's internals (its bots), so they live here, in the
# measuring tool, not in the game (a game imports no benchmark).
GAME_SECTION_MODULES: dict[str, tuple[str, ...]] = {
    "shadow": ("services.bench.shadow_heuristic", "services.bench.shadow_search"),
    "barracks": ("services.bench.barracks",),
}


def _module_sections(name: str) -> list[Section]:
    """The sections of module ``name`` (its ``SECTIONS``, else its ``bench``); none when it is not installed."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return []
        raise
    sections = getattr(module, "SECTIONS", None)
    if sections is None and callable(getattr(module, "bench", None)):
        sections = [module.bench]
    return list(sections or [])


def optional_sections(game: GamePlugin | None = None) -> list[Section]:
    """Sections of the optional modules that exist (missing ones are skipped), then the game's own (its
    entry in ``GAME_SECTION_MODULES``, then ``GamePlugin.bench_sections``)."""
    found = [s for name in OPTIONAL_SECTION_MODULES for s in _module_sections(name)]
    if game is not None:
        found.extend(s for name in GAME_SECTION_MODULES.get(game.name, ()) for s in _module_sections(name))
        found.extend(game.bench_sections)
    return found


def run(ctx: Context, sections: list[Section] | None = None) -> dict[str, Any]:
    """Run the sections in order; a failing optional section is reported and skipped."""
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "game": ctx.game.name,
        "rules_version": ctx.rules.rules_version,
    }
    core = SECTIONS if sections is None else sections
    extra = optional_sections(ctx.game) if sections is None else []
    for section in core:
        figures.update(section(ctx))
    if "engine_games_per_s" in figures and figures.get("machine_python_mops"):
        # the engine's speed on this machine's Python: comparable between machines and runs (same run's figures)
        figures["engine_games_per_mops"] = round(figures["engine_games_per_s"] / figures["machine_python_mops"], 2)
        ctx.say(f"engine per machine: {figures['engine_games_per_mops']} games/s per million loop additions/s")
    for section in extra:
        try:
            figures.update(section(ctx))
        except Exception as exc:  # an unfinished service section must not hide the engine figures
            ctx.say(f"{section.__module__}.{section.__name__}: skipped ({type(exc).__name__}: {exc})")
    gc.unfreeze()
    return figures


def main(
    quick: bool = False,
    out: TextIO | None = None,
    game: str | None = None,
    engine: bool = False,
    instructions: bool = False,
) -> dict[str, Any]:
    """Print the figures of ``game`` (None: the default game), then the JSON line. ``quick``: small samples
    (seconds, for tests); ``engine``: only the machine and the engine's games (``engine_games_per_mops``);
    ``instructions``: those and the instructions per game of each game (callgrind, a few minutes)."""
    plugin = get_game(game or default_game())
    ctx = Context(game=plugin, games=3 if quick else 200, out=out or sys.stdout)
    sections = None
    if engine or instructions:
        sections = [section_machine, section_engine_games, *([section_engine_instructions] if instructions else [])]
    figures = run(ctx, sections)
    print(orjson.dumps(figures).decode(), file=ctx.out, flush=True)
    return figures

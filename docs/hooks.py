"""MkDocs hook: every installed game's rules reference and command reference are pages of the site.

The references live in the game packages, beside the rules they describe (a test keeps each one true to its
code), so the site must not hold a copy that could go stale. The hook asks the registry for the installed games
(the ``throne.games`` entry points, as the service does) and, for each game whose plug-in names a rules
reference, publishes that ``RULES.md`` and the ``COMMANDS.md`` beside it as ``games/<game>/RULES.md`` and
``games/<game>/COMMANDS.md``, and lists them under the nav's "Games" section. The two files link to each other
by their plain names, which still resolve there. A game installed later gets its pages with no change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from services.rules.registry import game_names, get_game

GAMES_SECTION = "Games"
"""The nav section (in mkdocs.yml) that the games' pages are appended to."""

REFERENCE_FILES = ("RULES.md", "COMMANDS.md")


@dataclass(frozen=True)
class GamePage:
    """One reference file of one game, and where the site publishes it."""

    game: str
    source: Path
    uri: str  # the page's path inside the site's docs_dir


def game_pages() -> list[GamePage]:
    """The reference files of every installed game, in game-name order (rules before commands)."""
    pages: list[GamePage] = []
    for name in game_names():
        reference = get_game(name).rules_reference
        if reference is None:
            continue
        for file_name in REFERENCE_FILES:
            source = reference.parent / file_name
            if source.is_file():
                pages.append(GamePage(game=name, source=source, uri=f"games/{name}/{file_name}"))
    return pages


def game_title(page: GamePage) -> str:
    """The game's title as its rules reference opens: "# Rules reference: <title> (throne referee)"."""
    first_line = page.source.read_text(encoding="utf-8").splitlines()[0] if page.source.stat().st_size else ""
    title = first_line.lstrip("#").strip()
    title = title.removeprefix("Rules reference:").strip()
    title = title.removesuffix("(throne referee)").strip()
    return title or page.game


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Append one nav entry per game (its rules and commands) to the "Games" section."""
    section = _games_section(config.nav or [])
    by_game: dict[str, list[GamePage]] = {}
    for page in game_pages():
        by_game.setdefault(page.game, []).append(page)
    for game, pages in by_game.items():
        rules = next((page for page in pages if page.uri.endswith("RULES.md")), pages[0])
        entries = [{_entry_label(page): page.uri} for page in pages]
        section.append({game_title(rules): entries})
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each game's reference files to the site, read from the game's package at every build."""
    for page in game_pages():
        files.append(File.generated(config, page.uri, abs_src_path=str(page.source)))
    return files


def _entry_label(page: GamePage) -> str:
    return "Rules reference" if page.uri.endswith("RULES.md") else "Command reference"


def _games_section(nav: list[Any]) -> list[Any]:
    for item in nav:
        if isinstance(item, dict) and GAMES_SECTION in item and isinstance(item[GAMES_SECTION], list):
            return item[GAMES_SECTION]
    raise ValueError(f"mkdocs.yml's nav has no {GAMES_SECTION!r} section for the games' reference pages")

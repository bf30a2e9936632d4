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

COMMANDS_FILE = "COMMANDS.md"
"""The command reference a game keeps beside its rules reference."""


@dataclass(frozen=True)
class GameReferences:
    """The reference files of one installed game, read from its package."""

    game: str
    rules: Path  # the plug-in's rules reference (RULES.md)
    commands: Path | None  # the COMMANDS.md beside it, if the game has one

    def pages(self) -> list[tuple[str, str, Path]]:
        """(nav label, page path inside the site, source file) of each page, rules first."""
        pages = [("Rules reference", f"games/{self.game}/{self.rules.name}", self.rules)]
        if self.commands is not None:
            pages.append(("Command reference", f"games/{self.game}/{self.commands.name}", self.commands))
        return pages

    def title(self) -> str:
        """The game's title as its rules reference opens: "# Rules reference: <title> (throne referee)"."""
        lines = self.rules.read_text(encoding="utf-8").splitlines()
        title = lines[0].lstrip("#").strip() if lines else ""
        title = title.removeprefix("Rules reference:").removesuffix("(throne referee)").strip()
        return title or self.game


def installed_references() -> list[GameReferences]:
    """The reference files of every installed game that names a rules reference, in game-name order."""
    found: list[GameReferences] = []
    for name in game_names():
        rules = get_game(name).rules_reference
        if rules is None:
            continue
        commands = rules.parent / COMMANDS_FILE
        found.append(GameReferences(game=name, rules=rules, commands=commands if commands.is_file() else None))
    return found


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Append one nav entry per game (its rules and command references) to the "Games" section."""
    section = _games_section(config.nav or [])
    for references in installed_references():
        section.append({references.title(): [{label: uri} for label, uri, _ in references.pages()]})
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each game's reference files to the site, read from the game's package at every build."""
    for references in installed_references():
        for _, uri, source in references.pages():
            files.append(File.generated(config, uri, abs_src_path=str(source)))
    return files


def _games_section(nav: list[Any]) -> list[Any]:
    for item in nav:
        if isinstance(item, dict) and isinstance(item.get(GAMES_SECTION), list):
            return item[GAMES_SECTION]
    raise ValueError(f"mkdocs.yml's nav has no {GAMES_SECTION!r} section for the games' reference pages")

"""The README and the docs site (docs/mkdocs.yml, docs/pages/) stay findable and true.

The README is the short entry point and the site holds the rest; the site's strict build refuses a broken link
or anchor (MkDocs' own validation, configured in docs/mkdocs.yml); the pages speak of the project, not of issue
numbers; and every repository path a page names exists, so a moved module shows up here as a page to fix.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from services.rules.registry import game_names, get_game

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = REPO / "docs" / "pages"
MKDOCS_CONFIG = REPO / "docs" / "mkdocs.yml"

README_MAX_LINES = 150

PLANNED_PATHS: set[str] = set()
"""Paths of the layout being moved in while these pages were written (the map of the code names them). Each one
comes off this list once it exists: a test below fails until it does."""

MADE_BY_TESTS = {"tests/gateway/screenshots/"}
"""Paths the pages name that a test run writes (git-ignored), not the repository."""

_PATH = re.compile(r"(?<![\w/.-])((?:services|events|projections|tests|deploy|docs|\.ci)/[A-Za-z0-9_./-]*)")
_PATTERN_CHARS = "<{*"  # `services/games/<game>/`, `throne:{sN}`, `events/schemas/*.json`: patterns, not paths
_ISSUE_NUMBER = re.compile(r"\[\d+/\d+\]|\bissue \d+\b", re.IGNORECASE)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def documents() -> list[Path]:
    """The README and every page of the site."""
    return [README, *sorted(PAGES.rglob("*.md"))]


def prose(text: str) -> str:
    """The text outside fenced code blocks (commands and examples there are not references to the tree)."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def named_paths(text: str) -> set[str]:
    """Every repository path the text names (in a code span or not), patterns left out."""
    found: set[str] = set()
    for match in _PATH.finditer(text):
        if text[match.end() : match.end() + 1] and text[match.end()] in _PATTERN_CHARS:
            continue
        found.add(match.group(1).rstrip("."))
    return found


def test_the_readme_is_a_short_entry_point_for_both_games() -> None:
    # given the README
    text = README.read_text(encoding="utf-8")
    # then it is short, names both games and the two commands, and links into the site
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "In the Shadow of the Emperor" in text and "The Barracks Emperors" in text
    assert "make demo" in text and "make test" in text
    assert "docs/pages/" in text


def test_the_readmes_links_lead_to_files_of_the_repository() -> None:
    # given the README's relative links
    targets = [target for target in _LINK.findall(README.read_text(encoding="utf-8")) if "://" not in target]
    # then each one names a file of the repository
    assert targets
    assert [target for target in targets if not (REPO / target).is_file()] == []


def test_no_page_speaks_of_issue_numbers() -> None:
    # given the README and the site's pages
    # when they are searched for issue references ("issue 7", "[7/7]")
    found = {
        str(path.relative_to(REPO)): _ISSUE_NUMBER.findall(path.read_text(encoding="utf-8")) for path in documents()
    }
    # then there is none
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_every_path_the_docs_name_exists() -> None:
    # given every repository path the README and the pages name
    named: dict[str, set[str]] = {}
    for path in documents():
        for name in named_paths(prose(path.read_text(encoding="utf-8"))):
            named.setdefault(name, set()).add(str(path.relative_to(REPO)))
    # then each exists (or is planned, or written by the tests)
    missing = {
        name: sorted(pages)
        for name, pages in named.items()
        if name not in PLANNED_PATHS | MADE_BY_TESTS and not (REPO / name).exists()
    }
    assert missing == {}


def test_planned_paths_come_off_the_list_once_they_exist() -> None:
    # given the paths of the layout being moved in
    # then none of them exists yet: one that does is an ordinary path now, checked like the others
    assert sorted(path for path in PLANNED_PATHS if (REPO / path).exists()) == []


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    # given the site's configuration, which makes broken links and anchors warnings, and a strict build
    # when the site is built (as `make docs` does, into a directory of its own)
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(MKDOCS_CONFIG), "-d", str(tmp_path)]
    build = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=300)
    # then it succeeds, with a rules reference page for every installed game that has one (the hook's)
    assert build.returncode == 0, build.stderr
    assert (tmp_path / "index.html").is_file()
    published = {path.parent.name for path in tmp_path.glob("games/*/RULES.html")}
    assert published == {name for name in game_names() if get_game(name).rules_reference is not None}

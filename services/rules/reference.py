"""A game's rules reference as data: each ruling id with its title and text, read from the game's RULES.md.

A ruling entry is a Markdown list item that opens with the id in bold, with or without a title in the same bold
span, and goes on over the indented lines below it::

    - **X4 Empty throne.** When a player must put a tile on the throne ...
      ... continued here.
    - **KX5** Because a seat without a possible play passes automatically ...

Nothing else of the file is read as an entry: bracketed citations (``[B1]``) only refer to entries. The text
is the project's own (RULES.md copies no rulebook text); the audit and the gateway's rules route show it for
every id an event or a refusal cites. A file is parsed once per process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

ENTRY = re.compile(r"^- \*\*(?P<id>[A-Z]+[0-9]+)(?:\s+(?P<title>[^*]+?))?\*\*\s*(?P<text>.*)$")
"""The first line of a ruling entry: ``- **<id>[ <title>]** <text>``."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """One ruling of a game's rules reference: its id, a short title (may be empty) and its text."""

    id: str
    title: str
    text: str

    def sentence(self) -> str:
        """The ruling in one line: ``"<id> <title>: <text>"`` (``"<id>: <text>"`` without a title)."""
        head = f"{self.id} {self.title}" if self.title else self.id
        return f"{head}: {self.text}"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready."""
        return {"id": self.id, "title": self.title, "text": self.text}


def parse_reference(markdown: str) -> dict[str, Ruling]:
    """Every ruling entry of a rules reference, by id, in file order (a repeated id keeps its first entry)."""
    out: dict[str, Ruling] = {}
    current: list[str] | None = None
    head: tuple[str, str] | None = None

    def close() -> None:
        if head is not None and current is not None and head[0] not in out:
            out[head[0]] = Ruling(head[0], head[1], " ".join(part for part in current if part).strip())

    for line in markdown.splitlines():
        match = ENTRY.match(line)
        if match is not None:
            close()
            title = (match.group("title") or "").strip().rstrip(".").strip()
            head, current = (match.group("id"), title), [match.group("text").strip()]
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line.strip())
        else:
            close()
            head, current = None, None
    close()
    return out


@lru_cache(maxsize=16)
def _load(path: Path) -> Mapping[str, Ruling]:
    return MappingProxyType(parse_reference(path.read_text(encoding="utf-8")))


def load_reference(path: Path | None) -> Mapping[str, Ruling]:
    """The rulings of the reference at ``path`` (empty when the game has none), parsed once per process."""
    if path is None:
        return MappingProxyType({})
    return _load(path.resolve())


def ruling_texts(reference: Mapping[str, Ruling], ids: Iterable[str]) -> list[dict[str, str]]:
    """The entries of ``ids`` in order, JSON-ready; an id the reference lacks gets an empty title and the text
    ``"(not in the rules reference)"``, so a gap shows instead of vanishing."""
    out = []
    for rid in ids:
        ruling = reference.get(rid)
        out.append(ruling.to_dict() if ruling is not None else {"id": rid, "title": "", "text": MISSING})
    return out


MISSING = "(not in the rules reference)"
"""The text shown for a cited id the game's rules reference lacks."""

"""What one typed line asks for, given the seat's menu (the chat surface's and ``throne play``'s parsing).

A chat-bot developer relays one line from their chat platform; a terminal player types one. The line is, in
this order:

* a word that only looks: empty, ``board``, ``menu``, ``help``, ``?`` (the board and the top of the menu);
* ``more`` (the next page of the listing shown last) or ``back`` (the listing above it);
* a move's number (``3``, ``#3``, ``3.``);
* a group's key (``C``, ``C.2``: shown in the menu before each group of moves), which opens that group;
* a short phrase: the move whose label is exactly the phrase, else the group whose title is, else the one move
  whose label contains the phrase, else the one containing all of its words (in any order); failing that (none
  or several), the one group whose titles hold all the words and every move the phrase names ("permit koln"
  opens "Permit > Köln"). Phrases ignore case and accents ("koln" finds "Köln").

A phrase that names several moves is ``ambiguous_choice`` (with the candidates), one that names none
``no_match``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from services.menus.menu import LEVEL, Menu

SHOW_WORDS = frozenset({"", "board", "menu", "help", "?", "show", "look", "top", "start"})
HELP_WORDS = frozenset({"help", "?"})
MORE_WORDS = frozenset({"more", "next", "+", ">", "..."})
BACK_WORDS = frozenset({"back", "up", "<"})
_NUMBER = re.compile(r"^#?\s*(\d{1,6})\s*[.)]?$")
_KEY = re.compile(r"^[a-z]{1,2}(?:\.\d{1,3})*\.?$")
_SPACES = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
"""Typographic apostrophes (phones type them) read as plain ones."""
AMBIGUOUS = "ambiguous_choice"
"""The code of a line that names several moves."""
NO_MATCH = "no_match"
"""The code of a line that names no move."""


class ChatError(Exception):
    """A line that picks no single move: ``code`` is ``no_match`` or ``ambiguous_choice``."""

    def __init__(self, code: str, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.candidates = candidates


@dataclass(frozen=True)
class Choice:
    """What a line asks: only look (``show``, ``help``), page (``more``, ``back``), open a group (``open`` with
    its ``key``), or play the move numbered ``number`` (``play``)."""

    kind: Literal["show", "help", "more", "back", "open", "play"]
    key: str = ""
    number: int = 0


def normalize(text: str) -> str:
    """Text for matching: accents dropped (NFKD, combining marks removed), case folded, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_QUOTES))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SPACES.sub(" ", plain.casefold().strip())


def menu(labels: Sequence[str]) -> list[str]:
    """``["1. first label", "2. second label", ...]``."""
    return [f"{i}. {label}" for i, label in enumerate(labels, start=1)]


def pick(text: str, labels: Sequence[str]) -> int | None:
    """The 0-based index of the move ``text`` picks among ``labels`` (a plain list, no groups), or None when it
    only asks to look. Raises :class:`ChatError` (``no_match``, ``ambiguous_choice``)."""
    choice = interpret(text, Menu(labels, [("Moves", list(range(len(labels))))]))
    return choice.number - 1 if choice.kind == "play" else None


def interpret(text: str, chat_menu: Menu) -> Choice:
    """What ``text`` asks of ``chat_menu`` (see the module docstring); raises :class:`ChatError`."""
    phrase = normalize(text)
    if phrase in SHOW_WORDS:
        return Choice("help" if phrase in HELP_WORDS else "show")
    if phrase in MORE_WORDS:
        return Choice("more")
    if phrase in BACK_WORDS:
        return Choice("back")
    lines = chat_menu.lines()
    number = _NUMBER.match(phrase)
    if number is not None:
        n = int(number.group(1))
        if 1 <= n <= len(chat_menu):
            return Choice("play", number=n)
        span = f"1 to {len(chat_menu)}" if len(chat_menu) else "none: nothing to do now"
        raise ChatError(NO_MATCH, f"there is no move {n} (moves: {span})", lines)
    if _KEY.match(phrase) and chat_menu.group(phrase.rstrip(".")) is not None:
        return Choice("open", key=chat_menu.group(phrase.rstrip(".")).key)  # type: ignore[union-attr]
    labels = [normalize(label) for label in chat_menu.labels]
    exact = [i for i, label in enumerate(labels) if label == phrase]
    if len(exact) == 1:
        return Choice("play", number=exact[0] + 1)
    groups = chat_menu.groups()
    titles = [normalize(group.title.split(LEVEL)[-1]) for group in groups]
    named = [g for g, title in zip(groups, titles, strict=True) if title == phrase]
    if len(named) == 1:
        return Choice("open", key=named[0].key)
    hits = [i for i, label in enumerate(labels) if phrase in label]
    if not hits:
        words = phrase.split(" ")
        hits = [i for i, label in enumerate(labels) if all(w in label for w in words)]
    if len(hits) == 1:
        return Choice("play", number=hits[0] + 1)
    words = phrase.split(" ")
    paths = [g for g in groups if all(w in normalize(g.path) for w in words)]
    narrower = len(paths) == 1 and paths[0].size < len(chat_menu)  # a group that narrows the choice
    if narrower and (not hits or set(hits) <= {n - 1 for n in paths[0].all_numbers()}):
        return Choice("open", key=paths[0].key)
    if not hits:
        raise ChatError(NO_MATCH, f"no move matches {text.strip()!r}; send a number from the menu", lines)
    raise ChatError(
        AMBIGUOUS,
        f"{len(hits)} moves match {text.strip()!r}; send the number of one of them",
        [lines[i] for i in hits],
    )

"""What one typed line asks for, given the seat's menu (the chat surface's and ``throne play``'s parsing).

A chat-bot developer relays one line from their chat platform; a terminal player types one. The line is, in
this order:

* a word that only looks: empty, ``board``, ``menu``, ``help``, ``?`` (the board and the top of the menu);
* ``more`` (the next page of the listing shown last) or ``back`` (the listing above it);
* a move's number (``3``, ``#3``, ``3.``);
* a group's key (``C``, ``C.2``: shown in the menu before each group of moves), which opens that group;
* a short phrase: the move whose label is exactly the phrase, else the group whose title is, else the one move
  whose label contains the phrase, else the one containing all of its words (in any order), each found at the
  start of a word ("kol" finds "Köln", "x" finds nothing in "Saxony"); failing that (none
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

from services.menus.menu import LEVEL, Menu, Node

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


def interpret(text: str, chat_menu: Menu, within: str = "") -> Choice:
    """What ``text`` asks of ``chat_menu`` (see the module docstring); raises :class:`ChatError`.

    ``within``: the key of the group the reader was shown last. A phrase that picks nothing in the whole menu
    (none, or several) is tried once more among that group's moves and subgroups only: after opening "Move a
    knight", "mainz" opens its Mainz group although other groups are called Mainz too."""
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
    everything = list(range(1, len(chat_menu) + 1))
    try:
        return _phrase(text, phrase, chat_menu, everything, chat_menu.groups())
    except ChatError:
        scope = chat_menu.group(within) if within else None
        if scope is None or scope is chat_menu.root:
            raise
        try:
            return _phrase(text, phrase, chat_menu, scope.all_numbers(), _descendants(scope))
        except ChatError:
            pass
        raise


def _descendants(node: Node) -> list[Node]:
    out = []
    for child in node.children:
        if child.key and child.key != node.key:
            out.append(child)
        out.extend(_descendants(child))
    return out


def _phrase(text: str, phrase: str, chat_menu: Menu, numbers: list[int], groups: list[Node]) -> Choice:
    """The move or group ``phrase`` names among the moves ``numbers`` and the ``groups`` (see the module
    docstring for the order of the tries)."""
    lines = chat_menu.lines()
    labels = {n: normalize(chat_menu.labels[n - 1]) for n in numbers}
    exact = [n for n, label in labels.items() if label == phrase]
    if len(exact) == 1:
        return Choice("play", number=exact[0])
    titles = [normalize(group.title.split(LEVEL)[-1]) for group in groups]
    named = [g for g, title in zip(groups, titles, strict=True) if title == phrase]
    if len(named) == 1:
        return Choice("open", key=named[0].key)
    hits = [n for n, label in labels.items() if _starts_words(phrase, label)]
    if not hits:
        words = phrase.split(" ")
        hits = [n for n, label in labels.items() if all(_starts_words(w, label) for w in words)]
    if len(hits) == 1:
        return Choice("play", number=hits[0])
    words = phrase.split(" ")
    paths = [g for g in groups if all(w in normalize(g.path) for w in words)]
    narrower = len(paths) == 1 and paths[0].size < len(numbers)  # a group that narrows the choice
    if narrower and (not hits or set(hits) <= set(paths[0].all_numbers())):
        return Choice("open", key=paths[0].key)
    if not hits:
        raise ChatError(NO_MATCH, f"no move matches {text.strip()!r}; send a number from the menu", lines)
    raise ChatError(
        AMBIGUOUS,
        f"{len(hits)} moves match {text.strip()!r}; send the number of one of them",
        [lines[n - 1] for n in hits],
    )


def _starts_words(phrase: str, label: str) -> bool:
    """Whether ``phrase`` occurs in ``label`` starting at the start of a word ("kol" and "koln" in "... in
    koln", never "x" in "saxony": a stray letter picks no move)."""
    start = label.find(phrase)
    while start >= 0:
        if start == 0 or not label[start - 1].isalnum():
            return True
        start = label.find(phrase, start + 1)
    return False

"""The chat surface's parsing: a numbered menu of legal moves, and picking one from a line of text.

A chat-bot developer relays one line from their chat platform; the gateway answers with the board as text and
the menu. The line is a number (``3``, ``#3``, ``3.``), or a short phrase that picks the one menu item whose
label contains it (case-insensitive; failing that, the one containing all of its words), or a word that only
shows the board (empty, ``board``, ``menu``, ``help``, ``?``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from services.gateway.errors import AMBIGUOUS, NO_MATCH

SHOW_WORDS = frozenset({"", "board", "menu", "help", "?", "show", "look"})
_NUMBER = re.compile(r"^#?\s*(\d{1,6})\s*[.)]?$")
_SPACES = re.compile(r"\s+")


class ChatError(Exception):
    """A line that picks no single move: ``code`` is ``no_match`` or ``ambiguous_choice``."""

    def __init__(self, code: str, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.candidates = candidates


def menu(labels: Sequence[str]) -> list[str]:
    """``["1. first label", "2. second label", ...]``."""
    return [f"{i}. {label}" for i, label in enumerate(labels, start=1)]


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text.strip().lower())


def pick(text: str, labels: Sequence[str]) -> int | None:
    """The 0-based index of the move ``text`` picks among ``labels``, or None when it only asks to look.

    Raises :class:`ChatError` when the text names no move (``no_match``) or several (``ambiguous_choice``,
    with the candidates as numbered menu lines).
    """
    phrase = _norm(text)
    if phrase in SHOW_WORDS:
        return None
    numbered = menu(labels)
    number = _NUMBER.match(phrase)
    if number is not None:
        n = int(number.group(1))
        if 1 <= n <= len(labels):
            return n - 1
        span = f"1 to {len(labels)}" if labels else "none: nothing to do now"
        raise ChatError(NO_MATCH, f"there is no move {n} (moves: {span})", numbered)
    normalized = [_norm(label) for label in labels]
    exact = [i for i, label in enumerate(normalized) if label == phrase]
    if len(exact) == 1:
        return exact[0]
    hits = [i for i, label in enumerate(normalized) if phrase in label]
    if not hits:
        words = phrase.split(" ")
        hits = [i for i, label in enumerate(normalized) if all(w in label for w in words)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise ChatError(NO_MATCH, f"no move matches {text.strip()!r}; send a number from the menu", numbered)
    raise ChatError(
        AMBIGUOUS,
        f"{len(hits)} moves match {text.strip()!r}; send the number of one of them",
        [numbered[i] for i in hits],
    )

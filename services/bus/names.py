"""Player names: what a game may be created with.

A name is shown to every other player, written into boards, logs and chat replies, so it is checked where a game
is created (the client library's envelope, hence the rules worker too, and the gateway's request body):

* surrounding whitespace is trimmed; what is left is 1 to :data:`MAX_NAME` characters;
* printable characters only: no control characters (NUL, ESC and so no ANSI escape sequences, newlines, tabs),
  no invisible format characters (bidirectional overrides, zero-width joiners), no separators but the space;
* unique within the game, ignoring case and compatibility forms (``Ann``, ``ANN`` and ``Ann`` in full-width
  letters are one name).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Annotated

from pydantic import AfterValidator

MAX_NAME = 32
"""Longest player name, in characters."""


def check_player_names(names: Sequence[str]) -> list[str]:
    """The names trimmed, or ValueError naming the first one that breaks a rule (see the module docstring)."""
    trimmed: list[str] = []
    seen: dict[str, int] = {}
    for seat, raw in enumerate(names):
        if not isinstance(raw, str):
            raise ValueError(f"player {seat}: a name is a string")
        name = raw.strip()
        if not 1 <= len(name) <= MAX_NAME:
            raise ValueError(f"player {seat}: a name has 1 to {MAX_NAME} characters (besides surrounding spaces)")
        if not name.isprintable():
            raise ValueError(f"player {seat}: a name has printable characters only (no control or format characters)")
        key = unicodedata.normalize("NFKC", name).casefold()
        if key in seen:
            raise ValueError(f"player {seat}: the name {name!r} is taken by player {seen[key]} (names are unique)")
        seen[key] = seat
        trimmed.append(name)
    return trimmed


PlayerNames = Annotated[list[str], AfterValidator(check_player_names)]
"""A list of player names, checked and trimmed by pydantic (for models at the edges)."""

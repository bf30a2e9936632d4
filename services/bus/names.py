"""Player names: what a game may be created with.

A name is shown to every other player, written into boards, logs and chat replies, so it is checked where a game
is created (the client library's envelope, hence the rules worker too, and the gateway's request body):

* surrounding whitespace is trimmed; what is left is 1 to :data:`MAX_NAME` characters;
* printable characters only: no control characters (NUL, ESC and so no ANSI escape sequences, newlines, tabs),
  no invisible format characters (bidirectional overrides, zero-width joiners), no separators but the space;
* unique within the game, ignoring case and compatibility forms (``Ann``, ``ANN`` and ``Ann`` in full-width
  letters are one name).

A name is only shown: who a seat is across games is its optional stable player id (:func:`check_player_ids`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
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


def _class_of(wanted: Callable[[str], bool]) -> str:
    """A regular-expression character class of every code point ``wanted`` holds for (by Python's Unicode
    database, the one :func:`check_player_names` uses): BMP ones escaped as ``\\uXXXX``, others literal."""
    ranges: list[tuple[int, int]] = []
    for cp in range(0x110000):
        if wanted(chr(cp)):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))

    def one(cp: int) -> str:
        return f"\\u{cp:04x}" if cp <= 0xFFFF else chr(cp)

    return "[" + "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges) + "]"


@functools.cache
def name_pattern() -> str:
    """The regular expression of one acceptable player name (for the OpenAPI document): any surrounding
    whitespace, then 1 to :data:`MAX_NAME` printable characters that neither start nor end with a space. What
    it can not say: that the names of one game differ ignoring case."""
    shown = _class_of(lambda c: c.isprintable() and not c.isspace())
    blank = _class_of(str.isspace)
    return f"^{blank}*{shown}(?:(?:{shown}| ){{0,{MAX_NAME - 2}}}{shown})?{blank}*$"


PlayerNames = Annotated[list[str], AfterValidator(check_player_names)]
"""A list of player names, checked and trimmed by pydantic (for models at the edges)."""


# --- player ids ---------------------------------------------------------------------------------------------
PLAYER_ID_RE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
"""A stable player id: 1 to 64 characters of ``[A-Za-z0-9_.:-]`` (an account id, ``discord:1234``, ...); the
whole id must match (``fullmatch``)."""


def check_player_ids(ids: Sequence[str | None]) -> list[str | None]:
    """The ids unchanged, or ValueError naming the first seat whose id breaks a rule.

    A player id says who sits at a seat across games (the leaderboard counts a person's games under it); the
    display name is only shown. Each entry is an id (:data:`PLAYER_ID_RE`, unique within the game, compared
    exactly) or None for a seat without one. Ids are not secrets: they are stored in the game's metadata and
    shown on the leaderboard."""
    seen: dict[str, int] = {}
    for seat, pid in enumerate(ids):
        if pid is None:
            continue
        if not isinstance(pid, str) or not PLAYER_ID_RE.fullmatch(pid):
            raise ValueError(f"player_ids[{seat}]: a player id is 1 to 64 characters of A-Z a-z 0-9 _ . : - (or null)")
        if pid in seen:
            raise ValueError(f"player_ids[{seat}]: the id {pid!r} is taken by seat {seen[pid]} (ids are unique)")
        seen[pid] = seat
    return list(ids)


PlayerIds = Annotated[list[str | None], AfterValidator(check_player_ids)]
"""A list of player ids (or None per seat), checked by pydantic (for models at the edges)."""

"""Names of the board in words, shared by labels, event words and prompts: ``koeln`` is "Köln",
``mainz.aristocrat.2`` is "aristocrat space 3 of Mainz" (spaces count from 1 in words, from 0 in ids)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

SHORT_NAMES = {
    "mainz": "Mainz",
    "koeln": "Köln",
    "trier": "Trier",
    "palatinate": "the Palatinate",
    "saxony": "Saxony",
    "brandenburg": "Brandenburg",
    "bohemia": "Bohemia",
}


def electorate_name(key: str | None) -> str:
    """The short name of an electorate key (``koeln`` -> ``Köln``)."""
    if key is None:
        return "no electorate"
    return SHORT_NAMES.get(key, key)


@lru_cache(maxsize=1024)
def space_name(space: str | None) -> str:
    """A space id in words: ``mainz.aristocrat.2`` -> ``aristocrat space 3 of Mainz``."""
    if space is None:
        return "no space"
    if space == "throne":
        return "the throne"
    if space == "aside":
        return "the side of the board"
    parts = space.split(".")
    where = electorate_name(parts[0])
    if len(parts) == 1:
        return where
    if len(parts) == 2:
        return {"elector": f"the elector seat of {where}", "eminence": f"the Gray eminence slot of {where}"}.get(
            parts[1], f"{parts[1]} of {where}"
        )
    kind, number = parts[1], int(parts[2]) + 1 if parts[2].isdigit() else parts[2]
    return f"{kind} space {number} of {where}"


def electorate_of_space(space: str | None) -> str | None:
    """The electorate key a space id lies in (None: the throne, the side of the board, no space)."""
    if not space or space in ("throne", "aside"):
        return None
    return space.split(".", 1)[0]


def names_list(names: Sequence[str], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"

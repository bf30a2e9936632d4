"""Board layout: named spaces in a flat index, built from the data file or from a recorded layout."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

ELECTORATE_KEYS = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")
AGES = (15, 25, 35, 45)

# Space kinds.
THRONE = "throne"
ASIDE = "aside"
ELECTOR = "elector"
EMINENCE = "eminence"
ARISTOCRAT = "aristocrat"
CASTLE = "castle"
CITY = "city"


@dataclass(frozen=True, slots=True)
class Space:
    """One space of the board: its id (``"mainz.aristocrat.2"``), electorate index (-1: none) and kind."""

    id: str
    electorate: int
    kind: str
    index: int


@dataclass(frozen=True, slots=True)
class ElectorateInfo:
    key: str
    name: str
    spiritual: bool
    elector: int
    eminence: int
    aristocrats: tuple[int, ...]
    castles: tuple[int, ...]
    cities: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardInfo:
    key: str
    colour: str
    cost: int
    count: tuple[int, int, int]  # 4, 3, 2 players

    def stack_size(self, players: int) -> int:
        """Cards of this type in play for a number of players (B5)."""
        return self.count[4 - players]


@dataclass(frozen=True, slots=True)
class Layout:
    """The whole board: every space in one flat tuple plus per-electorate indexes."""

    spaces: tuple[Space, ...]
    electorates: tuple[ElectorateInfo, ...]
    cards: dict[str, CardInfo]
    constants: dict[str, int]
    by_id: dict[str, int]
    throne: int
    aside: int

    def space_index(self, space_id: str) -> int | None:
        """Index of a space id, None if unknown."""
        return self.by_id.get(space_id)

    def to_record(self) -> dict[str, Any]:
        """The layout as recorded in GameStarted (so a game replays on the board it was started with)."""
        return {
            "electorates": [
                {
                    "key": e.key,
                    "name": e.name,
                    "spiritual": e.spiritual,
                    "aristocrat_spaces": len(e.aristocrats),
                    "castle_spaces": len(e.castles),
                    "city_spaces": len(e.cities),
                }
                for e in self.electorates
            ],
            "cards": {k: {"colour": c.colour, "cost": c.cost, "count": list(c.count)} for k, c in self.cards.items()},
            "rules": dict(self.constants),
        }


def build_layout(record: dict[str, Any]) -> Layout:
    """A layout from its record (the data file's shape, or the copy in GameStarted)."""
    spaces: list[Space] = [Space(THRONE, -1, THRONE, 0), Space(ASIDE, -1, ASIDE, 0)]
    electorates: list[ElectorateInfo] = []
    for e_index, e in enumerate(record["electorates"]):
        key = e["key"]

        def add(kind: str, i: int, key: str = key, e_index: int = e_index) -> int:
            sid = f"{key}.{kind}" if kind in (ELECTOR, EMINENCE) else f"{key}.{kind}.{i}"
            spaces.append(Space(sid, e_index, kind, i))
            return len(spaces) - 1

        elector = add(ELECTOR, 0)
        eminence = add(EMINENCE, 0)
        aristocrats = tuple(add(ARISTOCRAT, i) for i in range(e["aristocrat_spaces"]))
        castles = tuple(add(CASTLE, i) for i in range(e["castle_spaces"]))
        cities = tuple(add(CITY, i) for i in range(e["city_spaces"]))
        electorates.append(
            ElectorateInfo(key, e["name"], bool(e["spiritual"]), elector, eminence, aristocrats, castles, cities)
        )
    cards = {
        k: CardInfo(k, c["colour"], int(c["cost"]), tuple(c["count"]))  # type: ignore[arg-type]
        for k, c in record["cards"].items()
    }
    return Layout(
        spaces=tuple(spaces),
        electorates=tuple(electorates),
        cards=cards,
        constants={k: int(v) for k, v in record["rules"].items()},
        by_id={s.id: i for i, s in enumerate(spaces)},
        throne=0,
        aside=1,
    )


@cache
def default_layout_record() -> dict[str, Any]:
    """The record of the board data file ``board.toml``."""
    text = resources.files(__package__).joinpath("board.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    return {"electorates": data["electorate"], "cards": data["cards"], "rules": data["rules"]}


_LAYOUTS: dict[bytes, Layout] = {}


def layout_from_record(record: dict[str, Any]) -> Layout:
    """Memoized :func:`build_layout` (a layout is immutable; games share it)."""
    import orjson

    key = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = _LAYOUTS[key] = build_layout(record)
    return layout

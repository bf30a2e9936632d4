"""Integer-coded components and board, precomputed once from the data file (board.toml) [K1-K9].

The rules core never handles strings in its hot loops: influence spaces, Emperor spaces, cards and Emperors are
small integers, and every relation the rules ask about (the sides of an Emperor, the Emperors a space touches, the
diagonal neighbours, a card's suit, value and ability) is a tuple lookup here. Strings appear only in events.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

DATA_FILE = Path(__file__).with_name("board.toml")

FACTIONS = ("north", "east", "south", "west")  # K10, clockwise
NORTH, EAST, SOUTH, WEST = range(4)
SUITS = ("red", "blue", "yellow")  # K1 (Military, Senate, Populace); an Emperor's colour is one of them [K4]
NO_SUIT = -1

# Abilities (K1): the engine knows what each does; the data file says which card has which.
ABILITIES = (
    "reinforcements", "castra", "cavalry", "flanking_maneuver", "force_march", "praetorian_guard", "spiculum",
    "influence_peddling", "tribute", "princeps_senatus", "foederati", "frumentarii", "damnatio_memoriae", "triumph",
    "popularity", "quaestor", "ambitus", "mob", "mobile_vulgus", "pretender", "demagogue",
)  # fmt: skip
(
    REINFORCEMENTS, CASTRA, CAVALRY, FLANKING, FORCE_MARCH, PRAETORIAN, SPICULUM,
    PEDDLING, TRIBUTE, PRINCEPS, FOEDERATI, FRUMENTARII, DAMNATIO, TRIUMPH,
    POPULARITY, QUAESTOR, AMBITUS, MOB, MOBILE_VULGUS, PRETENDER, DEMAGOGUE,
) = range(len(ABILITIES))  # fmt: skip
BARBARIAN = -1  # the "ability" of a barbarian card: none (K3)
COUNTER_ABILITIES = frozenset({REINFORCEMENTS, PEDDLING, POPULARITY})  # K2, K18
ALWAYS_ON = frozenset({CASTRA, CAVALRY, QUAESTOR, AMBITUS})  # K17
PLACEMENT_ABILITIES = frozenset({FORCE_MARCH, PRAETORIAN, FOEDERATI, TRIUMPH})  # K16, K35
NO_TARGET_ABILITIES = frozenset({PRINCEPS, FRUMENTARII, DEMAGOGUE})  # "use" names no target (K21)


class Tables:
    """Every precomputed index of one data record. Built once per distinct record (cached); read-only."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.version: str = record["version"]
        board = record["board"]
        size = int(board["size"])
        cells = [(r, c) for r in range(size) for c in range(size)]
        # Emperor spaces in row-major order: the lowest index is the lowest row, then the lowest column [K22, K43].
        emp_rc = [rc for rc in cells if (rc[0] + rc[1]) % 2 == 0]
        inner = [rc for rc in cells if (rc[0] + rc[1]) % 2 == 1]
        outer = [tuple(rc) for rc in board["outer_spaces"]]
        space_rc = sorted(inner + outer)  # row-major, outer spaces included
        self.size = size
        self.emp_rc: tuple[tuple[int, int], ...] = tuple(emp_rc)
        self.space_rc: tuple[tuple[int, int], ...] = tuple(space_rc)  # type: ignore[arg-type]
        self.emp_ids: tuple[str, ...] = tuple(_rc_id(rc) for rc in emp_rc)
        self.space_ids: tuple[str, ...] = tuple(_rc_id(rc) for rc in space_rc)
        self.emp_at = {rc: i for i, rc in enumerate(emp_rc)}
        self.space_at = {rc: i for i, rc in enumerate(space_rc)}
        self.emp_index = {sid: i for i, sid in enumerate(self.emp_ids)}
        self.space_index = {sid: i for i, sid in enumerate(self.space_ids)}
        self.n_spaces = len(space_rc)
        self.n_emp_spaces = len(emp_rc)

        # K6: the four sides (N, E, S, W) of each Emperor space, and the (Emperor space, faction) pairs of a space.
        sides: list[tuple[int, ...]] = []
        for r, c in emp_rc:
            around = ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1))
            sides.append(tuple(self.space_at[rc] for rc in around))
        self.sides: tuple[tuple[int, ...], ...] = tuple(sides)
        sides_of: list[list[tuple[int, int]]] = [[] for _ in space_rc]
        for e, four in enumerate(sides):
            for faction, s in enumerate(four):
                sides_of[s].append((e, faction))
        self.sides_of: tuple[tuple[tuple[int, int], ...], ...] = tuple(tuple(x) for x in sides_of)
        self.touches: tuple[tuple[int, ...], ...] = tuple(tuple(e for e, _ in x) for x in sides_of)
        self.touch_mask: tuple[int, ...] = tuple(sum(1 << e for e in x) for x in self.touches)
        # Per faction: (space, Emperor space) for every side of that faction [K10].
        self.faction_sides: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((four[f], e) for e, four in enumerate(sides)) for f in range(4)
        )
        step = int(board["diagonal_step"])
        self.diagonal: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                self.space_at[(r + dr, c + dc)]
                for dr in (-step, step)
                for dc in (-step, step)
                if (r + dr, c + dc) in self.space_at
            )
            for r, c in space_rc
        )  # K7
        self.homelands: tuple[int, ...] = tuple(self.space_at[tuple(rc)] for rc in board["homelands"])  # K8
        self.is_homeland = tuple(s in self.homelands for s in range(self.n_spaces))
        self.starting_spaces: tuple[int, ...] = tuple(self.space_at[tuple(rc)] for rc in board["starting_barbarians"])
        rr, rc0 = board["roma"]
        self.roma = self.emp_at[(rr, rc0)]
        # K41: distance to Roma, ties by lowest row then lowest column (space indices are row-major).
        self.roma_key = tuple((abs(r - rr) + abs(c - rc0), s) for s, (r, c) in enumerate(space_rc))

        # Cards: influence cards 0..41 in data order, then barbarians [K1, K3].
        cards = record["cards"]
        barbarians = record["barbarians"]
        self.n_influence = len(cards)
        self.n_barbarians = int(barbarians["count"])
        self.n_cards = self.n_influence + self.n_barbarians
        self.barbarians_starting = int(barbarians["starting"])
        self.barbarians_in_box = int(barbarians["holding_box"])
        ids = [c["id"] for c in cards] + [f"barbarian-{i + 1:02d}" for i in range(self.n_barbarians)]
        self.card_ids: tuple[str, ...] = tuple(ids)
        self.card_index = {cid: i for i, cid in enumerate(ids)}
        pad = (0,) * self.n_barbarians
        self.suit: tuple[int, ...] = tuple(SUITS.index(c["suit"]) for c in cards) + (NO_SUIT,) * self.n_barbarians
        self.value: tuple[int, ...] = tuple(int(c["value"]) for c in cards) + pad
        self.ability: tuple[int, ...] = tuple(ABILITIES.index(c["ability"]) for c in cards) + (BARBARIAN,) * len(pad)
        self.counter: tuple[int, ...] = tuple(int(c.get("counter", 0)) for c in cards) + pad
        self.is_barbarian = tuple(i >= self.n_influence for i in range(self.n_cards))
        self.suit_names = tuple(record["suits"][s] for s in SUITS)

        # Emperors: the round deck (K4), then the set-aside Pretenders in their placing order (K36).
        emperors = record["emperors"]
        self.rounds = int(emperors["rounds"])
        self.per_round = int(emperors["per_round"])
        emp_ids: list[str] = []
        colours: list[int] = []
        for suit in SUITS:
            for i in range(int(emperors["round_deck"].get(suit, 0))):
                emp_ids.append(f"{suit}-emperor-{i + 1:02d}")
                colours.append(SUITS.index(suit))
        self.n_round_deck = len(emp_ids)
        for i in range(int(emperors["pretenders"])):
            emp_ids.append(f"pretender-{i + 1}")
            colours.append(SUITS.index(emperors["pretender_colour"]))
        self.emperor_ids: tuple[str, ...] = tuple(emp_ids)
        self.emperor_index = {eid: i for i, eid in enumerate(emp_ids)}
        self.colour: tuple[int, ...] = tuple(colours)
        self.n_emperors = len(emp_ids)
        self.pretenders: tuple[int, ...] = tuple(range(self.n_round_deck, self.n_emperors))
        if self.per_round != self.n_emp_spaces or self.n_round_deck < self.rounds * self.per_round:
            raise ValueError("board data: the round deck must fill every Emperor space each round [K4, K11]")


def _rc_id(rc: tuple[int, int]) -> str:
    """A space's id: "row,column" (rows North to South, columns West to East, outer spaces at -1 and 5) [K5]."""
    return f"{rc[0]},{rc[1]}"


def load_record(path: Path = DATA_FILE) -> dict[str, Any]:
    """The data file as a JSON-ready record (what GameStarted stores)."""
    with path.open("rb") as fh:
        return orjson.loads(orjson.dumps(tomllib.load(fh)))


@lru_cache(maxsize=8)
def _tables_of(key: bytes) -> Tables:
    return Tables(orjson.loads(key))


def tables_for(record: dict[str, Any]) -> Tables:
    """The tables of a data record (one instance per distinct record)."""
    return _tables_of(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))


@lru_cache(maxsize=1)
def default_record() -> dict[str, Any]:
    """The data file's record (read once)."""
    return load_record()


def default_tables() -> Tables:
    """The tables of the current data file."""
    return tables_for(default_record())

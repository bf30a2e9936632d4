"""The census of a position: the layout's tables worked out once per layout (``tables``) and what the legal
commands and the bots ask of one state, worked out once per state (``census``: the latest one is kept).

queries.py asks its questions through these; ``push_options`` lives here because the census lists it.
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, ELECTOR, EMINENCE, THRONE, Layout
from services.games.shadow.rules.state import (
    AGE,
    CITY_CODE,
    COUPLE,
    EMPIRE,
    IS_KNIGHT,
    KNIGHT,
    OWNER,
    GameState,
    city_code,
)

DOCTOR_KINDS = (THRONE, ELECTOR, ARISTOCRAT, EMINENCE)
EMPIRE_CITY = city_code(EMPIRE)


class Tables:
    """A layout by index: names of spaces and electorates (to build command keys), the kind and electorate of each
    space, per electorate its spaces, and the stack size of each card per number of players."""

    __slots__ = (
        "a_pair",
        "aristocrats",
        "c_pair",
        "castles",
        "cities",
        "doctor",
        "ekey1",
        "ekeys",
        "electorate_of",
        "free_pairs",
        "kinds",
        "layout",
        "marriage",
        "power_spaces",
        "push_pair",
        "sid1",
        "sids",
        "spaces",
        "stacks",
        "wed",
    )  # fmt: skip

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.sids: tuple[str, ...] = tuple(sp.id for sp in layout.spaces)
        self.kinds: tuple[str, ...] = tuple(sp.kind for sp in layout.spaces)
        self.electorate_of: tuple[int, ...] = tuple(sp.electorate for sp in layout.spaces)
        # Spaces where an own Baron may become a Couple by the Foreign king's daughter [P5]
        # (see own_barons_for_marriage).
        self.marriage: tuple[bool, ...] = tuple(
            sp.kind in (THRONE, ARISTOCRAT, EMINENCE)
            or (sp.kind == ELECTOR and not layout.electorates[sp.electorate].spiritual)
            for sp in layout.spaces
        )
        # Spaces where an opponent's Baron may receive a daughter [D3] (see marriageable_barons).
        self.wed: tuple[bool, ...] = tuple(
            sp.kind in (THRONE, ARISTOCRAT) or (sp.kind == ELECTOR and not layout.electorates[sp.electorate].spiritual)
            for sp in layout.spaces
        )
        self.doctor: tuple[bool, ...] = tuple(kind in DOCTOR_KINDS for kind in self.kinds)
        self.ekeys: tuple[str, ...] = tuple(e.key for e in layout.electorates)
        self.aristocrats = tuple(e.aristocrats for e in layout.electorates)
        self.castles = tuple(e.castles for e in layout.electorates)
        self.cities = tuple(e.cities for e in layout.electorates)
        self.power_spaces = tuple(
            (e.elector, e.eminence, *e.aristocrats, *e.castles, *e.cities) for e in layout.electorates
        )
        self.stacks = {n: {k: c.stack_size(n) for k, c in layout.cards.items()} for n in (2, 3, 4)}
        # The parts of command keys, made once: (space id,), (electorate key,), (electorate key, None) for a free
        # placement, (electorate key, kind) for a knight's space, (electorate key, space id) for a push.
        self.spaces = range(len(layout.spaces))
        self.sid1 = tuple((sid,) for sid in self.sids)
        self.ekey1 = tuple((key,) for key in self.ekeys)
        self.free_pairs = tuple([(key, None)] for key in self.ekeys)
        self.a_pair = tuple((key, ARISTOCRAT) for key in self.ekeys)
        self.c_pair = tuple((key, CASTLE) for key in self.ekeys)
        self.push_pair = tuple(
            (self.ekeys[e], sid) if e >= 0 else None for e, sid in zip(self.electorate_of, self.sids, strict=True)
        )


_tables: dict[int, Tables] = {}


def tables(layout: Layout) -> Tables:
    """The tables of a layout (kept per layout object; layouts are immutable and shared by games)."""
    t = _tables.get(id(layout))
    if t is None or t.layout is not layout:
        t = _tables[id(layout)] = Tables(layout)
    return t


_open: dict[tuple[int, frozenset[int]], tuple[int, ...]] = {}
_FREE: tuple[int | None, ...] = (None,)


class _lazy:
    """A per-instance attribute computed on first access (then a plain attribute): for the census answers only
    some questions ask."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.name = fn.__name__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class Census:
    """Answers about one state that several questions share, worked out once per state version: listing the
    legal commands asks many questions of the same position. Get it with :func:`census`.

    It reads what ``evolve`` keeps: the free spaces of each group (``GameState.free``) and the spaces holding a
    tile or a knight (``GameState.tiles``, ``GameState.knights``); what it works out from them are the parts of
    the phase IV command keys, made once per position."""

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.version = s.version
        self.t = tables(s.layout)
        key = (len(s.layout.electorates), s.closed)
        opened = _open.get(key)
        if opened is None:
            opened = _open[key] = tuple(e for e in range(key[0]) if e not in s.closed)
        self.open = opened

    # --- the parts of the phase IV command keys, each made on first use (a draw of the random bot lists one
    # command type: it asks for one of them at most) ---
    @_lazy
    def knight_pairs(self) -> list[tuple[str, str]]:
        """(electorate, kind) of each free knight space: aristocrat then castle, electorate by electorate [X1]."""
        free, t = self.s.free, self.t
        a_pair, c_pair = t.a_pair, t.c_pair
        pairs: list[tuple[str, str]] = []
        for e in self.open:
            if free[3 * e]:
                pairs.append(a_pair[e])
            if free[3 * e + 1]:
                pairs.append(c_pair[e])
        return pairs

    @_lazy
    def pairs_in(self) -> list[Any]:
        """Per electorate, (electorate, push) of each way to place an aristocrat there: a free aristocrat space
        (push None), else a push of each knight on one [D2]; none in a closed electorate."""
        s, t = self.s, self.t
        free, cells = s.free, s.cells
        free_pairs, push_pair, aristocrats = t.free_pairs, t.push_pair, t.aristocrats
        pairs_in: list[Any] = [()] * len(t.ekeys)
        for e in self.open:
            if free[3 * e]:
                pairs_in[e] = free_pairs[e]
            else:
                pairs_in[e] = [push_pair[i] for i in aristocrats[e] if IS_KNIGHT[cells[i]]]
        return pairs_in

    @_lazy
    def place_pairs(self) -> list[tuple[str, str | None]]:
        """(electorate, push) of every way to place an aristocrat, electorate by electorate."""
        pairs_in = self.pairs_in
        return [pair for e in self.open for pair in pairs_in[e]]

    @_lazy
    def city_keys(self) -> list[tuple[str]]:
        """(electorate,) of each open electorate with a free city space."""
        free, ekey1 = self.s.free, self.t.ekey1
        return [ekey1[e] for e in self.open if free[3 * e + 2]]

    @property
    def taken(self) -> dict[str, int]:
        """Cards of each type lying in play areas."""
        return self.s.taken

    @_lazy
    def tiles(self) -> list[tuple[int, int]]:
        """(space, code) of every tile on the board, in board order."""
        cells = self.s.cells
        return [(i, cells[i]) for i in self.s.tiles]

    @_lazy
    def knights(self) -> list[tuple[int, int]]:
        """(space, code) of every knight on the board, in board order."""
        cells = self.s.cells
        return [(i, cells[i]) for i in self.s.knights]

    @_lazy
    def pushes(self) -> tuple[tuple[int | None, ...], ...]:
        """:func:`push_options` of every electorate, by index."""
        return tuple(tuple(push_options(self.s, e)) for e in range(len(self.s.layout.electorates)))

    @_lazy
    def knight_spaces(self) -> tuple[tuple[str, int], ...]:
        """(kind, electorate) with a free aristocrat or castle space for a knight, in board order [X1]."""
        free = self.s.free
        return tuple((kind, e) for e in self.open for kind, g in ((ARISTOCRAT, 3 * e), (CASTLE, 3 * e + 1)) if free[g])

    @_lazy
    def free_cities(self) -> tuple[int, ...]:
        """Open electorates with a free city space."""
        return tuple(e for e in self.open if self.s.free[3 * e + 2])

    # --- per-seat questions (the census answers them from its lists, without a pass over the board) ---
    def tiles_of(self, seat: int, kinds: tuple[str, ...]) -> list[int]:
        """Spaces of the given kinds holding a tile of ``seat``, in board order."""
        kind_of, cells = self.t.kinds, self.s.cells
        return [i for i in self.s.tiles if OWNER[cells[i]] == seat and kind_of[i] in kinds]

    def knights_of(self, seat: int, kinds: tuple[str, ...] = (ARISTOCRAT, CASTLE)) -> list[int]:
        """Spaces of the given kinds holding a knight of ``seat``, in board order."""
        kind_of, cells = self.t.kinds, self.s.cells
        code = KNIGHT + seat
        return [i for i in self.s.knights if cells[i] == code and kind_of[i] in kinds]

    def doctor_targets(self, seat: int) -> list[int]:
        """Tiles the Doctor / Köln may touch: own tiles above 15, any opponent tile [P3, X10]; in board order."""
        doctor, cells = self.t.doctor, self.s.cells
        return [i for i in self.s.tiles if doctor[i] and (OWNER[cells[i]] != seat or AGE[cells[i]] > 15)]

    def own_barons_for_marriage(self, seat: int) -> list[int]:
        """The seat's Barons that may become a Couple by the Foreign king's daughter: on the throne, an aristocrat
        space, a Gray eminence slot or a secular elector seat (``Tables.marriage``) [P5]; in board order."""
        marriage, cells = self.t.marriage, self.s.cells
        return [i for i in self.s.tiles if OWNER[cells[i]] == seat and not COUPLE[cells[i]] and marriage[i]]


_last_census: Census | None = None


def census(s: GameState) -> Census:
    """The census of ``s`` at its version (the latest one is kept: listing and deciding ask the same state)."""
    global _last_census
    last = _last_census
    if last is not None and last.s is s and last.version == s.version:
        return last
    found = _last_census = Census(s)
    return found


def push_options(s: GameState, e: int) -> list[int | None]:
    """Ways to put an aristocrat into ``e``: [None] when an aristocrat space is free, else the aristocrat
    spaces holding a knight that may be pushed [D2]; empty when no aristocrat can go there."""
    if e in s.closed:
        return []
    if s.free[3 * e]:
        return [None]
    cells = s.cells
    return [i for i in s.layout.electorates[e].aristocrats if KNIGHT <= cells[i] < CITY_CODE]

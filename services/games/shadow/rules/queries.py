"""Read-only questions about a state, shared by the legal-command enumeration, the effects, the flow, the
explanations and the bots: the one copy of what the rules ask of a position.

They read the integer-coded board (``GameState.cells``, codes in state.py) and the census ``evolve`` keeps
(``GameState.free``: the empty spaces of each electorate's aristocrat, castle and city spaces).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, ELECTOR, EMINENCE, THRONE, Layout
from services.games.shadow.rules.state import (
    AGE,
    CITY_CODE,
    COUPLE,
    EMPIRE,
    EMPTY,
    IS_KNIGHT,
    KNIGHT,
    OWNER,
    POWER,
    TILE,
    GameState,
    city_code,
)

MAINZ, KOELN, TRIER, PALATINATE, SAXONY, BRANDENBURG, BOHEMIA = range(7)
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
        t = self.t = tables(s.layout)
        cells = s.cells
        key = (len(s.layout.electorates), s.closed)
        opened = _open.get(key)
        if opened is None:
            opened = _open[key] = tuple(e for e in range(key[0]) if e not in s.closed)
        self.open = opened
        free = s.free
        # the parts of command keys: (electorate, kind) of each free knight space, (electorate, push) of each way
        # to place an aristocrat (all, and per electorate), (electorate,) of each free city space
        knight_pairs: list[tuple[str, str]] = []
        place_pairs: list[tuple[str, str | None]] = []
        pairs_in: list[Any] = [()] * key[0]
        city_keys: list[tuple[str]] = []
        a_pair, c_pair, free_pairs, push_pair, ekey1 = t.a_pair, t.c_pair, t.free_pairs, t.push_pair, t.ekey1
        aristocrats = t.aristocrats
        for e in opened:
            g = 3 * e
            if free[g]:
                knight_pairs.append(a_pair[e])
                pairs = free_pairs[e]
            else:
                pairs = [push_pair[i] for i in aristocrats[e] if IS_KNIGHT[cells[i]]]
            pairs_in[e] = pairs
            place_pairs += pairs
            if free[g + 1]:
                knight_pairs.append(c_pair[e])
            if free[g + 2]:
                city_keys.append(ekey1[e])
        self.knight_pairs, self.place_pairs, self.pairs_in, self.city_keys = (
            knight_pairs, place_pairs, pairs_in, city_keys
        )  # fmt: skip

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


def clockwise_from(s: GameState, first: int) -> list[int]:
    """Seats in clockwise order starting at ``first`` [G1]."""
    return [(first + i) % s.n for i in range(s.n)]


def open_electorates(s: GameState) -> list[int]:
    """Electorates not closed for a two-player game [T1]."""
    return [e for e in range(len(s.layout.electorates)) if e not in s.closed]


def first_free(s: GameState, spaces: tuple[int, ...]) -> int | None:
    """The lowest-numbered empty space among ``spaces`` [X1]."""
    cells = s.cells
    for i in spaces:
        if cells[i] == EMPTY:
            return i
    return None


def owner_at(s: GameState, i: int) -> int | None:
    """Owner of the piece on space ``i`` (None: empty; EMPIRE: an empire city)."""
    code = s.cells[i]
    return None if code == EMPTY else OWNER[code]


def elector_owner(s: GameState, e: int) -> int | None:
    """Owner of the elector of electorate ``e`` (None: empty seat)."""
    code = s.cells[s.layout.electorates[e].elector]
    return None if code == EMPTY else OWNER[code]


def holds_privilege(s: GameState, seat: int, e: int) -> bool:
    """Whether ``seat`` may use the privilege of ``e`` now [P7]."""
    return not s.privilege_used[e] and elector_owner(s, e) == seat


def is_tile(s: GameState, i: int) -> bool:
    """Whether a tile stands on space ``i``."""
    return s.cells[i] >= TILE


def is_knight(s: GameState, i: int) -> bool:
    """Whether a knight stands on space ``i``."""
    return KNIGHT <= s.cells[i] < CITY_CODE


def push_options(s: GameState, e: int) -> list[int | None]:
    """Ways to put an aristocrat into ``e``: [None] when an aristocrat space is free, else the aristocrat
    spaces holding a knight that may be pushed [D2]; empty when no aristocrat can go there."""
    if e in s.closed:
        return []
    if s.free[3 * e]:
        return [None]
    cells = s.cells
    return [i for i in s.layout.electorates[e].aristocrats if KNIGHT <= cells[i] < CITY_CODE]


def placement_target(s: GameState, e: int, push: int | None) -> int | None:
    """The space an aristocrat placed in ``e`` lands on given ``push``, None if that is not possible."""
    if e in s.closed:
        return None
    spaces = s.layout.electorates[e].aristocrats
    free = first_free(s, spaces)
    if free is not None:
        return free if push is None else None
    if push is not None and push in spaces and is_knight(s, push):
        return push
    return None


def can_place_aristocrat_anywhere(s: GameState) -> bool:
    """Whether some open electorate takes an aristocrat (free space or pushable knight)."""
    return any(push_options(s, e) for e in open_electorates(s))


def tiles_of(s: GameState, seat: int, kinds: tuple[str, ...]) -> list[int]:
    """Spaces of the given kinds holding a tile of ``seat``, in board order (:meth:`Census.tiles_of`)."""
    return census(s).tiles_of(seat, kinds)


def power_in(s: GameState, e: int) -> tuple[int, ...]:
    """Every player's power in electorate ``e``: a tile its power, a knight or a city 1, an empire city for the
    Emperor [V1]."""
    power = [0] * s.n
    cells = s.cells
    for i in tables(s.layout).power_spaces[e]:
        code = cells[i]
        if code:
            owner = OWNER[code]
            power[s.emperor if owner == EMPIRE else owner] += POWER[code]
    return tuple(power)


def elector_candidates(s: GameState, seat: int, e: int) -> list[int]:
    """The winner's tiles that may take the seat of ``e``: aristocrat spaces and the Gray eminence slot;
    Barons only in an archdiocese [V4]."""
    info = s.layout.electorates[e]
    cells = s.cells
    out = []
    for i in (*info.aristocrats, info.eminence):
        code = cells[i]
        if code >= TILE and OWNER[code] == seat and not (info.spiritual and COUPLE[code]):
            out.append(i)
    return out


def throne_candidates(s: GameState, seat: int, include_eminence: bool) -> list[int]:
    """Tiles of ``seat`` that may go on the throne: on aristocrat spaces [A2], or also in a Gray eminence
    slot after an election [E4]."""
    kinds = (ARISTOCRAT, EMINENCE) if include_eminence else (ARISTOCRAT,)
    return list(tiles_of(s, seat, kinds))


def doctor_targets(s: GameState, seat: int) -> list[int]:
    """Tiles the Doctor / Köln may touch (:meth:`Census.doctor_targets`) [P3, X10]."""
    return census(s).doctor_targets(seat)


def marriageable_barons(s: GameState, seat: int) -> Iterator[int]:
    """Opponents' unmarried Barons that may receive a daughter: not an archdiocese elector [D3]."""
    wed = tables(s.layout).wed
    cells = s.cells
    for i in s.tiles:
        code = cells[i]
        if OWNER[code] != seat and not COUPLE[code] and wed[i]:
            yield i


def own_barons_for_marriage(s: GameState, seat: int) -> list[int]:
    """The seat's Barons that may become a Couple by the Foreign king's daughter (:meth:`Census.
    own_barons_for_marriage`) [P5]."""
    return census(s).own_barons_for_marriage(seat)


def knights_of(s: GameState, seat: int, kinds: tuple[str, ...] = (ARISTOCRAT, CASTLE)) -> list[int]:
    """Spaces of the given kinds holding a knight of ``seat`` (:meth:`Census.knights_of`)."""
    return census(s).knights_of(seat, kinds)


def free_city_electorates(s: GameState) -> list[int]:
    """Open electorates with a free city space."""
    return list(census(s).free_cities)


def empire_city_spaces(s: GameState) -> list[int]:
    """Spaces holding an empire city."""
    return [i for i, code in enumerate(s.cells) if code == EMPIRE_CITY]


def cities_of(s: GameState, seat: int) -> int:
    """Cities of ``seat`` on the board."""
    return s.cells.count(city_code(seat))


def cards_taken(s: GameState, card: str) -> int:
    """Cards of a type lying in play areas (taken since the last return)."""
    return s.taken.get(card, 0)


def stack_available(s: GameState, card: str) -> bool:
    """Whether a card of this type is left in its stack this round [B5]."""
    sizes = tables(s.layout).stacks.get(s.n)
    size = s.layout.cards[card].stack_size(s.n) if sizes is None else sizes[card]
    return s.taken.get(card, 0) < size


def same_option(s: GameState, a: int, b: int) -> bool:
    """Whether two spaces hold interchangeable pieces: same electorate, same kind of space, equal piece [X5]."""
    sa, sb = s.layout.spaces[a], s.layout.spaces[b]
    return sa.electorate == sb.electorate and sa.kind == sb.kind and s.cells[a] == s.cells[b]


def distinct_spaces(s: GameState, spaces: list[int]) -> list[int]:
    """One representative space per group of interchangeable pieces [X5]."""
    out: list[int] = []
    for i in spaces:
        if not any(same_option(s, i, j) for j in out):
            out.append(i)
    return out


def distinct_pushes(s: GameState, pushes: list[int | None] | tuple[int | None, ...]) -> list[int | None]:
    """One push option per knight owner (or the single free-space option) [X5]."""
    out: list[int | None] = []
    owners: set[int] = set()
    cells = s.cells
    for p in pushes:
        if p is None:
            return [None]
        owner = OWNER[cells[p]]
        if owner not in owners:
            owners.add(owner)
            out.append(p)
    return out

"""Read-only questions about a state, shared by the legal-command enumeration, the effects and the flow."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import compress, repeat
from operator import is_
from typing import Any

from services.rules.shadow.board import ARISTOCRAT, CASTLE, ELECTOR, EMINENCE, THRONE, Layout
from services.rules.shadow.state import EMPIRE, City, GameState, Knight, Tile

MAINZ, KOELN, TRIER, PALATINATE, SAXONY, BRANDENBURG, BOHEMIA = range(7)
DOCTOR_KINDS = (THRONE, ELECTOR, ARISTOCRAT, EMINENCE)


class _lazy:
    """A per-instance attribute computed on first access (then a plain attribute)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.name = fn.__name__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


_NoneType = type(None)


def _span(spaces: tuple[int, ...]) -> tuple[int, int]:
    """``spaces`` as a slice (start, stop): the spaces of one kind in one electorate are consecutive."""
    start = spaces[0] if spaces else 0
    assert spaces == tuple(range(start, start + len(spaces))), spaces
    return start, start + len(spaces)


class Tables:
    """A layout by index: names of spaces and electorates (to build command keys), per electorate the slices
    of its aristocrat, castle and city spaces, and the stack size of each card per number of players."""

    __slots__ = (
        "aristocrats", "castles", "cities", "ekeys", "electorate_of", "groups", "kinds", "layout", "marriage",
        "sids", "stacks",
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
        self.ekeys: tuple[str, ...] = tuple(e.key for e in layout.electorates)
        self.aristocrats = tuple(_span(e.aristocrats) for e in layout.electorates)
        self.castles = tuple(_span(e.castles) for e in layout.electorates)
        self.cities = tuple(_span(e.cities) for e in layout.electorates)
        self.stacks = {n: {k: c.stack_size(n) for k, c in layout.cards.items()} for n in (2, 3, 4)}
        # (electorate, aristocrat start, stop, castle start, stop, city start, stop)
        self.groups = tuple(
            (e, *self.aristocrats[e], *self.castles[e], *self.cities[e]) for e in range(len(layout.electorates))
        )


_tables: dict[int, Tables] = {}


def tables(layout: Layout) -> Tables:
    """The tables of a layout (kept per layout object; layouts are immutable and shared by games)."""
    t = _tables.get(id(layout))
    if t is None or t.layout is not layout:
        t = _tables[id(layout)] = Tables(layout)
    return t


_open: dict[tuple[int, frozenset[int]], tuple[int, ...]] = {}


class Census:
    """Answers about one state that several questions share, each computed at most once and only when asked:
    listing the legal commands asks many questions of the same state, and one pass over the board answers
    them all. Read-only; get it with :func:`census`."""

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.t = tables(s.layout)

    @_lazy
    def types(self) -> tuple[type, ...]:
        """The type of the piece on each space (NoneType: empty)."""
        return tuple(map(type, self.s.board))

    @_lazy
    def tiles(self) -> list[tuple[int, Tile]]:
        """(space, tile) of every tile on the board, in board order (the scan also lists the knights)."""
        board = self.s.board
        tiles: list[tuple[int, Tile]] = []
        knights: list[tuple[int, Knight]] = []
        for i in compress(range(len(board)), board):  # the occupied spaces (a piece is true, None false)
            p = board[i]
            kind = type(p)
            if kind is Tile:
                tiles.append((i, p))  # type: ignore[arg-type]
            elif kind is Knight:
                knights.append((i, p))  # type: ignore[arg-type]
        self.__dict__["knights"] = knights
        return tiles

    @_lazy
    def knights(self) -> list[tuple[int, Knight]]:
        """(space, knight) of every knight on the board, in board order."""
        self.tiles  # noqa: B018 -- the scan of the tiles lists the knights
        return self.__dict__["knights"]  # type: ignore[no-any-return]

    @_lazy
    def open(self) -> tuple[int, ...]:
        """Open electorates [T1]."""
        s = self.s
        key = (len(s.layout.electorates), s.closed)
        found = _open.get(key)
        if found is None:
            found = _open[key] = tuple(e for e in range(key[0]) if e not in s.closed)
        return found

    def _electorates(self) -> None:
        """One pass over the electorates for ``pushes``, ``knight_spaces`` and ``free_cities``."""
        types = self.types
        closed = self.s.closed
        pushes: list[tuple[int | None, ...]] = []
        knight_spaces: list[tuple[str, int]] = []
        free_cities: list[int] = []
        for e, a0, a1, c0, c1, t0, t1 in self.t.groups:
            if e in closed:
                pushes.append(())
                continue
            if _NoneType in types[a0:a1]:
                pushes.append(_FREE)
                knight_spaces.append((ARISTOCRAT, e))
            else:
                pushes.append(tuple(compress(range(a0, a1), map(is_, types[a0:a1], repeat(Knight)))))
            if c0 != c1 and _NoneType in types[c0:c1]:
                knight_spaces.append((CASTLE, e))
            if _NoneType in types[t0:t1]:
                free_cities.append(e)
        found = self.__dict__
        found["pushes"] = tuple(pushes)
        found["knight_spaces"] = tuple(knight_spaces)
        found["free_cities"] = tuple(free_cities)

    @_lazy
    def pushes(self) -> tuple[tuple[int | None, ...], ...]:
        """:func:`push_options` of every electorate, by index."""
        self._electorates()
        return self.__dict__["pushes"]  # type: ignore[no-any-return]

    @_lazy
    def knight_spaces(self) -> tuple[tuple[str, int], ...]:
        """(kind, electorate) with a free aristocrat or castle space for a knight, in board order [X1]."""
        self._electorates()
        return self.__dict__["knight_spaces"]  # type: ignore[no-any-return]

    @_lazy
    def free_cities(self) -> tuple[int, ...]:
        """Open electorates with a free city space."""
        self._electorates()
        return self.__dict__["free_cities"]  # type: ignore[no-any-return]

    @_lazy
    def places(self) -> tuple[tuple[int, str, tuple[str | None, ...]], ...]:
        """(electorate, its key, :func:`push_options` as space ids) of every open electorate, in board order."""
        sids, ekeys = self.t.sids, self.t.ekeys
        pushes = self.pushes
        out = []
        for e in self.open:
            options = pushes[e]
            out.append((e, ekeys[e], options if options is _FREE else tuple(map(sids.__getitem__, options))))
        return tuple(out)  # type: ignore[arg-type]

    @_lazy
    def taken(self) -> dict[str, int]:
        """Cards of each type lying in play areas."""
        taken: dict[str, int] = {}
        for area in self.s.play_areas:
            for card in area:
                taken[card] = taken.get(card, 0) + 1
        return taken

    # --- per-seat questions (the census answers them from its lists, without a second pass over the board) ---
    def tiles_of(self, seat: int, kinds: tuple[str, ...]) -> list[int]:
        """Spaces of the given kinds holding a tile of ``seat``, in board order."""
        kind_of = self.t.kinds
        return [i for i, piece in self.tiles if piece.owner == seat and kind_of[i] in kinds]

    def knights_of(self, seat: int, kinds: tuple[str, ...] = (ARISTOCRAT, CASTLE)) -> list[int]:
        """Spaces of the given kinds holding a knight of ``seat``, in board order."""
        kind_of = self.t.kinds
        return [i for i, piece in self.knights if piece.owner == seat and kind_of[i] in kinds]

    def doctor_targets(self, seat: int) -> list[int]:
        """Tiles the Doctor / Köln may touch: own tiles above 15, any opponent tile [P3, X10]; in board order."""
        kind_of = self.t.kinds
        return [i for i, piece in self.tiles if kind_of[i] in DOCTOR_KINDS and (piece.owner != seat or piece.age > 15)]

    def own_barons_for_marriage(self, seat: int) -> list[int]:
        """The seat's Barons that may become a Couple by the Foreign king's daughter: on the throne, an aristocrat
        space, a Gray eminence slot or a secular elector seat (``Tables.marriage``) [P5]; in board order."""
        marriage = self.t.marriage
        return [i for i, piece in self.tiles if piece.owner == seat and not piece.couple and marriage[i]]


_FREE: tuple[int | None, ...] = (None,)


_last_census: Census | None = None


def census(s: GameState) -> Census:
    """The census of ``s``. The latest one is kept and recognised by the identity of its state (a state is
    immutable, and the census holds it, so an equal identity means the same state)."""
    global _last_census
    last = _last_census
    if last is not None and last.s is s:
        return last
    found = _last_census = Census(s)
    if last is not None and last.s.board is s.board and last.t.layout is s.layout:
        # The same board (an event that moved no piece): its answers carry over; those of the electorates
        # also depend on the closed ones.
        before, now = last.__dict__, found.__dict__
        for name in _BOARD_ANSWERS if last.s.closed is s.closed else _PIECE_ANSWERS:
            if name in before:
                now[name] = before[name]
    if last is not None and last.s.play_areas is s.play_areas and "taken" in last.__dict__:
        found.__dict__["taken"] = last.__dict__["taken"]  # the same play areas: the same cards taken
    return found


# Census answers that depend on the board only, and those that depend on the board and the closed electorates.
_PIECE_ANSWERS = ("types", "tiles", "knights")
_BOARD_ANSWERS = (*_PIECE_ANSWERS, "open", "pushes", "knight_spaces", "free_cities", "places")


def clockwise_from(s: GameState, first: int) -> list[int]:
    """Seats in clockwise order starting at ``first`` [G1]."""
    return [(first + i) % s.n for i in range(s.n)]


def open_electorates(s: GameState) -> list[int]:
    """Electorates not closed for a two-player game [T1]."""
    return [e for e in range(len(s.layout.electorates)) if e not in s.closed]


def first_free(s: GameState, spaces: tuple[int, ...]) -> int | None:
    """The lowest-numbered empty space among ``spaces`` [X1]."""
    board = s.board
    for i in spaces:
        if board[i] is None:
            return i
    return None


def elector_owner(s: GameState, e: int) -> int | None:
    """Owner of the elector of electorate ``e`` (None: empty seat)."""
    t = s.board[s.layout.electorates[e].elector]
    return t.owner if t is not None else None  # type: ignore[union-attr]


def holds_privilege(s: GameState, seat: int, e: int) -> bool:
    """Whether ``seat`` may use the privilege of ``e`` now [P7]."""
    return not s.privilege_used[e] and elector_owner(s, e) == seat


def push_options(s: GameState, e: int) -> list[int | None]:
    """Ways to put an aristocrat into ``e``: [None] when an aristocrat space is free, else the aristocrat
    spaces holding a knight that may be pushed [D2]; empty when no aristocrat can go there."""
    if e in s.closed:
        return []
    spaces = s.layout.electorates[e].aristocrats
    if first_free(s, spaces) is not None:
        return [None]
    board = s.board
    return [i for i in spaces if isinstance(board[i], Knight)]


def placement_target(s: GameState, e: int, push: int | None) -> int | None:
    """The space an aristocrat placed in ``e`` lands on given ``push``, None if that is not possible."""
    if e in s.closed:
        return None
    spaces = s.layout.electorates[e].aristocrats
    free = first_free(s, spaces)
    if free is not None:
        return free if push is None else None
    if push is not None and push in spaces and isinstance(s.board[push], Knight):
        return push
    return None


def can_place_aristocrat_anywhere(s: GameState) -> bool:
    """Whether some open electorate takes an aristocrat (free space or pushable knight)."""
    return any(push_options(s, e) for e in open_electorates(s))


def tiles_of(s: GameState, seat: int, kinds: tuple[str, ...]) -> list[int]:
    """Spaces of the given kinds holding a tile of ``seat``, in board order (:meth:`Census.tiles_of`)."""
    return census(s).tiles_of(seat, kinds)


def power_in(s: GameState, e: int) -> tuple[int, ...]:
    """Every player's power in electorate ``e`` [V1]."""
    info = s.layout.electorates[e]
    power = [0] * s.n
    board = s.board
    for i in (info.elector, info.eminence, *info.aristocrats, *info.castles, *info.cities):
        piece = board[i]
        if piece is None:
            continue
        if isinstance(piece, Tile):
            power[piece.owner] += piece.power
        elif isinstance(piece, Knight):
            power[piece.owner] += 1
        elif isinstance(piece, City):
            power[s.emperor if piece.owner == EMPIRE else piece.owner] += 1
    return tuple(power)


def elector_candidates(s: GameState, seat: int, e: int) -> list[int]:
    """The winner's tiles that may take the seat of ``e``: aristocrat spaces and the Gray eminence slot;
    Barons only in an archdiocese [V4]."""
    info = s.layout.electorates[e]
    board = s.board
    out = []
    for i in (*info.aristocrats, info.eminence):
        t = board[i]
        if isinstance(t, Tile) and t.owner == seat and not (info.spiritual and t.couple):
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
    spaces = s.layout.spaces
    electorates = s.layout.electorates
    for i, piece in census(s).tiles:
        if piece.owner == seat or piece.couple:
            continue
        sp = spaces[i]
        if sp.kind in (THRONE, ARISTOCRAT) or (sp.kind == ELECTOR and not electorates[sp.electorate].spiritual):
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
    return [i for i, p in enumerate(s.board) if isinstance(p, City) and p.owner == EMPIRE]


def cards_taken(s: GameState, card: str) -> int:
    """Cards of a type lying in play areas (taken since the last return)."""
    return census(s).taken.get(card, 0)


def stack_available(s: GameState, card: str) -> bool:
    """Whether a card of this type is left in its stack this round [B5]."""
    c = census(s)
    sizes = c.t.stacks.get(len(s.players))
    size = s.layout.cards[card].stack_size(s.n) if sizes is None else sizes[card]
    return c.taken.get(card, 0) < size


def same_option(s: GameState, a: int, b: int) -> bool:
    """Whether two spaces hold interchangeable pieces: same electorate, same kind of space, equal piece [X5]."""
    sa, sb = s.layout.spaces[a], s.layout.spaces[b]
    return sa.electorate == sb.electorate and sa.kind == sb.kind and s.board[a] == s.board[b]


def distinct_spaces(s: GameState, spaces: list[int]) -> list[int]:
    """One representative space per group of interchangeable pieces [X5]."""
    out: list[int] = []
    for i in spaces:
        if not any(same_option(s, i, j) for j in out):
            out.append(i)
    return out


def distinct_pushes(s: GameState, pushes: list[int | None]) -> list[int | None]:
    """One push option per knight owner (or the single free-space option) [X5]."""
    out: list[int | None] = []
    owners: set[int] = set()
    for p in pushes:
        if p is None:
            return [None]
        owner = s.board[p].owner  # type: ignore[union-attr]
        if owner not in owners:
            owners.add(owner)
            out.append(p)
    return out

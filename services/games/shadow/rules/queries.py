"""Read-only questions about a state, shared by the legal-command enumeration, the effects, the flow, the
explanations and the bots: the one copy of what the rules ask of a position.

They read the integer-coded board (``GameState.cells``, codes in state.py) and the census ``evolve`` keeps
(``GameState.free``: the empty spaces of each electorate's aristocrat, castle and city spaces); the tables and
the census of a position are in census.py.
"""

from __future__ import annotations

from collections.abc import Iterator

from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, EMINENCE
from services.games.shadow.rules.census import (
    DOCTOR_KINDS,
    EMPIRE_CITY,
    Census,
    Tables,
    census,
    push_options,
    tables,
)
from services.games.shadow.rules.state import (
    CITY_CODE,
    COUPLE,
    EMPIRE,
    EMPTY,
    KNIGHT,
    OWNER,
    POWER,
    TILE,
    GameState,
    city_code,
)

__all__ = ["DOCTOR_KINDS", "EMPIRE_CITY", "Census", "Tables", "census", "push_options", "tables"]

MAINZ, KOELN, TRIER, PALATINATE, SAXONY, BRANDENBURG, BOHEMIA = range(7)


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

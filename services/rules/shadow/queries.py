"""Read-only questions about a state, shared by the legal-command enumeration, the effects and the flow."""

from __future__ import annotations

from collections.abc import Iterator

from services.rules.shadow.board import ARISTOCRAT, CASTLE, ELECTOR, EMINENCE, THRONE
from services.rules.shadow.state import EMPIRE, City, GameState, Knight, Tile

MAINZ, KOELN, TRIER, PALATINATE, SAXONY, BRANDENBURG, BOHEMIA = range(7)
DOCTOR_KINDS = (THRONE, ELECTOR, ARISTOCRAT, EMINENCE)


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


def tiles_of(s: GameState, seat: int, kinds: tuple[str, ...]) -> Iterator[int]:
    """Spaces of the given kinds holding a tile of ``seat``."""
    spaces = s.layout.spaces
    for i, piece in enumerate(s.board):
        if isinstance(piece, Tile) and piece.owner == seat and spaces[i].kind in kinds:
            yield i


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


def doctor_targets(s: GameState, seat: int) -> Iterator[int]:
    """Tiles the Doctor / Köln may touch: own tiles above 15, any opponent tile [P3, X10]."""
    spaces = s.layout.spaces
    for i, piece in enumerate(s.board):
        if (
            isinstance(piece, Tile)
            and spaces[i].kind in (THRONE, ELECTOR, ARISTOCRAT, EMINENCE)
            and (piece.owner != seat or piece.age > 15)
        ):
            yield i


def marriageable_barons(s: GameState, seat: int) -> Iterator[int]:
    """Opponents' unmarried Barons that may receive a daughter: not an archdiocese elector [D3]."""
    spaces = s.layout.spaces
    electorates = s.layout.electorates
    for i, piece in enumerate(s.board):
        if not isinstance(piece, Tile) or piece.owner == seat or piece.couple:
            continue
        sp = spaces[i]
        if sp.kind in (THRONE, ARISTOCRAT) or (sp.kind == ELECTOR and not electorates[sp.electorate].spiritual):
            yield i


def own_barons_for_marriage(s: GameState, seat: int) -> Iterator[int]:
    """The seat's Barons that may become a Couple by the Foreign king's daughter [P5]."""
    spaces = s.layout.spaces
    electorates = s.layout.electorates
    for i, piece in enumerate(s.board):
        if not isinstance(piece, Tile) or piece.owner != seat or piece.couple:
            continue
        sp = spaces[i]
        if sp.kind in (THRONE, ARISTOCRAT, EMINENCE) or (
            sp.kind == ELECTOR and not electorates[sp.electorate].spiritual
        ):
            yield i


def knights_of(s: GameState, seat: int, kinds: tuple[str, ...] = (ARISTOCRAT, CASTLE)) -> Iterator[int]:
    """Spaces holding a knight of ``seat``."""
    spaces = s.layout.spaces
    for i, piece in enumerate(s.board):
        if isinstance(piece, Knight) and piece.owner == seat and spaces[i].kind in kinds:
            yield i


def free_city_electorates(s: GameState) -> list[int]:
    """Open electorates with a free city space."""
    return [e for e in open_electorates(s) if first_free(s, s.layout.electorates[e].cities) is not None]


def empire_city_spaces(s: GameState) -> list[int]:
    """Spaces holding an empire city."""
    return [i for i, p in enumerate(s.board) if isinstance(p, City) and p.owner == EMPIRE]


def cards_taken(s: GameState, card: str) -> int:
    """Cards of a type lying in play areas (taken since the last return)."""
    return sum(area.count(card) for area in s.play_areas)


def stack_available(s: GameState, card: str) -> bool:
    """Whether a card of this type is left in its stack this round [B5]."""
    return cards_taken(s, card) < s.layout.cards[card].stack_size(s.n)


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

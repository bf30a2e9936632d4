"""The key number ``r`` of one phase IV command type, built alone: the random bot's draw (``actions.sample_key``)
counts the keys of every type (turn_counts.py), draws one index, and builds only the key it falls on.

Each picker walks the listing's order of its type (turn_options.py: the blocks, their factors, in board order)
and stops at ``r``, without the Turn, the census's key parts or the blocks the listing makes for every key.
tests/games/shadow/test_fast_paths.py checks every key of every type against the listing, on the phase IV
positions of seeded games and their variants.
"""

from __future__ import annotations

from collections.abc import Callable

from services.games.shadow.rules.census import Tables, tables
from services.games.shadow.rules.command_keys import CARDS_WITHOUT_EFFECT, Key
from services.games.shadow.rules.state import AGE, COUPLE, IS_KNIGHT, KNIGHT, OWNER, GameState
from services.games.shadow.rules.turn_counts import costs


def _open(s: GameState, t: Tables) -> list[int]:
    """The open electorates, in board order [T1]."""
    closed = s.closed
    return [e for e in range(len(t.ekeys)) if e not in closed]


def _knight_pairs(s: GameState, t: Tables) -> list[tuple[str, str]]:
    """(electorate, kind) of each free knight space: ``Census.knight_pairs``."""
    free, a_pair, c_pair = s.free, t.a_pair, t.c_pair
    pairs = []
    for e in _open(s, t):
        if free[3 * e]:
            pairs.append(a_pair[e])
        if free[3 * e + 1]:
            pairs.append(c_pair[e])
    return pairs


def _ways(s: GameState, t: Tables, e: int) -> list[tuple[str, str | None]]:
    """(electorate, push) of each way to place an aristocrat in open electorate ``e``: ``Census.pairs_in[e]``."""
    if s.free[3 * e]:
        return t.free_pairs[e]
    cells, push_pair = s.cells, t.push_pair
    return [push_pair[i] for i in t.aristocrats[e] if IS_KNIGHT[cells[i]]]  # type: ignore[misc]


def _place_pair(s: GameState, t: Tables, r: int) -> tuple[str, str | None]:
    """The way number ``r`` to place an aristocrat, electorate by electorate: ``Census.place_pairs[r]``."""
    for e in _open(s, t):
        ways = _ways(s, t, e)
        if r < len(ways):
            return ways[r]
        r -= len(ways)
    raise IndexError("no such placement")


def _doctor_target(s: GameState, seat: int, t: Tables, r: int) -> int:
    """The Doctor's target number ``r``: ``Census.doctor_targets(seat)[r]``."""
    doctor, cells = t.doctor, s.cells
    for i in s.tiles:
        if doctor[i] and (OWNER[cells[i]] != seat or AGE[cells[i]] > 15):
            if not r:
                return i
            r -= 1
    raise IndexError("no such target")


def _by_trier(s: GameState, card: str) -> bool:
    """The last field of a Trier card's key: True when only Trier's privilege gets it (its stack is empty; the
    counts drew it, so it is affordable and one of the two holds) [P6]: ``Turn.modes``."""
    sizes = tables(s.layout).stacks.get(len(s.players)) or {k: c.stack_size(s.n) for k, c in s.layout.cards.items()}
    return s.taken.get(card, 0) >= sizes[card]


def _pass(s: GameState, seat: int, r: int) -> Key:
    return ("Pass",)


def _place_knight(s: GameState, seat: int, r: int) -> Key:
    return ("PlaceKnight", *_knight_pairs(s, tables(s.layout))[r])


def _move_knight(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    pairs = _knight_pairs(s, t)
    kinds, ekeys, electorate_of, cells = t.kinds, t.ekeys, t.electorate_of, s.cells
    k = costs(s.layout)
    aristocrat, castle, own = k.aristocrat, k.castle, KNIGHT + seat
    for src in s.knights:
        if cells[src] != own or not (aristocrat[src] or castle[src]):
            continue
        here = (ekeys[electorate_of[src]], kinds[src])  # X2: not to its own kind of space in its electorate
        targets = [pair for pair in pairs if pair != here] if here in pairs else pairs
        if r < len(targets):
            return ("MoveKnight", t.sids[src], *targets[r])
        r -= len(targets)
    raise IndexError("no such move")


def _doctor(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    return ("BuyDoctor", t.sids[_doctor_target(s, seat, t, r)], _by_trier(s, "doctor"))


def _move(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    cells, electorate_of, aristocrat = s.cells, t.electorate_of, costs(s.layout).aristocrat
    sources = [i for i in s.tiles if OWNER[cells[i]] == seat and aristocrat[i]]
    for e in _open(s, t):
        ways = _ways(s, t, e)
        if not ways:
            continue
        moved = [src for src in sources if electorate_of[src] != e]
        size = len(moved) * len(ways)
        if r < size:
            i, j = divmod(r, len(ways))
            return ("BuyMove", t.sids[moved[i]], *ways[j], _by_trier(s, "move"))
        r -= size
    raise IndexError("no such move")


def _single(command_type: str) -> Callable[[GameState, int, int], Key]:
    key = (command_type,)
    return lambda s, seat, r: key


def _indulgence(s: GameState, seat: int, r: int) -> Key:
    return ("BuyIndulgence", _by_trier(s, "indulgence"))


def _permit(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    couple = False  # the Baron's block, when affordable, then the Couple's [P5]
    if s.thalers[seat] >= s.layout.cards["permit"].cost:
        placements = sum([len(_ways(s, t, e)) for e in _open(s, t)])
        if r >= placements:
            couple, r = True, r - placements
    else:
        couple = True
    return ("BuyPermit", couple, *_place_pair(s, t, r), _by_trier(s, "permit"))


def _ordinance(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    free = s.free
    cities = [e for e in _open(s, t) if free[3 * e + 2]]
    return ("BuyOrdinance", t.ekeys[cities[r]], _by_trier(s, "ordinance"))


def _promotion(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    aristocrat, cells, own = costs(s.layout).aristocrat, s.cells, KNIGHT + seat
    knights = [i for i in s.knights if cells[i] == own and aristocrat[i]]
    return ("BuyPromotion", t.sids[knights[r]], _by_trier(s, "promotion"))


def _fkd(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    marriage, cells = t.marriage, s.cells
    barons = [i for i in s.tiles if OWNER[cells[i]] == seat and not COUPLE[cells[i]] and marriage[i]]
    return ("BuyForeignKingsDaughter", t.sids[barons[r]], _by_trier(s, "foreign_kings_daughter"))


def _without_effect(s: GameState, seat: int, r: int) -> Key:
    sizes = tables(s.layout).stacks.get(len(s.players)) or {k: c.stack_size(s.n) for k, c in s.layout.cards.items()}
    thalers, cards = s.thalers[seat], s.layout.cards
    left = [card for card in CARDS_WITHOUT_EFFECT if s.taken.get(card, 0) < sizes[card] and thalers >= cards[card].cost]
    return ("BuyCardWithoutEffect", left[r])


def _koeln(s: GameState, seat: int, r: int) -> Key:
    t = tables(s.layout)
    return ("UseKoelnPrivilege", t.sids[_doctor_target(s, seat, t, r)])


def _palatinate(s: GameState, seat: int, r: int) -> Key:
    return ("UsePalatinatePrivilege", *_place_pair(s, tables(s.layout), r))


PICKS: tuple[Callable[[GameState, int, int], Key], ...] = (
    _pass,
    _place_knight,
    _move_knight,
    _doctor,
    _move,
    _single("BuyPope"),
    _single("BuyChurchInfluence"),
    _single("BuyExcommunication"),
    _indulgence,
    _permit,
    _ordinance,
    _promotion,
    _fkd,
    _single("BuyRival"),
    _without_effect,
    _single("TakeGrayEminence"),
    _koeln,
    _palatinate,
)
"""Per phase IV command type, in ``PHASE_IV`` order: ``pick(s, seat, r)``, its key number ``r`` (``r`` below its
count in turn_counts.py)."""

"""Human names of the board's spaces, cards and Emperors: one scheme, used by the event descriptions, the command
labels and menus, and both boards [K5].

Spaces are named like a map over the 7x7 frame of the board (the 5x5 grid and its outer spaces): a letter for the
row, North to South, and a digit for the column, West to East. Row A and column 0 are the outer spaces on the
North and West edges, rows B-F and columns 1-5 the grid, row G and column 6 the outer spaces on the South and East
edges. The wire id ``"row,column"`` maps one to one: ``"-1,2"`` is A3, ``"0,0"`` B1 (the North-West Emperor
space), ``"2,2"`` D3 (Roma), ``"5,4"`` G5.

A card is named "red 7 Spiculum" in sentences and ``R7Sp`` on a board (suit letter, printed value, two-letter
ability code; a legend explains the codes); a barbarian card is "barbarian 03" (they are alike but have
numbers, so that two in one hand stay distinct). An Emperor is "red Emperor 4" or "yellow Pretender 1".
"""

from __future__ import annotations

from functools import lru_cache

from services.games.barracks.rules.board import ABILITIES, FACTIONS, SUITS, Tables, default_tables

SUIT_LETTERS = {"red": "R", "blue": "B", "yellow": "Y"}
SUIT_TITLES = {"red": "Military", "blue": "Senate", "yellow": "Populace"}
ABILITY_CODES: dict[str, str] = {
    "reinforcements": "Re", "castra": "Ca", "cavalry": "Cv", "flanking_maneuver": "Fl", "force_march": "FM",
    "praetorian_guard": "PG", "spiculum": "Sp", "influence_peddling": "IP", "tribute": "Tr",
    "princeps_senatus": "PS", "foederati": "Fo", "frumentarii": "Fr", "damnatio_memoriae": "DM", "triumph": "Tm",
    "popularity": "Po", "quaestor": "Qu", "ambitus": "Am", "mob": "Mo", "mobile_vulgus": "MV", "pretender": "Pr",
    "demagogue": "De",
}  # fmt: skip
assert set(ABILITY_CODES) == set(ABILITIES) and len(set(ABILITY_CODES.values())) == len(ABILITIES)
SIDE_WORDS = ("N", "E", "S", "W")  # the side of an Emperor a space is, by faction (north, east, south, west) [K6]


def ability_title(ability: str) -> str:
    """``flanking_maneuver`` as "Flanking Maneuver"."""
    return ability.replace("_", " ").title()


# --- spaces ------------------------------------------------------------------------------------------------------
def rc_name(r: int, c: int) -> str:
    """The name of the space at row ``r``, column ``c`` (outer spaces at -1 and the grid size)."""
    return f"{chr(ord('A') + r + 1)}{c + 1}"


@lru_cache(maxsize=256)
def space_name(space_id: str) -> str:
    """``"-1,2"`` as "A3"; an id that is not a space is returned unchanged."""
    try:
        r, c = (int(x) for x in space_id.split(","))
    except ValueError:
        return space_id
    if not -1 <= r <= 24 or not -1 <= c <= 8:
        return space_id
    return rc_name(r, c)


def space_id(name: str) -> str:
    """ "A3" as ``"-1,2"`` (the inverse of :func:`space_name`; raises ValueError on a malformed name)."""
    name = name.strip().upper()
    if len(name) != 2 or not name[0].isalpha() or not name[1].isdigit():
        raise ValueError(f"not a space name: {name!r} (a row letter A-G and a column digit 0-6, e.g. D3)")
    return f"{ord(name[0]) - ord('A') - 1},{int(name[1]) - 1}"


def side_context(T: Tables, space: int, factions: tuple[int, ...], emperors_at: set[int]) -> str:
    """Where ``space`` lies for a seat of ``factions``: "N of C3" (the Emperor spaces holding an Emperor whose side
    of one of those factions it is), else "beside C3, D2" (every Emperor it touches), else ""."""
    own = [(e, f) for e, f in T.sides_of[space] if f in factions and e in emperors_at]
    if own:
        return ", ".join(f"{SIDE_WORDS[f]} of {rc_name(*T.emp_rc[e])}" for e, f in own)
    near = [e for e in T.touches[space] if e in emperors_at]
    return ("beside " + ", ".join(rc_name(*T.emp_rc[e]) for e in near)) if near else ""


# --- cards and Emperors -------------------------------------------------------------------------------------------
def _tables(T: Tables | None) -> Tables:
    return default_tables() if T is None else T


def card_words(cid: str | None, T: Tables | None = None) -> str:
    """``red-7-spiculum`` as "red 7 Spiculum", ``barbarian-03`` as "barbarian 03"."""
    if cid is None:
        return "nothing"
    T = _tables(T)
    c = T.card_index.get(cid, -1)
    if c < 0:
        return cid
    if T.is_barbarian[c]:
        return f"barbarian {cid.rsplit('-', 1)[-1]}"
    return f"{SUITS[T.suit[c]]} {T.value[c]} {ability_title(ABILITIES[T.ability[c]])}"


def card_code(cid: str, T: Tables | None = None) -> str:
    """``red-7-spiculum`` as ``R7Sp`` (board cells); a barbarian as ``X``."""
    T = _tables(T)
    c = T.card_index.get(cid, -1)
    if c < 0:
        return cid
    if T.is_barbarian[c]:
        return "X"
    return f"{SUIT_LETTERS[SUITS[T.suit[c]]]}{T.value[c]}{ABILITY_CODES[ABILITIES[T.ability[c]]]}"


def emperor_words(eid: str | None, T: Tables | None = None) -> str:
    """``red-emperor-04`` as "red Emperor 4", ``pretender-1`` as "yellow Pretender 1"."""
    if eid is None:
        return "no Emperor"
    T = _tables(T)
    x = T.emperor_index.get(eid, -1)
    if x < 0:
        return eid
    number = int(eid.rsplit("-", 1)[-1])
    if x in T.pretenders:
        return f"{SUITS[T.colour[x]]} Pretender {number}"
    return f"{SUITS[T.colour[x]]} Emperor {number}"


def emperor_colour(eid: str, T: Tables | None = None) -> str:
    """The colour (trump suit) of an Emperor id [K4]."""
    T = _tables(T)
    return SUITS[T.colour[T.emperor_index[eid]]]


def is_pretender(eid: str, T: Tables | None = None) -> bool:
    """Whether an Emperor id is one of the set-aside Pretenders [K36]."""
    T = _tables(T)
    return T.emperor_index.get(eid, -1) in T.pretenders


def faction_title(faction: str) -> str:
    """``north`` as "North"."""
    return faction.title()


__all__ = [
    "ABILITY_CODES",
    "FACTIONS",
    "SIDE_WORDS",
    "SUIT_LETTERS",
    "ability_title",
    "card_code",
    "card_words",
    "emperor_colour",
    "emperor_words",
    "faction_title",
    "is_pretender",
    "rc_name",
    "side_context",
    "space_id",
    "space_name",
]

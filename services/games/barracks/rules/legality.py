"""What may be played where: legal spaces, placements, ability targets, barbarian moves, possible plays.

All read-only queries of the integer-coded state; decide, legal_commands, sample_legal and the bots all ask the
same functions, so what is listed is exactly what is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.games.barracks.rules.board import (
    ALWAYS_ON,
    CASTRA,
    DAMNATIO,
    DEMAGOGUE,
    FLANKING,
    FOEDERATI,
    FORCE_MARCH,
    FRUMENTARII,
    MOB,
    MOBILE_VULGUS,
    PEDDLING,
    PLACEMENT_ABILITIES,
    POPULARITY,
    PRAETORIAN,
    PRETENDER,
    PRINCEPS,
    REINFORCEMENTS,
    SPICULUM,
    TRIBUTE,
    TRIUMPH,
)
from services.games.barracks.rules.state import Game

# A placement of an influence card: how its space was reached [K16, K35, K43].
FACTION, FORCE, PRAETORIAN_P, FOEDERATI_P, TRIUMPH_P = (
    "faction",
    "force_march",
    "praetorian_guard",
    "foederati",
    "triumph",
)
# The ability of a play (``InfluencePlayed.ability``).
NO_ABILITY, ALWAYS, SUPPRESSED, NO_TARGET, CHOICE = "none", "always_on", "suppressed", "no_target", "choice"
COUNTERS = (REINFORCEMENTS, PEDDLING, POPULARITY)


def suppressed(g: Game, actor: int) -> bool:
    """A Demagogue of another actor is in force: ``actor``'s triggered abilities are ignored [K37]."""
    return g.demagogue >= 0 and g.demagogue != actor


def is_castra(g: Game, c: int) -> bool:
    """A face-up Castra: cannot be covered, moved, flipped, removed or given counters by an ability [K32, K33]."""
    return g.T.ability[c] == CASTRA and not g.face_down[c]


def adjacent(g: Game, s: int) -> bool:
    """Space ``s`` touches at least one Emperor on the board [K6]."""
    return bool(g.T.touch_mask[s] & g.alive)


def on_side(g: Game, actor: int, s: int) -> bool:
    """Space ``s`` lies on one of ``actor``'s factions' sides of an Emperor on the board [K10, K40]."""
    return bool(g.actor_mask[actor][s] & g.alive)


def free_spaces(g: Game, actor: int) -> list[int]:
    """The actor's legal spaces: empty influence spaces on its side of an Emperor on the board [K10]."""
    top, emp, T = g.top, g.emp, g.T
    factions = g.actor_factions[actor]
    if len(factions) == 1:
        return [s for s, e in T.faction_sides[factions[0]] if top[s] < 0 and emp[e] >= 0]
    found = {s for f in factions for s, e in T.faction_sides[f] if top[s] < 0 and emp[e] >= 0}
    return sorted(found)


def played_on(g: Game, actor: int, s: int) -> list[int]:
    """The Emperor spaces a card on ``s`` is played on: those whose side of ``actor``'s factions ``s`` is [K16]."""
    factions = g.actor_factions[actor]
    emp = g.emp
    return [e for e, f in g.T.sides_of[s] if f in factions and emp[e] >= 0]


def touching(g: Game, s: int) -> list[int]:
    """The Emperor spaces with an Emperor that ``s`` touches [K6]."""
    emp = g.emp
    return [e for e in g.T.touches[s] if emp[e] >= 0]


def placement(g: Game, actor: int, c: int, s: int) -> str | None:
    """How influence card ``c`` may go onto ``s`` for ``actor``, or None [K16, K35, K37]."""
    top = g.top[s]
    mine = on_side(g, actor, s)
    if top < 0:
        if mine:
            return FACTION
        if g.T.ability[c] == FORCE_MARCH and not suppressed(g, actor) and adjacent(g, s):
            return FORCE
        return None
    if not mine or suppressed(g, actor):
        return None
    ability = g.T.ability[c]
    barbarian = g.T.is_barbarian[top]
    if ability == PRAETORIAN and not barbarian and not is_castra(g, top):
        return PRAETORIAN_P
    if ability == FOEDERATI and barbarian:
        return FOEDERATI_P
    if ability == TRIUMPH and barbarian:
        return TRIUMPH_P
    return None


def placements(g: Game, actor: int, c: int, free: list[int] | None = None) -> list[tuple[int, str]]:
    """Every (space, placement) of influence card ``c`` for ``actor`` [K16, K35, K37]."""
    out = [(s, FACTION) for s in (free_spaces(g, actor) if free is None else free)]
    T = g.T
    ability = T.ability[c]
    if ability not in PLACEMENT_ABILITIES or suppressed(g, actor):
        return out
    top = g.top
    if ability == FORCE_MARCH:  # any empty space touching an Emperor
        mine = {s for s, _ in out}
        mask, alive = T.touch_mask, g.alive
        out += [(s, FORCE) for s in range(T.n_spaces) if top[s] < 0 and mask[s] & alive and s not in mine]
        return out
    # Praetorian Guard, Foederati, Triumph: an occupied space on the actor's side [K35] (what placement() checks)
    barbarian, face_down, abilities = T.is_barbarian, g.face_down, T.ability
    seen: set[int] = set()
    for f in g.actor_factions[actor]:
        for s, e in T.faction_sides[f]:
            x = top[s]
            if x < 0 or g.emp[e] < 0 or s in seen:
                continue
            seen.add(s)
            if ability == PRAETORIAN:
                if not barbarian[x] and (abilities[x] != CASTRA or face_down[x]):
                    out.append((s, PRAETORIAN_P))
            elif barbarian[x]:
                out.append((s, FOEDERATI_P if ability == FOEDERATI else TRIUMPH_P))
    return out


def ability_kind(g: Game, actor: int, c: int) -> str:
    """Whether card ``c`` has a triggered ability ``actor`` could use now (before its targets are known)."""
    ability = g.T.ability[c]
    if ability in ALWAYS_ON:
        return ALWAYS
    if ability < 0:
        return NO_ABILITY
    if suppressed(g, actor):
        return SUPPRESSED
    if ability in PLACEMENT_ABILITIES:
        return NO_ABILITY
    return CHOICE


def targets(g: Game, actor: int, c: int, s: int) -> list[tuple[str, int]]:
    """The uses of card ``c``'s triggered ability when played on ``s``: (ability, target code) pairs, target -1
    for none. Empty: no legal target (the ability is skipped) [K17]. Codes: a card for card targets, an Emperor
    for Damnatio Memoriae, an Emperor space for Pretender."""
    T = g.T
    ability = T.ability[c]
    if ability in BY_SPACE:
        return targets_per_space(g, actor, c, ((s, FACTION),))[0]
    top = g.top
    face_down = g.face_down
    if ability in COUNTERS:  # K18: another face-up, uncovered card of the same suit on the board, not Castra
        suit, suits, abilities = T.suit[c], T.suit, T.ability
        return [
            ("use", x)
            for x in top
            if x >= 0 and suits[x] == suit and not face_down[x] and x != c and abilities[x] != CASTRA
        ]
    if ability == TRIBUTE:  # K34, K41: any barbarian on the board; solo also the one closest to Roma, to the deck
        found = [("use", x) for x in top if x >= 0 and T.is_barbarian[x]]
        if found and g.solo:
            found.append(("to_deck", closest_barbarian(g)))
        return found
    if ability == MOBILE_VULGUS:  # K33: another face-up Populace card anywhere
        yellow = T.suit[c]
        return [("use", x) for x in top if x >= 0 and x != c and T.suit[x] == yellow and not face_down[x]]
    if ability == PRETENDER:  # K36: an empty Emperor space, while a Pretender is set aside
        return [("use", e) for e, x in enumerate(g.emp) if x < 0] if g.aside else []
    if ability in (PRINCEPS, FRUMENTARII):  # K31: only while the deck holds a card
        return [("use", -1)] if g.deck else []
    if ability == DEMAGOGUE:  # K37
        return [("use", -1)]
    return []


BY_SPACE = frozenset({FLANKING, SPICULUM, MOB, DAMNATIO})
"""The abilities whose targets depend on the space the card is played on."""


def targets_per_space(g: Game, actor: int, c: int, spots: Sequence[tuple[int, str]]) -> list[list[tuple[str, int]]]:
    """:func:`targets` of card ``c`` (its ability one of ``BY_SPACE``) on each space of ``spots`` ((space,
    placement) pairs), in one call: the listing asks it for every space a card may go to. Castra is face up
    unless flipped: a face-up Castra is never a target (``is_castra``, inline) [K32]."""
    T = g.T
    ability = T.ability[c]
    top, face_down, abilities, barbarian = g.top, g.face_down, T.ability, T.is_barbarian
    if ability == FLANKING:  # K7, K32: a diagonally connected influence card, face up or down, not Castra
        diagonal = T.diagonal
        return [
            [
                ("use", x)
                for d in diagonal[s]
                if (x := top[d]) >= 0 and not barbarian[x] and (abilities[x] != CASTRA or face_down[x])
            ]
            for s, _ in spots
        ]
    if ability == DAMNATIO:  # K36: one Emperor adjacent to its space
        emp, touches = g.emp, T.touches
        return [[("use", emp[e]) for e in touches[s] if emp[e] >= 0] for s, _ in spots]
    # Spiculum, Mob: the top cards on the other sides of the Emperors the card is played on (its actor's sides of
    # Emperors on the board, ``played_on``), in that order (``_on_played_emperors``, inline).
    factions, emp, sides_of, sides = g.actor_factions[actor], g.emp, T.sides_of, T.sides
    if ability == SPICULUM:  # K34: another card on a side of the Emperor it is played on, not Castra
        return [
            [
                ("use", x)
                for e, f in sides_of[s]
                if f in factions and emp[e] >= 0
                for side in sides[e]
                if side != s and (x := top[side]) >= 0 and (abilities[x] != CASTRA or face_down[x])
            ]
            for s, _ in spots
        ]
    # Mob [K33]: another face-up influence card on the Emperor it is played on (so not a face-up Castra either)
    return [
        [
            ("use", x)
            for e, f in sides_of[s]
            if f in factions and emp[e] >= 0
            for side in sides[e]
            if side != s and (x := top[side]) >= 0 and not barbarian[x] and not face_down[x] and abilities[x] != CASTRA
        ]
        for s, _ in spots
    ]


def _on_played_emperors(g: Game, actor: int, s: int) -> list[int]:
    """The top cards on the other sides of the Emperors a card on ``s`` is played on [K16]."""
    top = g.top
    found = []
    for e in played_on(g, actor, s):
        for side in g.T.sides[e]:
            if side != s and top[side] >= 0:
                found.append(top[side])
    return found


def closest_barbarian(g: Game) -> int:
    """The barbarian on the board closest to Roma; ties: lowest row, then lowest column [K41]."""
    T = g.T
    best = min((T.roma_key[g.pos[x]], x) for x in g.top if x >= 0 and T.is_barbarian[x])
    return best[1]


def emperor_of_target(g: Game, actor: int, s: int, target: int) -> int:
    """The Emperor space a Spiculum or Mob on ``s`` is played on, given its target (it always decides) [KX1]."""
    for e in played_on(g, actor, s):
        if g.pos[target] in g.T.sides[e]:
            return e
    return -1


# --- barbarians ----------------------------------------------------------------------------------------------------
def may_land(g: Game, s: int) -> bool:
    """A barbarian may land on ``s``: no barbarian there, adjacent to an Emperor, and (outside solo) no face-up
    Castra to cover [K19, K32, K41]."""
    return s in landing_spaces(g, (s,))


def landing_spaces(g: Game, spaces: tuple[int, ...]) -> list[int]:
    """Those of ``spaces`` a barbarian may land on (see :func:`may_land`)."""
    T = g.T
    top, mask, alive = g.top, T.touch_mask, g.alive
    barbarian, abilities, face_down, solo = T.is_barbarian, T.ability, g.face_down, g.solo
    return [
        s
        for s in spaces
        if mask[s] & alive
        and ((x := top[s]) < 0 or not (barbarian[x] or (abilities[x] == CASTRA and not face_down[x] and not solo)))
    ]


def homelands_open(g: Game) -> list[int]:
    """Homelands a barbarian card may be placed on [K8, K19a]."""
    return landing_spaces(g, g.T.homelands)


def barbarian_moves(g: Game) -> list[tuple[int, int]]:
    """(from, to) moves of active barbarians to diagonally connected spaces [K7, K19b]."""
    T = g.T
    top, mask, alive, diagonal = g.top, T.touch_mask, g.alive, T.diagonal
    barbarian, abilities, face_down, solo = T.is_barbarian, T.ability, g.face_down, g.solo
    return [  # landing_spaces of each barbarian's diagonals, inline
        (s, d)
        for s, x in enumerate(top)
        if x >= 0 and barbarian[x]
        for d in diagonal[s]
        if mask[d] & alive
        and ((y := top[d]) < 0 or not (barbarian[y] or (abilities[y] == CASTRA and not face_down[y] and not solo)))
    ]


def can_play(g: Game, actor: int) -> bool:
    """Whether ``actor``'s seat has any play of K16 or K19 (else it passes) [K20, K37]."""
    hand = g.hands[g.actor_seat[actor]]
    if not hand:
        return False
    T = g.T
    influence = [c for c in hand if not T.is_barbarian[c]]
    if influence:
        free = free_spaces(g, actor)
        if free:
            return True
        if any(placements(g, actor, c, free) for c in influence):
            return True
    if len(influence) < len(hand):
        return bool(homelands_open(g) or barbarian_moves(g))
    return False


def surrounded(g: Game) -> list[int]:
    """Emperor spaces with an Emperor whose four sides all hold a card, lowest row then column first [K22]."""
    ready = g.full & g.alive
    if not ready:
        return []
    return [e for e in range(g.T.n_emp_spaces) if ready >> e & 1]


def forum_allowed(value: int) -> int:
    """How many leftmost Forum cards a play of printed ``value`` may take from (0: any) [K29]."""
    if value <= 2:
        return 0
    if value <= 4:
        return 3
    if value <= 6:
        return 2
    return 1

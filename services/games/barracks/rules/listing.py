"""Every legal command of a seat, as light keys first (integer tuples) and as commands on demand; and a uniform
random legal command built from its key alone (the random bot's fast path).

Keys: ``("I", card, space, placement, ability use, target)``, ``("P", card, homeland)``, ``("M", card, from,
to)``, ``("S",)`` pass, ``("O", emperor space)``, ``("K", card, bottom)``, ``("F", card)``, ``("R", space)``.
"""

from __future__ import annotations

import random
from typing import Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules import legality as L
from services.games.barracks.rules.board import (
    ALWAYS_ON,
    DAMNATIO,
    FLANKING,
    FOEDERATI,
    FORCE_MARCH,
    MOB,
    PRAETORIAN,
    PRETENDER,
    SPICULUM,
    TRIUMPH,
)
from services.games.barracks.rules.decide import awaited, keep_orders, plan_of, remember_sample
from services.games.barracks.rules.state import ACTION, KEEP, ORDER, PICK, RIVAL_PLACE, Game
from services.rules.facts import maker

BY_SPACE = frozenset({FLANKING, SPICULUM, MOB, DAMNATIO})  # abilities whose targets depend on the space
SPECIAL_PLACEMENT = frozenset({FORCE_MARCH, PRAETORIAN, FOEDERATI, TRIUMPH})
# The random bot's commands, from one tuple in the mirror's order (services/rules/facts.py: ``maker``).
_PLAY = maker(F.PlayInfluence, "seat card space type ability target")
_TAKE = maker(F.TakeFromForum, "seat card type")


def legal_keys(g: Game, seat: int) -> list[tuple[Any, ...]]:
    """The keys of every command ``seat`` may send now."""
    if seat not in awaited(g):
        return []
    phase = g.phase
    if phase == ACTION:
        return action_keys(g, seat)
    if phase == PICK:
        allowed = L.forum_allowed(g.played_value)
        forum = g.forum[:allowed] if allowed else g.forum
        return [("F", c) for c in forum]
    if phase == ORDER:
        return [("O", e) for e in g.surrounded]
    if phase == KEEP:
        return [("K", c, bottom) for c, bottom in keep_orders(g)]
    if phase == RIVAL_PLACE:
        return [("R", s) for s in L.free_spaces(g, g.active)]
    return []


def _analyse(g: Game, seat: int) -> tuple[list[tuple[Any, ...]], int]:
    """Per card of the hand, what it may do, with the number of commands it makes: ``(weight, card, spots,
    uses, per_space)`` where ``spots`` are (space, placement) pairs and ``uses`` is None (no choice), one shared
    list of ability uses, or (``per_space``) a list per spot. Barbarian cards come as ``(weight, card, homelands,
    moves, False)``."""
    T = g.T
    actor = g.seat_actor[seat]
    entries: list[tuple[Any, ...]] = []
    total = 0
    free = L.free_spaces(g, actor)
    faction_spots = [(s, L.FACTION) for s in free]
    suppressed = g.demagogue >= 0 and g.demagogue != actor  # L.suppressed, inline
    abilities = T.ability
    homes = moves = None
    for c in g.hands[seat]:
        ability = abilities[c]
        if ability < 0:  # a barbarian card
            if homes is None:
                homes, moves = L.homelands_open(g), L.barbarian_moves(g)
            weight = len(homes) + len(moves)  # type: ignore[arg-type]
            if weight:
                entries.append((weight, c, homes, moves, False))
                total += weight
            continue
        special = ability in SPECIAL_PLACEMENT and not suppressed
        spots = L.placements(g, actor, c, free) if special else faction_spots
        if not spots:
            continue
        # what L.ability_kind says, with the suppression worked out once; a use with no target is one command
        # (the ability skipped), so a card makes 1 + (its uses) commands per spot
        if ability in ALWAYS_ON or special or suppressed:
            entries.append((len(spots), c, spots, None, False))
            total += len(spots)
        elif ability not in BY_SPACE:
            uses = L.targets(g, actor, c, spots[0][0])
            weight = len(spots) * (1 + len(uses))
            entries.append((weight, c, spots, uses, False))
            total += weight
        else:
            per_spot = L.targets_per_space(g, actor, c, spots)
            weight = len(spots) + sum(map(len, per_spot))
            entries.append((weight, c, spots, per_spot, True))
            total += weight
    return entries, total


def _expand(entry: tuple[Any, ...], g: Game) -> list[tuple[Any, ...]]:
    """The keys of one card's entry (in a fixed order)."""
    _, c, spots, uses, per_space = entry
    if g.T.is_barbarian[c]:
        return [("P", c, h) for h in spots] + [("M", c, frm, to) for frm, to in uses]
    if uses is None:
        return [("I", c, s, kind, None, -1) for s, kind in spots]
    keys: list[tuple[Any, ...]] = []
    for i, (s, kind) in enumerate(spots):
        here = uses[i] if per_space else uses
        if not here:
            keys.append(("I", c, s, kind, None, -1))
        else:
            keys.append(("I", c, s, kind, "decline", -1))
            keys += [("I", c, s, kind, use, x) for use, x in here]
    return keys


def action_keys(g: Game, seat: int) -> list[tuple[Any, ...]]:
    """Every action of the active seat: influence plays with each ability use, barbarian placements and moves,
    or a pass when nothing else is possible [K15-K20]."""
    entries, _ = _analyse(g, seat)
    keys = [k for entry in entries for k in _expand(entry, g)]
    return keys or [("S",)]


def sample_action(g: Game, seat: int, rng: random.Random) -> tuple[Any, ...]:
    """A uniformly random action key, expanding only the card it falls on."""
    entries, total = _analyse(g, seat)
    if not total:
        return ("S",)
    r = rng.randrange(total)
    for entry in entries:
        if r < entry[0]:
            return _expand(entry, g)[r]
        r -= entry[0]
    raise AssertionError("unreachable: r < total")


def command_of(g: Game, seat: int, key: tuple[Any, ...]) -> Any:
    """The core command of a key."""
    T = g.T
    kind = key[0]
    if kind == "I":
        _, c, s, _, use, x = key
        if x < 0:
            target = None
        elif T.ability[c] == DAMNATIO:
            target = T.emperor_ids[x]
        elif T.ability[c] == PRETENDER:
            target = T.emp_ids[x]
        else:
            target = T.card_ids[x]
        return _PLAY((seat, T.card_ids[c], T.space_ids[s], "PlayInfluence", use, target))
    if kind == "F":
        return F.TakeFromForum(seat=seat, card=T.card_ids[key[1]])
    if kind == "P":
        return F.PlaceBarbarian(seat=seat, card=T.card_ids[key[1]], space=T.space_ids[key[2]])
    if kind == "M":
        return F.MoveBarbarian(
            seat=seat, card=T.card_ids[key[1]], from_space=T.space_ids[key[2]], to_space=T.space_ids[key[3]]
        )
    if kind == "O":
        return F.ResolveEmperor(seat=seat, emperor=T.emperor_ids[g.emp[key[1]]])
    if kind == "K":
        return F.KeepCard(seat=seat, card=T.card_ids[key[1]], bottom=tuple(T.card_ids[x] for x in key[2]))
    if kind == "R":
        return F.PlaceForRival(seat=seat, space=T.space_ids[key[1]])
    return F.Pass(seat=seat)


def legal_commands(g: Game | None, seat: int) -> list[Any]:
    """Every command ``seat`` may send now."""
    if g is None:
        return []
    return [command_of(g, seat, k) for k in legal_keys(g, seat)]


def sample_legal(g: Game | None, seat: int, rng: random.Random) -> Any:
    """A uniformly random legal command of ``seat`` (None: it has none); remembered with the plan of its key, so
    that executing it on ``g`` needs no checks (decide.py: ``remember_sample``)."""
    if g is None:
        return None
    if seat in awaited(g):
        if g.phase == ACTION:
            key = sample_action(g, seat, rng)
            return remember_sample(g, command_of(g, seat, key), plan_of(seat, key))
        if g.phase == PICK:  # the common case after an action: choose among the allowed slots directly
            allowed = L.forum_allowed(g.played_value) or len(g.forum)
            c = g.forum[rng.randrange(min(allowed, len(g.forum)))]
            return remember_sample(g, _TAKE((seat, g.T.card_ids[c], "TakeFromForum")), plan_of(seat, ("F", c)))
    keys = legal_keys(g, seat)
    if not keys:
        return None
    key = rng.choice(keys)
    return remember_sample(g, command_of(g, seat, key), plan_of(seat, key))

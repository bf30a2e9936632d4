"""Every legal command of a seat, as light keys first (integer tuples) and as commands on demand; and a uniform
random legal command built from its key alone (the random bot's fast path).

Keys: ``("I", card, space, placement, ability use, target)``, ``("P", card, homeland)``, ``("M", card, from,
to)``, ``("S",)`` pass, ``("O", emperor space)``, ``("K", card, bottom)``, ``("F", card)``, ``("R", space)``.
"""

from __future__ import annotations

import random
from typing import Any

from services.rules.barracks import facts as F
from services.rules.barracks import legality as L
from services.rules.barracks.decide import awaited, keep_orders
from services.rules.barracks.state import ACTION, KEEP, ORDER, PICK, RIVAL_PLACE, Game
from services.rules.barracks.tables import DAMNATIO, FLANKING, MOB, PRETENDER, SPICULUM

BY_SPACE = frozenset({FLANKING, SPICULUM, MOB, DAMNATIO})  # abilities whose targets depend on the space


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


def action_keys(g: Game, seat: int) -> list[tuple[Any, ...]]:
    """Every action of the active seat: influence plays with each ability use, barbarian placements and moves,
    or a pass when nothing else is possible [K15-K20]."""
    T = g.T
    actor = g.seat_actor[seat]
    keys: list[tuple[Any, ...]] = []
    barbarians = []
    free = L.free_spaces(g, actor)
    for c in g.hands[seat]:
        if T.is_barbarian[c]:
            barbarians.append(c)
            continue
        spots = L.placements(g, actor, c, free)
        if not spots:
            continue
        if L.ability_kind(g, actor, c) != L.CHOICE:
            keys += [("I", c, s, kind, None, -1) for s, kind in spots]
            continue
        shared = None if T.ability[c] in BY_SPACE else L.targets(g, actor, c, spots[0][0])
        for s, kind in spots:
            uses = shared if shared is not None else L.targets(g, actor, c, s)
            if not uses:
                keys.append(("I", c, s, kind, None, -1))
            else:
                keys.append(("I", c, s, kind, "decline", -1))
                keys += [("I", c, s, kind, use, x) for use, x in uses]
    if barbarians:
        homes = L.homelands_open(g)
        moves = L.barbarian_moves(g)
        for b in barbarians:
            keys += [("P", b, h) for h in homes]
            keys += [("M", b, frm, to) for frm, to in moves]
    if not keys:
        keys.append(("S",))
    return keys


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
        return F.PlayInfluence(seat=seat, card=T.card_ids[c], space=T.space_ids[s], ability=use, target=target)
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
    """A uniformly random legal command of ``seat`` (None: it has none)."""
    if g is None:
        return None
    keys = legal_keys(g, seat)
    return command_of(g, seat, rng.choice(keys)) if keys else None

"""Labels of commands and menus of legal commands, for buttons and chat menus [K15-K22, K29-K31, K43].

A label names the card ("red 7 Spiculum"), the space in the board's naming scheme with where it lies for the seat
("C2 (N of D2)", names.py), and what the ability does and to what ("discard yellow 5 Mob on D3"). Labels of one
seat's legal commands are all different. A hand of five cards on a crowded board may have a hundred legal
commands, so :func:`menu_groups` groups them: by action and card, and a card whose ability has several targets on
several spaces by space, so that no group is long when it can be helped.

Labels read only what is public (the board, the Forum, the Emperors) and the commands themselves, which belong to
the seat they are shown to: they carry no other seat's secret.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.games.barracks.presentation.names import card_words, emperor_words, rc_name, side_context, space_name
from services.games.barracks.rules import facts as F
from services.games.barracks.rules import legality as L
from services.games.barracks.rules.board import (
    ABILITIES,
    COUNTER_ABILITIES,
    DAMNATIO,
    DEMAGOGUE,
    FLANKING,
    FRUMENTARII,
    MOB,
    MOBILE_VULGUS,
    PLACEMENT_ABILITIES,
    PRETENDER,
    PRINCEPS,
    SPICULUM,
    TRIBUTE,
)
from services.games.barracks.rules.state import Game

MAX_GROUP = 16
"""A card's group longer than this is split by space when that makes groups of more than one command."""
LEVEL = " > "
"""Separates the levels of a group title ("Play blue 3 Tribute > on C2 (N of D2)"): a menu may nest on it."""


def label(command: Any, g: Game | None = None) -> str:
    """A short readable label of ``command`` (``g``: the game it is legal in, for where things are)."""
    command = F.as_core(command)
    kind = command.type
    if kind == "PlayInfluence":
        return _play_label(command, g)
    if kind == "PlaceBarbarian":
        return f"{card_words(command.card, _T(g))}: place it on homeland {_where(command.space, g, None)}"
    if kind == "MoveBarbarian":
        covers = _card_at(command.to_space, g)
        return (
            f"{card_words(command.card, _T(g))}: discard it to move the barbarian on {space_name(command.from_space)}"
            f" to {space_name(command.to_space)}" + (f", covering {covers}" if covers else "")
        )
    if kind == "Pass":
        return "Pass (show your hand)"
    if kind == "ResolveEmperor":
        return f"Resolve {emperor_words(command.emperor, _T(g))}{_emperor_place(command.emperor, g)} next"
    if kind == "KeepCard":
        T = _T(g)
        text = f"Keep {card_words(command.card, T)}"
        if command.bottom:
            text += "; under the deck: " + ", then ".join(card_words(c, T) for c in command.bottom) + " (bottom)"
        return text
    if kind == "TakeFromForum":
        slot = _forum_slot(command.card, g)
        return f"Take {card_words(command.card, _T(g))} from the Forum" + (f" (slot {slot})" if slot else "")
    if kind == "PlaceForRival":
        card = g.T.card_ids[g.limbo] if g is not None and g.limbo >= 0 else None
        whose = f"the rival's {card_words(card, g.T)}" if card and g is not None else "the rival's card"
        return f"Place {whose} on {_where(command.space, g, _rival_factions(g))}"
    return kind


def menu_groups(commands: Sequence[Any], g: Game | None = None) -> list[tuple[str, list[int]]]:
    """The legal ``commands`` grouped for a menu: ``(title, indexes into commands)``, in order of first
    appearance; the groups partition the indexes. Grouped by action and card; a card's plays are split by space
    when the group is long and its ability has several targets per space, the title then having two levels
    (:data:`LEVEL`)."""
    keyed: dict[tuple[str, str], list[int]] = {}
    for i, raw in enumerate(commands):
        command = F.as_core(raw)
        keyed.setdefault(_group_key(command), []).append(i)
    groups: list[tuple[str, list[int]]] = []
    for (kind, card), indexes in keyed.items():
        title = _group_title(kind, card, g)
        if kind == "Play" and len(indexes) > MAX_GROUP:
            by_space: dict[str, list[int]] = {}
            for i in indexes:
                by_space.setdefault(F.as_core(commands[i]).space, []).append(i)
            if len(by_space) < len(indexes) and len(by_space) > 1:
                for space, part in by_space.items():
                    where = _where(space, g, _seat_factions(g, commands[part[0]]))
                    groups.append((f"{title}{LEVEL}on {where}", part))
                continue
        groups.append((title, indexes))
    return groups


# --- groups --------------------------------------------------------------------------------------------------------
def _group_key(command: Any) -> tuple[str, str]:
    kind = command.type
    if kind in ("PlayInfluence", "PlaceBarbarian", "MoveBarbarian"):
        return ("Play" if kind == "PlayInfluence" else "Barbarian", command.card)
    if kind == "KeepCard":
        return (kind, command.card)
    return (kind, "")


def _group_title(kind: str, card: str, g: Game | None) -> str:
    T = _T(g)
    if kind == "Play":
        return f"Play {card_words(card, T)}"
    if kind == "Barbarian":
        return f"Use {card_words(card, T)} (barbarian card)"
    if kind == "KeepCard":
        return f"Keep {card_words(card, T)}"
    return {
        "Pass": "Pass",
        "ResolveEmperor": "Resolve a surrounded Emperor",
        "TakeFromForum": "Take a card from the Forum",
        "PlaceForRival": "Place the rival claimant's card",
    }.get(kind, kind)


# --- pieces of labels -------------------------------------------------------------------------------------------
def _T(g: Game | None) -> Any:
    return None if g is None else g.T


def _play_label(command: Any, g: Game | None) -> str:
    T = _T(g)
    text = f"Play {card_words(command.card, T)} on {_where(command.space, g, _seat_factions(g, command))}"
    if g is not None:
        text += _placement_words(command, g)
    if command.ability == "decline":
        return text + "; decline its ability"
    if command.ability == "to_deck":
        return text + f"; return the barbarian on {_space_of(command.target, g)} to the deck (solo Tribute)"
    if command.ability == "use":
        return text + "; " + _use_words(command, g)
    return text + (_unused_words(command, g) if g is not None else "")


def _unused_words(command: Any, g: Game) -> str:
    """Why a card with a triggered ability is played without a choice: a Demagogue, or no legal target [K17, K37]."""
    T = g.T
    c = T.card_index.get(command.card, -1)
    if c < 0 or not 0 <= command.seat < len(g.seat_actor):
        return ""
    kind = L.ability_kind(g, g.seat_actor[command.seat], c)
    if kind == L.SUPPRESSED and T.ability[c] not in PLACEMENT_ABILITIES:
        return "; its ability is ignored (Demagogue)"
    if kind == L.CHOICE:
        return "; its ability has no target"
    return ""


def _placement_words(command: Any, g: Game) -> str:
    T = g.T
    c, s = T.card_index.get(command.card, -1), T.space_index.get(command.space, -1)
    if c < 0 or s < 0 or not 0 <= command.seat < len(g.seat_actor):
        return ""
    kind = L.placement(g, g.seat_actor[command.seat], c, s)
    if kind == L.FORCE:
        return " (Force March)"
    if kind == L.PRAETORIAN_P:
        return f", displacing {_card_at(command.space, g)}"
    if kind == L.FOEDERATI_P:
        return ", discarding the barbarian there (Foederati)"
    if kind == L.TRIUMPH_P:
        return ", taking the barbarian there (Triumph)"
    return ""


def _use_words(command: Any, g: Game | None) -> str:
    T = _T(g)
    if g is None or command.card not in g.T.card_index:
        return "use its ability" + (f" on {command.target}" if command.target else "")
    ability = g.T.ability[g.T.card_index[command.card]]
    target = command.target
    if ability in COUNTER_ABILITIES:
        amount = g.T.counter[g.T.card_index[command.card]]
        return f"+{amount} counter on {_card_and_space(target, g)}"
    if ability == FLANKING:
        return f"swap with {_card_and_space(target, g)}"
    if ability == SPICULUM:
        return f"discard {_card_and_space(target, g)}"
    if ability == TRIBUTE:
        return f"discard the barbarian on {_space_of(target, g)}"
    if ability == MOB:
        return f"flip {_card_and_space(target, g)} face down"
    if ability == MOBILE_VULGUS:
        return f"discard {_card_and_space(target, g)}"
    if ability == DAMNATIO:
        return f"remove {emperor_words(target, T)}{_emperor_place(target, g)} from the game"
    if ability == PRETENDER:
        return f"a Pretender onto {space_name(target)}"
    if ability == PRINCEPS:
        return "draw a card after the resolutions (Princeps Senatus)"
    if ability == FRUMENTARII:
        return "look at the top 4 cards instead of the Forum (Frumentarii)"
    if ability == DEMAGOGUE:
        return "Demagogue: the others' abilities are ignored until your next turn"
    return f"use {ABILITIES[ability].replace('_', ' ')}"


def _card_and_space(cid: str | None, g: Game) -> str:
    """A card on the board by its words and space: "yellow 5 Mob on D3", "the face-down card on D3"."""
    if cid is None:
        return "nothing"
    T = g.T
    c = T.card_index.get(cid, -1)
    if c < 0:
        return cid
    where = _space_of(cid, g)
    if T.is_barbarian[c]:
        return f"the barbarian on {where}"
    if g.face_down[c]:
        return f"the face-down card on {where}"
    return f"{card_words(cid, T)} on {where}"


def _space_of(cid: str | None, g: Game | None) -> str:
    if g is None or cid is None:
        return "?"
    c = g.T.card_index.get(cid, -1)
    s = g.pos[c] if c >= 0 else -1
    return space_name(g.T.space_ids[s]) if s >= 0 else "?"


def _card_at(space: str, g: Game | None) -> str:
    """What lies on ``space`` now, in words ("" when empty)."""
    if g is None:
        return ""
    s = g.T.space_index.get(space, -1)
    if s < 0 or g.top[s] < 0:
        return ""
    c = g.top[s]
    if g.T.is_barbarian[c]:
        return "a barbarian"
    if g.face_down[c]:
        return "a face-down card"
    return card_words(g.T.card_ids[c], g.T)


def _emperor_place(eid: str, g: Game | None) -> str:
    if g is None:
        return ""
    x = g.T.emperor_index.get(eid, -1)
    for e, here in enumerate(g.emp):
        if here == x and x >= 0:
            return f" ({rc_name(*g.T.emp_rc[e])})"
    return ""


def _forum_slot(cid: str, g: Game | None) -> int:
    if g is None:
        return 0
    c = g.T.card_index.get(cid, -1)
    return g.forum.index(c) + 1 if c in g.forum else 0


def _seat_factions(g: Game | None, command: Any) -> tuple[int, ...] | None:
    if g is None:
        return None
    seat = F.as_core(command).seat
    return g.actor_factions[g.seat_actor[seat]] if 0 <= seat < len(g.seat_actor) else None


def _rival_factions(g: Game | None) -> tuple[int, ...] | None:
    return None if g is None else g.actor_factions[g.active]


def _where(space: str, g: Game | None, factions: tuple[int, ...] | None) -> str:
    """``space`` by name with where it lies for ``factions``: "C2 (N of D2)"."""
    name = space_name(space)
    if g is None:
        return name
    s = g.T.space_index.get(space, -1)
    if s < 0:
        return name
    emperors = {e for e, x in enumerate(g.emp) if x >= 0}
    context = side_context(g.T, s, factions or (), emperors)
    return f"{name} ({context})" if context else name

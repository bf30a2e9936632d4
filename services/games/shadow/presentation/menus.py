"""Menus of legal commands for chat and buttons: grouped by action, then by where the action takes place.

A phase IV turn may offer a hundred commands (every card, each Trier copy, each electorate, each push), far
more than one chat message holds. :func:`menu_groups` groups them the way a player thinks: first the action
(a card, a knight, a privilege; Trier's copies under "Trier's privilege"), then, for an action with more than
:data:`MAX_GROUP` commands, the electorate it acts in ("Permit > Köln"). Titles nest on `` > ``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.games.shadow.presentation.names import electorate_name, electorate_of_space
from services.games.shadow.presentation.words import CARD_NAMES
from services.games.shadow.rules.state import GameState

MAX_GROUP = 8
"""An action with more commands than this is split by electorate (when that makes more than one group)."""
LEVEL = " > "

ACTIONS = {
    "Pass": "Pass",
    "PlaceKnight": "Place a knight",
    "MoveKnight": "Move a knight",
    "BuyDoctor": "Doctor",
    "BuyMove": "Move",
    "BuyPope": "Pope",
    "BuyChurchInfluence": "Church influence",
    "BuyExcommunication": "Excommunication",
    "BuyIndulgence": "Indulgence",
    "BuyPermit": "Permit",
    "BuyOrdinance": "Ordinance",
    "BuyPromotion": "Promotion",
    "BuyForeignKingsDaughter": "Foreign king's daughter",
    "BuyRival": "Rival",
    "BuyCardWithoutEffect": "A card without its effect",
    "TakeGrayEminence": "Brandenburg's privilege",
    "UseKoelnPrivilege": "Köln's privilege",
    "UsePalatinatePrivilege": "Palatinate's privilege",
    "AimChurchInfluence": "Aim Church influence",
    "AimExcommunication": "Aim Excommunication",
    "CastVote": "Vote",
    "PlaceEmpireCity": "Place an empire city",
    "MoveEmpireCity": "Move an empire city",
    "ChooseAristocrat": "Choose an aristocrat",
    "BreakTie": "Break the tie",
    "Decline": "Decline",
    "OfferDaughter": "Offer your daughter",
    "SendDaughterToConvent": "Send your daughter to the convent",
    "AnswerMarriage": "Answer the marriage offer",
}
"""The action of each command type, as a menu heading."""

_PLACE = {
    "setup_elector": "Place your elector",
    "setup_aristocrat": "Place an aristocrat",
    "setup_knight": "Place a knight",
    "place_son": "Place your son",
    "place_displaced": "Place the displaced elector",
    "place_dethroned": "Place the dethroned Emperor",
    "gray_eminence": "Place the Gray eminence",
}
_WHERE_FIELDS = ("electorate", "target", "source", "space", "knight", "baron", "from_space")
"""Where a command acts, in order of preference: its destination electorate, else the space it acts on."""


def where(command: Any) -> str | None:
    """The electorate key a command acts in (its destination for a move), or None (no place, the throne)."""
    for name in _WHERE_FIELDS:
        value = getattr(command, name, None)
        if isinstance(value, str):
            return value if name == "electorate" else electorate_of_space(value)
    return None


def action(command: Any, state: GameState | None = None) -> str:
    """The menu heading of a command's action (Trier's copies under "Trier's privilege")."""
    kind = command.type
    if kind == "PlacePiece":
        decision = state.pending.decision if state is not None and state.pending is not None else ""
        return _PLACE.get(decision, "Place a piece")
    if kind == "BuyCardWithoutEffect":
        return f"{ACTIONS[kind]} > {CARD_NAMES.get(command.card, command.card)}"
    title = ACTIONS.get(kind, kind)
    return f"Trier's privilege{LEVEL}{title}" if getattr(command, "trier", False) else title


def menu_groups(commands: Sequence[Any], state: GameState | None = None) -> list[tuple[str, list[int]]]:
    """``commands`` grouped for a menu, in order of first appearance: by action, and an action with more than
    :data:`MAX_GROUP` commands by electorate too; the groups partition the indexes."""
    by_action: dict[str, list[int]] = {}
    for i, command in enumerate(commands):
        by_action.setdefault(action(command, state), []).append(i)
    groups: list[tuple[str, list[int]]] = []
    for title, part in by_action.items():
        places: dict[str, list[int]] = {}
        if len(part) > MAX_GROUP:
            for i in part:
                key = where(commands[i])
                places.setdefault("the throne" if key is None else electorate_name(key), []).append(i)
        if len(places) > 1:
            groups.extend((f"{title}{LEVEL}{place}", indexes) for place, indexes in places.items())
        else:
            groups.append((title, part))
    return groups

"""Command keys: a command as a compact key ``(type, *fields)`` in the order of ``FIELDS[type]``, and back
(``key_of``, ``command_of``); the ids of spaces and electorates the keys hold.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from events.base import Command
from services.games.shadow.messages.commands import COMMAND_TYPES
from services.games.shadow.rules.board import ELECTORATE_KEYS
from services.games.shadow.rules.state import GameState

Key = tuple[Any, ...]

FIELDS: dict[str, tuple[str, ...]] = {
    "PlaceEmpireCity": ("electorate",),
    "MoveEmpireCity": ("from_space", "electorate"),
    "PlacePiece": ("electorate", "space_kind", "push"),
    "ChooseAristocrat": ("space",),
    "BreakTie": ("winner",),
    "Decline": (),
    "OfferDaughter": ("space",),
    "SendDaughterToConvent": (),
    "AnswerMarriage": ("accept",),
    "Pass": (),
    "PlaceKnight": ("electorate", "space_kind"),
    "MoveKnight": ("from_space", "electorate", "space_kind"),
    "BuyDoctor": ("target", "trier"),
    "BuyMove": ("source", "electorate", "push", "trier"),
    "BuyPope": (),
    "BuyChurchInfluence": (),
    "BuyExcommunication": (),
    "BuyIndulgence": ("trier",),
    "BuyPermit": ("couple", "electorate", "push", "trier"),
    "BuyOrdinance": ("electorate", "trier"),
    "BuyPromotion": ("knight", "trier"),
    "BuyForeignKingsDaughter": ("baron", "trier"),
    "BuyRival": (),
    "BuyCardWithoutEffect": ("card",),
    "TakeGrayEminence": (),
    "UseKoelnPrivilege": ("target",),
    "UsePalatinatePrivilege": ("electorate", "push"),
    "AimChurchInfluence": ("electorate",),
    "AimExcommunication": ("electorate",),
    "CastVote": ("candidate",),
}
assert set(FIELDS) == set(COMMAND_TYPES)

TRIER_CARDS = ("doctor", "move", "indulgence", "permit", "ordinance", "promotion", "foreign_kings_daughter")
CARDS_WITHOUT_EFFECT = TRIER_CARDS
CARD_OF_COMMAND = {
    "BuyDoctor": "doctor",
    "BuyMove": "move",
    "BuyPope": "pope",
    "BuyChurchInfluence": "church_influence",
    "BuyExcommunication": "excommunication",
    "BuyIndulgence": "indulgence",
    "BuyPermit": "permit",
    "BuyOrdinance": "ordinance",
    "BuyPromotion": "promotion",
    "BuyForeignKingsDaughter": "foreign_kings_daughter",
    "BuyRival": "rival",
}


def _key_getter(command_type: str) -> Callable[[Any], Key]:
    fields = FIELDS[command_type]
    if not fields:
        key = (command_type,)
        return lambda c: key
    if len(fields) == 1:
        get = attrgetter(fields[0])
        return lambda c: (command_type, get(c))
    return attrgetter("type", *fields)


_KEY_OF: dict[str, Callable[[Any], Key]] = {t: _key_getter(t) for t in FIELDS}


def key_of(command: Command) -> Key:
    """The compact key of a command: ``(type, *fields)`` in the order of ``FIELDS[type]``."""
    return _KEY_OF[command.type](command)  # type: ignore[attr-defined]


# Commands are immutable: one instance per (seat, key) is shared. Bounded: cleared when full.
_commands: dict[tuple[int, Key], Command] = {}
_COMMANDS_KEPT = 16384
_new = object.__new__
_set = object.__setattr__


def _template(kind: str) -> dict[str, Any]:
    """Every field of a command model in declaration order, with its default (a required one: None until
    given)."""
    return {name: None if f.is_required() else f.default for name, f in COMMAND_TYPES[kind].model_fields.items()}


_TEMPLATES = {kind: _template(kind) for kind in FIELDS}


def command_of(seat: int, key: Key) -> Command:
    """The command model of a legal key: the instance validation would build from the same values (a legal key
    holds values of the declared types, so it is built without validating again)."""
    command = _commands.get((seat, key))
    if command is None:
        kind = key[0]
        given = dict(zip(FIELDS[kind], key[1:], strict=True))
        command = _new(COMMAND_TYPES[kind])
        _set(command, "__dict__", {**_TEMPLATES[kind], "seat": seat, **given})
        _set(command, "__pydantic_fields_set__", {"seat", *given})
        _set(command, "__pydantic_extra__", None)
        _set(command, "__pydantic_private__", None)
        if len(_commands) >= _COMMANDS_KEPT:
            _commands.clear()
        _commands[(seat, key)] = command
    return command


def _sid(s: GameState, i: int | None) -> str | None:
    return None if i is None else s.layout.spaces[i].id


def _ekey(s: GameState, e: int) -> str:
    return s.layout.electorates[e].key


def _eidx(key: str) -> int:
    return ELECTORATE_KEYS.index(key)


def _space(s: GameState, space_id: str | None) -> int | None:
    return None if space_id is None else s.layout.by_id[space_id]

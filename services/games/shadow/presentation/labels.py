"""Readable labels of commands (buttons, chat-bots, the audit): "Permit: a Baron aged 15 in Mainz (3 thalers)".

A label is built from the command and, when known, the position it is sent in (names, costs, the piece a
space holds). Labels are for people: the JSON command stays the thing that is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from events.base import Command
from services.games.shadow.presentation.names import electorate_name, space_name
from services.games.shadow.presentation.words import CARD_NAMES
from services.games.shadow.rules.actions import CARD_OF_COMMAND, permit_cost
from services.games.shadow.rules.state import GameState, Knight, Tile

PLACE_WHAT = {
    "setup_elector": "Place your Baron aged 45 as elector",
    "setup_aristocrat": "Place an aristocrat",
    "setup_knight": "Place a knight",
    "place_son": "Place your son",
    "place_displaced": "Place the displaced elector",
    "place_dethroned": "Place the dethroned Emperor",
    "gray_eminence": "Place the Gray eminence Baron",
}


class _Context:
    """What a label may say about a position (names, costs, pieces); empty without a state."""

    def __init__(self, seat: int, state: GameState | Sequence[str] | None) -> None:
        self.seat = seat
        self.s = state if isinstance(state, GameState) else None
        if self.s is not None:
            self.players: tuple[str, ...] = self.s.players
        elif state is not None and not isinstance(state, str | bytes):
            self.players = tuple(str(p) for p in state)
        else:
            self.players = ()

    def who(self, seat: int) -> str:
        if seat == self.seat:
            return "you"
        return self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"

    def whose(self, seat: int) -> str:
        return "your" if seat == self.seat else f"{self.who(seat)}'s"

    def piece(self, space: str) -> str:
        """``your Baron aged 25 on aristocrat space 1 of Mainz`` (just the space without a state)."""
        where = space_name(space)
        if self.s is None or space not in self.s.layout.by_id:
            return where
        p = self.s.board[self.s.layout.by_id[space]]
        if isinstance(p, Tile):
            return f"{self.whose(p.owner)} {'Couple' if p.couple else 'Baron'} aged {p.age} on {where}"
        if isinstance(p, Knight):
            return f"{self.whose(p.owner)} knight on {where}"
        return where

    def cost(self, command: Any) -> str:
        if self.s is None:
            return ""
        if command.type == "BuyPermit":
            n = permit_cost(self.s, command.couple)
        elif command.type in ("PlaceKnight", "MoveKnight"):
            n = self.s.layout.constants.get("knight_cost", 1)
        else:
            card = CARD_OF_COMMAND.get(command.type) or getattr(command, "card", None)
            info = self.s.layout.cards.get(card) if card else None
            if info is None:
                return ""
            n = info.cost
        return f" ({n} thaler{'s' if n != 1 else ''})"

    def prompt(self) -> str | None:
        return None if self.s is None or self.s.pending is None else self.s.pending.decision


def _push(c: Any, x: _Context) -> str:
    return f", pushing {x.piece(c.push)}" if getattr(c, "push", None) else ""


def _trier(c: Any) -> str:
    return " with Trier's privilege" if getattr(c, "trier", False) else ""


def _place(c: Any, x: _Context) -> str:
    what = PLACE_WHAT.get(x.prompt() or "", "Place a piece")
    where = electorate_name(c.electorate)
    if what.endswith("as elector"):
        return f"{what} of {where}"
    target = {
        "elector": f"the elector seat of {where}",
        "eminence": f"the Gray eminence slot of {where}",
        "castle": f"a castle space in {where}",
    }.get(c.space_kind, f"an aristocrat space in {where}")
    return f"{what} on {target}{_push(c, x)}"


def _choose(c: Any, x: _Context) -> str:
    verb = {
        "replace_emperor": "Make Emperor",
        "choose_throne": "Put on the throne",
        "choose_elector": "Make elector",
    }.get(x.prompt() or "", "Choose")
    return f"{verb}: {x.piece(c.space)}"


def _vote(c: Any, x: _Context) -> str:
    if x.s is not None and x.s.rival is not None:
        who = x.who(x.s.emperor) if c.candidate == "emperor" else x.who(x.s.rival)
        return f"Vote for the {'Emperor' if c.candidate == 'emperor' else 'Rival'} ({who})"
    return f"Vote for the {'Emperor' if c.candidate == 'emperor' else 'Rival'}"


_LABELS: dict[str, Callable[[Any, _Context], str]] = {
    "PlaceEmpireCity": lambda c, x: f"Place an empire city in {electorate_name(c.electorate)}",
    "MoveEmpireCity": lambda c, x: (
        f"Move the empire city on {space_name(c.from_space)} to {electorate_name(c.electorate)}"
    ),
    "PlacePiece": _place,
    "ChooseAristocrat": _choose,
    "BreakTie": lambda c, x: f"Give the elector seat to {x.who(c.winner)}",
    "Decline": lambda c, x: "Decline",
    "OfferDaughter": lambda c, x: f"Offer your daughter to {x.piece(c.space)}",
    "SendDaughterToConvent": lambda c, x: "Send your daughter to the convent (+1 thaler)",
    "AnswerMarriage": lambda c, x: "Accept the marriage" if c.accept else "Decline the marriage",
    "Pass": lambda c, x: "Pass",
    "PlaceKnight": lambda c, x: (
        f"Place a knight on a{'n aristocrat' if c.space_kind == 'aristocrat' else ' castle'} space in "
        f"{electorate_name(c.electorate)}{x.cost(c)}"
    ),
    "MoveKnight": lambda c, x: (
        f"Move {x.piece(c.from_space)} to a{'n aristocrat' if c.space_kind == 'aristocrat' else ' castle'} space "
        f"in {electorate_name(c.electorate)}{x.cost(c)}"
    ),
    "BuyDoctor": lambda c, x: f"Doctor on {x.piece(c.target)}{_trier(c)}{x.cost(c)}",
    "BuyMove": lambda c, x: (
        f"Move: {x.piece(c.source)} to {electorate_name(c.electorate)}{_push(c, x)}{_trier(c)}{x.cost(c)}"
    ),
    "BuyPope": lambda c, x: f"Pope: one more vote this round{x.cost(c)}",
    "BuyChurchInfluence": lambda c, x: f"Church influence{x.cost(c)}",
    "BuyExcommunication": lambda c, x: f"Excommunication{x.cost(c)}",
    "BuyIndulgence": lambda c, x: f"Indulgence: 1 victory point{_trier(c)}{x.cost(c)}",
    "BuyPermit": lambda c, x: (
        f"Permit: a {'Couple' if c.couple else 'Baron'} aged 15 in {electorate_name(c.electorate)}"
        f"{_push(c, x)}{_trier(c)}{x.cost(c)}"
    ),
    "BuyOrdinance": lambda c, x: f"Ordinance: a city in {electorate_name(c.electorate)}{_trier(c)}{x.cost(c)}",
    "BuyPromotion": lambda c, x: f"Promotion: {x.piece(c.knight)} becomes a Baron aged 15{_trier(c)}{x.cost(c)}",
    "BuyForeignKingsDaughter": lambda c, x: (
        f"Foreign king's daughter: {x.piece(c.baron)} becomes a Couple{_trier(c)}{x.cost(c)}"
    ),
    "BuyRival": lambda c, x: f"Rival: challenge the Emperor (ends your turn){x.cost(c)}",
    "BuyCardWithoutEffect": lambda c, x: f"Buy {CARD_NAMES.get(c.card, c.card)} without effect{x.cost(c)}",
    "TakeGrayEminence": lambda c, x: "Brandenburg's privilege: take the Gray eminence",
    "UseKoelnPrivilege": lambda c, x: f"Köln's privilege: Doctor on {x.piece(c.target)}",
    "UsePalatinatePrivilege": lambda c, x: (
        f"Palatinate's privilege: a free Baron aged 15 in {electorate_name(c.electorate)}{_push(c, x)}"
    ),
    "AimChurchInfluence": lambda c, x: f"Aim Church influence at {electorate_name(c.electorate)}",
    "AimExcommunication": lambda c, x: f"Aim Excommunication at {electorate_name(c.electorate)}",
    "CastVote": _vote,
}


_last: list[tuple[Any, int, _Context | None]] = [(None, -1, None)]  # the legal commands of a seat come together


def label(command: Command, state: GameState | Sequence[str] | None = None) -> str:
    """A one-line label of ``command``; ``state`` (or just the player names) adds names, costs and pieces."""
    fn = _LABELS.get(command.type)  # type: ignore[attr-defined]
    if fn is None:
        return str(command.type)  # type: ignore[attr-defined]
    seen, seat, ctx = _last[0]
    if ctx is None or seen is not state or seat != command.seat:
        ctx = _Context(command.seat, state)
        _last[0] = (state, command.seat, ctx)  # one assignment: safe across threads
    return fn(command, ctx)

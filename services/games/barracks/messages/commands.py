"""Commands of The Barracks Emperors: what a seat may ask the referee, the JSON edge [K15-K21, K29-K31, K43].

A turn is up to four decisions of the active seat (K21): the action (``PlayInfluence``, ``PlaceBarbarian``,
``MoveBarbarian``; ``Pass`` is made for a seat with no possible play), the order of several surrounded Emperors
(``ResolveEmperor``), after Frumentarii the card kept (``KeepCard``), and the Forum pick (``TakeFromForum``).
``PlaceForRival`` is the solo player's choice for a rival claimant while their Demagogue is active (K43).

``PlayInfluence.ability``: ``"use"`` or ``"decline"`` when the card has a triggered ability that may be used now
(with ``target`` where the ability names one: a card id for counters, Flanking Maneuver, Spiculum, Tribute, Mob,
Mobile Vulgus; an Emperor id for Damnatio Memoriae; an Emperor space for Pretender); ``"to_deck"`` is Tribute's
solo alternative (K41). Omitted when there is no choice: an always-on card, a placement ability (Force March,
Praetorian Guard, Foederati, Triumph: the space says it), an ability with no legal target, or one suppressed by
a Demagogue (K17, K37, KX3).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from events.base import Command

CardId = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z]+(-[a-z0-9]+)+$")]
EmperorId = CardId
SpaceId = Annotated[str, Field(min_length=3, max_length=5, pattern=r"^-?[0-9],-?[0-9]$")]
Target = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9,-]+$")]


class PlayInfluence(Command):
    """Play an influence card from hand onto a space, with its triggered ability used or declined [K16, K17]."""

    type: Literal["PlayInfluence"] = "PlayInfluence"
    card: CardId
    space: SpaceId
    ability: Literal["use", "decline", "to_deck"] | None = None
    target: Target | None = None


class PlaceBarbarian(Command):
    """Play a barbarian card from hand onto a homeland [K19a]."""

    type: Literal["PlaceBarbarian"] = "PlaceBarbarian"
    card: CardId
    space: SpaceId


class MoveBarbarian(Command):
    """Discard a barbarian card from hand to move the barbarian on ``from_space`` diagonally [K19b]."""

    type: Literal["MoveBarbarian"] = "MoveBarbarian"
    card: CardId
    from_space: SpaceId
    to_space: SpaceId


class Pass(Command):
    """Show the hand and end the turn: only when no play is possible [K20]."""

    type: Literal["Pass"] = "Pass"


class ResolveEmperor(Command):
    """Of several surrounded Emperors, the one that resolves next [K22]."""

    type: Literal["ResolveEmperor"] = "ResolveEmperor"
    emperor: EmperorId


class KeepCard(Command):
    """After Frumentarii: the card kept, and the others in the order they go under the deck (the last listed is
    the bottom card) [K31, KX7]."""

    type: Literal["KeepCard"] = "KeepCard"
    card: CardId
    bottom: tuple[CardId, ...] = ()


class TakeFromForum(Command):
    """Take a Forum card within the limit set by the printed value of the card played [K29]."""

    type: Literal["TakeFromForum"] = "TakeFromForum"
    card: CardId


class PlaceForRival(Command):
    """Solo, under the player's Demagogue: where the rival claimant's drawn card goes [K43]."""

    type: Literal["PlaceForRival"] = "PlaceForRival"
    space: SpaceId


BarracksCommand = Annotated[
    PlayInfluence | PlaceBarbarian | MoveBarbarian | Pass | ResolveEmperor | KeepCard | TakeFromForum | PlaceForRival,
    Field(discriminator="type"),
]
COMMAND_ADAPTER: TypeAdapter[Any] = TypeAdapter(BarracksCommand)
COMMAND_TYPES: dict[str, type[Command]] = {
    cls.model_fields["type"].default: cls  # type: ignore[misc]
    for cls in Command.__subclasses__()
    if cls.__module__ == __name__
}

"""Commands of In the Shadow of the Emperor: what a seat may ask the referee to do.

A placement names the electorate and the kind of space: spaces of one kind inside one electorate are
interchangeable (ruling X1), so the engine takes the lowest-numbered free one. A piece already on the board is
named by its space id, e.g. ``"mainz.aristocrat.2"``, ``"bohemia.elector"``, ``"throne"``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from events.base import Command

Electorate = Literal["mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia"]
PlacementKind = Literal["elector", "aristocrat", "castle", "eminence"]
KnightSpaceKind = Literal["aristocrat", "castle"]
SpaceId = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z_]+(\.[a-z_]+(\.[0-9])?)?$")]
CardWithoutEffect = Literal[
    "doctor", "move", "indulgence", "permit", "ordinance", "promotion", "foreign_kings_daughter"
]


# --- placements and choices the game asks for -------------------------------------------------------------
class PlaceEmpireCity(Command):
    """Put an empire city from beside the board on a free city space (setup, phase VII rounds 1-2)."""

    type: Literal["PlaceEmpireCity"] = "PlaceEmpireCity"
    electorate: Electorate


class MoveEmpireCity(Command):
    """Move an empire city to a free city space of another electorate (phase VII round 3)."""

    type: Literal["MoveEmpireCity"] = "MoveEmpireCity"
    from_space: SpaceId
    electorate: Electorate


class PlacePiece(Command):
    """Answer a placement the game asks for: setup pieces, a son, a displaced elector, a dethroned Emperor,
    the Gray eminence Baron. ``push`` names the knight to push when the electorate has no free aristocrat
    space."""

    type: Literal["PlacePiece"] = "PlacePiece"
    electorate: Electorate
    space_kind: PlacementKind = "aristocrat"
    push: SpaceId | None = None


class ChooseAristocrat(Command):
    """Pick one of your aristocrats: a new Emperor after a death or an election, or a new elector."""

    type: Literal["ChooseAristocrat"] = "ChooseAristocrat"
    space: SpaceId


class BreakTie(Command):
    """The Emperor names the new elector among the players tied for most power."""

    type: Literal["BreakTie"] = "BreakTie"
    winner: int


class Decline(Command):
    """Decline an optional step (placing the Gray eminence Baron)."""

    type: Literal["Decline"] = "Decline"


# --- phase III --------------------------------------------------------------------------------------------
class OfferDaughter(Command):
    """Offer your daughter to an opponent's unmarried Baron."""

    type: Literal["OfferDaughter"] = "OfferDaughter"
    space: SpaceId


class SendDaughterToConvent(Command):
    """Send your daughter to the convent (+1 thaler) instead of making an offer."""

    type: Literal["SendDaughterToConvent"] = "SendDaughterToConvent"


class AnswerMarriage(Command):
    """Accept or decline the marriage offered to your Baron."""

    type: Literal["AnswerMarriage"] = "AnswerMarriage"
    accept: bool


# --- phase IV ---------------------------------------------------------------------------------------------
class Pass(Command):
    """End your phase IV for this round."""

    type: Literal["Pass"] = "Pass"


class PlaceKnight(Command):
    """Pay 1 thaler: a knight from your supply onto a free aristocrat or castle space."""

    type: Literal["PlaceKnight"] = "PlaceKnight"
    electorate: Electorate
    space_kind: KnightSpaceKind


class MoveKnight(Command):
    """Pay 1 thaler: move one of your knights to a free aristocrat or castle space elsewhere."""

    type: Literal["MoveKnight"] = "MoveKnight"
    from_space: SpaceId
    electorate: Electorate
    space_kind: KnightSpaceKind


class BuyDoctor(Command):
    """Doctor: one of your aristocrats one step younger, or an opponent's one step older."""

    type: Literal["BuyDoctor"] = "BuyDoctor"
    target: SpaceId
    trier: bool = False


class BuyMove(Command):
    """Move: one of your aristocrats on an aristocrat space to another electorate."""

    type: Literal["BuyMove"] = "BuyMove"
    source: SpaceId
    electorate: Electorate
    push: SpaceId | None = None
    trier: bool = False


class BuyPope(Command):
    """Pope: one more vote in this round's election."""

    type: Literal["BuyPope"] = "BuyPope"


class BuyChurchInfluence(Command):
    """Church influence: aimed at an archdiocese before the election."""

    type: Literal["BuyChurchInfluence"] = "BuyChurchInfluence"


class BuyExcommunication(Command):
    """Excommunication: aimed at a secular electorate before the election."""

    type: Literal["BuyExcommunication"] = "BuyExcommunication"


class BuyIndulgence(Command):
    """Indulgence: 1 victory point."""

    type: Literal["BuyIndulgence"] = "BuyIndulgence"
    trier: bool = False


class BuyPermit(Command):
    """Permit: a Baron (3) or Couple (5) aged 15 from your supply onto an aristocrat space."""

    type: Literal["BuyPermit"] = "BuyPermit"
    couple: bool = False
    electorate: Electorate
    push: SpaceId | None = None
    trier: bool = False


class BuyOrdinance(Command):
    """Ordinance: one of your cities onto a free city space."""

    type: Literal["BuyOrdinance"] = "BuyOrdinance"
    electorate: Electorate
    trier: bool = False


class BuyPromotion(Command):
    """Promotion: your knight on an aristocrat space becomes a Baron aged 15."""

    type: Literal["BuyPromotion"] = "BuyPromotion"
    knight: SpaceId
    trier: bool = False


class BuyForeignKingsDaughter(Command):
    """Foreign king's daughter: one of your Barons becomes a Couple."""

    type: Literal["BuyForeignKingsDaughter"] = "BuyForeignKingsDaughter"
    baron: SpaceId
    trier: bool = False


class BuyRival(Command):
    """Rival: challenge the Emperor this round; ends your phase IV."""

    type: Literal["BuyRival"] = "BuyRival"


class BuyCardWithoutEffect(Command):
    """Two players only: buy a card and pay for it without carrying out its effect."""

    type: Literal["BuyCardWithoutEffect"] = "BuyCardWithoutEffect"
    card: CardWithoutEffect


class TakeGrayEminence(Command):
    """Brandenburg's privilege: take the Gray eminence card."""

    type: Literal["TakeGrayEminence"] = "TakeGrayEminence"


class UseKoelnPrivilege(Command):
    """Köln's privilege: a free Doctor effect."""

    type: Literal["UseKoelnPrivilege"] = "UseKoelnPrivilege"
    target: SpaceId


class UsePalatinatePrivilege(Command):
    """Palatinate's privilege: a free Baron aged 15 onto an aristocrat space."""

    type: Literal["UsePalatinatePrivilege"] = "UsePalatinatePrivilege"
    electorate: Electorate
    push: SpaceId | None = None


# --- phase VI ---------------------------------------------------------------------------------------------
class AimChurchInfluence(Command):
    """Name the archdiocese your Church influence card works in."""

    type: Literal["AimChurchInfluence"] = "AimChurchInfluence"
    electorate: Electorate


class AimExcommunication(Command):
    """Name the secular electorate your Excommunication voids."""

    type: Literal["AimExcommunication"] = "AimExcommunication"
    electorate: Electorate


class CastVote(Command):
    """Your secret vote: all your votes go to one candidate."""

    type: Literal["CastVote"] = "CastVote"
    candidate: Literal["emperor", "rival"]


ShadowCommand = Annotated[
    PlaceEmpireCity
    | MoveEmpireCity
    | PlacePiece
    | ChooseAristocrat
    | BreakTie
    | Decline
    | OfferDaughter
    | SendDaughterToConvent
    | AnswerMarriage
    | Pass
    | PlaceKnight
    | MoveKnight
    | BuyDoctor
    | BuyMove
    | BuyPope
    | BuyChurchInfluence
    | BuyExcommunication
    | BuyIndulgence
    | BuyPermit
    | BuyOrdinance
    | BuyPromotion
    | BuyForeignKingsDaughter
    | BuyRival
    | BuyCardWithoutEffect
    | TakeGrayEminence
    | UseKoelnPrivilege
    | UsePalatinatePrivilege
    | AimChurchInfluence
    | AimExcommunication
    | CastVote,
    Field(discriminator="type"),
]

COMMAND_ADAPTER: TypeAdapter[ShadowCommand] = TypeAdapter(ShadowCommand)
COMMAND_TYPES: dict[str, type[Command]] = {
    cls.model_fields["type"].default: cls
    for cls in ShadowCommand.__origin__.__args__  # type: ignore[attr-defined]
}

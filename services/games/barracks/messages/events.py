"""Events of The Barracks Emperors: past-tense facts, the JSON edge of the rules core.

Folding these alone rebuilds a game. Each carries what happened and the inputs that decided it (a resolved
Emperor records its four cards with their values, which cancelled, the trump in force and why, the winner and who
captured); ``rulings`` cites the ids of the rules reference (K1-K44 of BARRACKS-RULINGS.md, KX1.. the referee's
own) that produced it. Every shuffle, deal and draw is an event, so a replay never draws again; the presenter
shows each seat only the parts it may know [K14].

Ids: a card is ``"<suit>-<value>-<ability>"`` (``"red-3-castra"``) or ``"barbarian-01"``..``"barbarian-18"``; an
Emperor is ``"<colour>-emperor-01"`` or ``"pretender-1"``; a space is ``"row,column"`` (``"-1,2"``, ``"2,2"``) [K5].
The rules core uses plain tuples mirroring these models (services/games/barracks/rules/facts.py); pydantic validates
only at the edge.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from events.base import Event, Message
from services.games.barracks.messages.settings import Faction

Colour = Literal["red", "blue", "yellow"]
Decision = Literal["order", "keep", "pick", "rival_place"]
Placement = Literal["faction", "force_march", "praetorian_guard", "foederati", "triumph", "rival", "rival_chosen"]
AbilityUse = Literal["none", "always_on", "used", "declined", "no_target", "suppressed"]
DiscardReason = Literal[
    "winning_card", "orphaned", "spiculum", "tribute", "mobile_vulgus", "rival_no_space", "rival_barbarian"
]


class SideCard(Message):
    """One side of a resolved Emperor: the card on top there and how it counted [K22-K26]."""

    side: Faction
    space: str
    card: str
    kind: Literal["influence", "face_down", "barbarian"]
    suit: Colour | None
    printed: int
    counters: int
    value: int
    ignored: bool
    trump: bool
    player: int | None
    rival: Faction | None


# --- game and round lifecycle ------------------------------------------------------------------------------------
class GameStarted(Event):
    type: Literal["GameStarted"] = "GameStarted"
    players: tuple[str, ...]
    settings: dict[str, Any]
    seed: int
    seats: tuple[tuple[Faction, ...], ...]
    rivals: tuple[Faction, ...]
    data: dict[str, Any]
    rules_version: str


class EmperorDeckShuffled(Event):
    type: Literal["EmperorDeckShuffled"] = "EmperorDeckShuffled"
    order: tuple[str, ...]


class RoundStarted(Event):
    type: Literal["RoundStarted"] = "RoundStarted"
    round: int
    first_faction: Faction
    first_seat: int | None
    drawn_from: tuple[int, ...]


class BarbariansSet(Event):
    type: Literal["BarbariansSet"] = "BarbariansSet"
    round: int
    holding_box: tuple[str, ...]
    placed: tuple[tuple[str, str], ...]


class EmperorsDealt(Event):
    type: Literal["EmperorsDealt"] = "EmperorsDealt"
    round: int
    placed: tuple[tuple[str, str], ...]


class DeckShuffled(Event):
    type: Literal["DeckShuffled"] = "DeckShuffled"
    round: int
    order: tuple[str, ...]
    reason: Literal["round", "tribute"]


class HandDealt(Event):
    type: Literal["HandDealt"] = "HandDealt"
    seat: int
    cards: tuple[str, ...]


class ForumDealt(Event):
    type: Literal["ForumDealt"] = "ForumDealt"
    cards: tuple[str, ...]


class TurnStarted(Event):
    type: Literal["TurnStarted"] = "TurnStarted"
    round: int
    turn: int
    factions: tuple[Faction, ...]
    seat: int | None


class DecisionRequested(Event):
    type: Literal["DecisionRequested"] = "DecisionRequested"
    seat: int
    decision: Decision
    emperors: tuple[str, ...] = ()
    allowed: int | None = None
    card: str | None = None


class RoundEnded(Event):
    type: Literal["RoundEnded"] = "RoundEnded"
    round: int
    reason: Literal["no_emperors", "all_passed"]
    emperors_out: tuple[str, ...]


class GameEnded(Event):
    type: Literal["GameEnded"] = "GameEnded"
    scores: tuple[int, ...]
    emperors: tuple[tuple[int, int, int], ...]
    sets: tuple[int, ...]
    barbarians: tuple[int, ...]
    winners: tuple[int, ...]
    shared: bool
    tiebreak_used: bool
    rival_scores: tuple[tuple[Faction, int], ...] = ()


# --- plays -----------------------------------------------------------------------------------------------------
class InfluencePlayed(Event):
    type: Literal["InfluencePlayed"] = "InfluencePlayed"
    seat: int | None
    rival: Faction | None
    card: str
    space: str
    emperors: tuple[str, ...]
    placement: Placement
    ability: AbilityUse
    discarded: tuple[str, ...] = ()
    barbarian_taken: str | None = None


class BarbarianPlaced(Event):
    type: Literal["BarbarianPlaced"] = "BarbarianPlaced"
    seat: int | None
    card: str
    space: str
    source: Literal["hand", "holding_box"]
    covers: str | None


class BarbarianMoved(Event):
    type: Literal["BarbarianMoved"] = "BarbarianMoved"
    seat: int
    card: str
    barbarian: str
    from_space: str
    to_space: str
    covers: str | None
    uncovered: str | None


class CastraOverrun(Event):
    type: Literal["CastraOverrun"] = "CastraOverrun"
    barbarian: str
    castra: str
    space: str


class Passed(Event):
    type: Literal["Passed"] = "Passed"
    seat: int | None
    rival: Faction | None
    hand: tuple[str, ...]
    automatic: bool


class RivalDrew(Event):
    type: Literal["RivalDrew"] = "RivalDrew"
    rival: Faction
    card: str


# --- abilities ---------------------------------------------------------------------------------------------------
class CounterPlaced(Event):
    type: Literal["CounterPlaced"] = "CounterPlaced"
    seat: int
    card: str
    target: str
    space: str
    amount: int
    total: int


class CardsSwapped(Event):
    type: Literal["CardsSwapped"] = "CardsSwapped"
    seat: int
    card: str
    target: str
    card_space: str
    target_space: str


class CardFlipped(Event):
    type: Literal["CardFlipped"] = "CardFlipped"
    seat: int
    card: str
    target: str
    space: str
    counters_lost: int


class CardsDiscarded(Event):
    type: Literal["CardsDiscarded"] = "CardsDiscarded"
    cards: tuple[str, ...]
    spaces: tuple[str | None, ...]
    reason: DiscardReason
    by_card: str | None = None
    emperor: str | None = None


class BarbarianReturned(Event):
    type: Literal["BarbarianReturned"] = "BarbarianReturned"
    seat: int
    card: str
    barbarian: str
    space: str
    uncovered: str | None


class PretenderPlaced(Event):
    type: Literal["PretenderPlaced"] = "PretenderPlaced"
    seat: int
    card: str
    emperor: str
    space: str


class EmperorRemoved(Event):
    type: Literal["EmperorRemoved"] = "EmperorRemoved"
    seat: int
    card: str
    emperor: str
    space: str


class DemagogueActive(Event):
    type: Literal["DemagogueActive"] = "DemagogueActive"
    seat: int
    card: str


class DemagogueEnded(Event):
    type: Literal["DemagogueEnded"] = "DemagogueEnded"
    seat: int
    card: str
    reason: Literal["next_turn", "round_end"]


# --- resolving an Emperor ------------------------------------------------------------------------------------
class EmperorResolved(Event):
    type: Literal["EmperorResolved"] = "EmperorResolved"
    emperor: str
    space: str
    colour: Colour
    sides: tuple[SideCard, ...]
    trump: Colour | None
    trump_reason: Literal["emperor_colour", "quaestor"]
    quaestors: tuple[str, ...]
    ambitus: tuple[str, ...]
    winner: str | None
    winning_side: Faction | None
    outcome: Literal["captured", "died", "out_of_game"]
    reason: Literal["highest_trump", "highest_card", "all_ignored", "no_card_can_win", "tie"]
    captured_by_seat: int | None
    captured_by_rival: Faction | None
    chosen_by: int | None


# --- the Forum and the deck ----------------------------------------------------------------------------------------
class ForumTaken(Event):
    type: Literal["ForumTaken"] = "ForumTaken"
    seat: int
    card: str
    slot: int
    allowed: int
    played_value: int
    refill: str | None


class CardDrawn(Event):
    type: Literal["CardDrawn"] = "CardDrawn"
    seat: int
    card: str | None
    reason: Literal["princeps_senatus"]


class CardsLooked(Event):
    type: Literal["CardsLooked"] = "CardsLooked"
    seat: int
    cards: tuple[str, ...]


class CardKept(Event):
    type: Literal["CardKept"] = "CardKept"
    seat: int
    card: str
    bottom: tuple[str, ...]


BarracksEvent = Annotated[
    GameStarted
    | EmperorDeckShuffled
    | RoundStarted
    | BarbariansSet
    | EmperorsDealt
    | DeckShuffled
    | HandDealt
    | ForumDealt
    | TurnStarted
    | DecisionRequested
    | RoundEnded
    | GameEnded
    | InfluencePlayed
    | BarbarianPlaced
    | BarbarianMoved
    | CastraOverrun
    | Passed
    | RivalDrew
    | CounterPlaced
    | CardsSwapped
    | CardFlipped
    | CardsDiscarded
    | BarbarianReturned
    | PretenderPlaced
    | EmperorRemoved
    | DemagogueActive
    | DemagogueEnded
    | EmperorResolved
    | ForumTaken
    | CardDrawn
    | CardsLooked
    | CardKept,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(BarracksEvent)
EVENT_TYPES: dict[str, type[Event]] = {
    cls.model_fields["type"].default: cls  # type: ignore[misc]
    for cls in Event.__subclasses__()
    if cls.__module__ == __name__
}

"""Events of In the Shadow of the Emperor: past-tense facts.

Folding these alone rebuilds a game: each carries what happened (and the resulting balance where a rule such
as the 12-thaler cap shaped it), never a request to run a rule again. ``rulings`` cites the rule ids of the
project's rules reference that produced the event; events that record a decision also carry the inputs that
decided it (power tallies, vote sources).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from events.base import Event, Message
from services.games.shadow.messages.election import (
    CardAimed,
    ElectionCalled,
    ElectorChanged,
    ElectorRetained,
    ElectorSeatStaysEmpty,
    EmperorElected,
    EmperorRetained,
    VoteSealed,
    VotesRevealed,
)
from services.games.shadow.messages.election import SeatVotes as SeatVotes  # re-exported: parts of VotesRevealed
from services.games.shadow.messages.election import VoteSource as VoteSource

Decision = Literal[
    "setup_empire_city",
    "setup_elector",
    "setup_aristocrat",
    "setup_knight",
    "replace_emperor",
    "place_son",
    "daughter",
    "marriage_answer",
    "actions",
    "gray_eminence",
    "break_tie",
    "choose_elector",
    "place_displaced",
    "aim_church_influence",
    "aim_excommunication",
    "vote",
    "choose_throne",
    "place_dethroned",
    "emperor_place_city",
    "emperor_move_city",
]


class Prompt(Message):
    """What the game waits for: the decision, who makes it, and its context."""

    decision: Decision
    seats: tuple[int, ...]
    electorate: str | None = None
    couple: bool | None = None
    age: int | None = None
    tied: tuple[int, ...] = ()
    offer_from: int | None = None
    space: str | None = None
    step: int | None = None
    after: str | None = None


# --- game lifecycle ---------------------------------------------------------------------------------------
class GameStarted(Event):
    type: Literal["GameStarted"] = "GameStarted"
    players: tuple[str, ...]
    settings: dict[str, Any]
    seed: int
    emperor: int
    layout: dict[str, Any]
    rules_version: str


class ElectoratesClosed(Event):
    type: Literal["ElectoratesClosed"] = "ElectoratesClosed"
    electorates: tuple[str, ...]
    drawn_from: tuple[tuple[str, ...], ...]


class DecisionRequested(Event):
    type: Literal["DecisionRequested"] = "DecisionRequested"
    prompt: Prompt


class PhaseStarted(Event):
    type: Literal["PhaseStarted"] = "PhaseStarted"
    round: int
    phase: int


class GameEnded(Event):
    type: Literal["GameEnded"] = "GameEnded"
    scores: tuple[int, ...]
    thalers: tuple[int, ...]
    winners: tuple[int, ...]
    shared: bool


# --- pieces -----------------------------------------------------------------------------------------------
class EmpireCityPlaced(Event):
    type: Literal["EmpireCityPlaced"] = "EmpireCityPlaced"
    seat: int
    space: str


class EmpireCityMoved(Event):
    type: Literal["EmpireCityMoved"] = "EmpireCityMoved"
    seat: int
    from_space: str
    to_space: str


class AristocratPlaced(Event):
    """A tile from its owner's supply onto the board."""

    type: Literal["AristocratPlaced"] = "AristocratPlaced"
    owner: int
    space: str
    couple: bool
    age: int
    reason: str


class AristocratMoved(Event):
    type: Literal["AristocratMoved"] = "AristocratMoved"
    owner: int
    from_space: str
    to_space: str
    reason: str


class AristocratReturned(Event):
    """A tile back to its owner's supply without dying (no room for it)."""

    type: Literal["AristocratReturned"] = "AristocratReturned"
    owner: int
    space: str
    reason: str


class AristocratDied(Event):
    type: Literal["AristocratDied"] = "AristocratDied"
    owner: int
    space: str
    couple: bool
    cause: Literal["old_age", "doctor", "koeln"]


class AristocratsAged(Event):
    """Every listed tile became one life stage older."""

    type: Literal["AristocratsAged"] = "AristocratsAged"
    spaces: tuple[str, ...]


class AristocratAgeChanged(Event):
    type: Literal["AristocratAgeChanged"] = "AristocratAgeChanged"
    owner: int
    space: str
    age_before: int
    age_after: int
    by: int
    cause: Literal["doctor", "koeln"]


class ThroneLeftEmpty(Event):
    """The Emperor's player had no tile to put on the throne; he stays Emperor [X4]."""

    type: Literal["ThroneLeftEmpty"] = "ThroneLeftEmpty"
    seat: int
    reason: str


class AristocratMarried(Event):
    type: Literal["AristocratMarried"] = "AristocratMarried"
    owner: int
    space: str
    reason: Literal["marriage", "foreign_kings_daughter"]


class KnightPlaced(Event):
    type: Literal["KnightPlaced"] = "KnightPlaced"
    owner: int
    space: str


class KnightMoved(Event):
    type: Literal["KnightMoved"] = "KnightMoved"
    owner: int
    from_space: str
    to_space: str


class KnightPushed(Event):
    type: Literal["KnightPushed"] = "KnightPushed"
    owner: int
    space: str
    by: int


class KnightPromoted(Event):
    """The knight goes back to supply and a Baron aged 15 of the same colour takes its space."""

    type: Literal["KnightPromoted"] = "KnightPromoted"
    owner: int
    space: str


class CityPlaced(Event):
    type: Literal["CityPlaced"] = "CityPlaced"
    owner: int
    space: str


# --- thalers and victory points -----------------------------------------------------------------------------
class IncomeCollected(Event):
    type: Literal["IncomeCollected"] = "IncomeCollected"
    seat: int
    basic: int
    own_cities: int
    controlled_cities: int
    saxony: int
    balance: int
    lost_to_cap: int


class ThalersChanged(Event):
    type: Literal["ThalersChanged"] = "ThalersChanged"
    seat: int
    delta: int
    balance: int
    reason: str
    lost_to_cap: int = 0


class VictoryPointsScored(Event):
    type: Literal["VictoryPointsScored"] = "VictoryPointsScored"
    seat: int
    points: int
    total: int
    reason: str


# --- phases III and IV ------------------------------------------------------------------------------------
class DescendantsCounted(Event):
    type: Literal["DescendantsCounted"] = "DescendantsCounted"
    seat: int
    pink: int
    blue: int
    outcome: Literal["son", "daughter", "none"]


class SonLost(Event):
    type: Literal["SonLost"] = "SonLost"
    seat: int
    reason: str


class DaughterOffered(Event):
    type: Literal["DaughterOffered"] = "DaughterOffered"
    seat: int
    to_seat: int
    space: str


class MarriageAnswered(Event):
    type: Literal["MarriageAnswered"] = "MarriageAnswered"
    seat: int
    offer_from: int
    space: str
    accepted: bool


class DaughterEnteredConvent(Event):
    type: Literal["DaughterEnteredConvent"] = "DaughterEnteredConvent"
    seat: int


class CardsReturned(Event):
    type: Literal["CardsReturned"] = "CardsReturned"


class CardTaken(Event):
    """A card from its stack into the seat's play area, paid ``cost`` (``without_effect``: two players only, the
    effect skipped [X9])."""

    type: Literal["CardTaken"] = "CardTaken"
    seat: int
    card: str
    cost: int
    without_effect: bool = False


class CardEffectCopied(Event):
    """Trier's privilege: the seat pays ``cost`` for the effect of a card whose stack is empty; no card is taken,
    so nothing goes into its play area and descendants do not count it [P6, D1]."""

    type: Literal["CardEffectCopied"] = "CardEffectCopied"
    seat: int
    card: str
    cost: int


class PrivilegeUsed(Event):
    type: Literal["PrivilegeUsed"] = "PrivilegeUsed"
    seat: int
    electorate: str


class Passed(Event):
    """The seat passes: final, it takes no further turn this phase IV [P1]."""

    type: Literal["Passed"] = "Passed"
    seat: int


class ActionsEnded(Event):
    """The seat took Rival, which ends its phase IV: it takes no further turn this phase; it did not pass [P1]."""

    type: Literal["ActionsEnded"] = "ActionsEnded"
    seat: int


ShadowEvent = Annotated[
    GameStarted
    | ElectoratesClosed
    | DecisionRequested
    | PhaseStarted
    | GameEnded
    | EmpireCityPlaced
    | EmpireCityMoved
    | AristocratPlaced
    | AristocratMoved
    | AristocratReturned
    | AristocratDied
    | AristocratsAged
    | AristocratAgeChanged
    | AristocratMarried
    | ThroneLeftEmpty
    | KnightPlaced
    | KnightMoved
    | KnightPushed
    | KnightPromoted
    | CityPlaced
    | IncomeCollected
    | ThalersChanged
    | VictoryPointsScored
    | DescendantsCounted
    | SonLost
    | DaughterOffered
    | MarriageAnswered
    | DaughterEnteredConvent
    | CardsReturned
    | CardTaken
    | CardEffectCopied
    | PrivilegeUsed
    | Passed
    | ActionsEnded
    | ElectorChanged
    | ElectorRetained
    | ElectorSeatStaysEmpty
    | ElectionCalled
    | CardAimed
    | VoteSealed
    | VotesRevealed
    | EmperorElected
    | EmperorRetained,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[ShadowEvent] = TypeAdapter(ShadowEvent)
EVENT_TYPES: dict[str, type[Event]] = {
    cls.model_fields["type"].default: cls
    for cls in ShadowEvent.__origin__.__args__  # type: ignore[attr-defined]
}

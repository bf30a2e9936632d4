"""Events of phases V and VI of In the Shadow of the Emperor: electors changed or kept, the election called,
aimed, sealed, revealed and decided. Past-tense facts, as every event (services/games/shadow/messages/events.py
lists the whole union)."""

from __future__ import annotations

from typing import Literal

from events.base import Event, Message

Candidate = Literal["emperor", "rival"]


# --- phase V ----------------------------------------------------------------------------------------------
class ElectorChanged(Event):
    """A new player wins the seat: his aristocrat sits as elector (``new_owner``), or, when he has none that
    may sit, the incumbent leaves and the seat is emptied (``new_owner`` None). ``power`` is every player's power
    there [V2-V4]."""

    type: Literal["ElectorChanged"] = "ElectorChanged"
    electorate: str
    previous_owner: int | None
    new_owner: int | None
    winner: int
    power: tuple[int, ...]
    tie_broken_by: int | None = None


class ElectorRetained(Event):
    """The incumbent elector keeps the seat [V2, V3]."""

    type: Literal["ElectorRetained"] = "ElectorRetained"
    electorate: str
    owner: int
    power: tuple[int, ...]
    tie_broken_by: int | None = None


class ElectorSeatStaysEmpty(Event):
    """An empty seat stays empty: nobody has power there (``winner`` None), or the winner has no aristocrat that
    may sit as elector; nobody scores [V2, V4]."""

    type: Literal["ElectorSeatStaysEmpty"] = "ElectorSeatStaysEmpty"
    electorate: str
    winner: int | None
    power: tuple[int, ...]
    tie_broken_by: int | None = None


# --- phase VI ---------------------------------------------------------------------------------------------
class ElectionCalled(Event):
    type: Literal["ElectionCalled"] = "ElectionCalled"
    emperor: int
    rival: int


class CardAimed(Event):
    type: Literal["CardAimed"] = "CardAimed"
    seat: int
    card: Literal["church_influence", "excommunication"]
    electorate: str


class VoteSealed(Event):
    """A secret vote: visible to its own seat only until VotesRevealed."""

    type: Literal["VoteSealed"] = "VoteSealed"
    seat: int
    candidate: Candidate


class VoteSource(Message):
    source: str
    votes: int


class SeatVotes(Message):
    seat: int
    candidate: Candidate
    votes: int
    sources: tuple[VoteSource, ...]


class VotesRevealed(Event):
    type: Literal["VotesRevealed"] = "VotesRevealed"
    emperor: int
    rival: int
    ballots: tuple[SeatVotes, ...]
    emperor_votes: int
    rival_votes: int
    winner: int


class EmperorElected(Event):
    type: Literal["EmperorElected"] = "EmperorElected"
    seat: int
    previous: int
    emperor_votes: int
    rival_votes: int


class EmperorRetained(Event):
    type: Literal["EmperorRetained"] = "EmperorRetained"
    seat: int
    emperor_votes: int
    rival_votes: int

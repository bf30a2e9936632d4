"""High Card's messages: its table settings, its one command and its events (the JSON edge of the game).

Pydantic v2 models, frozen and strict about unknown fields (``events.base``). Nothing here imports the game's
rules: the messages are what is stored and sent, the rules only read them. Every event cites the rulings of
RULES.md that produced it (``rulings``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from events.base import Command, Event

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""The deck, lowest first [H1]: one suit of thirteen cards, all different, so a trick never ties."""

Card = Literal["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


class HighCardSettings(BaseModel):
    """Options chosen when a table is created [H6] (strict: no coercion, no unknown keys)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    hand_size: int = Field(3, ge=1, le=6, description="H6: cards dealt to each seat, so tricks in the game.")
    lowest_wins: bool = Field(False, description="H4 option: the lowest card wins a trick instead of the highest.")


# --- the command -----------------------------------------------------------------------------------------------
class PlayCard(Command):
    """Play one card of your hand, face up, on the trick [H3]."""

    type: Literal["PlayCard"] = "PlayCard"
    card: Card


COMMAND_ADAPTER: TypeAdapter[PlayCard] = TypeAdapter(Annotated[PlayCard, Field(discriminator="type")])


# --- the events --------------------------------------------------------------------------------------------------
class GameStarted(Event):
    """The table: its players in seat order, its settings and the seed the deck is shuffled with [H1, H6]."""

    type: Literal["GameStarted"] = "GameStarted"
    players: tuple[str, ...]
    settings: HighCardSettings
    seed: int


class HandDealt(Event):
    """One seat's hand, drawn from the shuffled deck [H1]: recorded whole (events are facts), shown to its seat
    only (the presenter's ``redact``)."""

    type: Literal["HandDealt"] = "HandDealt"
    seat: int
    cards: tuple[Card, ...]


class CardPlayed(Event):
    """A seat played a card face up on the trick [H2, H3]."""

    type: Literal["CardPlayed"] = "CardPlayed"
    seat: int
    card: Card


class TrickWon(Event):
    """Every seat has played: the best card takes the trick and its seat scores a point [H4]; it leads next [H2]."""

    type: Literal["TrickWon"] = "TrickWon"
    seat: int
    card: Card
    trick: int = Field(description="the trick's number, from 1")


class GameEnded(Event):
    """The last trick is taken: the points and the seats with the most of them [H5]."""

    type: Literal["GameEnded"] = "GameEnded"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


HighCardEvent = GameStarted | HandDealt | CardPlayed | TrickWon | GameEnded
"""Every event of the game (the table's facts, the fair shuffle's among them, are the table's)."""

EVENT_ADAPTER: TypeAdapter[HighCardEvent] = TypeAdapter(Annotated[HighCardEvent, Field(discriminator="type")])

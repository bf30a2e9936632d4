"""The rules core's own events and commands: the fast mirrors (services/rules/facts.py) of the models of
services/games/barracks/messages.

The core builds and reads only these (built by keyword, with the models' defaults); the models stay the
contract at the edge (validation, JSON Schema). The codecs below translate between the two.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from events.base import parse_json
from services.games.barracks.messages import commands as cm
from services.games.barracks.messages import events as ev
from services.rules.facts import as_core, from_model, json_ready, mirror, mirror_all, to_dict, validated

SideCard = mirror(ev.SideCard)
# events
GameStarted = mirror(ev.GameStarted)
EmperorDeckShuffled = mirror(ev.EmperorDeckShuffled)
RoundStarted = mirror(ev.RoundStarted)
BarbariansSet = mirror(ev.BarbariansSet)
EmperorsDealt = mirror(ev.EmperorsDealt)
DeckShuffled = mirror(ev.DeckShuffled)
HandDealt = mirror(ev.HandDealt)
ForumDealt = mirror(ev.ForumDealt)
TurnStarted = mirror(ev.TurnStarted)
DecisionRequested = mirror(ev.DecisionRequested)
RoundEnded = mirror(ev.RoundEnded)
GameEnded = mirror(ev.GameEnded)
InfluencePlayed = mirror(ev.InfluencePlayed)
BarbarianPlaced = mirror(ev.BarbarianPlaced)
BarbarianMoved = mirror(ev.BarbarianMoved)
CastraOverrun = mirror(ev.CastraOverrun)
Passed = mirror(ev.Passed)
RivalDrew = mirror(ev.RivalDrew)
CounterPlaced = mirror(ev.CounterPlaced)
CardsSwapped = mirror(ev.CardsSwapped)
CardFlipped = mirror(ev.CardFlipped)
CardsDiscarded = mirror(ev.CardsDiscarded)
BarbarianReturned = mirror(ev.BarbarianReturned)
PretenderPlaced = mirror(ev.PretenderPlaced)
EmperorRemoved = mirror(ev.EmperorRemoved)
DemagogueActive = mirror(ev.DemagogueActive)
DemagogueEnded = mirror(ev.DemagogueEnded)
EmperorResolved = mirror(ev.EmperorResolved)
ForumTaken = mirror(ev.ForumTaken)
CardDrawn = mirror(ev.CardDrawn)
CardsLooked = mirror(ev.CardsLooked)
CardKept = mirror(ev.CardKept)
# commands
PlayInfluence = mirror(cm.PlayInfluence)
PlaceBarbarian = mirror(cm.PlaceBarbarian)
MoveBarbarian = mirror(cm.MoveBarbarian)
Pass = mirror(cm.Pass)
ResolveEmperor = mirror(cm.ResolveEmperor)
KeepCard = mirror(cm.KeepCard)
TakeFromForum = mirror(cm.TakeFromForum)
PlaceForRival = mirror(cm.PlaceForRival)

EVENT_CLASSES: dict[str, Any] = mirror_all(ev.EVENT_TYPES)
COMMAND_CLASSES: dict[str, Any] = mirror_all(cm.COMMAND_TYPES)


def parse_event(raw: bytes | str | dict[str, Any]) -> Any:
    """A core event from JSON, validated by its pydantic model (raises ValueError on bad input)."""
    return from_model(parse_json(ev.EVENT_ADAPTER, raw))


def parse_command(raw: bytes | str | dict[str, Any]) -> Any:
    """A core command from JSON, validated by its pydantic model (raises ValueError on bad input)."""
    return from_model(parse_json(cm.COMMAND_ADAPTER, raw))


def model_of(item: Any) -> BaseModel:
    """The validated pydantic model of a core event or command (for tests and schema checks)."""
    return validated(item)


__all__ = ["as_core", "json_ready", "to_dict"]

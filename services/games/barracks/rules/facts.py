"""The rules core's own events and commands: plain named tuples mirroring the pydantic models of
services/games/barracks/messages.

Each tuple class has the same field names as its model (plus ``type`` and, for events, ``rulings``), so the
codecs translate field for field, and the same ``to_dict``/``to_json`` as the models (events/base.py), for
generic code that still calls them instead of the codecs. The models stay the contract at the edge (validation,
JSON Schema); the core builds and reads only the tuples, which cost a fraction of a model to make.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import orjson
from pydantic import BaseModel

from events.base import parse_json
from services.games.barracks.messages import commands as cm
from services.games.barracks.messages import events as ev

_MODEL_OF: dict[type, type[BaseModel]] = {}
_TUPLE_OF: dict[type[BaseModel], Any] = {}
_NESTED: dict[type, tuple[str, ...]] = {}


def _message_dict(item: Any) -> dict[str, Any]:
    """As ``Message.to_dict``: a JSON-ready dict (lists, not tuples)."""
    return json_ready(to_dict(item))


def _message_json(item: Any) -> bytes:
    """As ``Message.to_json``: compact JSON bytes."""
    return orjson.dumps(to_dict(item))


def json_ready(value: Any) -> Any:
    """``value`` with every tuple made a list, as JSON gives it back."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def _mirror(model: type[BaseModel]) -> Any:
    """A named tuple class with the model's fields (required ones first: a tuple is always built by keyword)."""
    fields = model.model_fields
    required = [n for n, f in fields.items() if f.is_required()]
    optional = [n for n, f in fields.items() if not f.is_required()]
    cls = namedtuple(model.__name__, required + optional, defaults=[fields[n].default for n in optional])  # type: ignore[misc]
    cls.__doc__ = (
        f"The core's {model.__name__}: {(model.__doc__ or '').strip().splitlines()[0] if model.__doc__ else ''}"
    )
    cls.to_dict = _message_dict  # the two serialisations of events.base.Message, for callers not on the codecs yet
    cls.to_json = _message_json
    _MODEL_OF[cls] = model
    _TUPLE_OF[model] = cls
    nested = tuple(n for n, f in fields.items() if "SideCard" in str(f.annotation))
    if nested:
        _NESTED[cls] = nested
    return cls


SideCard = _mirror(ev.SideCard)
# events
GameStarted = _mirror(ev.GameStarted)
EmperorDeckShuffled = _mirror(ev.EmperorDeckShuffled)
RoundStarted = _mirror(ev.RoundStarted)
BarbariansSet = _mirror(ev.BarbariansSet)
EmperorsDealt = _mirror(ev.EmperorsDealt)
DeckShuffled = _mirror(ev.DeckShuffled)
HandDealt = _mirror(ev.HandDealt)
ForumDealt = _mirror(ev.ForumDealt)
TurnStarted = _mirror(ev.TurnStarted)
DecisionRequested = _mirror(ev.DecisionRequested)
RoundEnded = _mirror(ev.RoundEnded)
GameEnded = _mirror(ev.GameEnded)
InfluencePlayed = _mirror(ev.InfluencePlayed)
BarbarianPlaced = _mirror(ev.BarbarianPlaced)
BarbarianMoved = _mirror(ev.BarbarianMoved)
CastraOverrun = _mirror(ev.CastraOverrun)
Passed = _mirror(ev.Passed)
RivalDrew = _mirror(ev.RivalDrew)
CounterPlaced = _mirror(ev.CounterPlaced)
CardsSwapped = _mirror(ev.CardsSwapped)
CardFlipped = _mirror(ev.CardFlipped)
CardsDiscarded = _mirror(ev.CardsDiscarded)
BarbarianReturned = _mirror(ev.BarbarianReturned)
PretenderPlaced = _mirror(ev.PretenderPlaced)
EmperorRemoved = _mirror(ev.EmperorRemoved)
DemagogueActive = _mirror(ev.DemagogueActive)
DemagogueEnded = _mirror(ev.DemagogueEnded)
EmperorResolved = _mirror(ev.EmperorResolved)
ForumTaken = _mirror(ev.ForumTaken)
CardDrawn = _mirror(ev.CardDrawn)
CardsLooked = _mirror(ev.CardsLooked)
CardKept = _mirror(ev.CardKept)
ClockStamped = _mirror(ev.ClockStamped)
SeatTimedOut = _mirror(ev.SeatTimedOut)
SeatHandedOver = _mirror(ev.SeatHandedOver)
SeedCommitted = _mirror(ev.SeedCommitted)
SeedRevealed = _mirror(ev.SeedRevealed)
# commands
PlayInfluence = _mirror(cm.PlayInfluence)
PlaceBarbarian = _mirror(cm.PlaceBarbarian)
MoveBarbarian = _mirror(cm.MoveBarbarian)
Pass = _mirror(cm.Pass)
ResolveEmperor = _mirror(cm.ResolveEmperor)
KeepCard = _mirror(cm.KeepCard)
TakeFromForum = _mirror(cm.TakeFromForum)
PlaceForRival = _mirror(cm.PlaceForRival)

EVENT_CLASSES: dict[str, Any] = {name: _TUPLE_OF[model] for name, model in ev.EVENT_TYPES.items()}
COMMAND_CLASSES: dict[str, Any] = {name: _TUPLE_OF[model] for name, model in cm.COMMAND_TYPES.items()}
assert set(EVENT_CLASSES) == set(ev.EVENT_TYPES) and set(COMMAND_CLASSES) == set(cm.COMMAND_TYPES)


def _from_model(model: BaseModel) -> Any:
    cls = _TUPLE_OF[type(model)]
    values = {}
    for name in cls._fields:
        value = getattr(model, name)
        if isinstance(value, tuple) and value and isinstance(value[0], BaseModel):
            value = tuple(_from_model(v) for v in value)
        values[name] = value
    return cls(**values)


def to_dict(item: Any) -> dict[str, Any]:
    """A core event or command as JSON-ready data (nested tuples of sides become objects)."""
    data = item._asdict()
    for name in _NESTED.get(type(item), ()):
        data[name] = [side._asdict() for side in data[name]]
    return data


def parse_event(raw: bytes | str | dict[str, Any]) -> Any:
    """A core event from JSON, validated by its pydantic model (raises ValueError on bad input)."""
    return _from_model(parse_json(ev.EVENT_ADAPTER, raw))


def parse_command(raw: bytes | str | dict[str, Any]) -> Any:
    """A core command from JSON, validated by its pydantic model (raises ValueError on bad input)."""
    return _from_model(parse_json(cm.COMMAND_ADAPTER, raw))


def as_core(item: Any) -> Any:
    """The core tuple of an event or command given either as a core tuple or as its pydantic model."""
    if isinstance(item, BaseModel):
        return _from_model(item)
    return item


def model_of(item: Any) -> BaseModel:
    """The validated pydantic model of a core event or command (for tests and schema checks)."""
    return _MODEL_OF[type(item)].model_validate(to_dict(item))

"""The rules core's own events: plain named tuples mirroring the pydantic models of services/games/shadow/messages.

The engine builds, folds and encodes these; the models stay the contract at the edge (validation, JSON Schema,
``decide``'s answer, ``parse_event``). Each tuple class has the model's fields in the model's order (``rulings``,
``type``, then its own), so ``encode`` writes the very bytes the model's ``to_json`` writes, and ``to_model``
gives the model a validation would give. A tuple equals its model (and the model the tuple): the engine's two
paths, ``execute`` (tuples) and ``decide`` (models), compare equal event for event.

The constructors ``E.ThalersChanged(seat=..., ...)`` take the fields by keyword, with the model's defaults (a
tuple holds the required fields first: ``encode`` and ``to_model`` read them back in the model's order).
"""

from __future__ import annotations

from collections import namedtuple
from operator import itemgetter
from types import SimpleNamespace
from typing import Any

import orjson
from pydantic import BaseModel

from services.games.shadow.messages import events as ev

_MODEL_OF: dict[type, type[BaseModel]] = {}
_TUPLE_OF: dict[type[BaseModel], Any] = {}
_NESTED: dict[type, tuple[tuple[int, bool], ...]] = {}  # per class: (index in model order, a tuple of them?)
_NAMES: dict[type, tuple[str, ...]] = {}  # per class: the model's field names, in the model's order
_IN_ORDER: dict[type, Any] = {}  # per class: its values in the model's order
_new_model = object.__new__
_set = object.__setattr__


def _eq(self: Any, other: Any) -> Any:
    if type(other) is type(self):
        return tuple.__eq__(self, other)
    if isinstance(other, BaseModel):
        return _MODEL_OF[type(self)] is type(other) and to_model(self) == other
    if isinstance(other, tuple):
        return False
    return NotImplemented


def _ne(self: Any, other: Any) -> Any:
    equal = _eq(self, other)
    return equal if equal is NotImplemented else not equal


def _mirror(model: type[BaseModel]) -> Any:
    """A named tuple class with the model's fields, required ones first (so that the model's defaults are the
    tuple's), and how to read them back in the model's order."""
    fields = model.model_fields
    required = [n for n, f in fields.items() if f.is_required()]
    optional = [n for n, f in fields.items() if not f.is_required()]
    cls = namedtuple(model.__name__, required + optional, defaults=[fields[n].default for n in optional])  # type: ignore[misc]
    cls.__doc__ = f"The core's {model.__name__} (see services/games/shadow/messages)."
    cls.__eq__ = _eq
    cls.__ne__ = _ne
    cls.__hash__ = tuple.__hash__
    cls.to_dict = lambda self: to_model(self).to_dict()
    cls.to_json = lambda self: encode(self)
    cls.model_dump = lambda self, **options: to_model(self).model_dump(**options)
    names = tuple(fields)
    assert len(names) > 1, model  # itemgetter of one index gives a value, not a tuple
    _MODEL_OF[cls] = model
    _TUPLE_OF[model] = cls
    _NAMES[cls] = names
    _IN_ORDER[cls] = itemgetter(*(cls._fields.index(n) for n in names))
    nested = []
    for i, (name, f) in enumerate(fields.items()):
        text = str(f.annotation)
        if name == "prompt" or "SeatVotes" in text or "VoteSource" in text:
            nested.append((i, name != "prompt"))
    if nested:
        _NESTED[cls] = tuple(nested)
    return cls


Prompt = _mirror(ev.Prompt)
VoteSource = _mirror(ev.VoteSource)
SeatVotes = _mirror(ev.SeatVotes)
EVENT_CLASSES: dict[str, Any] = {name: _mirror(model) for name, model in ev.EVENT_TYPES.items()}

E: Any = SimpleNamespace(**EVENT_CLASSES, Prompt=Prompt, VoteSource=VoteSource, SeatVotes=SeatVotes)
"""The engine's event constructors: ``E.ThalersChanged(seat=..., ...)`` builds the core ThalersChanged."""


def _plain(value: Any) -> Any:
    """A nested tuple (prompt, ballot, vote source) as the dict its model dumps."""
    kind = type(value)
    names = _NAMES[kind]
    values = _IN_ORDER[kind](value)
    data = dict(zip(names, values, strict=True))
    for i, many in _NESTED.get(kind, ()):
        inner = values[i]
        data[names[i]] = [_plain(v) for v in inner] if many else (None if inner is None else _plain(inner))
    return data


def to_dict(event: Any) -> dict[str, Any]:
    """A core event as the dict ``model_dump(mode="json")`` gives of its model (tuples stay tuples: orjson
    writes them as arrays)."""
    kind = type(event)
    if kind in _NESTED:
        return _plain(event)
    return dict(zip(_NAMES[kind], _IN_ORDER[kind](event), strict=False))


def encode(event: Any) -> bytes:
    """A core event as compact JSON: the bytes its model's ``to_json`` writes."""
    return orjson.dumps(to_dict(event))


def to_model(value: Any) -> Any:
    """The pydantic model of a core event (or prompt, ballot, vote source), as validation would build it from
    the same values (the values are of the declared types: the engine built them)."""
    kind = type(value)
    model = _MODEL_OF[kind]
    names = _NAMES[kind]
    values = _IN_ORDER[kind](value)
    data = dict(zip(names, values, strict=True))
    for i, many in _NESTED.get(kind, ()):
        inner = values[i]
        data[names[i]] = tuple(to_model(v) for v in inner) if many else (None if inner is None else to_model(inner))
    made = _new_model(model)
    _set(made, "__dict__", data)
    _set(made, "__pydantic_fields_set__", set(data))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


def is_core(value: Any) -> bool:
    """Whether ``value`` is one of the core's tuples (else a model)."""
    return type(value) in _MODEL_OF

"""Fast events: plain named tuples mirroring a game's pydantic message models, for its rules core.

A rules core builds, folds and encodes many small messages per command; a pydantic model costs many times a
tuple to build. So a core works on mirrors: :func:`mirror` gives, for any message model, a named tuple class
with the model's fields (the required ones first, so that the model's defaults are the tuple's), built by
keyword (``Mirror(seat=0, amount=3)``) and read back in the model's order. The models stay the contract at
the edge (validation, JSON Schema, ``parse_event``); the mirrors convert both ways:

- :func:`encode` writes the very bytes the model's ``to_json`` writes (same keys, same order, same values);
- :func:`to_dict` gives the dict ``model_dump(mode="json")`` gives, except that tuples stay tuples;
- :func:`to_model` gives the model a validation of the same values would give (without validating again);
- :func:`from_model` and :func:`as_core` give the mirror of a model;
- a mirror equals its model and the model the mirror (so a core's two paths, tuples and models, compare);
- :func:`maker` gives a mirror's constructor from one tuple of every value in the mirror's order, for a core's
  hottest events (a keyword call runs the tuple's Python ``__new__``: several times the C-level construction).

Nested models (a field annotated with a model, an optional model or a tuple of models) are found from the
annotations and mirrored too, so any game's messages mirror without naming their nesting.
"""

from __future__ import annotations

import types
import typing
from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from operator import itemgetter
from typing import Any

import orjson
from pydantic import BaseModel

_MODEL_OF: dict[type, type[BaseModel]] = {}  # mirror class -> its model
_MIRROR_OF: dict[type[BaseModel], Any] = {}  # model -> its mirror class
_NAMES: dict[type, tuple[str, ...]] = {}  # mirror class -> the model's field names, in the model's order
_IN_ORDER: dict[type, Any] = {}  # mirror class -> its values in the model's order
_NESTED: dict[type, tuple[tuple[int, bool], ...]] = {}  # mirror class -> (model-order index of a nested field, many?)
_new_model = object.__new__
_set = object.__setattr__


def _nested_model(annotation: Any) -> tuple[type[BaseModel], bool] | None:
    """The model a field annotation nests, and whether as a tuple of them (``tuple[M, ...]``); None if none.

    ``M``, ``M | None`` and ``Optional[M]`` nest one; ``tuple[M, ...]`` (optional or not) nests many."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        inner = _nested_model(arguments[0])
        return None if inner is None or inner[1] else (inner[0], True)
    if origin in (typing.Union, types.UnionType):
        found = [n for n in map(_nested_model, arguments) if n is not None]
        return found[0] if len(found) == 1 else None
    return None


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


def _in_model_order(cls: Any, names: tuple[str, ...]) -> Any:
    """How to read a mirror's values in the model's order (the tuple holds the required fields first)."""
    if len(names) == 1:  # itemgetter of one index gives a value, not a tuple
        return tuple
    return itemgetter(*(cls._fields.index(name) for name in names))


def mirror(model: type[BaseModel]) -> Any:
    """The mirror class of a message model (made once; its nested models are mirrored first)."""
    known = _MIRROR_OF.get(model)
    if known is not None:
        return known
    fields = model.model_fields
    nested = []
    for index, field in enumerate(fields.values()):
        inner = _nested_model(field.annotation)
        if inner is not None:
            mirror(inner[0])
            nested.append((index, inner[1]))
    required = [name for name, field in fields.items() if field.is_required()]
    optional = [name for name, field in fields.items() if not field.is_required()]
    for name in optional:
        if fields[name].default_factory is not None:
            raise TypeError(f"{model.__name__}.{name}: a default factory cannot be mirrored (give a default)")
    # required fields first, so that the model's defaults are the tuple's; built by keyword, read back in order
    cls = namedtuple(model.__name__, required + optional, defaults=[fields[n].default for n in optional])  # type: ignore[misc]
    cls.__doc__ = f"The fast mirror of {model.__module__}.{model.__name__} (services/rules/facts.py)."
    cls.__eq__ = _eq
    cls.__ne__ = _ne
    cls.__hash__ = tuple.__hash__
    cls.to_dict = lambda self: json_ready(to_dict(self))
    cls.to_json = encode
    cls.model_dump = lambda self, **options: to_model(self).model_dump(**options)
    _MODEL_OF[cls] = model
    _MIRROR_OF[model] = cls
    _NAMES[cls] = tuple(fields)
    _IN_ORDER[cls] = _in_model_order(cls, tuple(fields))
    if nested:
        _NESTED[cls] = tuple(nested)
    return cls


def maker(cls: Any, fields: str) -> Callable[[tuple[Any, ...]], Any]:
    """The C-level constructor of mirror class ``cls``: ``make((v1, v2, ...))`` builds the mirror of those values,
    every field given (``type`` and the defaults too) in the order ``fields`` names them, space-separated: the
    mirror's own order (``cls._fields``: required fields first), checked here once, so that the call site's
    order is written beside it and cannot drift. The values are not counted again: a call site gives them all."""
    names = tuple(fields.split())
    if names != cls._fields:
        raise TypeError(f"{cls.__name__} holds {' '.join(cls._fields)}, not {fields}")
    return partial(tuple.__new__, cls)


def mirror_all(models: Mapping[str, type[BaseModel]] | Iterable[type[BaseModel]]) -> dict[str, Any]:
    """The mirror classes of many models (``EVENT_TYPES``, say), by the same keys (by class name if a list)."""
    if isinstance(models, Mapping):
        return {key: mirror(model) for key, model in models.items()}
    return {model.__name__: mirror(model) for model in models}


def is_core(value: Any) -> bool:
    """Whether ``value`` is a mirror (else, typically, its model)."""
    return type(value) in _MODEL_OF


def model_class(value: Any) -> type[BaseModel]:
    """The model class a mirror mirrors."""
    return _MODEL_OF[type(value)]


def _plain(value: Any) -> dict[str, Any]:
    """A mirror with nested mirrors as the dict its model dumps (nested ones as dicts too)."""
    kind = type(value)
    values = _IN_ORDER[kind](value)
    data = dict(zip(_NAMES[kind], values, strict=True))
    for index, many in _NESTED.get(kind, ()):
        inner = values[index]
        name = _NAMES[kind][index]
        if many:
            data[name] = [_plain(v) for v in inner]
        elif inner is not None:
            data[name] = _plain(inner)
    return data


def to_dict(value: Any) -> dict[str, Any]:
    """A mirror as the dict ``model_dump(mode="json")`` gives of its model, in the same key order (tuples stay
    tuples: orjson writes them as arrays; :func:`json_ready` makes them lists)."""
    kind = type(value)
    if kind in _NESTED:
        return _plain(value)
    return dict(zip(_NAMES[kind], _IN_ORDER[kind](value), strict=False))


def encode(value: Any) -> bytes:
    """A mirror as compact JSON: the bytes its model's ``to_json`` writes."""
    return orjson.dumps(to_dict(value))


def json_ready(value: Any) -> Any:
    """``value`` with every tuple made a list, as JSON gives it back."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def to_model(value: Any) -> Any:
    """The model of a mirror, as validation would build it from the same values (the values are of the
    declared types: a rules core built them), without validating them again."""
    kind = type(value)
    values = _IN_ORDER[kind](value)
    data = dict(zip(_NAMES[kind], values, strict=True))
    for index, many in _NESTED.get(kind, ()):
        inner = values[index]
        name = _NAMES[kind][index]
        data[name] = tuple(map(to_model, inner)) if many else (None if inner is None else to_model(inner))
    made = _new_model(_MODEL_OF[kind])
    _set(made, "__dict__", data)
    _set(made, "__pydantic_fields_set__", set(data))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


def validated(value: Any) -> Any:
    """The model of a mirror, validated from its values (for tests and schema checks)."""
    return _MODEL_OF[type(value)].model_validate(to_dict(value))


def from_model(model: BaseModel) -> Any:
    """The mirror of a model (its nested models mirrored too; a model not mirrored yet is mirrored now)."""
    cls = _MIRROR_OF.get(type(model)) or mirror(type(model))
    values = {name: getattr(model, name) for name in cls._fields}
    names = _NAMES[cls]
    for index, many in _NESTED.get(cls, ()):
        inner = values[names[index]]
        values[names[index]] = tuple(map(from_model, inner)) if many else (None if inner is None else from_model(inner))
    return cls(**values)


def as_core(value: Any) -> Any:
    """The mirror of a message given either as a mirror or as its model."""
    return from_model(value) if isinstance(value, BaseModel) else value

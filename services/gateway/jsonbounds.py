"""Numbers and free-form JSON of request bodies: integers as JSON Schema reads them, and bounded JSON objects.

JSON has one number type: ``2.0`` and ``2`` are the same number, and JSON Schema (hence the OpenAPI document)
calls both an integer. So an integer of a request (:func:`Int`) takes ``2.0`` as 2 and still refuses ``2.5``,
``"2"`` and ``true``; the free-form JSON of a command or of a game's settings (:data:`JsonObject`) has its
integral floats made integers too, so a game reads ``{"seat": 1.0}`` as seat 1.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

MAX_INT = 2**63 - 1
"""Largest integer accepted in a command or settings (and the smallest is ``-2**63``): a signed 64-bit integer."""
MAX_DEPTH = 16
"""Deepest nesting of arrays and objects in a command or in settings."""


def integral(value: Any) -> Any:
    """``value`` as an ``int`` when it is a float with no fractional part (``2.0`` is the integer 2), else as is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def bounded_json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with every integral float made an integer (see :func:`integral`), if every integer in it is a
    signed 64-bit one, every float finite and no array or object is nested deeper than :data:`MAX_DEPTH`; else
    ValueError saying where."""
    return _bounded(value, "", 1)  # type: ignore[no-any-return]


def _bounded(item: Any, path: str, depth: int) -> Any:
    if isinstance(item, dict | list):
        if depth > MAX_DEPTH:
            raise ValueError(f"{path or 'the value'} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            return {k: _bounded(v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in item.items()}
        return [_bounded(v, f"{path}.{i}" if path else str(i), depth + 1) for i, v in enumerate(item)]
    if isinstance(item, bool) or item is None or isinstance(item, str):
        return item
    if isinstance(item, float):
        if not math.isfinite(item):
            raise ValueError(f"{path or 'the value'}: numbers must be finite")
        item = integral(item)
    if isinstance(item, int) and not -MAX_INT - 1 <= item <= MAX_INT:
        raise ValueError(f"{path or 'the value'}: integers must fit in 64 bits (-2^63..2^63-1)")
    return item


JsonObject = Annotated[dict[str, Any], AfterValidator(bounded_json)]
"""A JSON object bounded by :func:`bounded_json`."""


def Int(ge: int, le: int) -> Any:
    """An integer of a request body from ``ge`` to ``le``, where ``2.0`` is the integer 2 (:func:`integral`). The
    bounds go inside, before the validator, so that the document shows them as ``minimum``/``maximum``."""
    return Annotated[int, Field(ge=ge, le=le), BeforeValidator(integral)]

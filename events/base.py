"""Base classes shared by every game's commands and events, and the orjson codec.

Commands and events are frozen pydantic v2 models with a ``type`` discriminator; the wire format is JSON.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError


class Message(BaseModel):
    """A frozen, strictly shaped message (no unknown fields)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> bytes:
        """Serialize to compact JSON bytes."""
        return orjson.dumps(self.model_dump(mode="json"))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this message."""
        return self.model_dump(mode="json")


class Command(Message):
    """A request from one seat. ``seat`` is the seat that sends it (0-based, clockwise order)."""

    seat: int


class Event(Message):
    """A fact that happened. ``rulings`` cites the rule/ruling ids that produced it."""

    rulings: tuple[str, ...] = ()


class Rejection(Message):
    """A typed refusal of a command: a stable machine-readable ``code`` and a plain sentence."""

    type: str = "Rejected"
    code: str
    message: str
    rulings: tuple[str, ...] = ()


def parse_json(adapter: TypeAdapter[Any], raw: bytes | str | dict[str, Any]) -> Any:
    """Validate raw JSON (bytes/str) or an already-decoded dict with the given adapter.

    Every bad input, malformed JSON included, raises ``pydantic.ValidationError``."""
    if isinstance(raw, dict):
        return adapter.validate_python(raw)
    return adapter.validate_json(raw)


def summarize_validation_error(exc: ValidationError, limit: int = 300) -> str:
    """A one-line summary of a validation error (field paths and messages), for typed rejections."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    text = "; ".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."

"""The committed JSON Schemas of every game's commands and events (``<game>.commands.schema.json``,
``<game>.events.schema.json`` next to this module), read by name.

They are written from each game plug-in's ``command_schema`` and ``event_schema`` by ``python -m
services.rules.schemas`` (``make schemas``); tests/test_schemas.py fails when they are stale. This module knows
no game: it reads the files that are there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

DIRECTORY = Path(__file__).resolve().parent
SUFFIX = ".schema.json"


def path_of(name: str, directory: Path = DIRECTORY) -> Path:
    """Where the schema ``name`` (``<game>.commands`` or ``<game>.events``) is written."""
    return directory / f"{name}{SUFFIX}"


def schema_names(directory: Path = DIRECTORY) -> list[str]:
    """The names of the schemas committed in ``directory``."""
    return sorted(p.name[: -len(SUFFIX)] for p in directory.glob(f"*{SUFFIX}"))


SCHEMAS: dict[str, Path] = {name: path_of(name) for name in schema_names()}
"""The committed schemas by name."""
ADAPTERS = SCHEMAS
"""Deprecated name of :data:`SCHEMAS` (issue [2/7]), for the gateway's /schemas routes until they read the game
plug-ins' schemas."""


def schema_of(name: str) -> dict[str, Any]:
    """The committed JSON Schema ``name`` (KeyError if there is none)."""
    return orjson.loads(SCHEMAS[name].read_bytes())  # type: ignore[no-any-return]


def render(schema: dict[str, Any]) -> bytes:
    """The file content of one schema: indented, sorted keys, trailing newline (stable diffs)."""
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"

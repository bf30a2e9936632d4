"""JSON Schemas of the wire messages, generated from the pydantic models.

``python -m events.schemas`` (``make schemas``) rewrites the committed files next to this module; a test checks
that they equal freshly generated ones, so a model change without regenerated schemas fails CI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from pydantic import TypeAdapter

from events.shadow.commands import COMMAND_ADAPTER
from events.shadow.events import EVENT_ADAPTER

DIRECTORY = Path(__file__).resolve().parent

ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "shadow.commands": COMMAND_ADAPTER,
    "shadow.events": EVENT_ADAPTER,
}


def schema_of(name: str) -> dict[str, Any]:
    """The JSON Schema of one adapter, with a title naming it."""
    schema = ADAPTERS[name].json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": name, **schema}


def render(name: str) -> bytes:
    """The file content of one schema: indented, sorted keys, trailing newline (stable diffs)."""
    return orjson.dumps(schema_of(name), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def path_of(name: str, directory: Path = DIRECTORY) -> Path:
    """Where the schema ``name`` is written."""
    return directory / f"{name}.schema.json"


def write_schemas(directory: Path = DIRECTORY) -> list[Path]:
    """Write every schema file; return the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in ADAPTERS:
        path = path_of(name, directory)
        path.write_bytes(render(name))
        written.append(path)
    return written

"""The committed JSON Schemas (events/schemas/*.schema.json) are the ones the models generate now."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from events.schemas import ADAPTERS, DIRECTORY, path_of, render, write_schemas
from events.shadow.commands import COMMAND_TYPES
from events.shadow.events import EVENT_TYPES


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_given_the_models_when_schemas_are_generated_then_they_equal_the_committed_files(name: str) -> None:
    committed = path_of(name)
    assert committed.exists(), f"{committed} is missing: run `make schemas`"
    assert committed.read_bytes() == render(name), f"{committed.name} is stale: run `make schemas`"


@pytest.mark.parametrize(("name", "types"), [("shadow.commands", COMMAND_TYPES), ("shadow.events", EVENT_TYPES)])
def test_given_a_schema_when_read_then_it_discriminates_every_message_type(name: str, types: dict) -> None:
    schema = orjson.loads(render(name))
    assert schema["title"] == name
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(types)
    for type_name, ref in mapping.items():
        definition = schema["$defs"][ref.rsplit("/", 1)[-1]]
        assert definition["properties"]["type"]["const"] == type_name
        assert definition["additionalProperties"] is False  # unknown fields are refused


def test_given_a_directory_when_schemas_are_written_then_every_file_is_there(tmp_path: Path) -> None:
    written = write_schemas(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{name}.schema.json" for name in ADAPTERS)
    for path in written:
        assert path.read_bytes() == (DIRECTORY / path.name).read_bytes()

"""The committed JSON Schemas (events/schemas/*.schema.json) are the ones the game plug-ins declare now."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from events.schemas import DIRECTORY, SCHEMAS, path_of, render, schema_names
from services.games.shadow.messages.commands import COMMAND_TYPES
from services.games.shadow.messages.events import EVENT_TYPES
from services.rules.registry import game_names, get_game
from services.rules.schemas import schemas_of, write_schemas
from services.rules.table import TABLE_EVENTS

DECLARED = {name: schema for game in game_names() for name, schema in schemas_of(get_game(game)).items()}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_given_the_plugins_when_schemas_are_generated_then_they_equal_the_committed_files(name: str) -> None:
    committed = path_of(name)
    assert committed.exists(), f"{committed} is missing: run `make schemas`"
    assert committed.read_bytes() == render(DECLARED[name]), f"{committed.name} is stale: run `make schemas`"


def test_given_the_committed_files_when_listed_then_every_one_belongs_to_an_installed_game() -> None:
    assert sorted(SCHEMAS) == schema_names() == sorted(DECLARED)


@pytest.mark.parametrize(
    ("name", "types"), [("shadow.commands", COMMAND_TYPES), ("shadow.events", {**EVENT_TYPES, **TABLE_EVENTS})]
)
def test_given_a_schema_when_read_then_it_discriminates_every_message_type(name: str, types: dict) -> None:
    schema = orjson.loads(render(DECLARED[name]))
    assert schema["title"] == name
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(types)
    for type_name, ref in mapping.items():
        definition = schema["$defs"][ref.rsplit("/", 1)[-1]]
        assert definition["properties"]["type"]["const"] == type_name
        assert definition["additionalProperties"] is False  # unknown fields are refused


def test_given_a_directory_when_schemas_are_written_then_every_file_is_there(tmp_path: Path) -> None:
    written = write_schemas(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{name}.schema.json" for name in DECLARED)
    for path in written:
        assert path.read_bytes() == (DIRECTORY / path.name).read_bytes()

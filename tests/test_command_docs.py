"""The command reference (services/games/shadow/COMMANDS.md) stays true to the command models."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from services.games.shadow.messages.commands import COMMAND_ADAPTER, COMMAND_TYPES

COMMANDS_MD = Path(__file__).resolve().parents[1] / "services" / "games" / "shadow" / "COMMANDS.md"
JSON_BLOCK = re.compile(r"^```json[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def _json_blocks() -> list[str]:
    return [block.strip() for block in JSON_BLOCK.findall(COMMANDS_MD.read_text(encoding="utf-8"))]


BLOCKS = _json_blocks()


def test_given_the_command_reference_when_json_blocks_are_extracted_then_there_are_some() -> None:
    assert len(BLOCKS) >= len(COMMAND_TYPES)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example{i}" for i in range(len(BLOCKS))])
def test_given_a_documented_example_when_validated_then_it_is_a_valid_command(block: str) -> None:
    raw = orjson.loads(block)
    assert isinstance(raw, dict), "one JSON object per block"
    command = COMMAND_ADAPTER.validate_python(raw)
    assert command.seat == raw["seat"]
    assert command.to_dict() == {**command.to_dict(), **raw}


def test_given_every_command_type_when_examples_are_collected_then_each_type_has_one() -> None:
    documented = {COMMAND_ADAPTER.validate_python(orjson.loads(block)).type for block in BLOCKS}
    missing = sorted(set(COMMAND_TYPES) - documented)
    assert not missing, f"COMMANDS.md has no example for: {missing}"

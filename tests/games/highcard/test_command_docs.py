"""High Card's command reference (COMMANDS.md) stays true to its command models, and each refusal code it lists
is one the rules give."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from services.games.highcard.messages import COMMAND_ADAPTER, PlayCard

COMMANDS_MD = Path(__file__).resolve().parents[3] / "services" / "games" / "highcard" / "COMMANDS.md"
RULES_PY = COMMANDS_MD.with_name("rules.py")
JSON_BLOCK = re.compile(r"^```json[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def test_given_the_command_reference_when_its_examples_are_validated_then_every_command_type_has_a_valid_one() -> None:
    blocks = JSON_BLOCK.findall(COMMANDS_MD.read_text(encoding="utf-8"))
    commands = [COMMAND_ADAPTER.validate_python(orjson.loads(block)) for block in blocks]
    assert {type(c) for c in commands} == {PlayCard}


def test_given_the_command_reference_when_its_refusal_codes_are_read_then_each_is_one_the_rules_give() -> None:
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", COMMANDS_MD.read_text(encoding="utf-8"), re.MULTILINE))
    given = set(re.findall(r'code="([a-z_]+)"', RULES_PY.read_text(encoding="utf-8")))
    assert documented == given and documented

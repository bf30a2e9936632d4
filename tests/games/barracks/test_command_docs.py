"""The command reference (services/games/barracks/COMMANDS.md) stays true to the command models and the board data:
every example is a valid command naming real cards, Emperors and spaces, with a target of the kind its card's
ability takes; every command type and every decision is documented; the space diagram matches the naming scheme."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from services.games.barracks.messages.commands import COMMAND_ADAPTER, COMMAND_TYPES
from services.games.barracks.messages.events import Decision
from services.games.barracks.presentation.names import rc_name
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import ABILITIES, DAMNATIO, PRETENDER, TRIBUTE, default_tables

COMMANDS_MD = Path(__file__).resolve().parents[3] / "services" / "games" / "barracks" / "COMMANDS.md"
TEXT = COMMANDS_MD.read_text(encoding="utf-8")
JSON_BLOCK = re.compile(r"^```json[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
BLOCKS = [block.strip() for block in JSON_BLOCK.findall(TEXT)]
T = default_tables()


def test_given_the_command_reference_when_json_blocks_are_extracted_then_every_type_has_an_example() -> None:
    documented = {COMMAND_ADAPTER.validate_python(orjson.loads(block)).type for block in BLOCKS}
    assert documented == set(COMMAND_TYPES)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example{i}" for i in range(len(BLOCKS))])
def test_given_a_documented_example_when_validated_then_it_is_a_command_with_real_ids(block: str) -> None:
    raw = orjson.loads(block)
    assert isinstance(raw, dict), "one JSON object per block"
    command = COMMAND_ADAPTER.validate_python(raw)
    dumped = command.model_dump(mode="json")
    assert {**dumped, **raw} == dumped  # every field of the example is kept as written
    core = F.parse_command(raw)
    if hasattr(core, "card"):
        assert core.card in T.card_index, core.card
    for name in ("space", "from_space", "to_space"):
        if hasattr(core, name):
            assert getattr(core, name) in T.space_index, getattr(core, name)
    if core.type == "ResolveEmperor":
        assert core.emperor in T.emperor_index
    if core.type == "KeepCard":
        assert all(c in T.card_index for c in core.bottom) and core.card not in core.bottom
    if core.type == "PlayInfluence":
        ability = T.ability[T.card_index[core.card]]
        assert (core.ability is None) == (core.target is None) or (core.ability in ("use", "decline"))
        if core.ability == "to_deck":
            assert ability == TRIBUTE and T.is_barbarian[T.card_index[core.target]]
        if core.target is not None:
            if ability == DAMNATIO:
                assert core.target in T.emperor_index
            elif ability == PRETENDER:
                assert core.target in T.emp_index
            else:
                assert core.target in T.card_index and core.target != core.card
        if core.ability is None:
            assert ABILITIES[ability] in {"castra", "cavalry", "quaestor", "ambitus"} | {
                "force_march", "praetorian_guard", "foederati", "triumph",
            }, "an example without `ability` is an always-on or a placement card"  # fmt: skip


def test_given_the_decision_table_when_read_then_every_decision_is_answered() -> None:
    table = TEXT.split("| Decision", 1)[1].split("\n\n", 1)[0]
    for decision in ("action", *Decision.__args__):  # type: ignore[attr-defined]
        assert f"`{decision}`" in table, decision
    for kind in COMMAND_TYPES:
        assert f"`{kind}`" in table, kind


def test_given_the_space_diagram_when_read_then_each_name_matches_its_id() -> None:
    diagram = TEXT.split("```text", 1)[1].split("```", 1)[0]
    pairs = re.findall(r"\[?([A-G][0-6]) (-?\d,-?\d)\]?", diagram)
    assert len(pairs) == T.n_spaces + T.n_emp_spaces
    for name, sid in pairs:
        r, c = (int(x) for x in sid.split(","))
        assert rc_name(r, c) == name and (sid in T.space_index or sid in T.emp_index)
    emperors = set(re.findall(r"\[([A-G][0-6]) ", diagram))
    assert emperors == {rc_name(*rc) for rc in T.emp_rc}

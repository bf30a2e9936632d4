"""Every refusal names the rule it enforces, and that rule exists.

Over the seeded random games of the conformance suite, each accepted command is turned into illegal variants
(another piece or space in one of its fields, a flipped flag, another seat, a command of another moment of the
game, so of another decision) and decided on the state it was accepted in. Every variant the referee refuses must
cite at least one ruling id, and every id it cites must be defined: in the product's rulings file when it sits
beside the clone, else among the ids the game's RULES.md cites, and the referee decisions (X, KX) RULES.md
defines itself.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from events.base import Rejection
from services.rules.contract import GamePlugin
from services.rules.registry import game_names, get_game
from tests.conformance.conftest import games_of
from tests.conformance.harness import Played

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = REPO / "services" / "games"
PRODUCT_DIRS = (REPO.parent / "shared" / "rules", REPO.parent.parent / "shared" / "rules")

SOURCES = {
    "shadow": (RULES_DIR / "shadow" / "RULES.md", "RULINGS.md", r"^- ([A-Z][0-9]+) ", r"^- \*\*(X[0-9]+) "),
    "barracks": (
        RULES_DIR / "barracks" / "RULES.md",
        "BARRACKS-RULINGS.md",
        r"^- (K[0-9]+) ",
        r"^- \*\*(KX[0-9]+)\*\*",
    ),
}
"""Per game with a rulings file: its rules reference, the product's rulings file, how each defines an id. Any
other installed game with a rules reference defines exactly the ids of its reference."""
REFERENCED = sorted({*SOURCES, *(name for name in game_names() if get_game(name).rules_reference is not None)})
MIN_REFUSAL_KINDS = {"shadow": 10, "barracks": 10}
"""Kinds of refusal the variants must meet (the big games have many); another game: out of turn and one more."""

VARIANTS_PER_COMMAND = 4
ID = re.compile(r"\b([A-Z]{1,2})([0-9]{1,2})\b(?:\s*[-\u2013]\s*([A-Z]{1,2})?([0-9]{1,2})\b)?")


def known_ids(game: str) -> set[str]:
    """The ruling ids ``game`` defines: the product's (or, without its file, those RULES.md cites) and the referee
    decisions of RULES.md."""
    if game not in SOURCES:
        return set(get_game(game).rulings())
    reference, product_name, product_id, referee_id = SOURCES[game]
    text = reference.read_text(encoding="utf-8")
    ids = set(re.findall(referee_id, text, re.MULTILINE))
    product = next((d / product_name for d in PRODUCT_DIRS if (d / product_name).exists()), None)
    if product is not None:
        return ids | set(re.findall(product_id, product.read_text(encoding="utf-8"), re.MULTILINE))
    for prefix, first, last_prefix, last in ID.findall(text):  # a range (K32-K37, en dash too): every id
        if last and (last_prefix or prefix) == prefix:
            ids |= {f"{prefix}{i}" for i in range(int(first), int(last) + 1)}
        else:
            ids.add(f"{prefix}{first}")
    return ids


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a JSON-ready value (space ids, card ids, electorates...)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


def variants(played: Played, rng: random.Random) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(state, raw command) pairs: each accepted command of the game, mutated ``VARIANTS_PER_COMMAND`` times."""
    rules = played.game.rules
    commands = [rules.encode_command(step.command) for step in played.steps]
    pool = sorted(
        {s for e in played.events for s in strings_in(rules.encode_event(e))}
        | {s for c in commands for s in strings_in(c)}
    )
    seats = range(-1, len(played.players) + 1)
    for step, base in zip(played.steps, commands, strict=True):
        others = [rules.encode_command(c) for c in rules.legal_commands(step.before, step.command.seat)]
        for _ in range(VARIANTS_PER_COMMAND):
            raw = dict(base)
            fields = [f for f in raw if f not in ("type", "seat")]
            roll = rng.random()
            if roll < 0.15 or not fields:  # another moment's command: mostly another decision
                raw = dict(rng.choice(commands))
            elif roll < 0.3:  # another seat
                raw["seat"] = rng.choice(seats)
            else:  # another value in one field: another piece, space, card, electorate, flag
                field = rng.choice(fields)
                value = raw[field]
                same_type = [o[field] for o in others if o.get("type") == raw["type"] and field in o]
                if isinstance(value, bool):
                    raw[field] = not value
                elif isinstance(value, int):
                    raw[field] = rng.choice(seats)
                elif isinstance(value, list):
                    raw[field] = value[::-1] if rng.random() < 0.5 else value[:-1]
                elif same_type and rng.random() < 0.3:
                    raw[field] = rng.choice(same_type)
                else:
                    raw[field] = rng.choice([*pool, None])
            yield step.before, raw


@pytest.mark.parametrize("name", REFERENCED)
def test_given_illegal_variants_of_legal_commands_when_decided_then_every_refusal_cites_defined_rulings(
    name: str,
) -> None:
    """[X15, KX16] Whatever is wrong with a command (piece, space, seat, decision), its refusal names the rulings
    it enforces, and each of them is defined."""
    game: GamePlugin = get_game(name)
    rules = game.rules
    known = known_ids(name)
    refusals: dict[str, int] = {}
    for played in games_of(game):
        rng = random.Random(f"rejections:{name}:{len(played.players)}:{played.seed}:{sorted(played.settings)}")
        for state, raw in variants(played, rng):
            try:
                command = rules.parse_command(raw)
            except ValidationError:
                continue  # refused at the edge, before the rules (test_bad_input of each game)
            result = rules.decide(state, command)
            if not isinstance(result, Rejection):
                continue  # the variant happened to be legal
            refusals[result.code] = refusals.get(result.code, 0) + 1
            assert result.rulings, f"{name}: {raw} refused as {result.code} citing no ruling: {result.message}"
            unknown = set(result.rulings) - known
            assert not unknown, f"{name}: {raw} refused as {result.code} citing undefined {sorted(unknown)}"
    # The variants reach far beyond out-of-turn refusals: many kinds of reasons were met.
    assert len(refusals) >= MIN_REFUSAL_KINDS.get(name, 2), refusals

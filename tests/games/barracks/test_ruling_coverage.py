"""Traceability [K1-K44, KX1-KX24]: every ruling id is stated in the rules reference and proven by some scenario
test; every id the engine cites exists; the product's rulings file, when beside the clone, has no id we miss."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from events.base import Rejection
from services.games.barracks import RULES_REFERENCE
from tests.games.barracks.support import NAMES, RULES

TESTS = Path(__file__).resolve().parent
PRODUCT = Path("/work/shared/rules/BARRACKS-RULINGS.md")
ID = re.compile(r"\bK(?:X)?[0-9]{1,2}\b")
RANGE = re.compile("\\bK([0-9]{1,2})\\s*[-\u2013]\\s*K([0-9]{1,2})\\b")
ALL = {f"K{i}" for i in range(1, 45)} | {f"KX{i}" for i in range(1, 25)}


def ids_in(text: str) -> set[str]:
    """Every ruling id named in ``text``, ranges such as K32-K37 expanded."""
    found = set(ID.findall(text))
    for first, last in RANGE.findall(text):
        found |= {f"K{i}" for i in range(int(first), int(last) + 1)}
    return found


def test_given_the_rules_reference_when_read_then_it_states_every_ruling_and_lists_each_referee_decision() -> None:
    """[K1-K44] Every product ruling and every referee decision appears in RULES.md; each KX has its entry."""
    text = RULES_REFERENCE.read_text(encoding="utf-8")
    assert ids_in(text) >= ALL, sorted(ALL - ids_in(text))
    assert set(re.findall(r"^- \*\*(KX[0-9]+)\*\*", text, re.MULTILINE)) == {f"KX{i}" for i in range(1, 25)}


@pytest.mark.skipif(not PRODUCT.exists(), reason="the product's rulings file is not beside the clone")
def test_given_the_product_rulings_when_read_then_we_know_every_id() -> None:
    """[K1-K44]"""
    assert set(re.findall(r"^- (K[0-9]+) ", PRODUCT.read_text(encoding="utf-8"), re.MULTILINE)) <= ALL


def test_given_the_tests_when_read_then_every_ruling_is_proven_by_a_scenario() -> None:
    """[K1-K44, KX1-KX24] Every id is cited by a test of this folder other than this file."""
    cited: set[str] = set()
    for path in TESTS.glob("test_*.py"):
        if path.name != Path(__file__).name:
            cited |= ids_in(path.read_text(encoding="utf-8"))
    assert cited >= ALL, sorted(ALL - cited)


def test_given_random_games_when_the_engine_cites_rulings_then_every_id_is_in_the_reference() -> None:
    """[K13] Events and refusals cite only ids of the reference."""
    known = ids_in(RULES_REFERENCE.read_text(encoding="utf-8"))
    cited: set[str] = set()
    for players in (1, 2, 3, 4):
        rng = random.Random(players)
        events = RULES.start(NAMES[:players], {}, players)
        state = RULES.fold(events)
        while not RULES.is_over(state):
            (seat,) = RULES.awaited(state)
            refusal = RULES.decide(state, RULES.parse_command({"type": "Pass", "seat": (seat + 1) % players}))
            if isinstance(refusal, Rejection):
                cited |= set(refusal.rulings)
            new, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
            events += new
        cited |= {r for e in events for r in e.rulings}
    assert cited <= known, sorted(cited - known)

"""Traceability: every ruling id of the rules reference is proven by some rules test, and every event the engine
records names the ruling ids that produced it.

The ids are read from services/games/shadow/RULES.md (every id cited in square brackets there: B1..T1 from
the product's RULINGS.md plus the referee decisions X1..X24). When the product's RULINGS.md sits beside the
clone (../shared/rules/RULINGS.md, as in CI), its ids must all appear in RULES.md too.
"""

from __future__ import annotations

import ast
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from events.base import Event, Rejection
from tests.games.shadow.support import NAMES, RULES

REPO = Path(__file__).resolve().parents[3]
RULES_MD = REPO / "services" / "games" / "shadow" / "RULES.md"
RULINGS_MD = REPO.parent / "shared" / "rules" / "RULINGS.md"
TESTS = Path(__file__).resolve().parent

BRACKETS = re.compile(r"\[([A-Z][0-9]{1,2}(?:\s*[,;]\s*[A-Z][0-9]{1,2}(?:-[A-Z]?[0-9]{1,2})?)*)\]")
BRACKET_ITEM = re.compile(r"([A-Z])([0-9]{1,2})(?:-([A-Z])?([0-9]{1,2}))?")
WORD_ID = re.compile(r"\b([A-Z][0-9]{1,2})\b")

# Events that only move the game along (or open it) and may carry no ruling.
NO_RULING_NEEDED = {"DecisionRequested", "PhaseStarted", "GameStarted"}


def rule_ids() -> set[str]:
    """Every id cited in square brackets in RULES.md, plus the referee decisions listed at its end."""
    text = RULES_MD.read_text(encoding="utf-8")
    ids = set(re.findall(r"^- \*\*(X[0-9]+) ", text, re.MULTILINE))
    for group in BRACKETS.findall(text):
        ids |= expand(group)
    return ids


def expand(group: str) -> set[str]:
    """The ids of one bracketed citation: ``"V3, V4"``, ``"E1-E4"`` (a range of one letter) or ``"X1"``."""
    ids = set()
    for letter, first, last_letter, last in BRACKET_ITEM.findall(group):
        if last and (last_letter or letter) == letter:
            ids |= {f"{letter}{i}" for i in range(int(first), int(last) + 1)}
        else:
            ids.add(f"{letter}{first}")
    return ids


RULE_IDS = rule_ids()


def cited_in(path: Path) -> set[str]:
    """Ruling ids a test file cites: in square brackets anywhere, or named in a docstring."""
    text = path.read_text(encoding="utf-8")
    ids: set[str] = set()
    for group in BRACKETS.findall(text):
        ids |= expand(group)
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                ids |= set(WORD_ID.findall(doc))
    return ids & RULE_IDS


def citations() -> dict[str, set[str]]:
    """For each ruling id, the rules test files citing it (this file excluded)."""
    by_id: dict[str, set[str]] = {i: set() for i in RULE_IDS}
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        for i in cited_in(path):
            by_id[i].add(path.name)
    return by_id


def _order(i: str) -> tuple[str, int]:
    return i[0], int(i[1:])


# --- the reference itself ------------------------------------------------------------------------------------
def test_given_the_rules_reference_when_its_ids_are_read_then_every_ruling_and_referee_decision_is_there() -> None:
    expected = (
        {f"B{i}" for i in range(1, 7)}
        | {f"G{i}" for i in range(1, 5)}
        | {f"S{i}" for i in range(1, 4)}
        | {"I1"}
        | {f"A{i}" for i in range(1, 4)}
        | {f"D{i}" for i in range(1, 4)}
        | {f"P{i}" for i in range(1, 9)}
        | {f"V{i}" for i in range(1, 6)}
        | {f"E{i}" for i in range(1, 5)}
        | {"R1", "T1"}
        | {f"X{i}" for i in range(1, 25)}
    )
    assert expected == RULE_IDS, f"missing {sorted(expected - RULE_IDS)}, unexpected {sorted(RULE_IDS - expected)}"


@pytest.mark.skipif(not RULINGS_MD.exists(), reason="the product's RULINGS.md is not beside the clone")
def test_given_the_products_rulings_when_compared_then_the_reference_cites_every_one() -> None:
    product = set(re.findall(r"^- ([A-Z][0-9]+) ", RULINGS_MD.read_text(encoding="utf-8"), re.MULTILINE))
    assert product, "no ruling id found in RULINGS.md"
    assert product <= RULE_IDS, f"RULES.md never cites {sorted(product - RULE_IDS, key=_order)}"


def test_given_bracketed_citations_when_expanded_then_lists_and_ranges_are_understood() -> None:
    assert expand("V3, V4") == {"V3", "V4"}
    assert expand("E1-E4") == {"E1", "E2", "E3", "E4"}
    assert expand("P1, X1-X3") == {"P1", "X1", "X2", "X3"}
    assert BRACKETS.findall("see [B2, unverified], [X13] and [P2; P6]") == ["X13", "P2; P6"]


# --- every ruling proven by a test -------------------------------------------------------------------------
def test_given_the_rules_tests_when_their_citations_are_collected_then_every_ruling_id_is_proven() -> None:
    by_id = citations()
    uncited = sorted((i for i, files in by_id.items() if not files), key=_order)
    assert not uncited, f"ruling ids no test under tests/games/shadow/ cites: {', '.join(uncited)}"


# --- every event names its rulings ------------------------------------------------------------------------
def random_games() -> list[list[Event]]:
    """Seeded random games for 2, 3 and 4 players with varied table settings (a third of the turns take the
    Rival when it is legal, so that elections happen)."""
    logs = []
    for players in (2, 3, 4):
        for seed in range(4):
            rng = random.Random(f"{players}:{seed}")
            table = {
                "hidden_victory_points": rng.random() < 0.5,
                "thaler_tiebreak": rng.random() < 0.5,
                "backer_vp_requires_votes": rng.random() < 0.5,
                "mainz_bonus": rng.choice(["seat_holder_after_phase_v", "elector_at_phase_v_start"]),
                "start_player": rng.randrange(players),
            }
            log = RULES.start(NAMES[:players], table, seed)
            state = None
            for event in log:
                state = RULES.evolve(state, event)
            while not RULES.is_over(state):
                seat = rng.choice(RULES.awaited(state))
                legal = RULES.legal_commands(state, seat)
                rivals = [c for c in legal if c.type == "BuyRival"]  # type: ignore[attr-defined]
                command = rivals[0] if rivals and rng.random() < 0.3 else rng.choice(legal)
                events = RULES.decide(state, command)
                assert not isinstance(events, Rejection)
                log.extend(events)
                for event in events:
                    state = RULES.evolve(state, event)
            logs.append(log)
    return logs


@pytest.fixture(scope="module")
def logs() -> list[list[Event]]:
    return random_games()


def test_given_random_games_when_events_are_recorded_then_each_names_the_rulings_behind_it(
    logs: list[list[Event]],
) -> None:
    without = Counter(e.type for log in logs for e in log if not e.rulings)  # type: ignore[attr-defined]
    offending = {kind: n for kind, n in without.items() if kind not in NO_RULING_NEEDED}
    assert not offending, f"events recorded without any ruling id: {offending}"


def test_given_random_games_when_events_cite_rulings_then_every_id_is_in_the_rules_reference(
    logs: list[list[Event]],
) -> None:
    unknown = Counter(i for log in logs for e in log for i in e.rulings if i not in RULE_IDS)
    assert not unknown, f"events cite ids RULES.md does not define: {dict(unknown)}"


def test_given_random_games_when_commands_are_refused_then_every_cited_id_is_in_the_rules_reference() -> None:
    rng = random.Random(11)
    log = RULES.start(NAMES[:3], {}, 11)
    state = None
    for event in log:
        state = RULES.evolve(state, event)
    unknown: Counter[str] = Counter()
    refusals = 0
    while not RULES.is_over(state):
        seat = RULES.awaited(state)[0]
        legal = RULES.legal_commands(state, seat)
        for other in range(state.n):  # the same commands from every seat: refused for all but the awaited
            for command in rng.sample(legal, min(3, len(legal))):
                result = RULES.decide(state, command.model_copy(update={"seat": other}))
                if isinstance(result, Rejection):
                    refusals += 1
                    unknown.update(i for i in result.rulings if i not in RULE_IDS)
        for event in RULES.decide(state, rng.choice(legal)):  # type: ignore[union-attr]
            state = RULES.evolve(state, event)
    assert refusals > 0
    assert not unknown, f"rejections cite ids RULES.md does not define: {dict(unknown)}"

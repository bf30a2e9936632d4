"""Every ruling id a game's events or refusals can cite resolves to an entry of that game's rules reference (the
project's own words), for every installed game with a reference: the ids written in the rules code, and the ids
seeded random games actually cite, refusals included."""

from __future__ import annotations

import ast
import inspect
import random
import re
from pathlib import Path

import pytest

from events.base import Rejection
from services.rules.reference import parse_reference, ruling_texts
from services.rules.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[1]
ID_LITERALS = {
    # the game, the packages of its rules and events, what one of its ruling ids looks like
    "shadow": (("services/games/shadow",), re.compile(r"^[BGSIADPVERTX][0-9]{1,2}$")),
    "barracks": (("services/games/barracks",), re.compile(r"^KX?[0-9]{1,2}$")),
}
TABLES = {"shadow": (2, 3, 4), "barracks": (1, 2, 3, 4)}
"""The shape of the big games' ids and the tables they are played at here; any other installed game with a
reference is read from its rules' own package, its ids shaped like its reference's, at every table it takes."""
REFERENCED = sorted(name for name in game_names() if get_game(name).rules_reference is not None)


def id_literals_of(game: str) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """The folders of ``game``'s code and the shape of its ruling ids (a prefix its reference uses, 1-2 digits)."""
    if game in ID_LITERALS:
        return ID_LITERALS[game]
    plugin = get_game(game)
    folder = Path(inspect.getfile(type(plugin.game_rules))).parent.relative_to(ROOT).as_posix()
    prefixes = sorted({re.sub(r"[0-9]+$", "", ruling) for ruling in plugin.rulings()}, key=len, reverse=True)
    return (folder,), re.compile(rf"^({'|'.join(prefixes)})[0-9]{{1,2}}$")


def tables_of(game: str) -> tuple[int, ...]:
    """The player counts ``game`` is played at here."""
    caps = get_game(game).rules.capabilities
    return TABLES.get(game, tuple(range(caps.min_players, caps.max_players + 1)))


def literal_ids(folders: tuple[str, ...], pattern: re.Pattern[str]) -> set[str]:
    """Every string literal of the folders' Python files that looks like a ruling id."""
    found: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.match(node.value):
                    found.add(node.value)
    return found


def test_given_a_reference_when_parsed_then_entries_with_and_without_titles_and_continuations_are_read() -> None:
    text = (
        "# Title\n\n- **X1 Equal spaces.** Spaces of one kind\n  are alike.\n- **KX5** Passing is automatic.\n"
        "\nA paragraph citing [X1].\n- not an entry\n- **X1 Again.** A repeated id keeps the first.\n"
    )
    reference = parse_reference(text)
    assert list(reference) == ["X1", "KX5"]
    assert reference["X1"].title == "Equal spaces" and reference["X1"].text == "Spaces of one kind are alike."
    assert reference["KX5"].title == "" and reference["KX5"].sentence() == "KX5: Passing is automatic."
    assert ruling_texts(reference, ["KX5", "Q9"])[1] == {
        "id": "Q9",
        "title": "",
        "text": "(not in the rules reference)",
    }


@pytest.mark.parametrize("game", REFERENCED)
def test_given_the_rules_code_when_its_ruling_ids_are_collected_then_each_resolves(game: str) -> None:
    folders, pattern = id_literals_of(game)
    cited = literal_ids(folders, pattern)
    assert len(cited) >= min(10, len(get_game(game).rulings())), (
        f"too few ruling ids found in {game}'s code: {sorted(cited)}"
    )
    reference = get_game(game).rulings()
    missing = sorted(cited - set(reference))
    assert not missing, f"{game} cites ids its rules reference has no entry for: {missing}"
    assert all(reference[i].text for i in cited)


@pytest.mark.parametrize("game", REFERENCED)
def test_given_seeded_games_when_events_and_refusals_cite_rulings_then_each_resolves(game: str) -> None:
    plugin = get_game(game)
    rules, reference = plugin.rules, plugin.rulings()
    cited: set[str] = set()
    refusals = 0
    for players in tables_of(game):
        rng = random.Random(f"{game}:{players}")
        names = ["Ann", "Bob", "Cid", "Dee"][:players]
        events = rules.start(names, {}, players)
        state = rules.fold(events)
        cited |= {i for e in events for i in e.rulings}
        while not rules.is_over(state):
            seat = rng.choice(rules.awaited(state))
            legal = rules.legal_commands(state, seat)
            for other in range(players):  # the awaited seat's command from every other seat: refused
                if other != seat:
                    sent = rules.parse_command({**rules.encode_command(rng.choice(legal)), "seat": other})
                    refused = rules.decide(state, sent)
                    if isinstance(refused, Rejection):
                        refusals += 1
                        cited |= set(refused.rulings)
            done = rules.decide(state, rng.choice(legal))
            assert not isinstance(done, Rejection)
            for event in done:
                cited |= set(event.rulings)
                state = rules.evolve(state, event)
    assert refusals > 0 and cited
    missing = sorted(cited - set(reference))
    assert not missing, f"{game}'s events and refusals cite ids without an entry: {missing}"

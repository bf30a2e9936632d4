"""Barracks through the generic surfaces [K42]: installed as a ``throne.games`` entry point, played end to end by
``throne demo`` (on the engine and through the Redis streams on the embedded fakeredis) and refereed offline by
``throne adjudicate``, with the same events as the rules give."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from events.schemas import path_of
from services import cli
from services.adjudicator import adjudicate
from services.rules import registry
from services.rules.schemas import schemas_of

NAMES = ["Ann", "Bob", "Cyd"]
HEADER = {"game": "barracks", "players": NAMES, "settings": {"capture": "player"}, "seed": 11}


def test_given_the_installed_project_when_games_are_listed_then_barracks_is_an_entry_point_and_shadow_the_default() -> (
    None
):
    points = registry._entry_points()
    assert points["barracks"].value == "services.games.barracks:plugin"
    game = registry.get_game("barracks")
    assert game.name == "barracks" and game.rules.capabilities.hidden_information
    assert registry.default_game() == "shadow"
    for name, schema in schemas_of(game).items():  # `make schemas` wrote them
        assert orjson.loads(path_of(name).read_bytes()) == orjson.loads(orjson.dumps(schema))


@pytest.mark.parametrize("engine", [True, False], ids=["engine", "streams"])
def test_given_barracks_when_the_demo_runs_then_a_whole_game_is_narrated_to_its_result(
    engine: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["demo", "--game", "barracks", "--seed", "3", "--players", "3"]
    assert cli.main(args + (["--engine"] if engine else [])) == 0
    text = capsys.readouterr().out
    assert text.startswith("# barracks (rules barracks-1), 3 random bots, seed 3")
    assert "A game of The Barracks Emperors begins" in text and "is resolved" in text
    assert "The game ends. Scores:" in text
    lines = text.splitlines()
    assert lines[-3 if not engine else -2].startswith(("Winner: ", "Shared victory: "))
    if not engine:
        assert "through the streams" in lines[-2]
    # And the last line is one JSON object: the game's id (none on the engine alone) and its result
    last = orjson.loads(lines[-1])
    assert last["game"] == "barracks" and (last["game_id"] is None) == engine and last["result"]["winners"]


def recorded_game() -> tuple[list[bytes], list[dict], dict]:
    """The JSON lines of a seeded random game (header and commands), its events as the rules encode them, and its
    result."""
    rules = registry.get_game("barracks").rules
    rng = random.Random(11)
    events = rules.start(NAMES, HEADER["settings"], HEADER["seed"])
    state = rules.fold(events)
    lines = [orjson.dumps(HEADER)]
    while not rules.is_over(state):
        (seat,) = rules.awaited(state)
        command = rules.sample_legal(state, seat, rng)
        lines.append(orjson.dumps(rules.encode_command(command)))
        new, state = rules.execute(state, command)
        events += new
    return lines, [rules.encode_event(e) for e in events], rules.result(state)


def test_given_the_commands_of_a_game_when_adjudicated_offline_then_the_events_and_result_are_the_rules() -> None:
    lines, events, result = recorded_game()
    out = list(adjudicate(lines, final_view=True))
    assert not [r for r in out if "rejection" in r]
    assert [r["event"] for r in out[:-1]] == events
    final = out[-1]["final"]
    assert final["over"] and final["result"] == result and final["view"]["seat"] is None


def test_given_bad_lines_when_adjudicated_then_each_is_refused_and_the_game_goes_on() -> None:
    lines, events, result = recorded_game()
    bad = [b"not json", b'{"type": "Pass", "seat": 0}', b'{"type": "PlayInfluence", "seat": 0, "card": "x"}']
    mixed = lines[:4] + bad + lines[4:]
    out = list(adjudicate(mixed, final_view=True))
    refused = [r for r in out if "rejection" in r]
    assert [r["line"] for r in refused] == [5, 6, 7]
    assert refused[0]["rejection"]["code"] == "not_json"
    assert refused[2]["rejection"]["code"] == "bad_command"
    assert [r["event"] for r in out if "event" in r] == events and out[-1]["final"]["result"] == result


def test_given_a_file_of_lines_when_the_cli_adjudicates_then_it_writes_the_same_json_lines(tmp_path: Path) -> None:
    lines, events, _ = recorded_game()
    source, target = tmp_path / "game.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    assert cli.main(["adjudicate", str(source), "-o", str(target)]) == 0
    written = [orjson.loads(line) for line in target.read_bytes().splitlines()]
    assert [r["event"] for r in written] == events
    assert target.read_bytes().count(b'"GameEnded"') == 1

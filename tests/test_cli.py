"""The command line: the offline adjudicator, the engine demo and the bench."""

from __future__ import annotations

import io
import subprocess
import sys
import types
from pathlib import Path

import orjson
import pytest

from services import bench, cli
from services.adjudicator import adjudicate
from services.bench import play_random_game
from services.engine_demo import format_command, play
from services.rules.registry import get_game

GAME = get_game("shadow")
RULES = GAME.rules
HEADER = {"game": "shadow", "players": ["Red", "Green", "Blue", "Yellow"], "settings": {}, "seed": 5}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def live_game() -> bench.RecordedGame:
    """A complete seeded random game played on the rules, with each command's events."""
    return play_random_game(RULES, seed=5)


def lines_of(game: bench.RecordedGame) -> list[bytes]:
    return [orjson.dumps(HEADER)] + [command.to_json() for command, _ in game.moves]


def run(lines: list[bytes], final_view: bool = False) -> list[dict]:
    return list(adjudicate(lines, final_view=final_view))


def test_given_the_commands_of_a_live_game_when_adjudicated_then_every_event_equals_the_live_games(
    live_game: bench.RecordedGame,
) -> None:
    """The adjudicator replays a whole game: same events, same order, versions 1..n, each tagged with its line."""
    out = run(lines_of(live_game))
    assert not [r for r in out if "rejection" in r]
    assert [r["event"] for r in out] == [e.to_dict() for e in live_game.events]
    assert [r["version"] for r in out] == list(range(1, len(live_game.events) + 1))
    expected_lines = [1] * len(live_game.opening) + [
        n for n, (_, events) in enumerate(live_game.moves, start=2) for _ in events
    ]
    assert [r["line"] for r in out] == expected_lines
    assert out[0]["event"]["type"] == "GameStarted"
    assert out[-1]["event"]["type"] == "GameEnded"


def test_given_a_malformed_line_and_an_illegal_command_when_adjudicated_then_both_are_rejected_and_the_rest_goes_on(
    live_game: bench.RecordedGame,
) -> None:
    lines = lines_of(live_game)
    second = live_game.moves[1][0]  # the second command, sent by a seat the game does not wait for
    bad = [b'{"type": "PlaceEmpireCity", "seat": 0,', orjson.dumps({**second.to_dict(), "seat": (second.seat + 1) % 4})]
    # header, first command, then the malformed line (3) and the illegal command (4), then the rest
    out = run([lines[0], lines[1], *bad, *lines[2:]])
    rejections = [r for r in out if "rejection" in r]
    assert [(r["line"], r["rejection"]["code"]) for r in rejections] == [(3, "not_json"), (4, "not_your_turn")]
    assert rejections[1]["rejection"]["rulings"] == ["G1"]
    assert [r["event"] for r in out if "event" in r] == [e.to_dict() for e in live_game.events]
    assert [r["event"] for r in out if r.get("line") == 5] == [e.to_dict() for e in live_game.moves[1][1]]


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (b'{"type": "FlyToTheMoon", "seat": 0}', "FlyToTheMoon"),
        (b'{"type": "PlaceEmpireCity", "seat": 0}', "electorate"),
        (b'{"type": "PlaceEmpireCity", "seat": 0, "electorate": "mainz", "extra": 1}', "extra"),
        (b'["PlaceEmpireCity", 0]', "object"),
        (b'{"type": "PlaceEmpireCity", "seat": 0, "electorate": "atlantis"}', "electorate"),
    ],
)
def test_given_a_line_that_is_no_valid_command_when_adjudicated_then_bad_command_and_nothing_changes(
    line: bytes, fragment: str
) -> None:
    out = run([orjson.dumps(HEADER), line, b'{"type": "PlaceEmpireCity", "seat": 0, "electorate": "saxony"}'])
    (rejection,) = [r for r in out if "rejection" in r]
    assert rejection["line"] == 2
    assert rejection["rejection"]["code"] == "bad_command"
    assert fragment in rejection["rejection"]["message"]
    placed = [r["event"] for r in out if r.get("line") == 3 and r["event"]["type"] == "EmpireCityPlaced"]
    assert [(e["seat"], e["space"]) for e in placed] == [(0, "saxony.city.0")]


def test_given_blank_lines_when_adjudicated_then_they_are_skipped_but_keep_their_number() -> None:
    out = run([orjson.dumps(HEADER), b"", b"  \n", b'{"type": "Pass", "seat": 0}'])
    assert out[-1] == {
        "line": 4,
        "rejection": {
            "code": "wrong_decision",
            "message": out[-1]["rejection"]["message"],
            "rulings": ["X15", "S1", "X1"],
        },
    }


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (b"not json", "bad_header"),
        (b'{"game": "chess", "players": ["a", "b"]}', "unknown_game"),
        (b'{"game": "shadow", "players": ["a"]}', "bad_header"),
        (b'{"game": "shadow", "players": ["a", "b"], "settings": {"no_such_option": true}}', "bad_header"),
        (b'{"game": "shadow", "players": ["a", "b"], "seed": "x"}', "bad_header"),
        (b'{"game": "shadow", "players": ["a", "b"], "colour": "red"}', "bad_header"),
    ],
)
def test_given_a_header_that_starts_no_game_when_adjudicated_then_one_rejection_and_nothing_else(
    header: bytes, code: str
) -> None:
    out = run([header, b'{"type": "Pass", "seat": 0}'])
    assert len(out) == 1
    assert out[0]["line"] == 1
    assert out[0]["rejection"]["code"] == code


def test_given_a_command_after_the_end_when_adjudicated_then_game_over_and_the_final_view_closes_the_output(
    live_game: bench.RecordedGame,
) -> None:
    lines = lines_of(live_game)
    out = run([*lines, lines[-1]], final_view=True)
    assert out[-2] == {
        "line": len(lines) + 1,
        "rejection": {"code": "game_over", "message": "The game is over.", "rulings": ["G3"]},
    }
    final = out[-1]["final"]
    assert final["over"] is True
    assert final["version"] == len(live_game.events)
    state = RULES.fold(live_game.events)
    assert final["result"] == RULES.result(state)
    assert final["view"] == orjson.loads(orjson.dumps(GAME.presenter.view(state, None)))


def test_given_the_same_input_when_adjudicated_twice_then_the_output_is_byte_identical(
    live_game: bench.RecordedGame, tmp_path: Path
) -> None:
    source = tmp_path / "game.jsonl"
    source.write_bytes(b"\n".join(lines_of(live_game)[:60]) + b"\n")
    outputs = []
    for name in ("a", "b"):
        target = tmp_path / f"{name}.jsonl"
        assert cli.main(["adjudicate", str(source), "-o", str(target), "--final-view"]) == 0
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
    records = [orjson.loads(x) for x in outputs[0].splitlines()]
    assert records[0]["event"]["type"] == "GameStarted"
    assert records[-1]["final"]["over"] is False


def test_given_json_lines_on_stdin_when_running_python_m_services_cli_adjudicate_then_json_lines_and_exit_0(
    live_game: bench.RecordedGame,
) -> None:
    stdin = b"\n".join([*lines_of(live_game)[:10], b"{oops"]) + b"\n"
    proc = subprocess.run(
        [sys.executable, "-m", "services.cli", "adjudicate"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    records = [orjson.loads(x) for x in proc.stdout.splitlines()]
    events = [e for _, evs in live_game.moves[:9] for e in evs]
    assert [r["event"] for r in records if "event" in r] == [e.to_dict() for e in live_game.opening + events]
    assert records[-1] == {
        "line": 11,
        "rejection": {"code": "not_json", "message": records[-1]["rejection"]["message"], "rulings": []},
    }


def test_given_a_seed_when_the_engine_demo_runs_then_it_prints_each_command_and_the_winner() -> None:
    out = io.StringIO()
    result = play(seed=3, players=4, out=out)
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0] == "# shadow (rules shadow-3), 4 random bots, seed 3"
    assert "Waiting for" not in text  # DecisionRequested lines are left out
    assert sum(1 for line in lines if line.startswith(("Red: ", "Green: ", "Blue: ", "Yellow: "))) == result["commands"]
    winners = ", ".join(("Red", "Green", "Blue", "Yellow")[w] for w in result["winners"])
    assert lines[-2] in (f"Winner: {winners}", f"Shared victory: {winners}")
    # And the last line is one JSON object: no game id (no store), the seed, the result
    last = orjson.loads(lines[-1])
    assert last["game"] == "shadow" and last["game_id"] is None and last["seed"] == 3
    assert last["result"]["winners"] == result["winners"] and last["commands"] == result["commands"]
    assert lines[-3] == "Scores: " + ", ".join(
        f"{n} {v}" for n, v in zip(("Red", "Green", "Blue", "Yellow"), result["scores"], strict=True)
    )
    again = io.StringIO()
    play(seed=3, players=4, out=again)
    assert again.getvalue() == text


def test_given_a_command_when_formatted_for_the_demo_then_name_type_and_set_fields() -> None:
    command = RULES.parse_command({"type": "BuyPermit", "seat": 1, "couple": False, "electorate": "mainz"})
    assert (
        format_command(GAME, command, ("Red", "Green")) == "Green: BuyPermit couple=False electorate=mainz trier=False"
    )


def test_given_the_engine_flag_when_demo_runs_from_the_cli_then_the_engine_demo_prints_a_winner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["demo", "--engine", "--seed", "4", "--players", "3"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# shadow (rules shadow-3), 3 random bots, seed 4\n")
    assert text.splitlines()[-2].startswith(("Winner: ", "Shared victory: "))
    assert orjson.loads(text.splitlines()[-1])["result"]["winners"]


def test_given_quick_mode_when_the_bench_runs_then_its_last_line_is_json_with_the_engine_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the bench without its optional sections (services, gateway, cluster, the game's bots: a failing one is
    # reported and skipped by design, so running them here would prove nothing and take minutes; `make bench`
    # runs them, tests/service/test_perf.py and tests/games/shadow/test_bots_bench.py test them)
    monkeypatch.setattr(bench, "optional_sections", lambda game=None: [])
    # When it runs in quick mode
    out = io.StringIO()
    printed = bench.main(quick=True, out=out)
    # Then it has the engine's figures, and its last line is the JSON of every figure
    assert {"engine_games_per_s", "fold_events_per_s", "decide_p50_us"} <= set(printed)
    assert all(printed[k] > 0 for k in ("engine_games_per_s", "fold_events_per_s", "decide_p50_us"))
    assert orjson.loads(out.getvalue().splitlines()[-1]) == printed


def test_given_the_engine_switch_when_the_bench_runs_then_it_gives_the_engine_per_machine_ratio_of_the_same_run() -> (
    None
):
    # Given the bench limited to the engine, when it runs, then its figures are the machine's, the engine's games
    # and their ratio, taken from the same run
    out = io.StringIO()
    figures = bench.main(quick=True, out=out, engine=True)
    assert figures["engine_games_per_mops"] == round(figures["engine_games_per_s"] / figures["machine_python_mops"], 2)
    assert "fold_events_per_s" not in figures and figures["engine_games_per_mops"] > 0
    assert orjson.loads(out.getvalue().splitlines()[-1]) == figures


def test_given_a_streams_demo_module_when_demo_runs_without_engine_then_run_demo_gets_the_seed_and_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``services.demo.run_demo(seed, out)`` is used when it exists; ``--engine`` bypasses it."""
    calls: list[tuple[int, object]] = []
    fake = types.ModuleType("services.demo")
    fake.run_demo = lambda seed, out, game: calls.append((seed, out, game))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "services.demo", fake)
    assert cli.main(["demo", "--seed", "11"]) == 0
    assert calls == [(11, sys.stdout, "shadow")]
    assert cli.main(["demo", "--engine", "--seed", "11"]) == 0
    assert len(calls) == 1
    assert capsys.readouterr().out.startswith("# shadow (rules shadow-3), 4 random bots, seed 11\n")

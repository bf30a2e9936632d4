"""The shard-serving processes share their deployment options and start-up (services/process.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from projections.__main__ import main as projections_main
from services.bots.__main__ import main as bots_main
from services.process import add_deployment_arguments, start_deployment_process
from services.webhooks.__main__ import main as webhooks_main
from services.worker.__main__ import main as worker_main


@pytest.mark.parametrize(
    ("main", "argv", "prog"),
    [
        (worker_main, [], "services.worker"),
        (bots_main, [], "services.bots"),
        (projections_main, ["run"], "projections"),
        (webhooks_main, [], "services.webhooks"),
    ],
)
def test_given_no_redis_named_when_a_process_starts_then_it_refuses_and_says_why(
    main: Callable[[Sequence[str]], int], argv: list[str], prog: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(f"{prog}: set REDIS_URL or --redis-url")


def test_given_options_and_env_when_starting_then_the_options_win_and_plugins_are_imported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Given a layout in the environment, a plugin module, and a process's command line
    monkeypatch.setenv("THRONE_PREFIX", "fromenv")
    monkeypatch.setenv("THRONE_SHARDS", "8")
    (tmp_path / "throne_test_plugin.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "throne_test_plugin", raising=False)
    p = argparse.ArgumentParser()
    add_deployment_arguments(p)
    args = p.parse_args(["--redis-url", "redis://x", "--prefix", "opt", "--plugin", "throne_test_plugin"])

    # When the process starts
    layout = start_deployment_process(args, "test")

    # Then the option wins over the environment where given, the environment fills the rest
    assert layout is not None and (layout.prefix, layout.shards) == ("opt", 8)
    assert args.shards == "all"
    assert sys.modules["throne_test_plugin"].LOADED

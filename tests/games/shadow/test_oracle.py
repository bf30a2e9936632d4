"""The engine's oracle: seeded random games give byte for byte the event logs recorded in oracle_digests.txt.

The fast test replays every tenth game of the oracle (51 games of 2, 3 and 4 players); the whole oracle (510
games) runs with ``THRONE_ORACLE=full`` or ``python -m tests.games.shadow.oracle check``.
"""

from __future__ import annotations

import os

import pytest

from tests.games.shadow import oracle


def test_given_the_recorded_oracle_when_read_then_it_holds_every_game_once() -> None:
    # Given the digests file, when read, then it lists each (players, seed) of the oracle, 500 games or more
    assert sorted(oracle.recorded()) == sorted(oracle.games())
    assert len(oracle.recorded()) >= 500
    assert {players for players, _ in oracle.recorded()} == {2, 3, 4}


def test_given_every_tenth_seeded_game_when_replayed_then_its_event_log_is_byte_identical() -> None:
    # Given every tenth game of the oracle, when played again on the engine, then each log hashes as recorded
    selected = list(oracle.games())[::10]
    assert oracle.mismatches(selected) == []


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("THRONE_ORACLE") != "full", reason="the whole oracle: THRONE_ORACLE=full")
def test_given_all_seeded_games_when_replayed_then_every_event_log_is_byte_identical() -> None:
    # Given the 510 games of the oracle, when played again, then every log hashes as recorded
    assert oracle.mismatches() == []


def test_given_a_game_when_its_log_changes_then_the_oracle_tells_it() -> None:
    # Given one recorded game, when its digest line is compared with another game's, then they differ
    # (the oracle can fail: two different games never share a digest)
    first, second = list(oracle.games())[:2]
    assert oracle.digest_line(*first) != oracle.digest_line(*second)
    assert oracle.digest_line(*first) == oracle.recorded()[first]

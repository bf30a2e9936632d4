"""The repository's warm path: a cached game caught up on new events only, cold loads from snapshot plus tail, a
bounded cache, and events handed in by a caller instead of being read back."""

from __future__ import annotations

from typing import Any

import pytest

from services.rules.contract import GamePlugin
from services.store.catchup import advance
from services.store.repository import GameRepository, UnknownGame
from tests.service.conftest import Backend
from tests.service.helpers import ScriptedGame, script_game
from tests.service.toy_game import ToyRules, ToyState, plugin


class CountingRules(ToyRules):
    """The toy's rules, counting the events they fold."""

    def __init__(self) -> None:
        self.evolved = 0

    def evolve(self, state: ToyState, event: Any) -> ToyState:
        self.evolved += 1
        return super().evolve(state, event)


class Table:
    """A toy game played by a worker, and a warm repository reading it with counting rules."""

    def __init__(self, backend: Backend, seed: int, *, cache_size: int = 8, keep_recent: int = 0) -> None:
        self.backend = backend
        self.client = backend.client()
        backend.start(backend.worker())
        self.scripted: ScriptedGame = script_game(self.client, seed)
        self.gid = self.scripted.game.game_id
        self.played = 0
        self.rules = CountingRules()
        counting: GamePlugin = plugin(self.rules)
        self.repo = GameRepository(
            backend.make(), backend.layout, games=lambda _name: counting, cache_size=cache_size,
            keep_recent=keep_recent,
        )  # fmt: skip

    def play(self, moves: int) -> None:
        """Play the next ``moves`` commands of the script (each one event: the toy ends only at 21)."""
        for env in self.scripted.commands[self.played : self.played + moves]:
            outcome = self.client.send(env.game_id, env.seat, self.scripted.game.tokens[env.seat], env.payload)
            assert outcome.accepted
        self.played += moves

    def folded_from_scratch(self, upto: int | None = None) -> Any:
        """The state by folding every recorded event (up to ``upto``) onto the initial state."""
        rules = plugin(ToyRules()).rules  # the toy with the table around it, as the service holds it
        events = self.repo.events(self.gid, upto=upto)
        state, _ = GameRepository.fold(rules, rules.initial_state(), 0, ((e.version, e.data) for e in events))
        return state


def test_a_cached_game_is_caught_up_after_new_commits_folding_only_the_new_events(backend: Backend) -> None:
    # Given a game of 1 + 3 events, read once through the warm path
    table = Table(backend, seed=11)
    table.play(3)
    first = table.repo.get(table.gid)
    assert first.version == 4
    before = table.rules.evolved

    # When two more commands are committed and the game is read again
    table.play(2)
    again = table.repo.get(table.gid)

    # Then it is as of the stream's head, equal to a fold from scratch, and only the two new events were folded
    assert again.version == 6 and again.state == table.folded_from_scratch()
    assert table.rules.evolved - before == 2
    # And reading it once more with nothing new folds nothing
    assert table.repo.get(table.gid) == again and table.rules.evolved - before == 2


def test_a_cold_load_starts_from_the_newest_snapshot_and_folds_the_tail(backend: Backend) -> None:
    # Given a game of 1 + 7 events, snapshotted at 5 (the worker snapshots every 5)
    table = Table(backend, seed=12)
    table.play(7)

    # When the warm path reads it with an empty cache
    got = table.repo.get(table.gid)

    # Then it restored the snapshot and folded only the three events after it
    assert got.version == 8 and got.snapshot_version == 5 and got.state == table.folded_from_scratch()
    assert table.rules.evolved == 3


def test_a_requested_version_is_served_and_cached_at_that_version(backend: Backend) -> None:
    # Given a game of 1 + 6 events, read at version 3 (a projection's checkpoint)
    table = Table(backend, seed=13)
    table.play(6)
    at_three = table.repo.get(table.gid, upto=3)
    before = table.rules.evolved

    # When it is asked at version 3 again, then at 6
    same = table.repo.get(table.gid, upto=3)
    at_six = table.repo.get(table.gid, upto=6)

    # Then version 3 comes from the cache, and version 6 folds the three events after it only
    assert same is at_three and at_three.state == table.folded_from_scratch(upto=3)
    assert at_six.version == 6 and at_six.state == table.folded_from_scratch(upto=6)
    assert table.rules.evolved - before == 3


def test_the_cache_is_bounded_and_drops_the_least_recent_game(backend: Backend) -> None:
    # Given a warm repository of two places and three games
    table = Table(backend, seed=14, cache_size=2)
    others = [script_game(table.client, seed).game.game_id for seed in (15, 16)]
    games = [table.gid, *others]

    # When all three are read in turn
    for gid in games:
        table.repo.get(gid)

    # Then the cache holds the two most recent, and the first one is loaded cold again
    assert len(table.repo.cache) == 2 and table.gid not in table.repo.cache
    assert all(gid in table.repo.cache for gid in others)
    cold = table.repo.get(table.gid)
    assert cold.version == 1 and table.gid in table.repo.cache and games[1] not in table.repo.cache


def test_handed_in_events_are_folded_without_reading_the_store(backend: Backend) -> None:
    # Given a cached game, and the events of its next two commits as a caller holds them (a reply, the feed)
    table = Table(backend, seed=17, keep_recent=4)
    table.play(1)
    cached = table.repo.get(table.gid)
    table.play(2)
    handed = [(e.version, e.data) for e in table.repo.events(table.gid, after=cached.version)]
    expected = table.folded_from_scratch()
    before = table.rules.evolved

    # When they are handed in with the store unreachable
    table.repo.r = None  # type: ignore[assignment]  # any read now fails loudly
    moved = table.repo.get(table.gid, handed=handed, status="active")

    # Then the game moved on by them, keeping them in its recent events, and it is the cached copy now
    assert moved.version == 4 and moved.state == expected and table.rules.evolved - before == 2
    assert [v for v, _, _ in moved.recent][-2:] == [3, 4]
    assert table.repo.cached(table.gid) is moved


def test_a_gapped_or_stale_hand_in_falls_back_to_reading(backend: Backend) -> None:
    # Given a cached game two commits behind, and only the last commit's events in hand
    table = Table(backend, seed=18)
    table.play(1)
    cached = table.repo.get(table.gid)
    table.play(2)
    last = [(e.version, e.data) for e in table.repo.events(table.gid, after=cached.version + 1)]

    # When the gapped events are handed in, then the pure fold refuses them
    assert advance(cached, last) is None
    # And the warm path reads what it misses instead, landing on the stream's head
    moved = table.repo.get(table.gid, handed=last, status="active")
    assert moved.version == 4 and moved.state == table.folded_from_scratch()

    # When stale events (already folded) are handed in, then the game is read as it stands: no fold, no harm
    before = table.rules.evolved
    assert table.repo.get(table.gid, handed=last, status="active").version == 4
    assert table.rules.evolved == before


def test_a_game_whose_metadata_is_gone_is_unknown_and_leaves_the_cache(backend: Backend) -> None:
    # Given a cached game whose metadata is then deleted
    table = Table(backend, seed=19)
    table.repo.get(table.gid)
    layout = backend.layout
    backend.make().delete(layout.meta(layout.shard_of(table.gid), table.gid))

    # When it is read through the warm path, then it is an unknown game, no longer cached
    with pytest.raises(UnknownGame):
        table.repo.get(table.gid)
    assert table.gid not in table.repo.cache

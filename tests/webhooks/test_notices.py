"""Which notices a commit gives which seat, over random games of every installed game (no Redis): computed
through the game contract only, the way the webhooks process does it."""

from __future__ import annotations

import random
from importlib.metadata import entry_points
from typing import Any

import pytest

import tests.service.toy_game  # noqa: F401 - registers toy21
from events.base import Rejection
from services.bots.kinds import make_bot
from services.rules.registry import get_game
from services.store.eventstore import StoredEvent
from services.webhooks.notices import Commit, Notice, commits, kinds, notice_id, notices


def random_game(name: str, seed: int, max_commands: int = 3000) -> list[tuple[Commit, int | None]]:
    """A seeded random game of ``name`` as its commits (with the seat that sent each; None: the creation)."""
    plugin = get_game(name)
    rules = plugin.rules
    players = tuple(f"P{i}" for i in range(rules.capabilities.max_players))
    rng = random.Random(seed)
    bot = make_bot("random", name, seed)
    state = rules.initial_state()
    out: list[tuple[Commit, int | None]] = []
    version = 0

    def commit(before: Any, events: list[Any], seat: int | None) -> Any:
        nonlocal version
        folded, state_now = [], before
        for event in events:
            state_now = rules.evolve(state_now, event)
            version += 1
            folded.append((version, event, state_now))
        out.append((Commit("g1", plugin, players, before, tuple(folded)), seat))
        return state_now

    state = commit(state, rules.start(players, {}, seed), None)
    for _ in range(max_commands):
        if rules.is_over(state):
            break
        seat = rng.choice(rules.awaited(state))
        command = bot.choose(rules, state, seat)
        assert command is not None
        events = rules.decide(state, command)
        assert not isinstance(events, Rejection)
        state = commit(state, events, seat)
    return out


# The installed games and toy21 (other test modules register broken toy21 variants in this process).
@pytest.mark.parametrize("name", sorted({ep.name for ep in entry_points(group="throne.games")} | {"toy21"}))
def test_given_a_random_game_when_each_commit_is_read_then_every_seat_hears_its_turns_once_and_the_end(
    name: str,
) -> None:
    rules = get_game(name).rules
    for seed in (1, 2):
        # Given a random game as its commits, and every seat hooked
        played = random_game(name, seed)
        seats = range(len(played[0][0].players))
        sent: list[Notice] = []
        for commit, mover in played:
            # When the notices of each commit are computed
            got = notices(commit, seats)
            sent += got
            turned = {n.seat for n in got if n.kind == "turn"}
            before, after = rules.awaited(commit.before), rules.awaited(commit.after)
            # Then a seat is told its turn only when the game waits for it after the commit
            assert turned <= set(after), (commit.version, turned, after)
            for seat in after:
                if rules.is_over(commit.after):
                    continue
                # And never missed: a seat the game now waits for and did not before, or that just moved
                if seat not in before or mover == seat:
                    assert seat in turned, (name, seed, commit.version, seat)
                # And not told again while it waits for the same thing as others move
                elif len(before) > 1 and mover != seat:
                    prompt = commit.plugin.presenter.prompt
                    if prompt(commit.before, seat) == prompt(commit.after, seat):
                        assert seat not in turned
            for n in got:
                assert n.id == notice_id("g1", n.seat, n.kind, commit.version) == n.body["id"]
                assert n.body["version"] == commit.version and n.body["seat"] == n.seat and n.body["text"]
        # And every seat hears of the end once, at the last commit, with the result
        over = [n for n in sent if n.kind == "game_over"]
        assert sorted(n.seat for n in over) == list(seats)
        assert {n.body["version"] for n in over} == {played[-1][0].version}
        assert all(n.body["result"] == rules.result(played[-1][0].after) for n in over)
        # And no two notices share an id
        assert len({n.id for n in sent}) == len(sent)


def test_given_kinds_asked_when_notices_are_computed_then_only_those_kinds_come() -> None:
    played = random_game("toy21", 5)
    last = played[-1][0]
    assert [n.kind for n in notices(last, [0, 1], ["turn"])] == []
    assert {n.kind for n in notices(last, [0, 1], ["game_over"])} == {"game_over"}
    assert set(kinds()) >= {"turn", "game_over"}


def test_given_stored_events_when_split_into_commits_then_a_commit_is_a_run_of_one_command_id_and_time() -> None:
    events = [
        StoredEvent(1, {}, "create", 10), StoredEvent(2, {}, "a", 11), StoredEvent(3, {}, "a", 11),
        StoredEvent(4, {}, "a", 12), StoredEvent(5, {}, "b", 12),
    ]  # fmt: skip
    assert [[e.version for e in c] for c in commits(events)] == [[1], [2, 3], [4], [5]]

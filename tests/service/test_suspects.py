"""A crash loop of the host does not dead-letter a valid command; a command that kills the worker still is.

Worker processes on a real redis-server: one that dies (SIGKILL) while it holds a command says nothing about the
command; only a worker dying while it decides a suspect command alone blames it (services/worker/suspects.py).
"""

from __future__ import annotations

import uuid

import pytest
import redis

from services.bus.keys import GROUP, Layout
from services.client import ServiceClient
from tests.service.conftest import WorkerProcess, spawn_worker
from tests.service.helpers import ScriptedGame, script_game, wait_for

pytestmark = pytest.mark.redis

KILLS = 5


def _died(worker: WorkerProcess) -> int:
    """Wait (generously) for a worker process that is to die by itself; its exit status."""
    return worker.proc.wait(120)


def _game(url: str) -> tuple[ServiceClient, Layout, ScriptedGame]:
    layout = Layout(prefix=f"sus{uuid.uuid4().hex[:8]}", shards=2)
    client = ServiceClient(redis.Redis.from_url(url), layout)
    starter = spawn_worker(url, layout)
    try:
        game = script_game(client, seed=5)
    finally:
        starter.stop()  # SIGTERM: the leases are released, the next worker takes over at once
    return client, layout, game


def test_a_valid_command_in_flight_through_five_worker_kills_commits_exactly_once(redis_url: str) -> None:
    # Given a toy game and its first command on the stream
    client, layout, game = _game(redis_url)
    command = game.commands[0]
    client.submit_many([command])

    # When five worker processes in a row are killed (SIGKILL) while they hold that command, read or claimed
    for _ in range(KILLS):
        doomed = spawn_worker(redis_url, layout, env={"THRONE_TEST_DIE_HOLDING": command.command_id})
        assert _died(doomed) == -9
    shard = layout.shard_of(command.game_id)
    delivered = client.r.xpending_range(layout.cmds(shard), GROUP, "-", "+", 10)
    assert [p["times_delivered"] for p in delivered] == [KILLS]  # (past max_attempts: a suspect now)

    # and a worker the host leaves alone starts
    survivor = spawn_worker(redis_url, layout)
    try:
        outcome = client.wait_on(command, timeout=120)
    finally:
        survivor.stop()

    # Then the command committed exactly once: one outcome, accepted, one set of events, nothing dead-lettered
    assert outcome.accepted
    events = [e for e in client.read_events(command.game_id) if e.command_id == command.command_id]
    assert len(events) == 1
    assert client.r.xlen(layout.dead(shard)) == 0
    assert client.r.xpending(layout.cmds(shard), GROUP)["pending"] == 0
    assert not client.r.exists(layout.suspects(shard))


def test_a_command_that_kills_every_worker_deciding_it_is_still_dead_lettered(redis_url: str) -> None:
    # Given a toy game and a command whose decision kills the deciding process every time (a poison)
    client, layout, game = _game(redis_url)
    command = game.commands[0]
    client.submit_many([command])
    shard = layout.shard_of(command.game_id)

    # When worker processes are started one after another, each dying on it
    deaths = 0
    last: WorkerProcess | None = None
    try:
        for _ in range(10):
            last = spawn_worker(redis_url, layout, env={"TOY21_DIE_AT_TOTAL": "0"})
            wait_for(lambda w=last: w.proc.poll() is not None or client.r.xlen(layout.dead(shard)) > 0, seconds=120)
            if last.proc.poll() is None:
                break
            deaths += 1

        # Then, once a worker died deciding it alone, the next one dead-letters it and lives on
        wait_for(lambda: client.outcome_of(command) is not None, seconds=120)
        assert last is not None and last.proc.poll() is None
    finally:
        if last is not None:
            last.stop()
    outcome = client.outcome_of(command)
    assert outcome is not None and outcome.status == "dead_letter"
    dead = client.r.xrange(layout.dead(shard))
    assert len(dead) == 1 and b"when decided alone" in dead[0][1][b"reason"]
    assert deaths == 4  # three in batches (max_attempts), then one deciding it alone
    assert [e.command_id for e in client.read_events(command.game_id)] == [game.game.command_id]

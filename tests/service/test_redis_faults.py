"""A Redis that refuses writes for a while (maxmemory reached) costs time, never a command: every valid command
is applied exactly once afterwards, nothing is dead-lettered, and the episode is logged in a few lines."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import redis

from services.bots.runner import BotConfig, BotRunner
from services.bus.envelope import CommandEnvelope
from services.bus.faults import Backoff, is_transient
from services.bus.keys import Layout
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST, redis_server
from tests.service.helpers import scripted_batch, wait_for

pytestmark = pytest.mark.redis


def _send_until_taken(client: ServiceClient, commands: list[CommandEnvelope], errors: Counter[str]) -> None:
    """A player's client: each command is submitted (again, under the same id, while Redis refuses the write),
    then awaited, one after the other."""
    for env in commands:
        while True:
            try:
                client.submit_many([env])
                break
            except redis.RedisError as exc:
                assert is_transient(exc), exc
                errors[type(exc).__name__] += 1
                time.sleep(0.05)
        assert client.wait_on(env, timeout=60).accepted


def test_given_redis_out_of_memory_for_seconds_when_games_are_played_then_every_command_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with redis_server(tmp_path, "--maxmemory-policy", "noeviction") as server:
        # Given a rules worker and the bots on a real Redis, 8 toy games created with all their commands known,
        # and a game of four bots under way
        layout = Layout(prefix="oom", shards=4)
        client = ServiceClient(server.client(), layout)
        worker = RulesWorker(server.client(), range(layout.shards), layout=layout, config=FAST)
        bots = BotRunner(server.client(), range(layout.shards), layout=layout, config=BotConfig(block_ms=20))
        stop = threading.Event()
        threads = [threading.Thread(target=loop.run, args=(stop,), daemon=True) for loop in (worker, bots)]
        for t in threads:
            t.start()
        try:
            creates, commands = scripted_batch(8, seed=21)
            client.submit_many(creates)
            assert all(client.wait_on(c, timeout=30).accepted for c in creates)
            bot_game = client.create_game(
                "shadow", ["R", "G", "B", "Y"], seed=8, bots=dict.fromkeys(range(4), "random")
            )
            wait_for(lambda: (client.game_info(bot_game.game_id) or {}).get("version", 0) > 20, seconds=60)
            queued, played = commands[: len(commands) // 2], commands[len(commands) // 2 :]

            # When Redis refuses every write for 3 seconds (maxmemory reached, noeviction) from the moment the
            # queued commands are on the stream (one transaction: the worker cannot commit any of them first),
            # a player sends the others one by one, and the bots play on
            admin = server.client()
            start_episode = admin.pipeline(transaction=True)
            for env in queued:
                start_episode.xadd(layout.cmds(layout.shard_of(env.game_id)), env.to_fields())
            start_episode.config_set("maxmemory", 1)
            start_episode.execute()
            refused: Counter[str] = Counter()
            player = threading.Thread(
                target=_send_until_taken, args=(ServiceClient(server.client(), layout), played, refused)
            )
            player.start()
            time.sleep(3)
            admin.config_set("maxmemory", 0)
            player.join(90)
            assert not player.is_alive()
            wait_for(lambda: (client.game_info(bot_game.game_id) or {}).get("status") == "over", seconds=300, every=0.2)
        finally:
            stop.set()
            for t in threads:
                t.join(10)

        # Then the episode really refused writes: the player's and the worker's
        assert refused["OutOfMemoryError"] > 0 and worker.stats["retried"] > 0
        # and every command was applied exactly once, in order: each toy game's events are its commands'
        for c in creates:
            own = [e.command_id for e in commands if e.game_id == c.game_id]
            got = [e.command_id for e in client.read_events(c.game_id)]
            assert got == [c.command_id, *own, own[-1]]  # the last Add also wins the game
        # and the bot game ended with each bot command counted once, at the version it was decided at
        first_version: dict[str, int] = {}
        for e in client.read_events(bot_game.game_id):
            first_version.setdefault(e.command_id, e.version)
        assert all(v == int(cid.split("-")[1]) + 1 for cid, v in first_version.items() if cid.startswith("bot-"))
        # and nothing was dead-lettered
        r = server.client()
        assert sum(r.xlen(layout.dead(s)) for s in range(layout.shards)) == 0
        # and the episode took a handful of log lines, not one per attempt
        lines = [
            line
            for line in capsys.readouterr().err.splitlines()
            if '"level":"warning"' in line or '"level":"error"' in line
        ]
        # (one pair per episode for the whole process, however many loops met it)
        assert 1 <= sum('"redis.waiting"' in line for line in lines) <= 4, lines
        assert sum('"redis.ready"' in line for line in lines) >= 1
        assert len(lines) <= 20, lines
        assert not any('"level":"error"' in line for line in lines), lines


def test_backoff_grows_with_jitter_up_to_its_cap_and_restarts_after_a_success() -> None:
    # Given a backoff of 10 ms up to 2 s
    backoff = Backoff(0.01, 2.0)

    # When it is asked for twenty delays in a row
    delays = [backoff.next() for _ in range(20)]

    # Then each lies between the first delay and a ceiling that doubles up to the cap, jittered
    for n, delay in enumerate(delays):
        assert 0.01 <= delay <= min(2.0, 0.01 * 2**n)
    assert len(set(delays)) > 15
    assert max(delays[-8:]) > 0.5
    # and after a success it starts low again
    backoff.reset()
    assert backoff.next() <= 0.01


def test_transient_faults_are_told_apart_from_faults_of_the_command() -> None:
    # Given errors Redis answers
    transient = [
        redis.exceptions.OutOfMemoryError("OOM command not allowed when used memory > 'maxmemory'."),
        redis.exceptions.ResponseError("OOM command not allowed ... script: 1234, on @user_script:1."),
        redis.exceptions.ResponseError("BUSY Redis is busy running a script."),
        redis.exceptions.ResponseError("LOADING Redis is loading the dataset in memory"),
        redis.exceptions.ReadOnlyError("READONLY You can't write against a read only replica."),
        redis.exceptions.ResponseError("MASTERDOWN Link with MASTER is down"),
        redis.exceptions.ResponseError("TRYAGAIN Multiple keys request during rehashing of slot"),
        redis.exceptions.ResponseError("CLUSTERDOWN The cluster is down"),
        redis.exceptions.ConnectionError("Connection refused"),
        redis.exceptions.TimeoutError("Timeout reading from socket"),
        ConnectionResetError(),
    ]
    faulty = [
        redis.exceptions.ResponseError("ERR Error running script: attempt to compare nil with number"),
        redis.exceptions.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
        ValueError("a bug"),
    ]

    # Then Redis being unable for now is transient, anything about the command itself is not
    assert all(is_transient(e) for e in transient)
    assert not any(is_transient(e) for e in faulty)

"""The bots process: seats handed to bots are played through the streams like any client's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter

import orjson
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from services.bots.runner import BotConfig, BotRunner
from services.bus.keys import Layout
from services.client import GameNotCreated, ServiceClient
from services.rules.registry import get_game
from services.store import eventstore
from tests.service.conftest import REDIS_SERVER, ROOT, Backend, _wait_ping, free_port
from tests.service.helpers import wait_for

pytestmark = pytest.mark.redis

FAST_BOTS = BotConfig(block_ms=20, sweep_every_ms=200, recheck_after_ms=100, resend_after_ms=2000)
NAMES = ["Red", "Green", "Blue", "Yellow"]


def spawn_bots(url: str, layout: Layout, *extra: str) -> subprocess.Popen[bytes]:
    """``python -m services.bots`` over every shard of ``layout`` on ``url``."""
    cmd = [
        sys.executable, "-m", "services.bots", "--redis-url", url, "--shards", "all",
        "--shard-count", str(layout.shards), "--prefix", layout.prefix, "--sweep-every-ms", "200",
        "--plugin", "tests.service.toy_game", "--log-level", "warning", *extra,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def start_bots(backend: Backend, config: BotConfig = FAST_BOTS) -> BotRunner:
    """A bots runner in a thread of this process until the test ends (stopped with the backend's workers)."""
    runner = BotRunner(backend.make(), range(backend.layout.shards), layout=backend.layout, config=config)
    ev = threading.Event()
    thread = threading.Thread(target=runner.run, args=(ev,), daemon=True)
    thread.start()
    backend.workers.append((runner, ev, thread))  # type: ignore[arg-type] - stop_all only needs (_, event, thread)
    return runner


def over(client: ServiceClient, game_id: str) -> bool:
    info = client.game_info(game_id)
    return info is not None and info["status"] == "over"


def assert_played_once_per_version(client: ServiceClient, game_id: str) -> list[str]:
    """Every bot command id of the game caused events exactly once, at the version it names."""
    events = client.read_events(game_id)
    first_version_of: dict[str, int] = {}
    for e in events:
        first_version_of.setdefault(e.command_id, e.version)
    bot_ids = [cid for cid in first_version_of if cid.startswith("bot-")]
    for cid in bot_ids:
        # bot-<version>-<seat>-<attempt>: decided at <version>, so its first event is <version> + 1
        assert first_version_of[cid] == int(cid.split("-")[1]) + 1, cid
    return bot_ids


def test_given_a_game_with_four_bot_seats_when_the_bots_process_runs_then_it_plays_the_game_to_its_end(
    redis_url: str, backend: Backend
) -> None:
    if backend.kind != "redis":
        pytest.skip("a separate bots process needs a Redis other processes reach (covered by the redis case)")
    # Given a rules worker and the bots process (python -m services.bots) on a real redis-server
    backend.start(backend.worker())
    bots = spawn_bots(redis_url, backend.layout)
    try:
        # When a game is created with all four seats handed to bots (one heuristic, three random)
        client = backend.client()
        game = client.create_game(
            "shadow", NAMES, seed=11, bots={0: "heuristic", 1: "random", 2: "random", 3: "random"}
        )
        assert client.bot_seats(game.game_id) == {0: "heuristic", 1: "random", 2: "random", 3: "random"}

        # Then the bots play it to its end through the streams
        wait_for(lambda: over(client, game.game_id), seconds=300, every=0.1)
        # And the bots process, still running, drops the bot seats' tokens once it has seen the end
        shard = backend.layout.shard_of(game.game_id)
        r = backend.make()
        wait_for(lambda: r.get(backend.layout.bots(shard, game.game_id)) is None)
    finally:
        stop(bots)
    info = client.game_info(game.game_id)
    assert info is not None and info["result"]["winners"]
    # And every command came from the bots, each accepted exactly once at the version it was decided at
    bot_ids = assert_played_once_per_version(client, game.game_id)
    commands = {e.command_id for e in client.read_events(game.game_id)} - {game.command_id}
    assert commands == set(bot_ids) and len(bot_ids) > 100
    # And the fold of the recorded events is a finished game with the recorded result
    rules = get_game("shadow").rules
    state = rules.initial_state()
    for e in client.read_events(game.game_id):
        state = rules.evolve(state, rules.parse_event(e.data))
    assert rules.is_over(state) and rules.result(state) == info["result"]
    # And the game left the shard's set of bot games with its tokens
    assert not r.sismember(backend.layout.bot_games(shard), game.game_id)


def test_given_a_person_and_three_bots_when_both_play_then_the_game_ends_with_both_sides_accepted(
    backend: Backend,
) -> None:
    # Given a rules worker and a bots runner
    backend.start(backend.worker())
    start_bots(backend)
    client = backend.client()
    rules = get_game("shadow").rules
    # When a person on seat 2 plays (a seeded random choice, the version it saw as expected version)
    game = client.create_game("shadow", NAMES, seed=5, bots={0: "random", 1: "heuristic", 3: "random"})
    rng = random.Random(5)
    state, version, mine, stale = rules.initial_state(), 0, 0, 0
    while not rules.is_over(state):
        for e in client.read_events(game.game_id, after=version):
            state, version = rules.evolve(state, rules.parse_event(e.data)), e.version
        if rules.is_over(state) or 2 not in rules.awaited(state):
            wait_for(lambda v=version: over(client, game.game_id) or client.game_info(game.game_id)["version"] > v)
            continue
        command = rng.choice(rules.legal_commands(state, 2))
        outcome = client.send(game.game_id, 2, game.tokens[2], command.to_dict(), expected_version=version)
        if outcome.accepted:
            mine += 1
        else:
            # Only a bot's vote landing first (a simultaneous decision) may overtake the person
            assert outcome.rejection is not None and outcome.rejection.code == "stale_version"
            stale += 1
    # Then the game ended, with the person's and the bots' commands in it
    cids = Counter(e.command_id for e in client.read_events(game.game_id))
    assert mine > 10 and sum(1 for c in cids if c.startswith("bot-")) > 30
    assert_played_once_per_version(client, game.game_id)


def test_given_the_bots_process_is_killed_mid_game_when_a_new_one_starts_then_the_game_ends_with_no_move_twice(
    redis_url: str, backend: Backend
) -> None:
    if backend.kind != "redis":
        pytest.skip("kills a process: runs on the real redis-server")
    # Given a game of four random bots half played by a bots process
    backend.start(backend.worker())
    client = backend.client()
    first = spawn_bots(redis_url, backend.layout)
    game = client.create_game("shadow", NAMES, seed=21, bots=dict.fromkeys(range(4), "random"))
    try:
        wait_for(lambda: client.game_info(game.game_id)["version"] > 200, seconds=60, every=0.005)
    finally:
        # When that process is killed with SIGKILL (no clean-up at all)
        first.kill()
        first.wait(10)
    halfway = client.game_info(game.game_id)["version"]
    assert halfway < 600, "the game ended before the kill: nothing left to recover"
    second = spawn_bots(redis_url, backend.layout)
    try:
        # Then a new bots process finds the game (sweep), catches up and plays it to its end
        wait_for(lambda: over(client, game.game_id), seconds=300, every=0.1)
    finally:
        stop(second)
    # And no bot move was played twice: one command id per version, each at its own version
    assert_played_once_per_version(client, game.game_id)


def test_given_bot_seats_when_the_map_is_bad_or_the_game_exists_then_typed_errors_and_nothing_changes(
    backend: Backend,
) -> None:
    backend.start(backend.worker())
    client = backend.client()
    r = backend.make()
    # Given a bad bots map: a seat outside the game, a kind that is not a name
    for bots in ({4: "random"}, {-1: "random"}, {0: "Robot Overlord!"}, {0: ""}):
        with pytest.raises(ValueError):
            client.create_game("shadow", NAMES, seed=1, game_id="g-bad", bots=bots)
    # Then nothing was written for that game
    shard = backend.layout.shard_of("g-bad")
    assert client.game_info("g-bad") is None and r.get(backend.layout.bots(shard, "g-bad")) is None
    assert not r.exists(backend.layout.cmds(shard)) or r.xlen(backend.layout.cmds(shard)) == 0

    # Given a game with bot seats, when another creation with its id and other bots comes
    game = client.create_game("shadow", NAMES, seed=1, game_id="g-taken", bots={1: "random"})
    key = backend.layout.bots(backend.layout.shard_of("g-taken"), "g-taken")
    before = r.get(key)
    with pytest.raises(GameNotCreated) as err:
        client.create_game("shadow", NAMES, seed=2, game_id="g-taken", bots={0: "random"})
    # Then it is refused as game_exists and the first game's bot seats stay as they were
    assert err.value.outcome.rejection is not None and err.value.outcome.rejection.code == "game_exists"
    assert r.get(key) == before and orjson.loads(before)["seats"]["1"]["kind"] == "random"
    # (its seed is sealed in the summary while it runs [X23]: the opening event, in the store, still names seed 1)
    assert client.game_info(game.game_id)["seed"] is None
    assert eventstore.read_events(r, backend.layout, game.game_id)[0].data["seed"] == 1

    # Given a creation the worker refuses (no such game), then its bot seats are removed again
    with pytest.raises(GameNotCreated):
        client.create_game("no-such-game", NAMES, seed=1, game_id="g-nogame", bots={0: "random"})
    assert r.get(backend.layout.bots(backend.layout.shard_of("g-nogame"), "g-nogame")) is None


def test_given_an_unknown_bot_kind_and_a_game_other_than_shadow_when_played_then_random_bots_finish_it(
    backend: Backend,
) -> None:
    # Given a toy21 game (the bots know games only through the decider) with a heuristic seat (a bot that
    # plays Shadow only) and a seat of a kind nobody registered
    backend.start(backend.worker())
    runner = start_bots(backend)
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=3, bots={0: "heuristic", 1: "nobody-knows-me"})
    # When the bots runner plays it, then it ends: both seats fall back to the random bot
    wait_for(lambda: over(client, game.game_id), seconds=300)
    assert client.game_info(game.game_id)["result"] is not None
    assert runner.stats["sent"] >= 7  # 21 in steps of at most 3


def test_given_a_game_whose_bots_key_was_written_but_never_created_when_swept_then_it_is_dropped_as_an_orphan(
    backend: Backend,
) -> None:
    # Given a bots key and botgames entry for a game whose creation never reached a worker (no worker runs)
    client = backend.client()
    client.create_game("shadow", NAMES, seed=1, game_id="g-orphan", bots={0: "random"}, timeout=None)
    shard = backend.layout.shard_of("g-orphan")
    r = backend.make()
    assert r.get(backend.layout.bots(shard, "g-orphan")) is not None
    # When a runner that drops orphans at once sweeps
    runner = BotRunner(
        backend.make(), range(backend.layout.shards), layout=backend.layout, config=BotConfig(orphan_after_ms=0)
    )
    runner.setup()
    runner.sweep()
    # Then the bots key and the botgames entry are gone
    assert r.get(backend.layout.bots(shard, "g-orphan")) is None
    assert not r.sismember(backend.layout.bot_games(shard), "g-orphan")


def test_given_a_bad_feed_entry_and_a_corrupt_bots_key_when_the_runner_reads_them_then_it_goes_on(
    backend: Backend,
) -> None:
    # Given a running worker and bots runner, a garbage entry in a feed and a corrupt bots key
    backend.start(backend.worker())
    runner = start_bots(backend)
    r = backend.make()
    r.xadd(backend.layout.feed(0), {"junk": "1"})
    r.xadd(backend.layout.feed(0), {"g": "x", "v": "not-a-number"})
    shard = backend.layout.shard_of("g-corrupt")
    r.set(backend.layout.bots(shard, "g-corrupt"), b"{not json")
    r.sadd(backend.layout.bot_games(shard), "g-corrupt")
    # When a good bot game is created next
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=8, bots={0: "random", 1: "random"})
    # Then it is played to its end and the corrupt key was dropped
    wait_for(lambda: over(client, game.game_id), seconds=300)
    wait_for(lambda: r.get(backend.layout.bots(shard, "g-corrupt")) is None)
    assert runner.stats["feed"] > 0


def test_given_redis_restarts_empty_when_the_runner_meets_connection_errors_then_it_recovers_and_plays() -> None:
    # Given a redis-server of this test's own, a rules worker and a bots runner on it
    port = free_port()

    def start_redis() -> subprocess.Popen[bytes]:
        cmd = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_ping(lambda: redis.Redis(port=port))
        return proc

    if not os.path.exists(REDIS_SERVER):
        pytest.skip("no redis-server")
    server = start_redis()
    layout = Layout(f"tdown{uuid.uuid4().hex[:6]}", 2)
    make = lambda: redis.Redis(port=port, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))  # noqa: E731
    backend = Backend("redis", make, lambda: f"redis://127.0.0.1:{port}/0", layout=layout)
    try:
        backend.start(backend.worker())
        runner = start_bots(backend)
        # When Redis goes away for a moment and comes back empty (no persistence: the groups are gone too)
        server.terminate()
        server.wait(10)
        time.sleep(0.5)
        server = start_redis()
        # Then the runner (and the worker) carry on: a new game with bot seats is played to its end
        client = ServiceClient(make(), layout)
        game = client.create_game("toy21", ["ann", "bob"], seed=4, bots={0: "random", 1: "random"}, timeout=30)
        wait_for(lambda: over(client, game.game_id), seconds=300)
        assert runner.stats["sent"] >= 7
    finally:
        backend.stop_all()
        server.terminate()
        server.wait(10)

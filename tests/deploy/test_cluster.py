"""The service on a local Redis Cluster of 3 masters, started and stopped by deploy/cluster.sh."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis._parsers.base import BaseParser

from services.bots.runner import BotConfig, BotRunner
from services.bus.connection import cluster_url, connect, is_cluster, is_redirect
from services.bus.keys import GROUP, Layout
from services.bus.streams import GroupReader
from services.client import ServiceClient
from services.demo import play_through_streams
from services.log import configure
from services.rules.registry import get_game
from services.worker.rules_worker import RulesWorker, WorkerConfig
from tests.service.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "cluster.sh"
NAMES = ["Red", "Green", "Blue", "Yellow"]

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(
        not (shutil.which("redis-server") and shutil.which("redis-cli")), reason="needs redis-server and redis-cli"
    ),
]


def run_script(state: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "THRONE_CLUSTER_DIR": str(state)}
    env.pop("REDIS_URL", None)
    return subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A 3-master cluster started by the script (its own state dir), stopped by the script at the end."""
    configure("warning")
    state = tmp_path_factory.mktemp("cluster") / "state"
    started = run_script(state, "start")
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip().splitlines()[-1].removeprefix("REDIS_URL=")
    try:
        yield url, state
    finally:
        run_script(state, "stop")


def test_given_the_script_started_a_cluster_then_it_has_three_masters_covering_every_slot(
    cluster: tuple[str, Path],
) -> None:
    url, state = cluster
    # Given the URL the script printed, connect() makes a cluster client
    assert url.startswith("redis+cluster://127.0.0.1:")
    client = connect(url)
    assert is_cluster(client)
    # Then there are three masters, no replicas, and the cluster is ok
    masters = [n for n in client.get_nodes() if n.server_type == "primary"]
    assert len(masters) == 3 and len(client.get_nodes()) == 3
    info = client.cluster_info(target_nodes=client.get_random_node())
    assert info["cluster_state"] == "ok" and int(info["cluster_slots_assigned"]) == 16384
    # And the script reports the same URL while it runs
    assert run_script(state, "url").stdout.strip() == f"REDIS_URL={url}"


def test_given_the_cluster_when_a_game_is_played_through_the_streams_then_its_events_are_recorded_in_order(
    cluster: tuple[str, Path],
) -> None:
    url, _ = cluster
    layout = Layout(prefix="tcl", shards=16)
    client = connect(url)
    # Given that a read over several shards at once is refused by the cluster (every shard is one slot)
    for shard in range(layout.shards):
        with contextlib.suppress(redis.ResponseError):  # BUSYGROUP
            client.xgroup_create(layout.cmds(shard), GROUP, id="0", mkstream=True)
    with pytest.raises(redis.RedisClusterException):
        client.xreadgroup(GROUP, "probe", {layout.cmds(0): ">", layout.cmds(1): ">"}, count=1)

    # And a rules worker over all 16 shards in a thread, on the cluster
    worker = RulesWorker(connect(url), range(layout.shards), layout=layout, config=WorkerConfig(block_ms=20))
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()
    try:
        # When random bots play a seeded Shadow game with the client library
        service = ServiceClient(connect(url), layout)
        played = play_through_streams(service, "shadow", NAMES, seed=4)
        # And a few more games land on other shards (hence other nodes)
        others = [service.create_game("shadow", NAMES[:2], seed=i) for i in range(8)]
    finally:
        stop.set()
        thread.join(10)

    # Then the game's events are recorded at versions 1..n, from GameStarted to GameEnded and the seed's reveal
    events = service.read_events(played.game_id)
    assert [e.version for e in events] == list(range(1, played.version + 1))
    assert events[0].data["type"] == "GameStarted"
    assert [e.data["type"] for e in events[-2:]] == ["GameEnded", "SeedRevealed"]
    # And folding them gives the result the game ended with, also stored in its metadata
    rules = get_game("shadow").rules
    state = rules.initial_state()
    for e in events:
        state = rules.evolve(state, rules.parse_event(e.data))
    info = service.game_info(played.game_id)
    assert info is not None and info["status"] == "over"
    assert rules.result(state) == played.result == info["result"]
    # And the games were spread over more than one node of the cluster
    shards = {layout.shard_of(g.game_id) for g in others} | {layout.shard_of(played.game_id)}
    nodes = {client.get_node_from_key(layout.cmds(s)).name for s in shards}
    assert len(nodes) >= 2
    assert worker.stats["append"] == played.commands


def test_given_the_cluster_when_a_game_has_four_bot_seats_then_the_bots_play_it_to_its_end(
    cluster: tuple[str, Path],
) -> None:
    url, _ = cluster
    layout = Layout(prefix="tclb", shards=8)
    stop = threading.Event()
    worker = RulesWorker(connect(url), range(layout.shards), layout=layout, config=WorkerConfig(block_ms=20))
    bots = BotRunner(connect(url), range(layout.shards), layout=layout, config=BotConfig(block_ms=20))
    threads = [threading.Thread(target=x.run, args=(stop,), daemon=True) for x in (worker, bots)]
    for t in threads:
        t.start()
    try:
        service = ServiceClient(connect(url), layout)
        games = [service.create_game("shadow", NAMES, seed=s, bots=dict.fromkeys(range(4), "random")) for s in (1, 2)]
        wait_for(lambda: all(service.game_info(g.game_id)["status"] == "over" for g in games), seconds=300, every=0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    for g in games:
        assert [e.data["type"] for e in service.read_events(g.game_id)[-2:]] == ["GameEnded", "SeedRevealed"]


def test_given_the_cluster_when_the_script_runs_its_demo_then_a_whole_game_is_printed(
    cluster: tuple[str, Path],
) -> None:
    _, state = cluster
    done = run_script(state, "demo", "--seed", "2", "--players", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "through Redis at REDIS_URL" in done.stdout and '"game_id"' in done.stdout.splitlines()[-1]


def test_given_a_started_cluster_when_the_script_stops_it_then_its_servers_are_gone(tmp_path: Path) -> None:
    # Given a cluster of its own
    state = tmp_path / "state"
    started = run_script(state, "start")
    assert started.returncode == 0, started.stderr
    pids = [int(p) for p in (state / "pids").read_text().split()]
    data = Path((state / "data").read_text().strip())
    assert len(pids) == 3 and data.is_dir()
    # When the script stops it
    stopped = run_script(state, "stop")
    # Then no server is left, and its data directory is gone
    assert stopped.returncode == 0
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "redis" not in Path(f"/proc/{pid}/cmdline").read_text()
    assert not data.exists() and not (state / "pids").exists()
    # And asking for its URL now fails
    assert run_script(state, "url").returncode != 0


def test_cluster_urls_are_recognised_by_scheme_or_by_redis_cluster_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_CLUSTER", raising=False)
    assert cluster_url("redis+cluster://10.0.0.1:7000/0") == "redis://10.0.0.1:7000/0"
    assert cluster_url("rediss+cluster://h:7000") == "rediss://h:7000"
    assert cluster_url("redis://h:6379/0") is None
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    assert cluster_url("redis://h:6379/0") == "redis://h:6379/0"


def test_given_redis_cluster_1_and_a_plain_url_then_connect_makes_a_cluster_client(
    cluster: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = cluster
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    monkeypatch.setenv("REDIS_URL", url.replace("redis+cluster://", "redis://"))
    client = connect()
    assert is_cluster(client) and client.ping()


def test_given_idle_shards_on_the_cluster_when_read_with_block_then_it_waits_and_wakes_on_a_new_entry(
    cluster: tuple[str, Path],
) -> None:
    url, _ = cluster
    layout = Layout(prefix="tclr", shards=6)
    client = connect(url)
    keys = [layout.cmds(s) for s in range(layout.shards)]
    for key in keys:
        with contextlib.suppress(redis.ResponseError):
            client.xgroup_create(key, "g", id="$", mkstream=True)
    reader = GroupReader(client, "g", "c1", poll_ms=5)
    # Given every shard idle, a blocking read waits (at least) its block time, then returns nothing
    t0 = time.monotonic()
    assert reader.read(dict.fromkeys(keys, ">"), count=10, block_ms=150) == []
    assert time.monotonic() - t0 >= 0.14
    # When an entry arrives on one shard while a read blocks for ten minutes
    results: list[list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]] = []
    reading = threading.Thread(
        target=lambda: results.append(reader.read(dict.fromkeys(keys, ">"), count=10, block_ms=600_000, noack=True)),
        daemon=True,
    )
    reading.start()
    time.sleep(0.3)  # the read starts blocking (on a slow machine it may find the entry at once: no harm)
    connect(url).xadd(keys[4], {"x": "1"})
    # Then the read wakes with it (long before its block time), and (noack) nothing stays pending
    wait_for(lambda: results, seconds=60)
    got = results[0]
    assert [(key, [f for _, f in entries]) for key, entries in got] == [(keys[4].encode(), [{b"x": b"1"}])]
    assert client.xpending(keys[4], "g")["pending"] == 0
    # And a group that does not exist is an error, as on a single Redis
    with pytest.raises(redis.ResponseError):
        GroupReader(client, "no-such-group", "c1").read({keys[0]: ">"}, count=1)


def test_given_the_cluster_when_a_hooked_bot_game_is_played_then_every_seat_hears_its_turns_and_the_end(
    cluster: tuple[str, Path],
) -> None:
    from services.webhooks.delivery import Deliverer
    from services.webhooks.follower import WebhookFollower
    from services.webhooks.hooks import HookStore
    from tests.webhooks.conftest import FAST_HOOKS
    from tests.webhooks.receiver import receiver

    url, _ = cluster
    layout = Layout(prefix="tclw", shards=8)
    stop = threading.Event()
    shards = range(layout.shards)
    loops = [
        RulesWorker(connect(url), shards, layout=layout, config=WorkerConfig(block_ms=20)),
        BotRunner(connect(url), shards, layout=layout, config=BotConfig(block_ms=20)),
        WebhookFollower(connect(url), shards, layout=layout, config=FAST_HOOKS),
        Deliverer(connect(url), shards, layout=layout, config=FAST_HOOKS),
    ]
    threads = [threading.Thread(target=x.run, args=(stop,), daemon=True) for x in loops]
    for t in threads:
        t.start()
    try:
        with receiver() as rx:
            # Given a Shadow game of four bot seats, each seat with a webhook on a receiver, on the cluster
            service = ServiceClient(connect(url), layout)
            game = service.create_game("shadow", NAMES, seed=5, bots=dict.fromkeys(range(4), "random"))
            hooks = HookStore(connect(url), layout)
            for seat in range(4):
                hook = hooks.register(game.game_id, seat, rx.hook_url(f"/{seat}"), ("turn", "game_over"))
                rx.secrets[f"/{seat}"] = hook.key
            # When the bots play it to its end
            wait_for(lambda: service.game_info(game.game_id)["status"] == "over", seconds=300, every=0.1)
            # Then every seat hears of the end, and heard of its turns, every request signed with its secret
            wait_for(lambda: len(rx.notices("game_over")) == 4, seconds=300, every=0.05)
            assert rx.bad_signatures == 0
            turns = rx.notices("turn")
            assert {n["seat"] for n in turns} == {0, 1, 2, 3}
            assert all(n["id"].startswith(f"{game.game_id}:") for n in turns)
    finally:
        stop.set()
        for t in threads:
            t.join(10)


def test_given_redirect_replies_as_redis_py_parses_them_then_they_are_told_from_other_errors() -> None:
    # Given the error replies of a cluster as redis-py's parser turns them into exceptions (the text loses its code)
    moved = BaseParser.parse_error("MOVED 3999 127.0.0.1:7002")
    assert not str(moved).startswith("MOVED")
    redirects = [moved, BaseParser.parse_error("ASK 3999 127.0.0.1:7002"), BaseParser.parse_error("TRYAGAIN x")]
    redirects.append(BaseParser.parse_error("CLUSTERDOWN The cluster is down"))
    # Then each is a redirect, and an ordinary refusal or a script error is not
    assert all(is_redirect(err) for err in redirects)
    assert not is_redirect(BaseParser.parse_error("OOM command not allowed when used memory > 'maxmemory'."))
    assert not is_redirect(redis.ResponseError("MOVEDX is not a command"))

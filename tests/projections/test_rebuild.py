"""Every read model rebuilt from zero equals the one the live projection workers built."""

from __future__ import annotations

import orjson
import pytest
import redis

from projections.__main__ import main
from projections.rebuild import rebuild
from projections.store import MODELS, Ops, ProjectionScripts, RMKeys
from services.bus.keys import Layout
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker
from tests.projections.helpers import (
    STEADY,
    dump_model,
    play,
    run_worker,
    start_projections,
    stop_projections,
    wait_caught_up,
)
from tests.service.conftest import Backend
from tests.service.helpers import scripted_batch


def test_each_read_model_rebuilt_from_zero_equals_the_live_one(backend: Backend) -> None:
    # Given the rules worker and the four projection workers running live, in small batches
    run_worker(backend)
    running = start_projections(backend)
    client = backend.client()
    r = backend.make()

    # When Shadow games of 2, 3 and 4 players and a few toy21 games are played (with refused commands too)
    try:
        games = play(backend, client, shadow=[(31, 2), (32, 3), (33, 4)], toy=3, tag="live")
        wait_caught_up(r, backend.layout, games)
    finally:
        stop_projections(running)
    live = {m: dump_model(r, backend.layout, m) for m in MODELS}

    # Then each model holds every game (non-trivially: every seat has a feed, the leaderboard counted them)
    keys = RMKeys(backend.layout)
    for gid in games:
        assert r.exists(keys.scoreboard(gid), keys.audit(gid), keys.feed(gid), keys.feed_now(gid)) == 4
    counted = [len(r.smembers(keys.leaderboard(name, "counted"))) for name in ("shadow", "toy21")]
    assert counted == [3, 3]
    assert r.zcard(keys.leaderboard("shadow", "rank")) == 4 and r.zcard(keys.leaderboard("toy21", "rank")) == 3
    assert sum(len(v) for k, v in live["audit"].items() if k.endswith(tuple(games))) == sum(
        int(r.hget(backend.layout.meta(backend.layout.shard_of(g), g), "version")) for g in games
    )

    # When every model is rebuilt from zero
    done = rebuild(r, backend.layout)

    # Then each one equals, key by key and byte by byte, what the live workers built
    assert done == dict.fromkeys(MODELS, len(games))
    for model in MODELS:
        rebuilt = dump_model(r, backend.layout, model)
        assert rebuilt.keys() == live[model].keys(), model
        for key, value in live[model].items():
            assert rebuilt[key] == value, f"{model}: {key}"


def test_one_model_rebuilt_alone_leaves_the_others_untouched(backend: Backend) -> None:
    # Given games projected by every model
    run_worker(backend)
    client = backend.client()
    r = backend.make()
    games = play(backend, client, toy=2, tag="one")
    rebuild(r, backend.layout)
    before = {m: dump_model(r, backend.layout, m) for m in MODELS}

    # When only the replay model is rebuilt (after its keys were damaged)
    r.delete(RMKeys(backend.layout).applied(backend.layout.shard_of(games[0]), "replay"))
    rebuild(r, backend.layout, ["replay"])

    # Then every model is as before
    assert {m: dump_model(r, backend.layout, m) for m in MODELS} == before
    with pytest.raises(ValueError, match="unknown read model"):
        rebuild(r, backend.layout, ["nope"])


def test_the_apply_script_writes_once_per_version_and_replaces_leftovers(backend: Backend) -> None:
    # Given the apply script and a game's checkpoint at 0
    r = backend.make()
    scripts = ProjectionScripts.load(r)
    keys = RMKeys(backend.layout)
    gid = "g-apply"
    shard = backend.layout.shard_of(gid)
    checkpoint = keys.applied(shard, "feed")
    stream = keys.feed(gid)

    def apply(expected: int, versions: range) -> list[bytes]:
        ops = Ops()
        for v in versions:
            ops.add("XADD", stream, f"0-{v}", "e", orjson.dumps({"v": v}))
        ops.add("HSET", keys.feed_now(gid), "version", versions[-1])
        return r.evalsha(scripts.apply, *ops.script_args(checkpoint, gid, expected, versions[-1]))

    # When versions 1..3 are applied, then the same again (a redelivery), then 4..5
    assert apply(0, range(1, 4)) == [b"OK", 3]
    assert apply(0, range(1, 4)) == [b"STALE", 3]
    assert apply(3, range(4, 6)) == [b"OK", 5]

    # Then each version is there once
    assert [eid for eid, _ in r.xrange(stream)] == [f"0-{v}".encode() for v in range(1, 6)]

    # When the checkpoint is lost while the entries stay (a rebuild racing a live worker) and 3.. is applied
    r.hset(checkpoint, gid, 2)
    assert apply(2, range(3, 5)) == [b"OK", 4]

    # Then the leftovers past the checkpoint were replaced, not doubled, and the script never failed half-way
    assert [eid for eid, _ in r.xrange(stream)] == [f"0-{v}".encode() for v in range(1, 5)]
    assert r.hget(keys.feed_now(gid), "version") == b"4"


@pytest.mark.redis
def test_the_rebuild_command_rebuilds_from_zero(
    redis_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given toy games recorded, whose scoreboards were damaged
    layout = Layout(prefix="rbcli", shards=4)
    r = redis.Redis.from_url(redis_url)
    creates, commands = scripted_batch(3, seed=91)
    ServiceClient(r, layout).submit_many([*creates, *commands])
    RulesWorker(redis.Redis.from_url(redis_url), range(4), layout=layout, config=STEADY).run_until_idle()
    rebuild(r, layout)
    before = dump_model(r, layout, "scoreboard")
    r.delete(RMKeys(layout).scoreboard(creates[0].game_id))

    # When `python -m projections rebuild --model scoreboard` runs
    argv = ["--redis-url", redis_url, "--prefix", "rbcli", "--shard-count", "4", "--log-level", "warning"]
    assert main([*argv, "rebuild", "--model", "scoreboard"]) == 0

    # Then it says what it rebuilt, and the model is whole again
    assert orjson.loads(capsys.readouterr().out.splitlines()[-1]) == {"rebuilt": {"scoreboard": 3}}
    assert dump_model(r, layout, "scoreboard") == before
    # (without a Redis to talk to it refuses to start)
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["rebuild"]) == 2
    for key in r.scan_iter(match="rbcli:*"):
        r.unlink(key)

"""A projection worker killed and restarted loses and doubles nothing."""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
import redis

from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import ProjectionWorker
from projections.store import MODELS, RMKeys, group_of
from services.bus.keys import Layout
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker
from tests.projections.helpers import FAST_PROJECTION, STEADY, caught_up, dump_model, play, spawn_projections
from tests.service.conftest import Backend
from tests.service.helpers import scripted_batch, wait_for


def _pending(r: redis.Redis, layout: Layout, model: str) -> int:
    total = 0
    for s in range(layout.shards):
        with contextlib.suppress(redis.ResponseError):  # NOGROUP: the worker has not created it yet
            total += r.xpending(layout.feed(s), group_of(model))["pending"]
    return total


def _has_group(r: redis.Redis, layout: Layout, shard: int, model: str) -> bool:
    with contextlib.suppress(redis.ResponseError):
        return any(g["name"] == group_of(model).encode() for g in r.xinfo_groups(layout.feed(shard)))
    return False


class _DiesBeforeAck(ProjectionWorker):
    """A worker that applies each batch and dies before acking it (the narrowest crash window)."""

    def _ack(self, acks: dict[int, list[bytes]]) -> None:
        self.died += 1

    died = 0


def test_a_worker_dying_between_apply_and_ack_doubles_nothing(backend: Backend) -> None:
    # Given games played, and a feed worker that dies after each apply, before its ack
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    games = play(backend, client, shadow=[(41, 3)], toy=4, tag="ack")
    doomed = _DiesBeforeAck(backend.make(), ALL_MODELS["feed"](), layout=backend.layout, config=FAST_PROJECTION)
    doomed.ensure_groups()
    for _ in range(5):
        doomed.step(block_ms=0)
    assert doomed.died == 5 and doomed.stats["events"] > 0

    # When a new worker with the same consumer name takes over (it re-reads the pending entries first)
    assert _pending(r, backend.layout, "feed") > 0
    heir = ProjectionWorker(backend.make(), ALL_MODELS["feed"](), layout=backend.layout, config=FAST_PROJECTION)
    heir.run_until_idle()

    # Then it skipped what was already applied, acked everything, and the model equals a rebuild from zero
    assert heir.stats["duplicates"] > 0 and _pending(r, backend.layout, "feed") == 0
    assert caught_up(r, backend.layout, games, ["feed"])
    live = dump_model(r, backend.layout, "feed")
    rebuild(r, backend.layout, ["feed"])
    assert dump_model(r, backend.layout, "feed") == live


@pytest.mark.redis
def test_kill_9_mid_stream_then_restart_loses_and_doubles_nothing(backend: Backend) -> None:
    # Given a Redis reachable from another process, a rules worker, and the projection process running
    url = backend.url_for_subprocess()
    make = lambda: redis.Redis.from_url(url)  # noqa: E731
    layout = Layout(prefix=f"pk{uuid.uuid4().hex[:6]}", shards=4)
    worker = RulesWorker(make(), range(4), layout=layout, config=replace(STEADY))
    client = ServiceClient(make(), layout)
    r = make()
    # (the feed model hangs once a toy game's total reaches 12: it dies holding entries it read)
    first = spawn_projections(url, layout, env={"TOY21_STALL_VIEW_AT_TOTAL": "12"})
    try:
        wait_for(lambda: all(_has_group(r, layout, s, m) for s in range(4) for m in MODELS), seconds=60)
        creates, commands = scripted_batch(12, seed=17, player_ids=True)
        client.submit_many(creates)
        worker.run_until_idle()
        client.submit_many(commands)
        worker.run_until_idle()
        games = [c.game_id for c in creates]

        def stalled() -> bool:
            before = dump_model(r, layout, "feed")
            time.sleep(0.3)
            return _pending(r, layout, "feed") > 0 and dump_model(r, layout, "feed") == before != {}

        wait_for(stalled, seconds=60)
        # When it is killed with SIGKILL in the middle of the stream
        first.kill9()
    finally:
        first.stop()
    assert not caught_up(r, layout, games, ["feed"]), "the kill must land in the middle of the stream"
    assert _pending(r, layout, "feed") > 0, "the worker must die holding read, unacked entries"

    # and more games are played while it is down, then it is started again
    more, more_commands = scripted_batch(4, seed=18, player_ids=True)
    client.submit_many(more)
    worker.run_until_idle()
    client.submit_many(more_commands)
    worker.run_until_idle()
    games += [c.game_id for c in more]
    second = spawn_projections(url, layout)
    try:
        wait_for(lambda: caught_up(r, layout, games) and sum(_pending(r, layout, m) for m in MODELS) == 0, 60)
    finally:
        second.stop()

    # Then every model equals its rebuild from zero: nothing lost, nothing applied twice
    live = {m: dump_model(r, layout, m) for m in MODELS}
    keys = RMKeys(layout)
    assert len(r.smembers(keys.leaderboard("toy21", "counted"))) == len(games)
    assert sum(int(v) for v in r.hgetall(keys.leaderboard("toy21", "games")).values()) == 2 * len(games)
    rebuild(r, layout)
    for model in MODELS:
        assert dump_model(r, layout, model) == live[model], model
    for key in r.scan_iter(match=f"{layout.prefix}:*"):
        r.unlink(key)


@pytest.mark.redis
def test_run_spreads_the_models_over_processes_and_stops_them_all(redis_url: str) -> None:
    # Given games in the store and `python -m projections run` with its default of one process per model
    r = redis.Redis.from_url(redis_url)
    layout = Layout(prefix=f"pp{uuid.uuid4().hex[:6]}", shards=4)
    client = ServiceClient(redis.Redis.from_url(redis_url), layout)
    worker = RulesWorker(redis.Redis.from_url(redis_url), range(4), layout=layout, config=STEADY)
    creates, commands = scripted_batch(5, seed=23)
    client.submit_many([*creates, *commands])
    worker.run_until_idle()
    proc = spawn_projections(redis_url, layout, "--processes", "0")
    try:
        # Then every model catches up (each in a child process of its own)
        wait_for(lambda: caught_up(r, layout, [c.game_id for c in creates]), seconds=60)
        children = [int(p) for p in Path(f"/proc/{proc.proc.pid}/task/{proc.proc.pid}/children").read_text().split()]
        assert len(children) == len(MODELS)
    finally:
        # and SIGTERM stops the parent and its children, cleanly
        proc.proc.terminate()
        assert proc.proc.wait(30) == 0
    for pid in children:
        wait_for(lambda pid=pid: not os.path.exists(f"/proc/{pid}") or "zombie" in _state(pid), seconds=60)
    for key in r.scan_iter(match=f"{layout.prefix}:*"):
        r.unlink(key)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"

"""Every ended game is counted into its leaderboard exactly once: a kill -9 between the checkpoint and the count,
or between the count and its clean-up, and a count that fails, neither lose nor double a result."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Sequence

import pytest
import redis

from projections.models import ScoreboardModel
from projections.rebuild import rebuild
from projections.runner import ProjectionWorker
from projections.store import ProjectionScripts, RMKeys
from projections.tally import LeaderboardTally, Owed
from services.bus.keys import Layout
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker
from tests.projections.helpers import FAST_PROJECTION, STEADY, caught_up, dump_model, spawn_projections
from tests.projections.stalling_tally import WINDOWS
from tests.service.conftest import ROOT, Backend, WorkerProcess
from tests.service.helpers import scripted_batch, wait_for

GAMES = 10


def _play(client: ServiceClient, worker: RulesWorker, seed: int) -> list[str]:
    """Ten toy21 games with player ids, played to their end."""
    creates, commands = scripted_batch(GAMES, seed=seed, player_ids=True)
    client.submit_many(creates)
    worker.run_until_idle()
    client.submit_many(commands)
    worker.run_until_idle()
    return [c.game_id for c in creates]


def _owed(r: redis.Redis, layout: Layout) -> dict[str, bytes]:
    keys = RMKeys(layout)
    return {gid.decode(): v for s in range(layout.shards) for gid, v in r.hgetall(keys.owed(s)).items()}


def _assert_counted_once(r: redis.Redis, layout: Layout, games: Sequence[str]) -> None:
    """Each game in the counted set, two seats per game in the totals, and the leaderboard its own rebuild."""
    keys = RMKeys(layout)
    assert sorted(m.decode() for m in r.smembers(keys.leaderboard("toy21", "counted"))) == sorted(games)
    assert sum(int(v) for v in r.hgetall(keys.leaderboard("toy21", "games")).values()) == 2 * len(games)
    assert _owed(r, layout) == {}
    live = dump_model(r, layout, "scoreboard")
    rebuild(r, layout, ["scoreboard"])
    assert dump_model(r, layout, "scoreboard") == live


def _spawn_stalling(url: str, layout: Layout, window: str, marker: str) -> WorkerProcess:
    cmd = [sys.executable, "-m", "tests.projections.stalling_tally", url, layout.prefix, str(layout.shards), window,
           marker]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    return WorkerProcess(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))


@pytest.mark.redis
@pytest.mark.parametrize("window", WINDOWS)
def test_kill_9_between_the_checkpoint_and_the_count_counts_each_game_once(redis_url: str, window: str) -> None:
    # Given ten ended games with player ids in a real Redis
    r = redis.Redis.from_url(redis_url)
    layout = Layout(prefix=f"tk{uuid.uuid4().hex[:6]}", shards=4)
    keys = RMKeys(layout)
    worker = RulesWorker(redis.Redis.from_url(redis_url), range(4), layout=layout, config=STEADY)
    games = _play(ServiceClient(redis.Redis.from_url(redis_url), layout), worker, seed=31)
    marker = f"{layout.prefix}-test-marker"

    # When the scoreboard projection is killed with SIGKILL inside a payment of what the checkpoints owe
    doomed = _spawn_stalling(redis_url, layout, window, marker)
    try:
        wait_for(lambda: r.exists(marker), seconds=120)
        doomed.kill9()
    finally:
        doomed.stop()
    stuck = r.get(marker).decode().split(",")
    counted = {m.decode() for m in r.smembers(keys.leaderboard("toy21", "counted"))}
    # (the dangerous point: those games' checkpoints are at their end and their counts still owed)
    assert stuck and set(stuck) <= set(_owed(r, layout))
    assert caught_up(r, layout, stuck, ["scoreboard"])
    if window == "owed":
        assert not counted & set(stuck), "killed before counting: not counted yet"
    else:
        assert set(stuck) <= counted, "killed after counting: counted, not yet forgotten"
    assert counted - set(stuck), "the kill lands in a burst: games before them were counted and forgotten"

    # and the projections are started again
    second = spawn_projections(redis_url, layout)
    try:
        wait_for(lambda: caught_up(r, layout, games, ["scoreboard"]) and not _owed(r, layout), seconds=120)
    finally:
        second.stop()

    # Then every game is counted exactly once, and the leaderboard equals a rebuild from the events
    _assert_counted_once(r, layout, games)
    for key in r.scan_iter(match=layout.everything()):
        r.unlink(key)
    r.delete(marker)


class _FailsOnce(LeaderboardTally):
    """A tally whose first count meets Redis going away."""

    failed = 0

    def count(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, owed: Sequence[Owed]) -> int:
        if not self.failed:
            self.failed = len(owed)
            raise redis.ConnectionError("Redis went away")
        return super().count(r, keys, scripts, owed)


def test_a_count_that_fails_stays_owed_and_is_counted_at_the_next_settling(backend: Backend) -> None:
    # Given ended games and a scoreboard worker whose first count fails
    r = backend.make()
    worker = RulesWorker(backend.make(), range(backend.layout.shards), layout=backend.layout, config=STEADY)
    games = _play(backend.client(), worker, seed=37)
    tally = _FailsOnce()
    projection = ProjectionWorker(
        backend.make(), ScoreboardModel(tally=tally), layout=backend.layout, config=FAST_PROJECTION
    )

    # When it catches up every game (a model new on a shard backfills it from the store)
    projection.ensure_groups()

    # Then the failed games are applied and still owed (not lost with the failure) ...
    assert tally.failed > 0 and len(_owed(r, backend.layout)) == tally.failed
    assert caught_up(r, backend.layout, games, ["scoreboard"])

    # ... and the next settling (at start, then every recovery period) counts them, each once
    projection.run_until_idle()
    _assert_counted_once(r, backend.layout, games)

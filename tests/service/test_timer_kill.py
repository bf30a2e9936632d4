"""The timer process killed with SIGKILL while it holds claimed deadlines loses no timeout, and two timer processes
racing for the rest apply none twice.

On a redis-server of its own. The rules worker runs in the test with its clock set two hours back while the games
are created, so their deadlines already lie in the real past when the timer processes start (no waiting for real
minutes); then the worker's clock is the wall clock again, as the timer processes' are. A bounded run: every wait
gives up after a fixed time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.bus.keys import Layout
from services.client import ServiceClient
from services.store.repository import GameRepository
from services.timer.timer import wall_ms
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST, ROOT, RedisServer, redis_server
from tests.service.helpers import wait_for

pytestmark = pytest.mark.redis

GAMES = 40
HELD_BY_THE_KILLED_MS = 8_000
"""How long the killed timer's claims are held: the successors take over when they lapse."""
LIMIT_S = 600  # the next decision's deadline stays far ahead of the test's end: one timeout per game


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as srv:
        yield srv


def spawn_timer(url: str, layout: Layout, hold_ms: int = 1500) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable, "-m", "services.timer", "--redis-url", url, "--shards", "all",
        "--shard-count", str(layout.shards), "--prefix", layout.prefix, "--hold-ms", str(hold_ms), "--poll-ms", "20",
        "--batch", "50", "--log-level", "warning",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


def test_given_a_timer_killed_while_holding_claims_when_another_takes_over_then_each_timeout_applies_once(
    server: RedisServer,
) -> None:
    layout = Layout(prefix=f"k{uuid.uuid4().hex[:8]}", shards=4)
    offset = [-2 * 3600 * 1000]
    worker = RulesWorker(
        server.client(), range(layout.shards), layout=layout, config=FAST, clock=lambda: wall_ms() + offset[0]
    )
    worker.refresh_leases()
    client = ServiceClient(server.client(), layout)
    # Given clocked games whose first deadline passed long ago
    settings = {"clock": {"mode": "per_decision", "per_decision_s": LIMIT_S}}
    games = [client.create_game("barracks", ["Ann", "Bob"], settings, seed=s, timeout=None) for s in range(GAMES)]
    worker.run_until_idle()
    offset[0] = 0
    r = server.client()

    def submitted() -> int:
        return sum(r.xlen(layout.cmds(s)) for s in range(layout.shards))

    def held() -> int:
        now = wall_ms()
        return sum(r.zcount(layout.clocks(s), now, "+inf") for s in range(layout.shards))

    # When a timer process starts, claims the due games and is killed -9 as soon as it submits its first timeout
    # (its claims are held long enough that a busy host's pauses before the kill do not let them lapse)
    first = spawn_timer(server.url, layout, hold_ms=HELD_BY_THE_KILLED_MS)
    try:
        wait_for(lambda: submitted() > 0, seconds=60, every=0.001)
    finally:
        first.kill()
        first.wait(10)
    at_kill = submitted()
    claimed_at_kill = held()
    assert at_kill > 0 and claimed_at_kill >= at_kill
    # And two timer processes take over at once while the rules worker decides what arrives
    successors = [spawn_timer(server.url, layout), spawn_timer(server.url, layout)]
    repo = GameRepository(server.client(), layout)

    def all_timed_out() -> bool:
        worker.run_until_idle()
        return all(
            any(e.data["type"] == "SeatTimedOut" for e in repo.events(g.game_id)) for g in games
        )  # fmt: skip

    try:
        wait_for(all_timed_out, seconds=60, every=0.05)
        time.sleep(0.3)  # room for a (wrong) second timeout to arrive
        worker.run_until_idle()
    finally:
        for proc in successors:
            proc.terminate()
            proc.wait(10)
    # Then every game recorded exactly one timeout: none lost with the killed process, none applied twice by the
    # two that raced for the rest
    for g in games:
        assert [e.data["type"] for e in repo.events(g.game_id)].count("SeatTimedOut") == 1

"""The webhooks process killed with SIGKILL and started again loses no notice (at least once)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

import pytest

from tests.gateway.conftest import Served
from tests.service.conftest import ROOT
from tests.service.helpers import wait_for
from tests.webhooks.receiver import Received, receiver
from tests.webhooks.test_webhooks import hooked_game, play

pytestmark = pytest.mark.redis


def spawn(served: Served, url: str, consumer: str, claim_idle_ms: int) -> subprocess.Popen[bytes]:
    """``python -m services.webhooks`` as a process of its own, on the gateway's layout (fast retries)."""
    cmd = [
        sys.executable, "-m", "services.webhooks", "--redis-url", url, "--prefix", served.layout.prefix,
        "--shard-count", str(served.layout.shards), "--plugin", "tests.service.toy_game", "--allow-private",
        "--consumer", consumer, "--retry-first", "0.05", "--retry-cap", "0.2", "--max-attempts", "10000",
        "--claim-idle-ms", str(claim_idle_ms), "--sweep-every-ms", "200", "--log-level", "error",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


@pytest.mark.parametrize("restart_as", ["same-consumer", "another-consumer"])
def test_given_notices_in_flight_when_the_webhooks_process_is_killed_and_restarted_then_every_notice_arrives(
    gateway: Served, redis_url: str, restart_as: str
) -> None:
    procs: list[subprocess.Popen[bytes]] = []
    try:
        with receiver() as rx:
            # Given a receiver that refuses everything for now (503), and a game with a webhook per seat
            refusing = [True]

            def answer(got: Received) -> int:
                return 503 if refusing[0] else 200

            rx.answer = answer
            game: dict[str, Any] = hooked_game(gateway, rx, seed=3)
            gid = game["game_id"]
            procs.append(spawn(gateway, redis_url, "crash-a", claim_idle_ms=600_000))
            # And two moves whose notices the process is busy retrying
            v1, v2 = play(gateway, game, 0), play(gateway, game, 1)
            first = {f"{gid}:1:turn:{v1}", f"{gid}:0:turn:{v2}"}
            wait_for(lambda: {r.notice_id for r in rx.requests} >= first, 60)
            # When the process is killed outright
            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait(10)
            # And the game goes on while it is down
            v3, v4 = play(gateway, game, 0), play(gateway, game, 1)
            # And it is started again (under the same name, or as another process that takes over)
            refusing[0] = False
            consumer = "crash-a" if restart_as == "same-consumer" else "crash-b"
            procs.append(spawn(gateway, redis_url, consumer, claim_idle_ms=300))
            # Then every notice arrives, those in flight at the kill and those of the moves made meanwhile
            expected = first | {f"{gid}:1:turn:{v3}", f"{gid}:0:turn:{v4}"}
            wait_for(lambda: set(rx.unique) >= expected, 60)
            assert set(rx.unique) == expected
            assert rx.bad_signatures == 0
            # And nothing is left in the outbox
            shard = gateway.layout.shard_of(gid)
            wait_for(lambda: gateway.redis.xlen(gateway.layout.webhooks(shard)) == 0, 60)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)

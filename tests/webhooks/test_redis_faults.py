"""A Redis that refuses writes for a while (out of memory) delays notices; it neither loses them nor stops the
webhooks process, and a notice delivered while Redis refused its settling is not sent twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gateway.conftest import serve
from tests.service.conftest import redis_server
from tests.service.helpers import wait_for
from tests.webhooks.conftest import LOOPBACK_OK, start_hooks
from tests.webhooks.receiver import Received, receiver
from tests.webhooks.test_webhooks import hooked_game, play

pytestmark = pytest.mark.redis


def test_given_redis_refusing_writes_when_notices_are_due_then_they_wait_and_arrive_once_redis_is_back(
    tmp_path: Path,
) -> None:
    with redis_server(tmp_path, "--maxmemory-policy", "noeviction") as server, receiver() as rx:
        served = serve(server.url, limits=LOOPBACK_OK)
        admin = server.client()
        hooks = None
        try:
            # Given a hooked game whose first move was committed while the webhooks process was not running
            game = hooked_game(served, rx)
            gid = game["game_id"]
            v1 = play(served, game, 0)
            # And a Redis that refuses writes (maxmemory reached) when the process starts
            admin.config_set("maxmemory", 1)
            hooks = start_hooks(served, server.url)
            # Then both halves meet the refusal and wait it out, and nothing is delivered meanwhile
            wait_for(lambda: hooks.follower.loop.outage.episodes >= 1, 60)
            assert rx.requests == []
            # When Redis takes writes again, the notice arrives
            admin.config_set("maxmemory", 0)
            wait_for(lambda: f"{gid}:1:turn:{v1}" in rx.unique, 60)

            # Given a receiver that, as it accepts the next notice, makes Redis refuse writes again
            def answer(got: Received) -> int:
                admin.config_set("maxmemory", 1)
                return 200

            rx.answer = answer
            admin.config_set("maxmemory", 0)
            faults = hooks.deliverer.stats["redis_faults"]
            v2 = play(served, game, 1)
            # Then the deliverer cannot settle it (the ack is a write) and waits the refusal out
            wait_for(lambda: hooks.deliverer.stats["redis_faults"] > faults, 60)
            # When Redis is back, the notice is settled: delivered once, counted, the outbox empty
            admin.config_set("maxmemory", 0)
            shard = served.layout.shard_of(gid)
            wait_for(lambda: served.redis.xlen(served.layout.webhooks(shard)) == 0, 60)
            assert [r.notice_id for r in rx.requests] == [f"{gid}:1:turn:{v1}", f"{gid}:0:turn:{v2}"]
            assert rx.bad_signatures == 0
        finally:
            admin.config_set("maxmemory", 0)
            if hooks is not None:
                hooks.stop.set()
                for thread in hooks.threads:
                    thread.join(10)
            served.close()

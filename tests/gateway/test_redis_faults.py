"""A Redis that refuses writes (out of memory) or does not answer (frozen) is a typed 503 with Retry-After on
every route, never a 500 or a hung request; once Redis is back, the same requests go through."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.gateway.conftest import error_of, new_game, serve
from tests.service.conftest import redis_server
from tests.waiting import wait_until

pytestmark = pytest.mark.redis

ADD = {"command": {"type": "Add", "amount": 1}}


def _unavailable(response: httpx.Response) -> None:
    error_of(response, 503, "redis_unavailable")
    assert int(response.headers["retry-after"]) > 0


def test_given_redis_out_of_memory_or_frozen_then_requests_get_503_with_retry_after(tmp_path: Path) -> None:
    with redis_server(tmp_path, "--maxmemory-policy", "noeviction") as server:
        # Given a gateway whose Redis clients give up on an answer after 1 s, and a toy game
        served = serve(f"{server.url}?socket_timeout=1")
        try:
            created = new_game(served, game="toy21", players=("Ann", "Bob"), seed=1)
            gid, token = created["game_id"], created["seats"][0]["token"]
            admin = server.client()
            with served.http(token) as http:
                # When Redis refuses writes (maxmemory reached)
                admin.config_set("maxmemory", 1)
                try:
                    # Then a command and a game creation are 503 redis_unavailable with Retry-After
                    _unavailable(http.post(f"/games/{gid}/commands", json=ADD))
                    _unavailable(http.post("/games", json={"game": "toy21", "players": ["A", "B"]}))
                    # while reads are still served
                    assert http.get(f"/games/{gid}").status_code == 200
                finally:
                    admin.config_set("maxmemory", 0)
                # and once Redis takes writes again, the command goes through
                first = http.post(f"/games/{gid}/commands", json={**ADD, "command_id": "after-oom"})
                assert first.status_code == 200, first.text

                # When Redis stops answering at all (the process frozen)
                os.kill(server.proc.pid, signal.SIGSTOP)
                try:
                    # Then reads, commands and outcome lookups are 503 too, after about the socket timeout (not
                    # a hang: the test's HTTP client would give up first)
                    _unavailable(http.get(f"/games/{gid}"))
                    _unavailable(http.get(f"/games/{gid}/seats/0/view"))
                    _unavailable(http.post(f"/games/{gid}/commands", json=ADD))
                    _unavailable(http.get(f"/games/{gid}/commands/after-oom"))
                finally:
                    os.kill(server.proc.pid, signal.SIGCONT)
            # and once it answers again, the game is served as before
            with served.http() as http:
                summary = wait_until(
                    lambda: (got := http.get(f"/games/{gid}")).status_code == 200 and got, every=0.1, what="a 200"
                )
                assert summary.json()["version"] == first.json()["version"]
        finally:
            served.close()

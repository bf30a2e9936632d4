"""``python -m services.gateway`` as its own process: next to a worker process on redis-server, and alone on the
embedded fakeredis (where it runs a rules worker itself)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import httpx
import orjson
import pytest
from websockets.sync.client import connect

from services.bus.keys import Layout
from tests.gateway.conftest import spawn_gateway
from tests.service.conftest import ROOT, redis_url, spawn_worker  # noqa: F401 - fixture
from tests.waiting import patient


@pytest.fixture(params=["redis", "embedded"])
def gateway_process(request: pytest.FixtureRequest) -> Iterator[str]:
    """A gateway process (and, on redis-server, a worker process); yields ``host:port``."""
    worker = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        layout = Layout(prefix=f"p{uuid.uuid4().hex[:8]}", shards=4)
        worker = spawn_worker(url, layout)
        proc, base = spawn_gateway("--redis-url", url, "--prefix", layout.prefix, "--shard-count", "4")
    else:
        proc, base = spawn_gateway()
    try:
        yield base
    finally:
        proc.terminate()
        code = proc.wait(15)
        if worker is not None:
            worker.stop()
    assert code == 0


def test_a_gateway_process_serves_a_game_and_its_feed(gateway_process: str) -> None:
    base = gateway_process
    with httpx.Client(base_url=f"http://{base}", timeout=10) as http:
        # Given a game created through the gateway process
        r = http.post("/games", json={"game": "toy21", "players": ["A", "B"], "seed": 3})
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["game_id"], [s["token"] for s in r.json()["seats"]]
        # When seat 1 follows its feed while both seats add 3 until the game ends
        with connect(f"ws://{base}/games/{gid}/seats/1/feed?after=0&token={tokens[1]}", open_timeout=10) as ws:
            seat = 0
            while True:
                summary = http.get(f"/games/{gid}").json()
                if summary["over"]:
                    break
                seat = summary["awaiting"][0]
                sent = http.post(f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 3}},
                                 headers={"Authorization": f"Bearer {tokens[seat]}"})  # fmt: skip
                assert sent.status_code == 200, sent.text
            messages = []
            while not messages or messages[-1]["kind"] != "over":
                messages.append(orjson.loads(ws.recv(timeout=patient(60))))
    # Then the feed carried every event live, seat 1's turns, and the end
    assert [m["version"] for m in messages if m["kind"] == "event"] == list(range(1, summary["version"] + 1))
    assert {m["kind"] for m in messages[:-1]} == {"event", "turn"}
    assert messages[-1]["result"] == summary["result"]
    assert summary["result"]["winner"] == seat and summary["result"]["winners"] == [seat]
    assert summary["result"]["total"] == 21


def test_given_the_embedded_default_when_a_game_has_bot_seats_then_the_bots_play_and_the_scoreboard_follows() -> None:
    """Alone on the embedded fakeredis the gateway process also runs the bots and the projection workers, since
    no other process can reach its data: a game of four bot seats plays to the end, and its scoreboard says so."""
    proc, base = spawn_gateway()
    try:
        with httpx.Client(base_url=f"http://{base}", timeout=10) as http:
            # Given a shadow game whose four seats are all bots
            bots = {"0": "random", "1": "random", "2": "heuristic", "3": "random"}
            r = http.post("/games", json={"game": "shadow", "players": ["A", "B", "C", "D"], "seed": 4, "bots": bots})
            assert r.status_code == 201, r.text
            gid = r.json()["game_id"]
            # When nobody else sends anything
            deadline = time.monotonic() + patient(300)
            while not http.get(f"/games/{gid}").json()["over"]:
                assert time.monotonic() < deadline, "the bots did not finish the game"
                time.sleep(0.2)
            # Then the game ended and the scoreboard read model shows its winners
            deadline = time.monotonic() + patient(60)
            while (board := http.get(f"/games/{gid}/scoreboard")).json().get("winners") is None:
                assert time.monotonic() < deadline, board.text
                time.sleep(0.1)
            assert board.json()["winners"] == http.get(f"/games/{gid}").json()["result"]["winners"]
    finally:
        proc.terminate()
        assert proc.wait(15) == 0


def test_a_gateway_process_says_where_it_listens_and_which_origins_it_allows(redis_url: str) -> None:  # noqa: F811
    # Given a gateway process asked for any free port (0), with one CORS origin
    layout = Layout(prefix=f"p{uuid.uuid4().hex[:8]}", shards=4)
    cmd = [sys.executable, "-m", "services.gateway", "--port", "0", "--redis-url", redis_url, "--prefix", layout.prefix,
           "--shard-count", "4", "--log-level", "info", "--cors-origin", "https://play.example"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # When it has started, then its first line on stdout says where it listens, with the real port
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.fullmatch(r"throne gateway listening on (http://127\.0\.0\.1:(\d+)) \(API docs: \1/docs\)\n", line)
        assert match, line
        url = match.group(1)
        assert int(match.group(2)) > 0
        # and that URL answers
        assert httpx.get(f"{url}/health", timeout=patient(30)).status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    # and its log has the same, as structured lines (and the origins it allows)
    logged = [orjson.loads(x) for x in err.splitlines() if x.startswith("{")]
    listening = [x for x in logged if x.get("event") == "gateway.listening"]
    started = [x for x in logged if x.get("event") == "gateway.start"]
    assert listening and listening[0]["url"] == url and listening[0]["docs"] == f"{url}/docs"
    assert started and started[0]["cors_origins"] == ["https://play.example"]
    assert proc.returncode == 0


def test_a_mistyped_cors_origin_stops_the_gateway_at_start() -> None:
    # Given an origin with a path (browsers never send one); when the gateway starts with it, then it refuses
    cmd = [sys.executable, "-m", "services.gateway", "--port", "0", "--cors-origin", "https://play.example/app"]
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert done.returncode == 2 and "not a CORS origin" in done.stderr

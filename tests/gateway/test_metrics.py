"""Prometheus metrics of the real processes: a rules worker, two projection processes and a gateway, each
``python -m ...`` on a redis-server the suite started, each serving ``/metrics`` on a port of its own.

A scrape before and after a game played through the gateway shows the counters move: commands accepted (the
creation and every move), one refused by its rejection code, the batches' decide and commit histograms, the
projection lag histogram of each read model; the scrape-time gauges say where each consumer group stands, how
many dead letters are stored, the leases held and the feeds open.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from services.bus.keys import Layout
from tests.gateway.conftest import spawn_gateway
from tests.service.conftest import ROOT, free_port, redis_url, spawn_worker  # noqa: F401 - fixture
from tests.waiting import patient

SHARDS = 4
Samples = list[tuple[str, dict[str, str], float]]


@dataclass
class Deployment:
    """The processes under test and their metrics ports."""

    base: str
    layout: Layout
    worker_port: int
    projection_ports: list[int]
    gateway_port: int


def scrape(port: int) -> Samples:
    """Every sample of ``http://127.0.0.1:port/metrics``."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return [(s.name, dict(s.labels), s.value) for f in text_string_to_metric_families(text) for s in f.samples]


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``."""
    return sum(v for n, lab, v in samples if n == name and all(lab.get(k) == w for k, w in labels.items()))


def has(samples: Samples, name: str, **labels: str) -> bool:
    """Whether some sample called ``name`` has ``labels``."""
    return any(n == name and all(lab.get(k) == w for k, w in labels.items()) for n, lab, _ in samples)


def wait_until(port: int, ready: Callable[[Samples], bool] = lambda s: True, seconds: float = 180.0) -> Samples:
    """Scrape until ``ready(samples)`` holds (a process still starting does not answer yet); returns that scrape."""
    deadline = time.monotonic() + patient(seconds)  # a bound on a hang, not a speed (the suite runs in parallel)
    while True:
        try:
            samples = scrape(port)
        except httpx.TransportError:
            samples = None
        if samples is not None and ready(samples):
            return samples
        assert time.monotonic() < deadline, f"the metrics of port {port} did not reach the expected values"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def deployment(redis_url: str) -> Iterator[Deployment]:  # noqa: F811 - the imported fixture
    layout = Layout(prefix=f"m{uuid.uuid4().hex[:8]}", shards=SHARDS)
    worker_port, projection_base, gateway_port = free_port(), free_port(), free_port()
    # (the projections' second process takes the port after the first's)
    while projection_base + 1 in (worker_port, gateway_port):
        projection_base = free_port()
    common = ["--redis-url", redis_url, "--shard-count", str(SHARDS), "--prefix", layout.prefix]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(spawn_worker(redis_url, layout, "--metrics-port", str(worker_port)).proc)
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "projections", *common, "--plugin", "tests.service.toy_game", "--log-level",
             "warning", "--metrics-port", str(projection_base), "run", "--models", "scoreboard,replay",
             "--processes", "2", "--block-ms", "20"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        ))  # fmt: skip
        gateway, base = spawn_gateway(*common, "--metrics-port", str(gateway_port))
        procs.append(gateway)
        yield Deployment(base, layout, worker_port, [projection_base, projection_base + 1], gateway_port)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


def play_a_game(base: str) -> tuple[str, int, str]:
    """A toy21 game through the gateway, to the end, with one command sent out of turn; returns the game id, the
    moves accepted and the refusal's code. A spectator feed stays open until the game ends."""
    with httpx.Client(base_url=f"http://{base}", timeout=10) as http:
        r = http.post("/games", json={"game": "toy21", "players": ["A", "B"], "seed": 5})
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["game_id"], [s["token"] for s in r.json()["seats"]]
        moves, refused = 0, ""
        while not (summary := http.get(f"/games/{gid}").json())["over"]:
            seat = summary["awaiting"][0]
            if not refused:
                other = 1 - seat
                wrong = http.post(f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 1}},
                                  headers={"Authorization": f"Bearer {tokens[other]}"})  # fmt: skip
                assert wrong.status_code == 409, wrong.text
                refused = wrong.json()["error"]["code"]
            sent = http.post(f"/games/{gid}/commands", json={"command": {"type": "Add", "amount": 3}},
                             headers={"Authorization": f"Bearer {tokens[seat]}"})  # fmt: skip
            assert sent.status_code == 200, sent.text
            moves += 1
    return gid, moves, refused


def test_a_scrape_before_and_after_a_game_shows_the_counters_move(deployment: Deployment) -> None:
    d = deployment
    # Given every process serving its metrics, and the worker holding every shard
    worker_before = wait_until(d.worker_port, lambda s: total(s, "throne_worker_leases_held") == SHARDS)
    projections_before = [
        wait_until(port, lambda s, m=model: sum(has(s, "throne_stream_group_lag", group=f"proj:{m}", shard=str(i))
                                                for i in range(SHARDS)) == SHARDS)
        for port, model in zip(d.projection_ports, ("scoreboard", "replay"), strict=True)
    ]  # fmt: skip
    gateway_before = wait_until(d.gateway_port)
    assert total(gateway_before, "throne_gateway_open_feeds", kind="websocket") == 0

    # When a game is played through the gateway, a spectator's feed open meanwhile, one command sent out of turn
    with httpx.Client(base_url=f"http://{d.base}", timeout=10) as http:
        created = http.post("/games", json={"game": "toy21", "players": ["A", "B"], "seed": 1})
        assert created.status_code == 201, created.text
        watched = created.json()["game_id"]
        with connect(f"ws://{d.base}/games/{watched}/feed?after=0", open_timeout=10) as ws:
            ws.recv(timeout=10)
            # (while the feed is open, the gateway counts it)
            wait_until(d.gateway_port, lambda s: total(s, "throne_gateway_open_feeds", kind="websocket") == 1)
    gid, moves, refused = play_a_game(d.base)
    assert refused == "not_your_turn"

    # Then the worker counted the two creations, every move and the refusal by its code
    def worker_done(s: Samples) -> bool:
        return (
            total(s, "throne_commands_accepted_total", game="toy21", op="append")
            - total(worker_before, "throne_commands_accepted_total", game="toy21", op="append")
            >= moves
        )

    after = wait_until(d.worker_port, worker_done)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(worker_before, name, **labels)

    assert moved("throne_commands_accepted_total", game="toy21", op="create") == 2
    assert moved("throne_commands_accepted_total", game="toy21", op="append") == moves
    assert moved("throne_commands_refused_total", code="not_your_turn") == 1
    # (each batch once: at least one batch, never more batches than commands)
    batches = moved("throne_worker_decide_seconds_count")
    assert 1 <= batches <= moves + 3
    assert moved("throne_worker_commit_seconds_count") >= 1
    assert moved("throne_worker_batch_commands_sum") >= moves + 3
    assert moved("throne_dead_letters_total") == 0
    # and, read at scrape time, its consumer group has nothing pending, no dead letter is stored
    shard = str(d.layout.shard_of(gid))
    assert has(after, "throne_stream_group_pending", stream="cmds", group="rules", shard=shard)
    assert total(after, "throne_stream_group_pending", stream="cmds", group="rules") == 0
    assert total(after, "throne_stream_group_lag", stream="cmds", group="rules") == 0
    assert has(after, "throne_dead_letters_stored", shard=shard)
    assert total(after, "throne_dead_letters_stored") == 0

    # and each projection process observed the lag of every event of both games in its own model
    for port, model, before in zip(d.projection_ports, ("scoreboard", "replay"), projections_before, strict=True):

        def projected(s: Samples, model: str = model, before: Samples = before) -> bool:
            name = "throne_projection_lag_seconds_count"
            return total(s, name, model=model) - total(before, name, model=model) >= moves + 2

        lagged = wait_until(port, projected)
        assert total(lagged, "throne_projection_stats_total", model=model, stat="events") >= moves + 2
        assert has(lagged, "throne_stream_group_lag", stream="feed", group=f"proj:{model}", shard=shard)
        other = "replay" if model == "scoreboard" else "scoreboard"
        assert not has(lagged, "throne_projection_lag_seconds_count", model=other)  # each process its own

    # and the gateway's feed closed again
    assert total(scrape(d.gateway_port), "throne_gateway_open_feeds", kind="websocket") == 0

"""Helpers of the projection tests: games played through the service, read models dumped for comparison."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import redis

from projections.models import ALL_MODELS
from projections.runner import ProjectionWorker, RunnerConfig
from projections.store import MODELS, RMKeys
from services.bench.scripts import record_games
from services.bus.envelope import CommandEnvelope, CreateEnvelope, seat_key
from services.bus.keys import Layout
from services.client import ServiceClient
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST, ROOT, Backend, WorkerProcess
from tests.service.helpers import scripted_batch, wait_for

FAST_PROJECTION = RunnerConfig(batch=7, block_ms=10, claim_idle_ms=300, recover_every_ms=200)
"""Small batches on purpose: a game's events are cut at many places, which a rebuild does differently."""


def shadow_envelopes(seeds: Iterable[tuple[int, int]], tag: str) -> tuple[list[CreateEnvelope], list[CommandEnvelope]]:
    """Creations and commands of seeded random Shadow games, ``(seed, players)`` each, commands interleaved.

    Seats have player ids (:func:`shadow_player_ids`), so the games meet on the leaderboard."""
    creates: list[CreateEnvelope] = []
    per_game: list[list[CommandEnvelope]] = []
    for seed, players in seeds:
        script = record_games("shadow", 1, seed=seed, players=players)[0]
        create, commands = script.envelopes(f"{tag}-s{seed}p{players}")
        create = CreateEnvelope(**{**create.model_dump(), "player_ids": shadow_player_ids(seed, players)})
        creates.append(create)
        per_game.append(commands)
    commands: list[CommandEnvelope] = []
    for i in range(max(len(g) for g in per_game)):
        commands.extend(g[i] for g in per_game if i < len(g))  # as concurrent players would send them
    return creates, commands


def shadow_player_ids(seed: int, players: int) -> list[str | None]:
    """Player ids of a Shadow game of :func:`shadow_envelopes`: four people ``sh-0..3`` seated from ``seed`` on;
    the last seat of a 4-player game has none (it is on no leaderboard)."""
    ids: list[str | None] = [f"sh-{(seed + seat) % 4}" for seat in range(players)]
    if players == 4:
        ids[-1] = None
    return ids


def play(
    backend: Backend, client: ServiceClient, shadow: Iterable[tuple[int, int]] = (), toy: int = 0, tag: str = "g"
) -> list[str]:
    """Submit Shadow and toy21 games (plus a few commands that are refused) and wait for all their outcomes."""
    creates: list[CreateEnvelope] = []
    commands: list[CommandEnvelope] = []
    shadow = list(shadow)
    if shadow:
        c, cmds = shadow_envelopes(shadow, tag)
        creates += c
        commands += cmds
    if toy:
        c, cmds = scripted_batch(toy, seed=zlib.crc32(tag.encode()) % 100_000, player_ids=True)
        creates += c
        commands += cmds
    client.submit_many(creates)
    for create in creates:
        assert client.wait_on(create, timeout=30).accepted
    # Some refused commands too: a wrong token and a stale version (the command log keeps them).
    refused = [
        CommandEnvelope.signed(seat_key("guess"), command_id=f"{creates[0].game_id}-bad-token",
                               game_id=creates[0].game_id, seat=0, payload={"type": "Pass"}),
    ]  # fmt: skip
    for start in range(0, len(commands), 500):
        client.submit_many(commands[start : start + 500])
    client.submit_many(refused)
    for env in [*commands, *refused]:
        client.wait_on(env, timeout=60)
    return [c.game_id for c in creates]


def start_projections(
    backend: Backend, models: Iterable[str] = MODELS, config: RunnerConfig = FAST_PROJECTION
) -> list[tuple[ProjectionWorker, threading.Event, threading.Thread]]:
    """Projection workers in threads (one per model), live, until :func:`stop_projections`."""
    running = []
    for name in models:
        worker = ProjectionWorker(backend.make(), ALL_MODELS[name](), layout=backend.layout, config=config)
        stop = threading.Event()
        thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
        thread.start()
        running.append((worker, stop, thread))
    return running


def stop_projections(running: list[tuple[ProjectionWorker, threading.Event, threading.Thread]]) -> None:
    """Stop the threads of :func:`start_projections`."""
    for _, stop, _ in running:
        stop.set()
    for _, _, thread in running:
        thread.join(10)


def caught_up(r: redis.Redis, layout: Layout, game_ids: Iterable[str], models: Iterable[str] = MODELS) -> bool:
    """Whether every model has applied every game up to its stored version."""
    keys = RMKeys(layout)
    for gid in game_ids:
        shard = layout.shard_of(gid)
        stored = r.hget(layout.meta(shard, gid), "version")
        for model in models:
            if r.hget(keys.applied(shard, model), gid) != stored:
                return False
    return True


def wait_caught_up(r: redis.Redis, layout: Layout, game_ids: list[str], seconds: float = 60.0) -> None:
    """Poll until :func:`caught_up`."""
    wait_for(lambda: caught_up(r, layout, game_ids), seconds=seconds, every=0.05)


def dump_model(r: redis.Redis, layout: Layout, model: str) -> dict[str, Any]:
    """Every key of a read model with its whole value (by type), for comparing two builds of it."""
    keys = RMKeys(layout)
    names = [k for s in range(layout.shards) for k in r.scan_iter(match=keys.model_pattern(s, model), count=1000)]
    if model == "scoreboard":
        names += list(r.scan_iter(match=keys.leaderboard_pattern(), count=1000))
    out: dict[str, Any] = {}
    for key in sorted(names):
        kind = r.type(key).decode()
        if kind == "string":
            out[key.decode()] = r.get(key)
        elif kind == "hash":
            out[key.decode()] = dict(sorted(r.hgetall(key).items()))
        elif kind == "stream":
            out[key.decode()] = r.xrange(key)
        elif kind == "set":
            out[key.decode()] = sorted(r.smembers(key))
        elif kind == "zset":
            out[key.decode()] = r.zrange(key, 0, -1, withscores=True)
        else:  # pragma: no cover - the models write nothing else
            raise AssertionError(f"unexpected {kind} at {key!r}")
    return out


STEADY = replace(FAST, lease_ttl_ms=10_000, claim_idle_ms=5_000)
"""Worker timings for tests that do not test recovery: a busy machine (the projection threads share the GIL
with the worker on fakeredis) must not make the rules worker lose its leases."""


def run_worker(backend: Backend) -> RulesWorker:
    """A rules worker over every shard, running in a thread for the test."""
    return backend.start(backend.worker(config=STEADY))


def spawn_projections(url: str, layout: Layout, *extra: str, env: dict[str, str] | None = None) -> WorkerProcess:
    """``python -m projections run`` (every model) in a subprocess over ``layout`` on ``url`` (toy21 known);
    one process with a thread per model unless ``extra`` says otherwise."""
    cmd = [
        sys.executable, "-m", "projections", "--redis-url", url, "--shard-count", str(layout.shards),
        "--prefix", layout.prefix, "--plugin", "tests.service.toy_game", "--log-level", "warning",
        "run", "--batch", "3", "--block-ms", "20", "--claim-idle-ms", "300", *(extra or ("--processes", "1")),
    ]  # fmt: skip
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("REDIS_URL", None)
    return WorkerProcess(subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL))

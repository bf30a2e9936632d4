"""Rebuild read models from zero: ``python -m projections rebuild [--model X]``.

For each model and shard: the model's consumer group is moved to the feed's end (what comes later is read
live), the model's keys are deleted, and every game in the event store (live, ended or archived) is applied
again from its first event. A projection worker running meanwhile is safe: the apply script refuses writes
computed from a checkpoint that moved, so each (game, version) is still applied exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import redis

from projections.models import ALL_MODELS
from projections.runner import ProjectionWorker, RunnerConfig
from projections.store import MODELS, RMKeys, group_of
from services.bus.keys import Layout
from services.log import get_logger
from services.store.repository import GameLookup, registry_game


def reset_group(client: redis.Redis, layout: Layout, model: str, shard: int) -> None:
    """Point the model's group on a shard's feed at its end (creating the group if needed)."""
    feed = layout.feed(shard)
    try:
        client.xgroup_create(feed, group_of(model), id="$", mkstream=True)
    except redis.ResponseError as err:
        if "BUSYGROUP" not in str(err):
            raise
        client.xgroup_setid(feed, group_of(model), id="$")


def clear_model(client: redis.Redis, layout: Layout, model: str, shards: Iterable[int]) -> int:
    """Delete every key of ``model`` (per-shard keys and its cross-game ones); returns keys deleted."""
    keys = RMKeys(layout)
    n = 0
    for shard in shards:
        batch = [k for k in client.scan_iter(match=keys.model_pattern(shard, model), count=1000)]
        for i in range(0, len(batch), 500):
            n += int(client.delete(*batch[i : i + 500]))
    ALL_MODELS[model]().clear_extra(client, keys)
    return n


def rebuild(
    client: redis.Redis,
    layout: Layout,
    models: Sequence[str] = MODELS,
    shards: Iterable[int] | None = None,
    *,
    config: RunnerConfig | None = None,
    games: GameLookup = registry_game,
) -> dict[str, int]:
    """Rebuild ``models`` from the event store; returns the number of games per model."""
    log = get_logger("projection.rebuild")
    chosen = sorted(set(range(layout.shards) if shards is None else shards))
    out: dict[str, int] = {}
    for name in models:
        if name not in ALL_MODELS:
            raise ValueError(f"unknown read model {name!r}; known: {', '.join(MODELS)}")
        for shard in chosen:
            reset_group(client, layout, name, shard)
        deleted = clear_model(client, layout, name, chosen)
        worker = ProjectionWorker(
            client, ALL_MODELS[name](), chosen, layout=layout, config=config, consumer="rebuild", games=games
        )
        count = sum(worker.backfill_shard(shard) for shard in chosen)
        out[name] = count
        log.info("rebuild.done", model=name, games=count, deleted_keys=deleted, events=worker.stats["events"])
    return out

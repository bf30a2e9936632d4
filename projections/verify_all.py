"""Verification of every stored game against today's rules (``throne verify --all``).

Games are streamed, never listed whole: one SCAN over the games' metadata keys (``<prefix>:{s<N>}:game:<id>:meta``,
a cluster client scans every node), in batches whose metadata, events and command logs are read in one pipelined
round trip per batch (archived games: their archive blobs in a second one). Events stay JSON bytes, compared as
bytes with what today's rules encode. Each game is re-run with :func:`projections.verify.verify_recorded`. The
shards can be split over several processes (``processes``), each with its own connection.

Each game gives one verdict (:func:`verdict`): ``ok``, or the first differing event (its version, the reason,
both sides) and the counts of differences and outcome changes; a game this process has no rules for, or one
without a command log, is an ``error``.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import redis

from projections.verify import RecordedEvent, verify_recorded
from services.bus.keys import Layout
from services.store.eventstore import (
    StoredCommand,
    StoredEvent,
    command_from_entry,
    read_archive,
    read_archive_commands,
    version_of,
)
from services.store.meta import GameMeta
from services.store.repository import GameLookup, registry_game

BATCH = 32
"""Games read per pipelined round trip."""


def game_ids(
    client: redis.Redis, layout: Layout, shards: Iterable[int] | None = None, count: int = 1000
) -> Iterator[str]:
    """The ids of the games (live, ended and archived) of ``shards`` (None: all), streamed by one SCAN over the
    games' metadata keys (a cluster client scans every node)."""
    chosen = None if shards is None else set(shards)
    for key in client.scan_iter(match=layout.game_keys("meta"), count=count):
        found = layout.game_of(key, "meta")
        if found is not None and (chosen is None or found[0] in chosen):
            yield found[1]


def _batches(ids: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for gid in ids:
        batch.append(gid)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def read_games(
    client: redis.Redis, layout: Layout, ids: Sequence[str]
) -> list[tuple[str, GameMeta | None, Sequence[StoredEvent | RecordedEvent], list[StoredCommand]]]:
    """Metadata, events and command log of games: one pipelined round trip (two when some are archived). A game
    whose metadata vanished meanwhile has None."""
    pipe = client.pipeline(transaction=False)
    for gid in ids:
        shard = layout.shard_of(gid)
        pipe.hgetall(layout.meta(shard, gid))
        pipe.xrange(layout.events(shard, gid))
        pipe.xrange(layout.commands(shard, gid))
    got = pipe.execute()
    out = []
    archived: list[int] = []
    for i, gid in enumerate(ids):
        raw, events, log = got[3 * i : 3 * i + 3]
        meta = GameMeta.parse(gid, raw) if raw else None
        if meta is not None and meta.archived:
            archived.append(i)
        recorded = [RecordedEvent(version_of(eid), f[b"e"], f.get(b"c", b"").decode()) for eid, f in events]
        out.append((gid, meta, recorded, [command_from_entry(e, f) for e, f in log]))
    if archived:
        pipe = client.pipeline(transaction=False)
        for i in archived:
            pipe.get(layout.archive(layout.shard_of(ids[i]), ids[i]))
        for i, blob in zip(archived, pipe.execute(), strict=True):
            gid, meta, _, _ = out[i]
            if blob is not None:
                out[i] = (gid, meta, read_archive(blob)[1], read_archive_commands(blob))
    return out


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """One game's line of ``verify --all``: ok, or where it first changes (``changed_at``) and how."""
    diffs = report["differences"]
    first = diffs[0] if diffs else None
    status = "error" if report["errors"] else ("ok" if report["ok"] else "changed")
    out: dict[str, Any] = {
        "game_id": report["game_id"],
        "name": report.get("name"),
        "status": status,
        "changed_at": first["version"] if first is not None else None,
        "differences": len(diffs),
        "outcome_changes": len(report["outcome_changes"]),
        "errors": report["errors"],
    }
    if first is not None:
        out["first_difference"] = {k: first[k] for k in ("version", "reason", "recorded", "recomputed", "command")}
    elif report["outcome_changes"]:
        out["first_outcome_change"] = report["outcome_changes"][0]
    return out


def verify_games(
    client: redis.Redis,
    layout: Layout,
    shards: Iterable[int] | None = None,
    games: GameLookup = registry_game,
    batch: int = BATCH,
) -> Iterator[dict[str, Any]]:
    """The verdict of every game of ``shards`` (None: all), streamed in the order the scan finds them."""
    for ids in _batches(game_ids(client, layout, shards), batch):
        for gid, meta, events, log in read_games(client, layout, ids):
            if meta is None:
                continue  # deleted between the scan and the read
            try:
                rules = games(meta.name).rules
            except (KeyError, ImportError, LookupError):
                yield {"game_id": gid, "name": meta.name, "status": "error", "changed_at": None, "differences": 0,
                       "outcome_changes": 0, "errors": [f"no rules for game name {meta.name!r}"]}  # fmt: skip
                continue
            yield verdict(verify_recorded(rules, meta, events, log))


def _shard_worker(args: tuple[Layout, list[int], int, str | None]) -> list[dict[str, Any]]:
    from services.bus.connection import connect

    layout, shards, batch, url = args
    client = redis.Redis.from_url(url) if url else connect()
    return list(verify_games(client, layout, shards, batch=batch))


def verify_all(
    client: redis.Redis | None,
    layout: Layout,
    shards: Iterable[int] | None = None,
    processes: int = 1,
    batch: int = BATCH,
    games: GameLookup = registry_game,
    url: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The verdict of every stored game of ``shards`` (default: all), streamed shard by shard.

    ``processes`` > 1 splits the shards over that many processes, each connecting to ``url`` (None:
    ``services.bus.connection.connect``, so ``REDIS_URL`` must name the Redis; an in-process fakeredis is not
    shared) and using the installed games: each process answers its shards' verdicts at once."""
    chosen = list(range(layout.shards) if shards is None else shards)
    if processes <= 1:
        assert client is not None
        yield from verify_games(client, layout, None if shards is None else chosen, games, batch)
        return
    groups = [chosen[i::processes] for i in range(processes)]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        for verdicts in pool.imap_unordered(_shard_worker, [(layout, g, batch, url) for g in groups if g]):
            yield from verdicts

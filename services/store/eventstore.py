"""Reads of the event store: game metadata, events, snapshots, and the archive of trimmed games.

Writes happen only in the commit script (services/store/commit.lua), run by the shard's rules worker.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.keys import Layout


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One recorded event: its version (1-based position), its JSON, the id of the command behind it."""

    version: int
    data: dict[str, Any]
    command_id: str


@dataclass(frozen=True, slots=True)
class RawGame:
    """What the worker needs to rebuild a state: metadata, the latest snapshot, the events after it."""

    meta: dict[str, str]
    snapshot_version: int
    snapshot: bytes | None
    tail: list[tuple[int, bytes]]


def _decode_meta(raw: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}


def event_id(version: int) -> str:
    """The stream entry id of the event at ``version`` (versions count from 1)."""
    return f"0-{version}"


def version_of(entry_id: bytes | str) -> int:
    """The version encoded in an event entry id ``0-<version>``."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[2])


def read_meta(client: redis.Redis, layout: Layout, game_id: str) -> dict[str, str] | None:
    """A game's metadata (name, players, status, version, ...), or None if there is no such game."""
    raw = client.hgetall(layout.meta(layout.shard_of(game_id), game_id))
    return _decode_meta(raw) if raw else None


def load_raw(client: redis.Redis, layout: Layout, shard: int, game_id: str) -> RawGame | None:
    """Metadata, snapshot and the tail of the event stream after it (None: no such game).

    Reading the tail from the snapshot's version on is the point of snapshots: a state reloads from a
    bounded number of events however long the game is.
    """
    return load_many(client, layout, [(shard, game_id)])[game_id]


def read_events(client: redis.Redis, layout: Layout, game_id: str, after: int = 0) -> list[StoredEvent]:
    """The game's events with version > ``after``, from the hot stream or, once trimmed, from its archive."""
    shard = layout.shard_of(game_id)
    entries = client.xrange(layout.events(shard, game_id), min=event_id(after + 1), max="+")
    if entries:
        return [StoredEvent(version_of(eid), orjson.loads(f[b"e"]), f.get(b"c", b"").decode()) for eid, f in entries]
    meta = client.hget(layout.meta(shard, game_id), "status")
    if meta != b"archived":
        return []
    blob = client.get(layout.archive(shard, game_id))
    if blob is None:
        return []
    _, events = read_archive(blob)
    return [e for e in events if e.version > after]


def make_archive(meta: dict[str, str], events: list[StoredEvent]) -> bytes:
    """The archive blob of a game: zlib-compressed JSON of its metadata and every event."""
    doc = {"meta": meta, "events": [[e.version, e.command_id, e.data] for e in events]}
    return zlib.compress(orjson.dumps(doc), 6)


def read_archive(blob: bytes) -> tuple[dict[str, str], list[StoredEvent]]:
    """Metadata and events of an archive blob."""
    doc = orjson.loads(zlib.decompress(blob))
    return doc["meta"], [StoredEvent(v, data, cid) for v, cid, data in doc["events"]]


def load_many(client: redis.Redis, layout: Layout, games: list[tuple[int, str]]) -> dict[str, RawGame | None]:
    """:func:`load_raw` for many games in two pipelined round trips (metadata+snapshots, then tails)."""
    if not games:
        return {}
    pipe = client.pipeline(transaction=False)
    for shard, gid in games:
        pipe.hgetall(layout.meta(shard, gid))
        pipe.hmget(layout.snap(shard, gid), "v", "d")
    heads = pipe.execute()
    found: list[tuple[int, str, dict[bytes, bytes], bytes | None, bytes | None]] = []
    out: dict[str, RawGame | None] = {}
    for i, (shard, gid) in enumerate(games):
        meta_raw, (snap_v, snap_d) = heads[2 * i], heads[2 * i + 1]
        if not meta_raw:
            out[gid] = None
        else:
            found.append((shard, gid, meta_raw, snap_v, snap_d))
    if found:
        pipe = client.pipeline(transaction=False)
        for shard, gid, _, snap_v, _ in found:
            start = int(snap_v) + 1 if snap_v is not None else 1
            pipe.xrange(layout.events(shard, gid), min=event_id(start), max="+")
        tails = pipe.execute()
        for (_, gid, meta_raw, snap_v, snap_d), entries in zip(found, tails, strict=True):
            out[gid] = RawGame(
                _decode_meta(meta_raw),
                int(snap_v) if snap_v is not None else 0,
                snap_d if snap_v is not None else None,
                [(version_of(eid), fields[b"e"]) for eid, fields in entries],
            )
    return out

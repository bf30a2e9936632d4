"""Reads of the event store: events, command logs, and the archive of trimmed games.

Loading a game (metadata, snapshot, fold) is the repository's (services/store/repository.py); writes happen only
in the commit script (services/store/commit.lua), through services/store/commit.py.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.keys import Layout


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One recorded event: its version (1-based position), its JSON, the id of the command behind it, and the
    ms of its commit (0 when unknown: recorded before commit times were kept)."""

    version: int
    data: dict[str, Any]
    command_id: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class StoredCommand:
    """One entry of a game's command log: a command the worker accepted or rejected, as it was committed.

    ``version`` is the game's version after it (accepted: its last event; rejected: the version it was judged
    at); ``kind`` is ``cmd`` or ``create``; ``payload`` the command JSON (a creation: name, players, settings,
    seed; never a token); ``received_ms`` when it entered the command stream, ``committed_ms`` when its outcome
    was written; ``outcome`` the outcome JSON (status, version range or rejection).
    """

    log_id: str
    version: int
    command_id: str
    kind: str
    seat: int | None
    payload: Any
    received_ms: int | None
    committed_ms: int
    outcome: dict[str, Any]

    @property
    def accepted(self) -> bool:
        """Whether the command was accepted (it caused events)."""
        return self.outcome.get("status") == "accepted"

    def to_record(self) -> list[Any]:
        """A compact JSON-ready form (the archive's)."""
        return [
            self.log_id, self.command_id, self.kind, self.seat, self.payload, self.received_ms,
            self.committed_ms, self.outcome,
        ]  # fmt: skip

    @classmethod
    def from_record(cls, rec: list[Any]) -> StoredCommand:
        """The inverse of :meth:`to_record`."""
        log_id, cid, kind, seat, payload, rcv, at, outcome = rec
        return cls(log_id, version_of_log_id(log_id), cid, kind, seat, payload, rcv, at, outcome)


def _decode_meta(raw: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}


def event_id(version: int) -> str:
    """The stream entry id of the event at ``version`` (versions count from 1)."""
    return f"0-{version}"


def version_of(entry_id: bytes | str) -> int:
    """The version encoded in an event entry id ``0-<version>``."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[2])


def version_of_log_id(log_id: bytes | str) -> int:
    """The version encoded in a command-log entry id ``<version>-<n>``."""
    text = log_id.decode() if isinstance(log_id, bytes) else log_id
    return int(text.partition("-")[0])


def _int_or_none(raw: bytes | None) -> int | None:
    return int(raw) if raw else None


def _json_or_text(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        # A rejected not_json payload is logged as sent: keep it readable, not lost.
        return raw.decode(errors="replace")


def command_from_entry(entry_id: bytes | str, fields: dict[bytes, bytes]) -> StoredCommand:
    """A command-log stream entry as a :class:`StoredCommand`."""
    log_id = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    seat = fields.get(b"seat", b"")
    return StoredCommand(
        log_id=log_id,
        version=version_of_log_id(log_id),
        command_id=fields.get(b"id", b"").decode(),
        kind=fields.get(b"k", b"cmd").decode(),
        seat=int(seat) if seat.lstrip(b"-").isdigit() else None,
        payload=_json_or_text(fields.get(b"p", b"null")),
        received_ms=_int_or_none(fields.get(b"rcv")),
        committed_ms=int(fields.get(b"at", b"0") or 0),
        outcome=orjson.loads(fields.get(b"o", b"{}")),
    )


def _event_from_entry(entry_id: bytes, fields: dict[bytes, bytes]) -> StoredEvent:
    return StoredEvent(
        version_of(entry_id), orjson.loads(fields[b"e"]), fields.get(b"c", b"").decode(), int(fields.get(b"t", 0))
    )


def read_meta(client: redis.Redis, layout: Layout, game_id: str) -> dict[str, str] | None:
    """A game's meta hash as it is stored (what an archive keeps), or None if there is no such game; to read a
    game, use the typed :class:`services.store.meta.GameMeta` through the repository."""
    raw = client.hgetall(layout.meta(layout.shard_of(game_id), game_id))
    return _decode_meta(raw) if raw else None


def read_events(
    client: redis.Redis, layout: Layout, game_id: str, after: int = 0, upto: int | None = None
) -> list[StoredEvent]:
    """The game's events with ``after < version <= upto`` (None: to the last), from the hot stream or, once
    trimmed, from its archive."""
    shard = layout.shard_of(game_id)
    if upto is not None and upto <= after:
        return []
    last = "+" if upto is None else event_id(upto)
    entries = client.xrange(layout.events(shard, game_id), min=event_id(after + 1), max=last)
    if entries:
        return [_event_from_entry(eid, f) for eid, f in entries]
    meta = client.hget(layout.meta(shard, game_id), "status")
    if meta != b"archived":
        return []
    blob = client.get(layout.archive(shard, game_id))
    if blob is None:
        return []
    _, events = read_archive(blob)
    return [e for e in events if e.version > after and (upto is None or e.version <= upto)]


@dataclass(frozen=True, slots=True)
class Announced:
    """One entry of a shard's feed: a commit added versions ``first`` .. ``last`` to ``game_id``."""

    game_id: str
    first: int
    last: int
    at: int
    command_id: str
    body: bytes | None = None
    """The event's JSON, in entries written before the feed carried no bodies (one event per entry)."""


def parse_feed_entry(fields: Mapping[bytes, bytes]) -> Announced | None:
    """A feed entry's announcement, or None for an entry that announces nothing readable."""
    try:
        game_id = fields[b"g"].decode()
        last = int(fields[b"v"])
        first = int(fields.get(b"f", fields[b"v"]))
        at = int(fields.get(b"t", b"0") or 0)
        command_id = fields.get(b"c", b"").decode()
    except (KeyError, ValueError, UnicodeDecodeError):
        return None
    if not game_id or first < 1 or last < first:
        return None
    return Announced(game_id, first, last, at, command_id, fields.get(b"e"))


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One announced event with its JSON as stored: game, version, event JSON, commit ms, command id."""

    game_id: str
    version: int
    raw: bytes
    at: int
    command_id: str


def read_announced(client: Any, layout: Layout, announced: Sequence[Announced]) -> dict[str, list[FeedItem]]:
    """The events that feed entries announce, per game in version order: every game's range read from its
    stream in one pipelined round trip (``client`` a sync Redis or cluster client). A game whose stream went to
    its archive meanwhile is read from the archive; a version no longer stored anywhere is left out (the reader
    sees the gap and reads the store itself)."""
    spans: dict[str, list[int]] = {}
    given: dict[str, dict[int, FeedItem]] = {}
    for a in announced:
        if a.body is not None and a.first == a.last:
            given.setdefault(a.game_id, {})[a.last] = FeedItem(a.game_id, a.last, a.body, a.at, a.command_id)
            continue
        span = spans.get(a.game_id)
        if span is None:
            spans[a.game_id] = [a.first, a.last]
        else:
            span[0], span[1] = min(span[0], a.first), max(span[1], a.last)
    out: dict[str, list[FeedItem]] = {gid: list(items.values()) for gid, items in given.items()}
    if spans:
        pipe = client.pipeline(transaction=False)
        order = list(spans)
        for gid in order:
            lo, hi = spans[gid]
            pipe.xrange(layout.events(layout.shard_of(gid), gid), min=event_id(lo), max=event_id(hi))
        for gid, entries in zip(order, pipe.execute(), strict=True):
            lo, hi = spans[gid]
            items = out.setdefault(gid, [])
            if len(entries) == hi - lo + 1:
                for eid, f in entries:
                    items.append(
                        FeedItem(gid, version_of(eid), f[b"e"], int(f.get(b"t", 0)), f.get(b"c", b"").decode())
                    )
            else:  # archived (or trimmed) meanwhile: whatever the store still has
                for e in read_events(client, layout, gid, after=lo - 1, upto=hi):
                    items.append(FeedItem(gid, e.version, orjson.dumps(e.data), e.at, e.command_id))
    for gid, items in out.items():
        unique = {item.version: item for item in items}
        out[gid] = [unique[v] for v in sorted(unique)]
    return out


def read_commands(client: redis.Redis, layout: Layout, game_id: str) -> list[StoredCommand]:
    """The game's command log (accepted and rejected commands, in order), hot or from its archive."""
    shard = layout.shard_of(game_id)
    if client.hget(layout.meta(shard, game_id), "status") == b"archived":
        blob = client.get(layout.archive(shard, game_id))
        return read_archive_commands(blob) if blob is not None else []
    return [command_from_entry(eid, f) for eid, f in client.xrange(layout.commands(shard, game_id))]


def command_of_event(client: redis.Redis, layout: Layout, game_id: str, version: int) -> StoredCommand | None:
    """The command whose events include the one at ``version`` (hot path only; None if not logged).

    The log's entry ids are ``<version after>-<n>``, and an accepted command comes first at its version, so
    the first entry at or after ``<version>-0`` is the command that wrote event ``version``.
    """
    shard = layout.shard_of(game_id)
    got = client.xrange(layout.commands(shard, game_id), min=f"{version}-0", max="+", count=1)
    if not got:
        return None
    cmd = command_from_entry(*got[0])
    first = cmd.outcome.get("first_version")
    return cmd if cmd.accepted and first is not None and first <= version <= cmd.version else None


def make_archive(meta: dict[str, str], events: list[StoredEvent], commands: list[StoredCommand] | None = None) -> bytes:
    """The archive blob of a game: zlib-compressed JSON of its metadata, every event and its command log."""
    doc = {
        "meta": meta,
        "events": [[e.version, e.command_id, e.data, e.at] for e in events],
        "commands": [c.to_record() for c in commands or ()],
    }
    return zlib.compress(orjson.dumps(doc), 6)


def read_archive(blob: bytes) -> tuple[dict[str, str], list[StoredEvent]]:
    """Metadata and events of an archive blob (older blobs have no commit times: ``at`` 0)."""
    doc = orjson.loads(zlib.decompress(blob))
    rows = doc["events"]
    return doc["meta"], [StoredEvent(row[0], row[2], row[1], row[3] if len(row) > 3 else 0) for row in rows]


def read_archive_commands(blob: bytes) -> list[StoredCommand]:
    """The command log kept in an archive blob (empty for blobs made before commands were logged)."""
    doc = orjson.loads(zlib.decompress(blob))
    return [StoredCommand.from_record(rec) for rec in doc.get("commands", ())]

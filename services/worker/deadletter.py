"""The commit of a dead letter: an entry that failed too often on its own content, or cannot be read at all.

The dead letter keeps a bounded excerpt of every field: enough to diagnose, never 10 MB again. A raw seat token
(sent by an outdated client) is never kept; the proof is, so that a retry still proves the seat. When the
excerpt is the whole entry, an operator may put it back on the stream (services/store/deadletters.py).
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from services.bus import envelope as env_mod
from services.bus.consumer import Entry
from services.bus.entries import EnvelopeError, entry_scope, parse_entry
from services.bus.keys import NO_GAME
from services.store.commit import CommitRequest
from services.worker.config import WorkerConfig

MAX_FIELDS = 32
MAX_NAME = 64
MAX_VALUE = 512


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True


def dead_letter_request(
    entry: Entry, reason: str, attempts: int, *, fence: str, worker_id: str, config: WorkerConfig
) -> CommitRequest:
    """The commit that moves ``entry`` to its shard's dead letters and answers its submitter ``dead_letter``."""
    shard, eid, fields = entry
    fields = fields or {}
    cid = fields.get(b"id", b"").decode(errors="replace")
    gid = fields.get(b"game", b"").decode(errors="replace")
    usable_cid = bool(env_mod.COMMAND_ID_RE.match(cid))
    key_gid = gid if env_mod.GAME_ID_RE.match(gid) else NO_GAME
    try:
        digest = parse_entry(fields, config.max_payload).digest()
    except EnvelopeError:
        digest = ""
    now = int(time.time() * 1000)
    outcome: dict[str, Any] = {
        "command_id": cid,
        "game_id": key_gid,
        "shard": shard,
        "status": "dead_letter",
        "rejection": {"code": env_mod.DEAD_LETTER, "message": reason},
        "digest": digest or None,
    }
    kept = {k: v for k, v in fields.items() if k != b"token"}
    excerpt = {
        k.decode(errors="replace")[:MAX_NAME]: v[:MAX_VALUE].decode(errors="replace")
        + ("..." if len(v) > MAX_VALUE else "")
        for k, v in list(kept.items())[:MAX_FIELDS]
    }
    complete = len(kept) <= MAX_FIELDS and all(
        len(k) <= MAX_NAME and len(v) <= MAX_VALUE and _is_utf8(k) and _is_utf8(v) for k, v in kept.items()
    )
    dead = {
        "entry": eid.decode(),
        "reason": reason,
        "attempts": str(attempts),
        "worker": worker_id,
        "at": str(now),
        "command_id": cid[:200],
        "game_id": gid[:200],
        "fields": orjson.dumps(excerpt).decode(),
        "complete": "1" if complete else "0",
    }
    return CommitRequest(
        shard=shard, entry_id=eid, fence=fence, op="dead", game_id=key_gid, scope=entry_scope(fields),
        command_id=cid if usable_cid else "", outcome=outcome if usable_cid else None, now_ms=now,
        outcome_ttl_ms=config.outcome_ttl_ms, digest=digest, record=True, fields=dead,
    )  # fmt: skip

"""Dead letters, for operators: list them, put one back on its command stream once its cause is fixed, or
discard it.

A command goes to its shard's dead-letter stream when processing it failed too often (a bug in the rules, say)
or when it cannot be read at all (a transient Redis fault never makes one). The dead letter records the
reason, the attempts and an excerpt of the entry (with the command's proof, never a raw token). Retrying puts
the entry back as it was, and the proof still proves the seat (it is bound to that one command); the commit's
duplicate check still holds, so a retried command takes effect at most once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Literal

import orjson
import redis

from services.bus.entries import entry_scope
from services.bus.keys import COMMAND_ID_RE, GAME_ID_RE, Layout
from services.store.scripts import source


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """One entry of a shard's dead-letter stream."""

    shard: int
    id: str
    """The dead letter's own entry id (what ``retry`` and ``discard`` take)."""
    reason: str
    attempts: int
    worker: str
    at_ms: int
    command_id: str
    game_id: str
    fields: dict[str, str]
    """The excerpt of the command entry (values cut at 512 characters; never a raw seat token)."""
    complete: bool
    """Whether ``fields`` is the whole entry, so that it can be put back."""

    @property
    def retryable(self) -> str | None:
        """None if the entry can be put back; else why not."""
        if not self.complete:
            return "the dead letter keeps only an excerpt of the entry (too large, or not UTF-8)"
        if not COMMAND_ID_RE.match(self.command_id) or not GAME_ID_RE.match(self.game_id):
            return "the entry has no usable command id or game id: it can never be processed"
        return None

    @property
    def scope(self) -> str:
        """The scope of the command's id (its seat, ``new`` for a creation): where its outcome lives."""
        return entry_scope({k.encode(): v.encode() for k, v in self.fields.items()})

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready data."""
        return {**asdict(self), "retryable": self.retryable is None}


@dataclass(frozen=True, slots=True)
class RetryResult:
    """What a retry did: ``requeued`` (``entry`` is the new command entry) or why nothing was done."""

    status: Literal["requeued", "gone", "answered", "not_retryable"]
    message: str
    entry: str | None = None


def _text(fields: dict[bytes, bytes], name: bytes, default: str = "") -> str:
    raw = fields.get(name)
    return default if raw is None else raw.decode(errors="replace")


def _dead_letter(shard: int, entry_id: bytes, fields: dict[bytes, bytes]) -> DeadLetter:
    try:
        excerpt = orjson.loads(fields.get(b"fields", b"{}"))
    except orjson.JSONDecodeError:
        excerpt = {}
    return DeadLetter(
        shard=shard,
        id=entry_id.decode(),
        reason=_text(fields, b"reason"),
        attempts=int(_text(fields, b"attempts", "0") or 0),
        worker=_text(fields, b"worker"),
        at_ms=int(_text(fields, b"at", "0") or 0),
        command_id=_text(fields, b"command_id"),
        game_id=_text(fields, b"game_id"),
        fields={str(k): str(v) for k, v in excerpt.items()} if isinstance(excerpt, dict) else {},
        complete=fields.get(b"complete") == b"1",
    )


def list_dead_letters(
    client: redis.Redis, layout: Layout, shards: Iterable[int] | None = None, count: int = 100
) -> list[DeadLetter]:
    """The oldest ``count`` dead letters of each shard (default: every shard), shard by shard."""
    out: list[DeadLetter] = []
    for shard in range(layout.shards) if shards is None else shards:
        for entry_id, fields in client.xrange(layout.dead(shard), count=count):
            out.append(_dead_letter(shard, entry_id, fields))
    return out


def _entry_id_ok(layout: Layout, shard: int, dead_id: str) -> bool:
    """Whether ``dead_id`` can name an entry of an existing shard (Redis would refuse a malformed id)."""
    return 0 <= shard < layout.shards and _ENTRY_ID.fullmatch(dead_id) is not None


_ENTRY_ID = re.compile(r"\d{1,20}-\d{1,20}")


def get_dead_letter(client: redis.Redis, layout: Layout, shard: int, dead_id: str) -> DeadLetter | None:
    """One dead letter, or None (also for a shard or an id that cannot exist)."""
    if not _entry_id_ok(layout, shard, dead_id):
        return None
    found = client.xrange(layout.dead(shard), dead_id, dead_id)
    return _dead_letter(shard, found[0][0], found[0][1]) if found else None


def retry_dead_letter(client: redis.Redis, layout: Layout, shard: int, dead_id: str) -> RetryResult:
    """Put a dead letter back on its shard's command stream (and drop it from the dead letters), in one step.

    Refused when the dead letter is gone (already retried or discarded), keeps only an excerpt, has no usable
    ids, or when its command already has another outcome."""
    dead = get_dead_letter(client, layout, shard, dead_id)
    if dead is None:
        return RetryResult("gone", f"no dead letter {dead_id} on shard {shard}")
    why_not = dead.retryable
    if why_not is not None:
        return RetryResult("not_retryable", why_not)
    keys = [
        layout.dead(shard),
        layout.cmds(shard),
        layout.outcome(shard, dead.game_id, dead.scope, dead.command_id),
        layout.reply(shard, dead.game_id, dead.scope, dead.command_id),
    ]
    args: list[str] = [dead_id]
    for name, value in dead.fields.items():
        args += (name, value)
    result = client.eval(source("requeue"), len(keys), *keys, *args)
    tag = result[0].decode() if isinstance(result[0], bytes) else result[0]
    if tag == "OK":
        entry = result[1].decode() if isinstance(result[1], bytes) else str(result[1])
        return RetryResult("requeued", f"command {dead.command_id} of game {dead.game_id} is queued again", entry)
    if tag == "GONE":
        return RetryResult("gone", f"no dead letter {dead_id} on shard {shard}")
    return RetryResult("answered", f"command {dead.command_id} already has an outcome: {result[1]!r}")


def discard_dead_letter(client: redis.Redis, layout: Layout, shard: int, dead_id: str) -> bool:
    """Delete a dead letter; False if there was none."""
    return _entry_id_ok(layout, shard, dead_id) and bool(client.xdel(layout.dead(shard), dead_id))

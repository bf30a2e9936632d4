"""The store's write protocol: typed commit requests in, typed results out, one pipeline of scripts per batch.

Every write of the event store goes through ``services/store/commit.lua`` (or ``archive.lua``), and only this
module turns requests into their keys and arguments: the rules worker says *what* to commit
(:class:`CommitRequest`), never how the script wants it.

A request carries the fencing token of the shard's lease; the script refuses it (``fenced``) once the lease is
another's. The outcome is stored under the command id of its seat (``record``) and pushed to the submitter's
reply list; when the submitter asked (``reply_events``), the reply of an accepted command also carries its events
(``event_data``), so that a waiting gateway answers from them instead of reading the stream back. The stored
outcome never does (it lives 24 hours), nor does a reply nobody asked events for (it lives 60 s unread).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
import redis

from services.bus.connection import pipeline_packed
from services.bus.faults import is_transient
from services.bus.keys import GROUP, Layout
from services.store.scripts import Scripts

Op = Literal["append", "create", "reject", "dead"]
CommitStatus = Literal["ok", "duplicate", "id_conflict", "conflict", "fenced", "error"]
ArchiveStatus = Literal["archived", "fenced", "conflict"]


@dataclass(frozen=True, slots=True)
class LogRecord:
    """How a command enters its game's command log: ``cmd`` or ``create``, the seat ("" for none or a
    creation) and the command as JSON (a creation: name, players, settings, seed; never a token)."""

    kind: Literal["cmd", "create"]
    seat: str
    command: bytes


@dataclass(frozen=True, slots=True)
class CommitRequest:
    """One command entry's commit: its outcome, and for an accepted command its events, meta and snapshot."""

    shard: int
    entry_id: bytes
    """The command stream entry this commit acknowledges (and deletes)."""
    fence: str
    """The lease value (fencing token) the writer holds for ``shard``."""
    op: Op
    game_id: str
    scope: str
    """The scope of the command id: the sending seat, ``new`` (a creation) or ``_`` (no usable seat)."""
    command_id: str
    """"" when the entry has no usable command id (only a dead letter is written then)."""
    outcome: Mapping[str, Any] | None
    """The outcome JSON (None: nothing to record or answer)."""
    now_ms: int
    base_version: int = -1
    """The version the command was decided at; the commit is refused (``conflict``) if it moved. -1: unchecked."""
    game_name: str = ""
    status: Literal["", "active", "over"] = ""
    """The game's status after the commit ("" unchanged)."""
    snapshot: tuple[int, bytes] | None = None
    """(version, state bytes) to store as the game's snapshot."""
    outcome_ttl_ms: int = 0
    """How long the outcome is kept (0: for ever)."""
    digest: str = ""
    """The sha256 of the command's content: the same command id with another digest is an ``id_conflict``."""
    record: bool = True
    """Check for an earlier outcome of the command id and store this one; False: only answer the submitter."""
    log: LogRecord | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    """Meta fields (append, create) or the dead letter's fields (dead)."""
    events: Sequence[bytes] = ()
    """The events' JSON, in order (append, create)."""
    reply_events: bool = False
    """The reply carries the events (the submitter asked for them)."""
    alarm: int | Literal["keep"] | None = "keep"
    """The game's next clock alarm (ms) for the timer process, None to drop it (no clock runs), ``keep``: the
    game has no clocks (the clocks key is not touched)."""
    reply: bool = True
    """Push a reply at all (False: the submitter said it never waits; the outcome is still stored)."""


@dataclass(frozen=True, slots=True)
class CommitPolicy:
    """Store-wide settings of every commit."""

    reply_ttl_ms: int = 60_000
    feed_maxlen: int = 100_000
    max_logged_rejections: int = 64
    """Rejected commands of one seat kept in a game's command log; beyond, only a counter grows."""
    group: str = GROUP


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What the script did with one request.

    ``ok``: written (``version`` the game's version now; None for an entry naming no game); ``duplicate``: the
    command id had this very command's outcome already (``first`` holds it), nothing written; ``id_conflict``:
    the id names another command of the seat (``first``), nothing written; ``conflict``: the game's version
    moved (``version`` is the stored one), nothing written; ``fenced``: the lease is another's; ``error``: Redis
    refused or failed (``error``; :attr:`transient` says whether to retry)."""

    status: CommitStatus
    version: int | None = None
    first: bytes | None = None
    error: Exception | None = None

    @property
    def transient(self) -> bool:
        """An error that says nothing about the command (out of memory, connection lost, scripts flushed)."""
        err = self.error
        return err is not None and (isinstance(err, redis.exceptions.NoScriptError) or is_transient(err))


_TAGS: dict[bytes | str, CommitStatus] = {
    b"OK": "ok",
    b"DUP": "duplicate",
    b"IDCONFLICT": "id_conflict",
    b"CONFLICT": "conflict",
    b"FENCED": "fenced",
}
_TAGS.update({k.decode(): v for k, v in list(_TAGS.items()) if isinstance(k, bytes)})


def reply_with_events(outcome: Mapping[str, Any], events: Sequence[bytes]) -> bytes:
    """The reply of an accepted command: its outcome plus its events' JSON (embedded as is, not re-encoded)."""
    return orjson.dumps({**outcome, "event_data": [orjson.Fragment(e) for e in events]})


class CommitStore:
    """Commits requests of one Redis and key layout through the store's scripts."""

    def __init__(self, client: redis.Redis, layout: Layout, policy: CommitPolicy | None = None) -> None:
        self.r = client
        self.layout = layout
        self.policy = policy or CommitPolicy()
        self.scripts = Scripts.load_or_expect(client)  # (Redis away at start: loaded at the first NOSCRIPT)

    def reload_scripts(self) -> None:
        """Load the scripts again (after a NOSCRIPT: Redis restarted or its scripts were flushed)."""
        self.scripts = Scripts.load(self.r)

    def commit(self, requests: Sequence[CommitRequest]) -> list[CommitResult]:
        """Run every request's commit script in one pipeline, in order; one result per request.

        A lost connection raises (nothing is known of what ran); an error reply is that request's result."""
        if not requests:
            return []
        sha = self.scripts.commit
        commands = []
        for req in requests:
            keys = self._keys(req)
            commands.append((keys[0], ("EVALSHA", sha, len(keys), *keys, *self._args(req))))
        out: list[CommitResult] = []
        for res in pipeline_packed(self.r, commands):
            if isinstance(res, Exception):
                if isinstance(res, redis.exceptions.NoScriptError):
                    self.reload_scripts()
                out.append(CommitResult("error", error=res))
                continue
            status = _TAGS.get(res[0])
            if status is None:  # pragma: no cover - the script returns nothing else
                out.append(CommitResult("error", error=RuntimeError(f"commit script said {res!r}")))
            elif status == "ok":
                stored = int(res[1])
                out.append(CommitResult("ok", stored if stored >= 0 else None))  # -1: the entry names no game
            elif status in ("duplicate", "id_conflict"):
                out.append(CommitResult(status, first=res[1]))
            elif status == "conflict":
                out.append(CommitResult("conflict", int(res[1])))
            else:
                out.append(CommitResult(status))
        return out

    def _keys(self, req: CommitRequest) -> list[str]:
        lay, shard, gid = self.layout, req.shard, req.game_id
        cid = req.command_id or "_"
        return [
            lay.lease(shard),
            lay.cmds(shard),
            lay.outcome(shard, gid, req.scope, cid),
            lay.reply(shard, gid, req.scope, cid),
            lay.meta(shard, gid),
            lay.events(shard, gid),
            lay.snap(shard, gid),
            lay.feed(shard),
            lay.games(shard),
            lay.ended(shard),
            lay.dead(shard),
            lay.commands(shard, gid),
            lay.clocks(shard),
        ]

    def _args(self, req: CommitRequest) -> list[Any]:
        """The script's ARGV (see services/store/commit.lua)."""
        policy = self.policy
        outcome = orjson.dumps(req.outcome) if req.outcome is not None else b""
        reply = b""
        if req.reply_events and req.events and req.outcome is not None:
            reply = reply_with_events(req.outcome, req.events)
        snap_v, snap_d = (str(req.snapshot[0]), req.snapshot[1]) if req.snapshot is not None else ("", b"")
        log = req.log
        args: list[Any] = [
            req.fence,
            policy.group,
            req.entry_id,
            req.op,
            req.base_version,
            outcome,
            req.command_id,
            req.game_id,
            req.game_name,
            req.now_ms,
            req.status,
            snap_v,
            snap_d,
            policy.reply_ttl_ms if req.reply else 0,
            req.outcome_ttl_ms,
            policy.feed_maxlen,
            log.kind if log is not None else "",
            log.seat if log is not None else "",
            log.command if log is not None else "",
            req.digest,
            "1" if req.record else "0",
            policy.max_logged_rejections,
            reply,
            "" if req.alarm == "keep" else "-" if req.alarm is None else req.alarm,
            len(req.fields),
        ]
        for k, v in req.fields.items():
            args += (k, v)
        args += req.events
        return args

    # --- archives -------------------------------------------------------------------------------------
    def archive(
        self, shard: int, fence: str, game_id: str, blob: bytes, version: int, last_log_id: str, now_ms: int
    ) -> ArchiveStatus:
        """Move an ended game off the hot path into its ``blob`` (made of ``version`` events and the command log
        up to ``last_log_id``); refused (``conflict``) if the game moved meanwhile, ``fenced`` if the lease is
        another's."""
        lay = self.layout
        res = self.r.evalsha(
            self.scripts.archive,
            7,
            lay.lease(shard),
            lay.meta(shard, game_id),
            lay.events(shard, game_id),
            lay.snap(shard, game_id),
            lay.archive(shard, game_id),
            lay.ended(shard),
            lay.commands(shard, game_id),
            fence,
            blob,
            version,
            game_id,
            now_ms,
            last_log_id,
        )
        tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
        return "archived" if tag == "OK" else "fenced" if tag == "FENCED" else "conflict"

"""The rules worker: the one authoritative writer of each shard it holds.

For each shard it holds a lease (``<fencing token>:<worker id>``, with a TTL, renewed every third of it).
Every write goes through the commit script, which first checks that the lease still holds this worker's
token, so a second worker, or this one after its lease ran out, cannot write anything.

The loop: read a batch from the shards' command streams with the consumer group (XREADGROUP COUNT n), decide
each command with the game's decider (found by game name in the registry, never by anything else), then send
one EVALSHA per command in one pipeline. The script does fencing check, duplicate check on the command id,
append of the events at the expected version, snapshot, feed append, outcome, reply and ack, atomically.

Recovery: on taking a shard, and every few seconds, pending entries of other (dead) consumers are claimed with
XAUTOCLAIM. An entry that fails ``max_attempts`` times on its own content (the decider raises, a script error),
or that was delivered more often than that (a worker died on it), goes to the shard's dead-letter stream with
the reason, and its submitter gets a ``dead_letter`` outcome. Failures hold back only later commands of the
same game, never the shard.

Transient Redis faults (out of memory, connection lost, timeouts, LOADING, BUSY, READONLY, fail-over; see
services/bus/faults.py) are no failure of a command: the commands they hit are kept in memory and committed
again after a capped, jittered backoff, never counted as attempts; recovery and maintenance pause meanwhile,
and the episode is logged once when it starts and once, with a summary, when it ends. Re-reading this worker's
own pending entries goes through XPENDING and XRANGE, which, unlike XREADGROUP, leave their delivery counts
alone: only real deliveries (a read, a claim after a crash) count toward "delivered too often".

Authentication: a command's ``proof`` (an HMAC of the command keyed with the seat token's digest, see
services/bus/envelope.py) is checked against the digest stored at creation. Only an authenticated command's
outcome is recorded under its seat's command id; a refusal before that (no such game, no such seat, a wrong
proof, an unreadable envelope) and a command id conflict are only answered on the reply list, so no sender can
decide or shadow another seat's command id.

Game states live in a bounded LRU cache; a missing one reloads from its snapshot plus the tail of its stream.
The decider's states must be immutable values (``evolve`` returns a new state), which lets the worker decide
several commands of one game ahead of their commits within a batch.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
import redis
from pydantic import ValidationError

from events.base import Rejection
from services.bus import envelope as env_mod
from services.bus.envelope import (
    CommandEnvelope,
    CreateEnvelope,
    EnvelopeError,
    conflict_outcome,
    entry_scope,
    parse_entry,
    summarize,
)
from services.bus.faults import Backoff, Outage, is_transient
from services.bus.keys import GROUP, NO_GAME, Layout
from services.bus.streams import GroupReader
from services.log import get_logger
from services.rules.decider import Decider
from services.rules.registry import get_decider
from services.store.eventstore import RawGame, load_many, make_archive, read_commands, read_events, read_meta
from services.store.scripts import Scripts

Entry = tuple[int, bytes, dict[bytes, bytes] | None]
"""(shard, stream entry id, fields) as read from a command stream (fields None: entry deleted meanwhile)."""

_HEX = frozenset("0123456789abcdef")
_UNSET: Any = object()


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Tuning of a rules worker. The defaults suit production; tests shorten the timings."""

    batch: int = 256
    """XREADGROUP COUNT per shard stream: commands decided and committed per pipeline."""
    block_ms: int = 100
    """How long one read blocks when all streams are empty."""
    lease_ttl_ms: int = 5000
    """Lease lifetime; the lease is renewed every third of it. A dead worker's shards move after this."""
    claim_idle_ms: int = 10_000
    """A pending entry of another consumer idle this long is claimed (its worker is presumed dead)."""
    recover_every_ms: int = 2000
    max_attempts: int = 3
    """Failures (or deliveries) of one entry before it goes to the dead-letter stream."""
    snapshot_every: int = 50
    """A snapshot is written each time a game's version crosses a multiple of this."""
    cache_size: int = 10_000
    """Game states kept in memory (LRU)."""
    reply_ttl_ms: int = 60_000
    outcome_ttl_ms: int = 24 * 3600 * 1000
    """How long the outcome of an accepted (or dead-lettered) command is kept, i.e. how long a retried command
    is recognised as a duplicate: far longer than any client retries (seconds to minutes)."""
    rejected_ttl_ms: int = 10 * 60 * 1000
    """How long the outcome of a rejected command (or creation) is kept: a rejection changed nothing, so a
    retry after this is simply decided again."""
    max_logged_rejections: int = 64
    """Rejected commands of one seat kept in a game's command log (the audit); beyond, only a counter grows."""
    retry_first_ms: int = 10
    retry_cap_ms: int = 2000
    """Backoff between commits retried after a transient Redis fault (jittered, doubling up to the cap)."""
    feed_maxlen: int = 100_000
    max_payload: int = env_mod.MAX_PAYLOAD
    archive_after_ms: int = 3600 * 1000
    """An ended game is moved off the hot path (into its archive) this long after its end."""
    maintenance_every_ms: int = 5000
    forget_consumer_after_ms: int = 3_600_000
    """A consumer (a worker process) with nothing pending, idle this long, is removed from the group."""
    cluster_poll_ms: int = 10
    """On a Redis Cluster (no multi-slot blocking read): the longest pause between polls of idle shards."""


@dataclass(slots=True)
class GameEntry:
    """A cached game: its decider, state and version as committed (or, within a batch, as planned)."""

    game_id: str
    shard: int
    name: str
    decider: Decider
    state: Any
    version: int
    token_hashes: tuple[str, ...]
    status: str
    snapshot_version: int


@dataclass(slots=True)
class Plan:
    """One EVALSHA of the commit script, with what to do once it succeeds."""

    entry: Entry
    op: str
    game_id: str
    command_id: str | None
    keys: list[str]
    args: list[Any]
    outcome: dict[str, Any]
    after: GameEntry | None = None
    reason: str = ""
    scope: str = ""
    """The scope of the command id (its seat, ``new``, ``_``)."""
    digest: str = ""
    """The sha256 of the command's content ("" unknown)."""


@dataclass(slots=True)
class _Round:
    """Scratch of one decide-and-commit round."""

    known: dict[str, GameEntry | None] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    broken: dict[str, Exception] = field(default_factory=dict)


class RulesWorker:
    """The authoritative writer of the shards it holds a lease on (out of ``shards``)."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: WorkerConfig | None = None,
        worker_id: str | None = None,
        deciders: Callable[[str], Decider] = get_decider,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or WorkerConfig()
        self.shards = sorted(set(shards))
        self.worker_id = worker_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._deciders = deciders
        self.scripts = Scripts.load(client)
        self.leases: dict[int, str] = {}
        """Shard -> lease value (fencing token) this worker holds."""
        self.cache: OrderedDict[str, GameEntry] = OrderedDict()
        self.stats: Counter[str] = Counter()
        self._attempts: dict[tuple[int, bytes], int] = {}
        """Failures of an entry on its own content (never transient Redis faults)."""
        self._reread: set[int] = set()
        self._retry: list[Entry] = []
        """Entries whose commit met a transient Redis fault, in order: committed again after a backoff."""
        self._retry_at = 0.0
        self._next_renew = 0.0
        self._next_recover = 0.0
        self._next_maintenance = time.monotonic() + self.cfg.maintenance_every_ms / 1000
        self.log = get_logger("rules_worker", worker=self.worker_id)
        self._backoff = Backoff(self.cfg.retry_first_ms / 1000, self.cfg.retry_cap_ms / 1000)
        self._outage = Outage(self.log)
        # One XREADGROUP over all shards on a single Redis; shard by shard (one slot each) on a cluster.
        self._reader = GroupReader(client, GROUP, self.worker_id, poll_ms=self.cfg.cluster_poll_ms)

    # --- leases ---------------------------------------------------------------------------------------
    def refresh_leases(self) -> list[int]:
        """Renew held leases and try to take free ones; returns the shards newly taken."""
        pipe = self.r.pipeline(transaction=False)
        for shard in self.shards:
            # execute_command, not pipe.evalsha: redis-py refuses the latter in cluster pipelines, though EVALSHA
            # with all keys in one slot is routed fine.
            pipe.execute_command(
                "EVALSHA",
                self.scripts.lease,
                2,
                self.layout.lease(shard),
                self.layout.fence(shard),
                self.leases.get(shard, ""),
                self.cfg.lease_ttl_ms,
                self.worker_id,
            )
        taken: list[int] = []
        for shard, value in zip(self.shards, pipe.execute(raise_on_error=False), strict=True):
            held = self.leases.get(shard)
            if isinstance(value, Exception):
                if not is_transient(value):
                    raise value
                # (Renewing a held lease is a PEXPIRE, which Redis allows even out of memory; taking a free one
                # is not.) A held lease stays held until it really expires: the commit's fencing check knows.
                self._outage.failed(value, shard=shard, during="lease")
                continue
            if value is None:
                if held is not None:
                    self._lose(shard, "lease taken by another worker")
                continue
            token = value.decode()
            if token != held:
                if held is not None:
                    self._lose(shard, "lease expired")
                self.leases[shard] = token
                taken.append(shard)
                self.log.info("lease.acquired", shard=shard, token=token)
        failed: Exception | None = None
        for shard in taken:
            try:
                self._on_acquire(shard)
            except Exception as exc:
                # Its predecessor's pending entries were not claimed: do not serve the shard on this token (new
                # entries would overtake them); the lease runs out and is taken again, with a fresh token.
                self.leases.pop(shard, None)
                failed = failed or exc
        self._next_renew = time.monotonic() + self.cfg.lease_ttl_ms / 3000
        if failed is not None:
            raise failed
        return taken

    def _on_acquire(self, shard: int) -> None:
        with contextlib.suppress(redis.ResponseError):  # BUSYGROUP: it exists already
            # From id 0: commands submitted before any worker ever ran are processed too.
            self.r.xgroup_create(self.layout.cmds(shard), GROUP, id="0", mkstream=True)
        self._drop_shard_cache(shard)
        # Whatever is pending now was read by a worker that no longer holds the lease: claim it before any
        # new entry is read, so the commands of each game keep their order.
        self.recover([shard], min_idle_ms=0)

    def _lose(self, shard: int, why: str) -> None:
        self.leases.pop(shard, None)
        self._reread.discard(shard)
        self._retry = [e for e in self._retry if e[0] != shard]  # the new owner claims them
        self._drop_shard_cache(shard)
        self.stats["leases_lost"] += 1
        self.log.warning("lease.lost", shard=shard, reason=why)

    def _drop_shard_cache(self, shard: int) -> None:
        for gid in [g for g, e in self.cache.items() if e.shard == shard]:
            del self.cache[gid]

    def release(self) -> None:
        """Give up every lease held (graceful stop), so another worker can take over at once."""
        for shard, token in list(self.leases.items()):
            with contextlib.suppress(redis.RedisError):
                self.r.evalsha(self.scripts.release, 1, self.layout.lease(shard), token)
            self.leases.pop(shard, None)
        self.log.info("lease.released")

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; a Redis or programming error is logged and the loop goes on."""
        stop = stop or threading.Event()
        errors = Backoff(0.05, 2.0)
        self.log.info("worker.start", shards=self.shards)
        try:
            while not stop.is_set():
                try:
                    self.step()
                    errors.reset()
                except redis.exceptions.NoScriptError:  # (not exported as redis.NoScriptError)
                    self.scripts = Scripts.load(self.r)
                except Exception as exc:
                    if is_transient(exc):
                        self._outage.failed(exc)  # logged once per episode, not once per attempt
                        delay = self._backoff.next()
                    else:
                        self.log.exception("worker.error", error=repr(exc))
                        delay = errors.next()
                    # Entries this worker read but did not finish are still in its pending list (the reread
                    # covers those kept for a retry too).
                    self._reread.update(self.leases)
                    self._retry.clear()
                    stop.wait(delay)
        finally:
            self.release()
            self.log.info("worker.stop", stats=dict(self.stats))

    def run_until_idle(self, max_steps: int = 10_000) -> int:
        """Step until a step finds nothing to do (for tests and benchmarks); returns commands processed."""
        total = 0
        for _ in range(max_steps):
            n = self.step(block_ms=0)
            total += n
            if n == 0 and not self._reread and not self._retry:
                break
        return total

    def step(self, block_ms: int | None = None) -> int:
        """One turn: renew leases and recover when due, read one batch, decide and commit it."""
        now = time.monotonic()
        if now >= self._next_renew:
            self.refresh_leases()
        if self._retry:
            return self._step_retry(now)
        if not self._outage.active:
            # (Paused during a fault episode: claiming entries bumps their delivery counts, and the shard's
            # commits wait for Redis anyway.)
            if now >= self._next_recover:
                self.recover(list(self.leases), min_idle_ms=self.cfg.claim_idle_ms)
                self._next_recover = now + self.cfg.recover_every_ms / 1000
            if now >= self._next_maintenance:
                self.maintain()
                self._next_maintenance = now + self.cfg.maintenance_every_ms / 1000
        if not self.leases:
            time.sleep((self.cfg.block_ms if block_ms is None else block_ms) / 1000)
            return 0
        entries = self._read(self.cfg.block_ms if block_ms is None else block_ms)
        if entries:
            self.process(entries)
        self._after_commits()
        return len(entries)

    def _step_retry(self, now: float) -> int:
        """Commit again what a transient fault stopped, once its backoff has passed (nothing new is read
        meanwhile, so every game's commands keep their order)."""
        if now < self._retry_at:
            time.sleep(min(self._retry_at - now, 0.25))
            return 0
        entries = [e for e in self._retry if e[0] in self.leases]
        self._retry = []
        self.stats["retried"] += len(entries)
        if entries:
            self.process(entries)
        self._after_commits()
        return len(entries)

    def _after_commits(self) -> None:
        if self._retry:
            self._retry_at = time.monotonic() + self._backoff.next()
        else:
            self._backoff.reset()
            self._outage.recovered(stats={"retried": self.stats["retried"]})

    def _read(self, block_ms: int) -> list[Entry]:
        out: list[Entry] = []
        again = sorted(self._reread & set(self.leases))
        for shard in again:
            got = self._own_pending(shard)
            if len(got) < self.cfg.batch:
                self._reread.discard(shard)
            out.extend((shard, eid, fields) for eid, fields in got)
        fresh = [s for s in self.leases if s not in again]
        if out or not fresh:
            # Old entries first; new ones of the same shard wait for the next turn (per-game order).
            return out
        streams = {self.layout.cmds(s): ">" for s in fresh}
        by_key = {self.layout.cmds(s).encode(): s for s in fresh}
        res = self._reader.read(streams, count=self.cfg.batch, block_ms=block_ms)
        for key, got in res:
            shard = by_key[key]
            out.extend((shard, eid, fields) for eid, fields in got)
        return out

    def _own_pending(self, shard: int) -> list[tuple[bytes, dict[bytes, bytes] | None]]:
        """This consumer's own pending entries of ``shard`` (failed or held back earlier), oldest first.

        XPENDING then XRANGE rather than XREADGROUP from id 0, which would count one more delivery of each:
        retries after a fault must not look like a worker dying on the entry.
        """
        key = self.layout.cmds(shard)
        pending = self.r.xpending_range(key, GROUP, "-", "+", self.cfg.batch, consumername=self.worker_id)
        ids = [p["message_id"] for p in pending]
        if not ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for eid in ids:
            pipe.xrange(key, eid, eid)
        return [(eid, got[0][1] if got else None) for eid, got in zip(ids, pipe.execute(), strict=True)]

    # --- recovery -------------------------------------------------------------------------------------
    def recover(self, shards: Sequence[int], min_idle_ms: int) -> int:
        """Claim entries pending (idle >= ``min_idle_ms``) in other consumers, process or dead-letter them."""
        total = 0
        for shard in shards:
            if shard not in self.leases:
                continue
            key = self.layout.cmds(shard)
            start: bytes | str = "0-0"
            for _ in range(100):  # bounded: a huge backlog is finished over the next turns
                try:
                    start, claimed, _deleted = self.r.xautoclaim(
                        key, GROUP, self.worker_id, min_idle_ms, start_id=start, count=self.cfg.batch
                    )[:3]
                except redis.ResponseError:  # NOGROUP: nothing was ever submitted
                    break
                if claimed:
                    total += len(claimed)
                    self._process_claimed(shard, claimed)
                if start in (b"0-0", "0-0"):
                    break
        return total

    def _process_claimed(self, shard: int, claimed: list[tuple[bytes, dict[bytes, bytes] | None]]) -> None:
        ids = [eid for eid, _ in claimed]
        counts = {
            p["message_id"]: p["times_delivered"]
            for p in self.r.xpending_range(
                self.layout.cmds(shard),
                GROUP,
                min=ids[0],
                max=ids[-1],
                count=len(ids) + 1000,
                consumername=self.worker_id,
            )
        }
        normal: list[Entry] = []
        dead: list[Plan] = []
        for eid, fields in claimed:
            delivered = int(counts.get(eid, 1))
            self.stats["claimed"] += 1
            if fields is not None and delivered > self.cfg.max_attempts:
                # Delivered that often without an outcome: workers keep dying on it. Never again.
                reason = f"delivered {delivered} times without an outcome (worker crashed on it?)"
                dead.append(self._dead_plan((shard, eid, fields), reason, delivered))
            else:
                normal.append((shard, eid, fields))
        if dead:
            self._commit(dead, _Round())
        if normal:
            self.process(normal)

    # --- decide and commit ----------------------------------------------------------------------------
    def process(self, entries: list[Entry]) -> None:
        """Decide and commit ``entries`` (in order); commands whose commit met a moved version are redone."""
        todo = entries
        for _ in range(3):
            if time.monotonic() >= self._next_renew:
                # A long batch (a slow or loaded host) must not outlive the lease it is written under.
                self.refresh_leases()
            todo = self._round(todo)
            if not todo:
                return
        # Still conflicting: leave them pending and read them again next turn.
        self._reread.update(shard for shard, _, _ in todo)

    def _round(self, entries: list[Entry]) -> list[Entry]:
        rnd = _Round()
        parsed: list[tuple[Entry, CommandEnvelope | CreateEnvelope | EnvelopeError | None]] = []
        for entry in entries:
            shard, _eid, fields = entry
            if shard not in self.leases:
                continue
            if fields is None:
                parsed.append((entry, None))
                continue
            try:
                parsed.append((entry, parse_entry(fields, self.cfg.max_payload)))
            except EnvelopeError as err:
                parsed.append((entry, err))
        self._prefetch(rnd, [env for _, env in parsed if isinstance(env, CommandEnvelope | CreateEnvelope)])
        plans: list[Plan] = []
        for entry, env in parsed:
            if env is None:
                # Deleted from the stream while pending (trimmed by hand): nothing to decide, just ack it.
                self.r.xack(self.layout.cmds(entry[0]), GROUP, entry[1])
                continue
            try:
                plan = self._plan(entry, env, rnd)
            except Exception as exc:
                plan = self._failed(entry, env, exc, rnd)
            if plan is not None:
                plans.append(plan)
        return self._commit(plans, rnd)

    def _prefetch(self, rnd: _Round, envs: list[CommandEnvelope | CreateEnvelope]) -> None:
        missing: list[tuple[int, str]] = []
        for env in envs:
            gid = env.game_id
            if gid in rnd.known:
                continue
            cached = self.cache.get(gid)
            if cached is not None:
                self.cache.move_to_end(gid)
                rnd.known[gid] = cached
            else:
                rnd.known[gid] = None
                missing.append((self.layout.shard_of(gid), gid))
        if not missing:
            return
        for gid, raw in load_many(self.r, self.layout, missing).items():
            if raw is None:
                continue
            try:
                rnd.known[gid] = loaded = self._restore(self.layout.shard_of(gid), gid, raw)
            except Exception as exc:
                # No decider for its name, or events that do not fold: each of its commands fails (and ends
                # as a dead letter after a few attempts); other games go on.
                rnd.broken[gid] = exc
                continue
            self._cache_put(loaded)

    def _restore(self, shard: int, gid: str, raw: RawGame) -> GameEntry:
        name = raw.meta.get("name", "")
        try:
            decider = self._deciders(name)
        except (KeyError, ImportError):
            raise LookupError(f"no decider registered for game name {name!r}") from None
        status = raw.meta.get("status", "active")
        stored = int(raw.meta.get("version", "0"))
        tokens = tuple(orjson.loads(raw.meta.get("tokens", "[]")))
        if status == "archived":
            # Off the hot path: every command is answered game_over, no state is needed.
            return GameEntry(gid, shard, name, decider, None, stored, tokens, status, stored)
        state = decider.restore(raw.snapshot) if raw.snapshot is not None else decider.initial_state()
        version = raw.snapshot_version
        for v, data in raw.tail:
            if v != version + 1:
                raise RuntimeError(f"game {gid}: event {v} follows {version}")
            state = decider.evolve(state, decider.parse_event(data))
            version = v
        if version != stored:
            raise RuntimeError(f"game {gid}: folded to version {version}, meta says {stored}")
        self.stats["loads"] += 1
        return GameEntry(
            game_id=gid,
            shard=shard,
            name=name,
            decider=decider,
            state=state,
            version=version,
            token_hashes=tokens,
            status=status,
            snapshot_version=raw.snapshot_version,
        )

    def _cache_put(self, entry: GameEntry | None) -> None:
        if entry is None:
            return
        self.cache[entry.game_id] = entry
        self.cache.move_to_end(entry.game_id)
        while len(self.cache) > self.cfg.cache_size:
            self.cache.popitem(last=False)

    def _plan(self, entry: Entry, env: CommandEnvelope | CreateEnvelope | EnvelopeError, rnd: _Round) -> Plan | None:
        shard = entry[0]
        if isinstance(env, EnvelopeError):
            if env.command_id is None:
                return self._dead_plan(entry, f"{env.code}: {env.message}", 1)
            # Unreadable: nobody is proven to have sent it, so it may not record an outcome under any seat's id.
            return self._reject(entry, env.command_id, env.game_id or NO_GAME, env.code, env.message, record=False)
        gid, cid = env.game_id, env.command_id
        if gid in rnd.broken:
            raise rnd.broken[gid]
        if gid in rnd.held:
            # An earlier command of this game failed in this round: keep the game's order, retry later.
            self._reread.add(shard)
            return None
        if self.layout.shard_of(gid) != shard:
            message = f"game {gid} does not live on shard {shard}"
            return self._reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, env=env, record=False)
        game = rnd.known.get(gid)
        if isinstance(env, CreateEnvelope):
            return self._plan_create(entry, env, game, rnd)
        if game is None:
            return self._reject(entry, cid, gid, env_mod.UNKNOWN_GAME, f"no game {gid}", env=env, record=False)
        # The seat's proof comes first: an unauthenticated sender learns nothing more about the game, and its
        # refusal is recorded under no seat's command id.
        if env.seat >= len(game.token_hashes):
            message = f"seat {env.seat} is not in this game"
            return self._reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, game, env=env, record=False)
        if not env.verify(game.token_hashes[env.seat]):
            message = f"wrong token for seat {env.seat} (the command's proof does not match)"
            return self._reject(entry, cid, gid, env_mod.WRONG_TOKEN, message, game, env=env, record=False)
        if game.status != "active":
            return self._reject(entry, cid, gid, env_mod.GAME_OVER, "the game is over", game, env=env)
        if env.expected_version is not None and env.expected_version != game.version:
            message = f"expected version {env.expected_version}, the game is at {game.version}"
            return self._reject(entry, cid, gid, env_mod.STALE_VERSION, message, game, env=env)
        payload = env.payload
        if payload.get("seat", env.seat) != env.seat:
            message = f"payload seat {payload.get('seat')!r} is not the envelope seat {env.seat}"
            return self._reject(entry, cid, gid, env_mod.BAD_COMMAND, message, game, env=env)
        decider = game.decider
        try:
            command = decider.parse_command({**payload, "seat": env.seat})
        except ValidationError as exc:
            return self._reject(entry, cid, gid, env_mod.BAD_COMMAND, summarize(exc), game, env=env)
        except (ValueError, TypeError, KeyError) as exc:
            return self._reject(entry, cid, gid, env_mod.BAD_COMMAND, str(exc)[:300], game, env=env)
        execute = getattr(decider, "execute", None)
        if execute is not None:
            # Optional fast path some deciders offer: decide and fold in one pass, (events, state) back.
            done = execute(game.state, command)
            if isinstance(done, Rejection):
                return self._reject(entry, cid, gid, done.code, done.message, game, env=env)
            return self._append_plan(entry, env, "append", game, done[0], rnd, meta={}, folded=done[1])
        result = decider.decide(game.state, command)
        if isinstance(result, Rejection):
            return self._reject(entry, cid, gid, result.code, result.message, game, env=env)
        return self._append_plan(entry, env, "append", game, result, rnd, meta={})

    def _plan_create(self, entry: Entry, env: CreateEnvelope, existing: GameEntry | None, rnd: _Round) -> Plan:
        cid, gid, shard = env.command_id, env.game_id, entry[0]
        if existing is not None:
            return self._reject(entry, cid, gid, env_mod.GAME_EXISTS, f"game {gid} exists already", existing, env=env)
        try:
            decider = self._deciders(env.game_name)
        except (KeyError, ImportError):
            return self._reject(entry, cid, gid, env_mod.UNKNOWN_GAME, f"no game named {env.game_name!r}", env=env)
        hashes = env.token_hashes
        if len(hashes) != len(env.players) or any(len(h) != 64 or not set(h) <= _HEX for h in hashes):
            message = "need one sha256 hex token hash per player"
            return self._reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, env=env)
        try:
            events = decider.start(env.players, env.settings, env.seed)
        except ValidationError as exc:
            return self._reject(entry, cid, gid, env_mod.BAD_COMMAND, summarize(exc), env=env)
        except (ValueError, TypeError, KeyError) as exc:
            return self._reject(entry, cid, gid, env_mod.BAD_COMMAND, str(exc)[:300], env=env)
        now = _now_ms()
        fresh = GameEntry(
            game_id=gid,
            shard=shard,
            name=env.game_name,
            decider=decider,
            state=decider.initial_state(),
            version=0,
            token_hashes=tuple(hashes),
            status="active",
            snapshot_version=0,
        )
        meta = {
            "name": env.game_name,
            "rules_version": getattr(decider, "rules_version", ""),
            "players": orjson.dumps(env.players).decode(),
            "settings": orjson.dumps(env.settings).decode(),
            "seed": str(env.seed),
            "tokens": orjson.dumps(hashes).decode(),
            "created": str(now),
            "status": "active",
        }
        if env.player_ids is not None:
            meta["player_ids"] = orjson.dumps(env.player_ids).decode()
        return self._append_plan(entry, env, "create", fresh, events, rnd, meta=meta)

    def _append_plan(
        self,
        entry: Entry,
        env: CommandEnvelope | CreateEnvelope,
        op: str,
        game: GameEntry,
        events: list[Any],
        rnd: _Round,
        meta: dict[str, str],
        folded: Any = _UNSET,
    ) -> Plan:
        decider = game.decider
        state = game.state
        if folded is _UNSET:
            for event in events:
                state = decider.evolve(state, event)
        else:
            state = folded
        version = game.version + len(events)
        over = decider.is_over(state)
        status = "over" if over else "active"
        snap_v = ""
        snap_d = b""
        snapshot_version = game.snapshot_version
        every = self.cfg.snapshot_every
        if events and (version // every > game.version // every or over):
            snap_v, snap_d, snapshot_version = str(version), decider.snapshot(state), version
        now = _now_ms()
        if over:
            meta = {
                **meta,
                "result": orjson.dumps(decider.result(state), default=str).decode(),
                "ended": str(now),
            }
        after = replace(game, state=state, version=version, status=status, snapshot_version=snapshot_version)
        rnd.known[game.game_id] = after  # later commands of this game in the batch see this state
        shard = game.shard
        cid = env.command_id
        digest = env.digest()
        outcome = {
            "command_id": cid,
            "game_id": game.game_id,
            "shard": shard,
            "status": "accepted",
            "version": version,
            "first_version": game.version + 1,
            "events": len(events),
            "over": over,
            "digest": digest,
        }
        args = self._args(
            entry, op, game.version, outcome, cid, game.game_id, game.name, now,
            status=status if (over or op == "create") else "", snapshot=(snap_v, snap_d),
            outcome_ttl_ms=self.cfg.outcome_ttl_ms, digest=digest, record=True, meta=meta,
        )  # fmt: skip
        args += [e.to_json() for e in events]
        keys = self._keys(shard, game.game_id, env.scope, cid)
        return Plan(entry, op, game.game_id, cid, keys, args, outcome, after, scope=env.scope, digest=digest)

    def _args(
        self,
        entry: Entry,
        op: str,
        base: int,
        outcome: dict[str, Any] | None,
        cid: str,
        gid: str,
        name: str,
        now: int,
        *,
        status: str = "",
        snapshot: tuple[str, bytes] = ("", b""),
        outcome_ttl_ms: int,
        digest: str,
        record: bool,
        meta: dict[str, str] | None = None,
        log: bool = True,
    ) -> list[Any]:
        """The commit script's ARGV up to the meta (or dead-letter) pairs; see services/store/commit.lua."""
        shard = entry[0]
        args: list[Any] = [
            self.leases[shard],
            GROUP,
            entry[1],
            op,
            base,
            orjson.dumps(outcome) if outcome is not None else "",
            cid,
            gid,
            name,
            now,
            status,
            *snapshot,
            self.cfg.reply_ttl_ms,
            outcome_ttl_ms,
            self.cfg.feed_maxlen,
            *(self._log_args(entry) if log else ("", "", "")),
            digest,
            "1" if record else "0",
            self.cfg.max_logged_rejections,
            len(meta or {}),
        ]
        for k, v in (meta or {}).items():
            args += (k, v)
        return args

    def _keys(self, shard: int, gid: str, scope: str, cid: str) -> list[str]:
        lay = self.layout
        return [
            lay.lease(shard),
            lay.cmds(shard),
            lay.outcome(shard, gid, scope, cid),
            lay.reply(shard, gid, scope, cid),
            lay.meta(shard, gid),
            lay.events(shard, gid),
            lay.snap(shard, gid),
            lay.feed(shard),
            lay.games(shard),
            lay.ended(shard),
            lay.dead(shard),
            lay.commands(shard, gid),
        ]

    def _log_args(self, entry: Entry) -> list[Any]:
        """Kind, seat and command JSON of an entry for the game's command log (never a secret).

        The command is logged as it was sent (verification re-parses it the way the worker does); one larger
        than the payload limit is replaced by a note of its size.
        """
        fields = entry[2] or {}
        if fields.get(b"kind") == b"create":
            create: dict[str, Any] = {"name": fields.get(b"name", b"").decode(errors="replace")}
            for key in ("players", "settings"):
                try:
                    create[key] = orjson.loads(fields.get(key.encode(), b"null"))
                except orjson.JSONDecodeError:
                    create[key] = None
            seed = fields.get(b"seed", b"")
            create["seed"] = int(seed) if seed.lstrip(b"-").isdigit() else None
            raw_ids = fields.get(b"player_ids")
            if raw_ids is not None:
                try:
                    create["player_ids"] = orjson.loads(raw_ids) if len(raw_ids) <= self.cfg.max_payload else None
                except orjson.JSONDecodeError:
                    create["player_ids"] = None
            return ["create", "", orjson.dumps(create)]
        payload = fields.get(b"payload", b"null")
        if len(payload) > self.cfg.max_payload:
            payload = orjson.dumps(f"<{len(payload)} bytes, over the limit: not kept>")
        scope = entry_scope(fields)
        return ["cmd", scope if scope.isdigit() else "", payload]

    def _reject(
        self,
        entry: Entry,
        cid: str,
        gid: str,
        code: str,
        message: str,
        game: GameEntry | None = None,
        *,
        env: CommandEnvelope | CreateEnvelope | None = None,
        record: bool = True,
    ) -> Plan:
        """A rejection. ``record``: the sender is authenticated (or it is a creation), so the outcome is stored
        under its command id (for ``rejected_ttl_ms``); else it is only answered on the reply list."""
        shard = entry[0]
        # Judged against a state: the commit checks that state's version is still the stored one.
        base = game.version if game is not None and record else -1
        scope = env.scope if env is not None else entry_scope(entry[2] or {})
        digest = env.digest() if env is not None else ""
        outcome = {
            "command_id": cid,
            "game_id": gid,
            "shard": shard,
            "status": "rejected",
            "version": game.version if game is not None else None,
            "rejection": {"code": code, "message": message},
            "digest": digest or None,
        }
        args = self._args(
            entry, "reject", base, outcome, cid, gid, "", _now_ms(), outcome_ttl_ms=self.cfg.rejected_ttl_ms,
            digest=digest, record=record,
        )  # fmt: skip
        keys = self._keys(shard, gid, scope, cid)
        return Plan(entry, "reject", gid, cid, keys, args, outcome, scope=scope, digest=digest)

    def _conflict_plan(self, plan: Plan) -> Plan:
        """The answer to a command whose id this seat used already for another command: only replied."""
        shard = plan.entry[0]
        cid = plan.command_id or ""
        outcome = conflict_outcome(cid, plan.game_id, shard, plan.digest or None).model_dump(mode="json")
        args = self._args(
            plan.entry, "reject", -1, outcome, cid, plan.game_id, "", _now_ms(),
            outcome_ttl_ms=self.cfg.rejected_ttl_ms, digest=plan.digest, record=False,
        )  # fmt: skip
        keys = self._keys(shard, plan.game_id, plan.scope, cid)
        return Plan(plan.entry, "reject", plan.game_id, cid, keys, args, outcome, scope=plan.scope, digest=plan.digest)

    def _dead_plan(self, entry: Entry, reason: str, attempts: int) -> Plan:
        shard, eid, fields = entry
        fields = fields or {}
        cid = fields.get(b"id", b"").decode(errors="replace")
        gid = fields.get(b"game", b"").decode(errors="replace")
        usable_cid = bool(env_mod.COMMAND_ID_RE.match(cid))
        usable_gid = bool(env_mod.GAME_ID_RE.match(gid))
        key_gid = gid if usable_gid else NO_GAME
        scope = entry_scope(fields)
        try:
            digest = parse_entry(fields, self.cfg.max_payload).digest()
        except EnvelopeError:
            digest = ""
        outcome: dict[str, Any] = {
            "command_id": cid,
            "game_id": key_gid,
            "shard": shard,
            "status": "dead_letter",
            "rejection": {"code": env_mod.DEAD_LETTER, "message": reason},
            "digest": digest or None,
        }
        # The dead letter keeps a bounded excerpt of every field: enough to diagnose, never 10 MB again. A raw
        # seat token (sent by an outdated client) is never kept; the proof is, so that a retry still proves
        # the seat. When the excerpt is the whole entry, an operator may put it back on the stream
        # (services/store/deadletters.py).
        kept = {k: v for k, v in fields.items() if k != b"token"}
        excerpt = {
            k.decode(errors="replace")[:64]: v[:512].decode(errors="replace") + ("..." if len(v) > 512 else "")
            for k, v in list(kept.items())[:32]
        }
        complete = len(kept) <= 32 and all(
            len(k) <= 64 and len(v) <= 512 and _is_utf8(k) and _is_utf8(v) for k, v in kept.items()
        )
        dead = {
            "entry": eid.decode(),
            "reason": reason,
            "attempts": str(attempts),
            "worker": self.worker_id,
            "at": str(_now_ms()),
            "command_id": cid[:200],
            "game_id": gid[:200],
            "fields": orjson.dumps(excerpt).decode(),
            "complete": "1" if complete else "0",
        }
        args = self._args(
            entry, "dead", -1, outcome if usable_cid else None, cid if usable_cid else "", key_gid, "", _now_ms(),
            outcome_ttl_ms=self.cfg.outcome_ttl_ms, digest=digest, record=True, meta=dead, log=False,
        )  # fmt: skip
        keys = self._keys(shard, key_gid, scope, cid if usable_cid else "_")
        return Plan(
            entry, "dead", key_gid, cid if usable_cid else None, keys, args, outcome, reason=reason, scope=scope,
            digest=digest,
        )  # fmt: skip

    def _failed(self, entry: Entry, env: Any, exc: Exception, rnd: _Round) -> Plan | None:
        shard, eid, _ = entry
        n = self._attempts[(shard, eid)] = self._attempts.get((shard, eid), 0) + 1
        gid = getattr(env, "game_id", None)
        cid = getattr(env, "command_id", None)
        self.log.error("command.failed", shard=shard, game=gid, cid=cid, attempt=n, error=repr(exc)[:500])
        if gid is not None:
            rnd.held.add(gid)
            # Its state may be half-built: reload it next time.
            self.cache.pop(gid, None)
            rnd.known.pop(gid, None)
        if shard not in self.leases:
            return None
        if n >= self.cfg.max_attempts:
            return self._dead_plan(entry, f"failed {n} times: {exc!r}"[:1000], n)
        self._reread.add(shard)
        return None

    def _commit(self, plans: list[Plan], rnd: _Round) -> list[Entry]:
        if not plans:
            return []
        pipe = self.r.pipeline(transaction=False)
        sha = self.scripts.commit
        for p in plans:
            pipe.execute_command("EVALSHA", sha, len(p.keys), *p.keys, *p.args)  # see refresh_leases
        # A lost connection raises here: the run loop backs off, then rereads what is still pending (a commit
        # that did happen answers the reread as a duplicate).
        results = pipe.execute(raise_on_error=False)
        redo: list[Entry] = []
        follow: list[Plan] = []
        tainted: set[str] = set()
        stalled: set[str] = set()
        for p, res in zip(plans, results, strict=True):
            shard = p.entry[0]
            ctx = {"shard": shard, "game": p.game_id, "cid": p.command_id}
            if isinstance(res, Exception):
                tainted.add(p.game_id)
                self.cache.pop(p.game_id, None)
                if isinstance(res, redis.exceptions.NoScriptError) or is_transient(res):
                    # Redis could not do it now (out of memory, restarted, failing over): the command is fine.
                    # Commit it again after a backoff, in order, and count no attempt.
                    if isinstance(res, redis.exceptions.NoScriptError):
                        self.scripts = Scripts.load(self.r)
                    else:
                        self._outage.failed(res, shard=shard)
                    self._retry.append(p.entry)
                    stalled.add(p.game_id)
                else:
                    plan = self._failed(p.entry, p, res, rnd)
                    if plan is not None:
                        follow.append(plan)
                continue
            tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
            if tag == "OK":
                stored = int(res[1])
                version = stored if stored >= 0 else None  # -1: the entry names no existing game
                self._attempts.pop((shard, p.entry[1]), None)
                if p.after is not None and p.game_id not in tainted:
                    self._cache_put(p.after)
                self.stats[p.op] += 1
                if p.op == "dead":
                    self.log.error("command.dead_letter", **ctx, version=version, reason=p.reason)
                elif p.op == "reject":
                    rej = p.outcome["rejection"]
                    self.log.info("command.rejected", **ctx, version=version, code=rej["code"], message=rej["message"])
                else:
                    self.log.info("command.accepted", **ctx, version=version, events=p.outcome["events"])
            elif tag in ("DUP", "IDCONFLICT"):
                self._attempts.pop((shard, p.entry[1]), None)
                if tag == "DUP":
                    self.stats["duplicate"] += 1
                    self.log.info("command.duplicate", **ctx)
                else:
                    self.stats["id_conflict"] += 1
                    follow.append(self._conflict_plan(p))
                if p.after is not None:
                    # The plan moved the game ahead speculatively; later plans of it will meet CONFLICT.
                    tainted.add(p.game_id)
                    self.cache.pop(p.game_id, None)
            elif tag == "CONFLICT":
                tainted.add(p.game_id)
                self.cache.pop(p.game_id, None)
                if p.game_id in stalled:
                    # An earlier command of the game is waiting for Redis: this one waits behind it.
                    self._retry.append(p.entry)
                    continue
                self.stats["conflict"] += 1
                self.log.warning("command.conflict", **ctx, stored=res[1])
                redo.append(p.entry)
            elif tag == "FENCED":
                if shard in self.leases:
                    self._lose(shard, "fenced at commit")
                self.stats["fenced"] += 1
            else:  # pragma: no cover - the script returns nothing else
                raise RuntimeError(f"commit script said {res!r}")
        if follow:
            redo += self._commit(follow, rnd)
        return redo

    # --- maintenance ----------------------------------------------------------------------------------
    def maintain(self) -> int:
        """Archive games ended more than ``archive_after_ms`` ago, forget consumers of long-gone workers.

        Returns how many games were archived.
        """
        for shard in list(self.leases):
            with contextlib.suppress(redis.ResponseError):
                for consumer in self.r.xinfo_consumers(self.layout.cmds(shard), GROUP):
                    name = consumer["name"].decode() if isinstance(consumer["name"], bytes) else consumer["name"]
                    # Every worker process is a consumer of its own; one with nothing pending, silent for
                    # long, is gone (its pending entries were claimed long ago).
                    idle = consumer["idle"] >= self.cfg.forget_consumer_after_ms
                    if name != self.worker_id and consumer["pending"] == 0 and idle:
                        self.r.xgroup_delconsumer(self.layout.cmds(shard), GROUP, name)
        done = 0
        cutoff = _now_ms() - self.cfg.archive_after_ms
        for shard, token in list(self.leases.items()):
            for raw_gid in self.r.zrangebyscore(self.layout.ended(shard), "-inf", cutoff, start=0, num=50):
                gid = raw_gid.decode()
                meta = read_meta(self.r, self.layout, gid)
                if meta is None:
                    self.r.zrem(self.layout.ended(shard), gid)
                    continue
                events = read_events(self.r, self.layout, gid)
                commands = read_commands(self.r, self.layout, gid)
                lay = self.layout
                res = self.r.evalsha(
                    self.scripts.archive,
                    7,
                    lay.lease(shard),
                    lay.meta(shard, gid),
                    lay.events(shard, gid),
                    lay.snap(shard, gid),
                    lay.archive(shard, gid),
                    lay.ended(shard),
                    lay.commands(shard, gid),
                    token,
                    make_archive(meta, events, commands),
                    meta.get("version", "0"),
                    gid,
                    _now_ms(),
                    commands[-1].log_id if commands else "",
                )
                if res[0] == b"OK":
                    done += 1
                    self.cache.pop(gid, None)
                    self.log.info("game.archived", shard=shard, game=gid, version=int(meta.get("version", 0)))
                elif res[0] == b"FENCED":
                    self._lose(shard, "fenced at archive")
                    break
        return done

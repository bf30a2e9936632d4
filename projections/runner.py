"""The projection worker: one read model fed by every shard's event feed through its own consumer group.

The loop reads a batch of feed entries (XREADGROUP, group ``proj:<model>``), groups them by game, brings each
game's context up to the model's checkpoint (cached; else restored from the store's snapshot and the recorded
events), lets the model compute its writes, and applies each game's writes with the apply script, which checks
the model's checkpoint for that game and moves it in the same atomic step. Only then are the entries acked.

* Idempotent per (game, version): an event at or below the checkpoint is skipped, so a redelivered entry (a
  worker killed between apply and ack) changes nothing; a write computed from a stale checkpoint is refused.
* Nothing lost: an event above checkpoint + 1 (a feed trimmed while the model was away, or a rebuild) makes the
  worker read the missing events from the event store, which is the truth; the feed is only the notification.
* A worker that restarts first re-reads its own pending entries, and claims those another consumer left idle.
* A game that fails (an event its decider cannot fold) is logged and skipped; its next event retries it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx, Projection
from projections.store import Ops, ProjectionScripts, RMKeys, group_of
from services.bus.connection import is_cluster
from services.bus.keys import Layout
from services.bus.streams import GroupReader
from services.log import get_logger
from services.rules.decider import Decider
from services.rules.registry import get_decider
from services.store.eventstore import load_raw, read_events


@dataclass(frozen=True, slots=True)
class RunnerConfig:
    """Tuning of a projection worker; tests shorten the timings."""

    batch: int = 500
    """Feed entries read per XREADGROUP (per shard stream)."""
    block_ms: int = 100
    claim_idle_ms: int = 30_000
    """Pending entries of another consumer idle this long are taken over (that consumer is presumed dead)."""
    recover_every_ms: int = 5000
    cache_size: int = 5000
    """Game contexts (decider state at the checkpoint) kept in memory."""
    backfill_chunk: int = 500
    """Events per apply when catching up from the event store (rebuilds, gaps)."""
    gather_ms: int = 10
    """While entries keep coming, read at most every this many ms (more per read: far less CPU per event)."""
    lag_samples: int = 0
    """Keep this many commit-to-write lags (ms) of live events in ``lags`` (0: none; the benchmark asks)."""


@dataclass(frozen=True, slots=True)
class FeedEvent:
    """One feed entry: game, version, event JSON, commit ms, command id."""

    game_id: str
    version: int
    raw: bytes
    at: int
    command_id: str


def _raw_reply(response: Any, **options: Any) -> Any:
    return response


def _now_ms() -> float:
    return time.time() * 1000


class FoldCache:
    """Parsed events and the states after them, by (game, version), shared by the models of one process.

    The models read the same feed at about the same time; the first to fold an event saves the others the
    JSON parsing, validation and ``evolve`` of it. Sound because a game's state after version v depends only
    on its recorded events 1..v, which never change, and states are immutable values.
    """

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        # An OrderedDict: evicting the oldest of a plain dict (next(iter(d))) scans the deleted slots: O(n).
        self._items: OrderedDict[tuple[str, int], tuple[Any, dict[str, Any], Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, game_id: str, version: int) -> tuple[Any, dict[str, Any], Any] | None:
        """(event, its JSON as a dict, state after it), or None."""
        got = self._items.get((game_id, version))
        if got is not None:
            self.hits += 1
        return got

    def put(self, game_id: str, version: int, item: tuple[Any, dict[str, Any], Any]) -> None:
        """Remember one folded event (the oldest entries go first)."""
        with self._lock:
            self._items[(game_id, version)] = item
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class ProjectionWorker:
    """Keeps one read model (``model``) up to date from the feeds of ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        model: Projection,
        shards: Iterable[int] | None = None,
        *,
        layout: Layout | None = None,
        config: RunnerConfig | None = None,
        consumer: str = "main",
        deciders: Callable[[str], Decider] = get_decider,
        fold_cache: FoldCache | None = None,
    ) -> None:
        self.r = client
        self.model = model
        self.layout = layout or Layout.from_env()
        self.keys = RMKeys(self.layout)
        self.cfg = config or RunnerConfig()
        self.shards = sorted(set(range(self.layout.shards) if shards is None else shards))
        self.group = group_of(model.name)
        self.consumer = consumer
        self._deciders = deciders
        self.fold_cache = fold_cache
        self.scripts = ProjectionScripts.load(client)
        self.cache: OrderedDict[str, GameCtx] = OrderedDict()
        self.lags: deque[float] = deque(maxlen=self.cfg.lag_samples)
        """Milliseconds from an event's commit to its write in this model (live events only)."""
        self.stats: dict[str, int] = {"events": 0, "duplicates": 0, "backfilled": 0, "stale": 0, "failed": 0}
        self._reader = GroupReader(client, self.group, consumer)
        self._raw: redis.Redis | None = None
        if not is_cluster(client):
            # A client of its own on the same pool whose XREADGROUP replies stay raw lists: redis-py turns every
            # entry into a dict the slow way (the biggest cost of following a busy feed), this does it in C.
            self._raw = redis.Redis(connection_pool=client.connection_pool)
            self._raw.set_response_callback("XREADGROUP", _raw_reply)
        self._pending = set(self.shards)
        self._next_recover = 0.0
        self._ready = False
        self._last_read = 0.0
        self._last_batch = 0
        self.log = get_logger("projection", model=model.name, consumer=consumer)

    # --- setup ----------------------------------------------------------------------------------------
    def ensure_groups(self) -> list[int]:
        """Create the model's group on each shard feed (from the feed's start); returns shards created now.

        A model that is new on a shard first catches up every game of it from the event store (the feed may
        have been trimmed long ago), so starting a model on an old deployment loses nothing either.
        """
        created = []
        for shard in self.shards:
            try:
                self.r.xgroup_create(self.layout.feed(shard), self.group, id="0", mkstream=True)
                created.append(shard)
            except redis.ResponseError as err:
                if "BUSYGROUP" not in str(err):
                    raise
        for shard in created:
            self.backfill_shard(shard)
        return created

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; errors are logged and the loop goes on (with a short back-off)."""
        stop = stop or threading.Event()
        backoff = 0.05
        self.log.info("projection.start", shards=len(self.shards))
        while not stop.is_set():
            try:
                if not self._ready:
                    self.ensure_groups()
                    self._ready = True
                self.step()
                backoff = 0.05
            except redis.exceptions.NoScriptError:
                self.scripts = ProjectionScripts.load(self.r)
            except Exception as exc:
                self.log.exception("projection.error", error=repr(exc))
                self._pending.update(self.shards)
                stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
        self.log.info("projection.stop", **self.stats)

    def run_until_idle(self, max_steps: int = 100_000) -> int:
        """Step until nothing is left to read (tests, benchmarks); returns the entries handled."""
        if not self._ready:
            self.ensure_groups()
            self._ready = True
        total = 0
        for _ in range(max_steps):
            n = self.step(block_ms=0)
            total += n
            if n == 0 and not self._pending:
                break
        return total

    def step(self, block_ms: int | None = None) -> int:
        """Read one batch (own pending entries first), apply it, ack it; returns the entries read."""
        now = time.monotonic()
        if now >= self._next_recover:
            self._claim_idle()
            self._next_recover = now + self.cfg.recover_every_ms / 1000
        if block_ms is None and self._last_batch and now < self._last_read + self.cfg.gather_ms / 1000:
            # Busy: let entries gather a few ms rather than pay a read, an apply and an ack for each one or two.
            # (After a quiet spell the next read blocks and wakes at once: an idle feed adds no delay.)
            time.sleep(self._last_read + self.cfg.gather_ms / 1000 - now)
        self._last_read = time.monotonic()
        entries = self._read(self.cfg.block_ms if block_ms is None else block_ms)
        self._last_batch = len(entries)
        if entries:
            self.handle(entries)
        return len(entries)

    def _group_read(self, streams: dict[str, str], block_ms: int) -> list[tuple[bytes, list[Any]]]:
        if self._raw is None:
            return self._reader.read(streams, count=self.cfg.batch, block_ms=block_ms)
        res = self._raw.xreadgroup(
            self.group, self.consumer, streams, count=self.cfg.batch, block=block_ms if block_ms > 0 else None
        )
        out = []
        # A list of [key, entries] pairs (RESP2), or a map of them (RESP3, and fakeredis).
        for key, entries in res.items() if isinstance(res, dict) else res or ():
            if entries:
                # [id, [f1, v1, f2, v2, ...]] -> (id, {f1: v1, ...}); a deleted entry has no fields (None)
                out.append((key, [(eid, dict(zip(f[::2], f[1::2], strict=True)) if f else None) for eid, f in entries]))
        return out

    def _read(self, block_ms: int) -> list[tuple[int, bytes, dict[bytes, bytes] | None]]:
        out: list[tuple[int, bytes, dict[bytes, bytes] | None]] = []
        if self._pending:
            for shard in sorted(self._pending):
                got = self._group_read({self.layout.feed(shard): "0"}, 0)
                entries = got[0][1] if got else []
                if len(entries) < self.cfg.batch:
                    self._pending.discard(shard)
                out.extend((shard, eid, f) for eid, f in entries)
            if out:
                return out
        streams = {self.layout.feed(s): ">" for s in self.shards}
        by_key = {self.layout.feed(s).encode(): s for s in self.shards}
        for key, got in self._group_read(streams, block_ms):
            out.extend((by_key[key], eid, f) for eid, f in got)
        return out

    def _claim_idle(self) -> None:
        for shard in self.shards:
            with contextlib.suppress(redis.ResponseError):  # NOGROUP before ensure_groups
                _, claimed, *_ = self.r.xautoclaim(
                    self.layout.feed(shard), self.group, self.consumer, self.cfg.claim_idle_ms, count=self.cfg.batch
                )
                if claimed:
                    self._pending.add(shard)

    # --- apply ----------------------------------------------------------------------------------------
    def handle(self, entries: Sequence[tuple[int, bytes, dict[bytes, bytes] | None]]) -> None:
        """Apply a batch of feed entries (any shards, any games), then ack them all."""
        by_game: dict[str, list[FeedEvent]] = {}
        acks: dict[int, list[bytes]] = {}
        for shard, eid, fields in entries:
            acks.setdefault(shard, []).append(eid)
            if not fields or b"g" not in fields or b"v" not in fields or b"e" not in fields:
                continue  # deleted or not an event: nothing to project
            try:
                fe = FeedEvent(
                    fields[b"g"].decode(),
                    int(fields[b"v"]),
                    fields[b"e"],
                    int(fields.get(b"t", b"0") or 0),
                    fields.get(b"c", b"").decode(),
                )
            except (ValueError, UnicodeDecodeError):
                self.log.error("projection.bad_entry", shard=shard, entry=eid.decode())
                continue
            by_game.setdefault(fe.game_id, []).append(fe)
        if by_game:
            self.apply_games({gid: sorted(evs, key=lambda e: e.version) for gid, evs in by_game.items()}, live=True)
        self._ack(acks)

    def _ack(self, acks: dict[int, list[bytes]]) -> None:
        """Ack handled entries (a crash before this only means they come again, and are skipped as applied)."""
        pipe = self.r.pipeline(transaction=False)
        for shard, ids in acks.items():
            pipe.xack(self.layout.feed(shard), self.group, *ids)
        pipe.execute()

    def apply_games(self, feed: dict[str, list[FeedEvent]], live: bool = False) -> None:
        """Bring each game of ``feed`` up to at least its newest listed version, applying every event once."""
        todo = dict(feed)
        setbacks: dict[str, int] = {}
        while todo:
            progress: dict[str, int] = {}
            todo = self._apply_round(todo, live, progress)
            for gid in list(todo):
                if progress.get(gid):
                    setbacks[gid] = 0
                    continue
                # Refused again and again (a racing writer that keeps winning, a broken script): give up
                # for now; the game's next event, or a rebuild, retries it from its checkpoint.
                setbacks[gid] = setbacks.get(gid, 0) + 1
                if setbacks[gid] >= 3:
                    del todo[gid]
                    self.stats["failed"] += 1
                    self.log.error("projection.gave_up", game=gid, shard=self.layout.shard_of(gid))

    def _apply_round(
        self, feed: dict[str, list[FeedEvent]], live: bool, progress: dict[str, int]
    ) -> dict[str, list[FeedEvent]]:
        work: list[tuple[GameCtx, Any, list[Applied], int]] = []
        self._load_new([gid for gid in feed if gid not in self.cache])
        for gid, events in feed.items():
            try:
                prepared = self._prepare(gid, events)
            except Exception as exc:
                self.cache.pop(gid, None)
                self.stats["failed"] += 1
                self.log.error("projection.game_failed", game=gid, shard=self.layout.shard_of(gid), error=repr(exc))
                continue
            if prepared is not None:
                work.append(prepared)
        if not work:
            return {}
        extras = self.model.prefetch(self.r, self.keys, [(ctx, batch) for ctx, _, batch, _ in work])
        pipe = self.r.pipeline(transaction=False)
        planned: list[tuple[GameCtx, list[Applied], int]] = []
        for ctx, before, batch, base in work:
            ops = Ops()
            try:
                self.model.write(ctx, before, batch, ops, self.keys, extras.get(ctx.game_id))
                self.model.before_apply(self.r, self.keys, self.scripts, ctx, batch)
            except Exception as exc:
                self.cache.pop(ctx.game_id, None)
                self.stats["failed"] += 1
                self.log.error("projection.game_failed", game=ctx.game_id, shard=ctx.shard, error=repr(exc))
                continue
            args = ops.script_args(self.keys.applied(ctx.shard, self.model.name), ctx.game_id, base, batch[-1].version)
            # execute_command, not pipe.evalsha: redis-py refuses the latter in cluster pipelines.
            pipe.execute_command("EVALSHA", self.scripts.apply, *args)
            planned.append((ctx, batch, base))
        results = pipe.execute(raise_on_error=False)
        now = _now_ms()
        retry: dict[str, list[FeedEvent]] = {}
        for (ctx, batch, _base), res in zip(planned, results, strict=True):
            if isinstance(res, Exception):
                if isinstance(res, redis.exceptions.NoScriptError):
                    self.scripts = ProjectionScripts.load(self.r)
                self.cache.pop(ctx.game_id, None)
                self.log.error("projection.apply_error", game=ctx.game_id, shard=ctx.shard, error=repr(res))
                retry[ctx.game_id] = feed[ctx.game_id]
                continue
            tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
            if tag == "OK":
                ctx.state = batch[-1].state
                ctx.version = batch[-1].version
                self._cache_put(ctx)
                self.stats["events"] += len(batch)
                progress[ctx.game_id] = len(batch)
                if live and self.cfg.lag_samples:
                    self.lags.extend(now - a.at for a in batch if a.at)
                if ctx.version < feed[ctx.game_id][-1].version:
                    retry[ctx.game_id] = feed[ctx.game_id]  # caught up one chunk of a long gap: go on
            else:
                # Someone else (a rebuild, a second worker) moved the checkpoint: recompute from it.
                self.stats["stale"] += 1
                self.cache.pop(ctx.game_id, None)
                retry[ctx.game_id] = feed[ctx.game_id]
        return retry

    def _prepare(self, gid: str, events: list[FeedEvent]) -> tuple[GameCtx, Any, list[Applied], int] | None:
        """The game's context and its next events to apply (from the feed, or the store across a gap)."""
        ctx = self.cache.get(gid)
        if ctx is None:
            ctx = self._load(gid)
            if ctx is None:
                return None
        else:
            self.cache.move_to_end(gid)
        target = events[-1].version
        fresh = [e for e in events if e.version > ctx.version]
        self.stats["duplicates"] += len(events) - len(fresh)
        if not fresh:
            return None
        # An entry without JSON is a marker from catch_up: the events come from the store.
        contiguous = all(e.raw and e.version == ctx.version + 1 + i for i, e in enumerate(fresh))
        if not contiguous:
            stored = read_events(self.r, self.layout, gid, after=ctx.version)
            stored = [e for e in stored if e.version <= max(target, ctx.version + self.cfg.backfill_chunk)]
            stored = stored[: self.cfg.backfill_chunk]
            self.stats["backfilled"] += len(stored)
            fresh = [FeedEvent(gid, e.version, orjson.dumps(e.data), e.at, e.command_id) for e in stored]
            if not fresh:
                return None
        decider = ctx.decider
        before = ctx.state
        state = before
        batch = []
        cache = self.fold_cache
        for fe in fresh:
            hit = cache.get(gid, fe.version) if cache is not None else None
            if hit is not None:
                event, data, state = hit
            else:
                event = decider.parse_event(fe.raw)  # from the bytes: validating JSON beats validating a dict
                data = orjson.loads(fe.raw)
                state = decider.evolve(state, event)
                if cache is not None:
                    cache.put(gid, fe.version, (event, data, state))
            batch.append(Applied(fe.version, event, data, fe.at, fe.command_id, state, fe.raw))
        return ctx, before, batch, ctx.version

    def _load_new(self, gids: list[str]) -> None:
        """Contexts of games this model has applied nothing of yet, in one round trip (a burst of new games);
        the others are left to :meth:`_load`."""
        if not gids:
            return
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            shard = self.layout.shard_of(gid)
            pipe.hget(self.keys.applied(shard, self.model.name), gid)
            pipe.hmget(self.layout.meta(shard, gid), "name", "players")
        got = pipe.execute()
        for i, gid in enumerate(gids):
            applied, (name, players) = got[2 * i], got[2 * i + 1]
            if applied is not None or name is None:
                continue  # started already (or gone): the full load
            try:
                decider = self._deciders(name.decode())
            except (KeyError, ImportError):
                continue  # _load reports it
            ctx_players = tuple(orjson.loads(players or b"[]"))
            shard = self.layout.shard_of(gid)
            self._cache_put(GameCtx(gid, shard, name.decode(), decider, ctx_players, decider.initial_state(), 0))

    def _load(self, gid: str) -> GameCtx | None:
        """A game's context at this model's checkpoint: store snapshot (if not past it) plus recorded events."""
        shard = self.layout.shard_of(gid)
        applied = int(self.r.hget(self.keys.applied(shard, self.model.name), gid) or 0)
        raw = load_raw(self.r, self.layout, shard, gid)
        if raw is None:
            return None
        name = raw.meta.get("name", "")
        decider = self._deciders(name)
        players = tuple(orjson.loads(raw.meta.get("players", "[]")))
        if raw.snapshot is not None and raw.snapshot_version <= applied:
            state, version = decider.restore(raw.snapshot), raw.snapshot_version
        else:
            state, version = decider.initial_state(), 0
        if version < applied:
            for e in read_events(self.r, self.layout, gid, after=version):
                if e.version > applied:
                    break
                state = decider.evolve(state, decider.parse_event(e.data))
                version = e.version
        if version != applied:
            raise RuntimeError(f"game {gid}: events end at {version}, the checkpoint says {applied}")
        ctx = GameCtx(gid, shard, name, decider, players, state, version)
        self._cache_put(ctx)
        return ctx

    def _cache_put(self, ctx: GameCtx) -> None:
        self.cache[ctx.game_id] = ctx
        self.cache.move_to_end(ctx.game_id)
        while len(self.cache) > self.cfg.cache_size:
            self.cache.popitem(last=False)

    # --- catching up from the store --------------------------------------------------------------------
    def catch_up(self, game_id: str) -> None:
        """Apply every recorded event of a game this model has not applied yet (from the event store)."""
        meta_version = self.r.hget(self.layout.meta(self.layout.shard_of(game_id), game_id), "version")
        if meta_version is None:
            return
        # A marker (no JSON) at the stored version: apply_games reads the events from the store, in chunks.
        self.apply_games({game_id: [FeedEvent(game_id, int(meta_version), b"", 0, "")]}, live=False)

    def games_of_shard(self, shard: int) -> list[str]:
        """Every game of a shard in the event store (live, ended and archived), by its metadata key."""
        prefix = f"{self.layout.tag(shard)}:game:"
        out = []
        for key in self.r.scan_iter(match=f"{prefix}*:meta", count=1000):
            text = key.decode() if isinstance(key, bytes) else key
            out.append(text[len(prefix) : -len(":meta")])
        return sorted(out)

    def backfill_shard(self, shard: int) -> int:
        """Catch up every game of a shard from the event store; returns the number of games."""
        games = self.games_of_shard(shard)
        for gid in games:
            self.catch_up(gid)
        return len(games)

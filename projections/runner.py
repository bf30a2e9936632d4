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
* A game that fails (an event its rules cannot fold) is logged and skipped; its next event retries it.
* Writes outside the game's slot (the leaderboards) are owed in the apply and paid right after it; what a crash
  or a failure leaves owed is paid at start and every recovery period (projections/tally.py).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from projections.base import Applied, GameCtx, Projection
from projections.contexts import FeedEvent, FoldCache, GameContexts
from projections.store import Ops, ProjectionScripts, RMKeys, group_of
from services.bus.consumer import ConsumerLoop, Entry, GroupConsumer, PendingFirst
from services.bus.keys import Layout
from services.log import get_logger
from services.metrics import catalog as metrics
from services.store.eventstore import Announced, parse_feed_entry, read_announced
from services.store.repository import GameLookup, GameRepository, registry_game

__all__ = ["FeedEvent", "FoldCache", "ProjectionWorker", "RunnerConfig"]


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
    """Game contexts (state at the checkpoint) kept in memory."""
    backfill_chunk: int = 500
    """Events per apply when catching up from the event store (rebuilds, gaps)."""
    gather_ms: int = 10
    """While entries keep coming, read at most every this many ms (more per read: far less CPU per event)."""
    lag_samples: int = 0
    """Keep this many commit-to-write lags (ms) of live events in ``lags`` (0: none; the benchmark asks)."""


def _now_ms() -> float:
    return time.time() * 1000


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
        games: GameLookup = registry_game,
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
        self.scripts = ProjectionScripts.load_or_expect(client)
        self.lags: deque[float] = deque(maxlen=self.cfg.lag_samples)
        """Milliseconds from an event's commit to its write in this model (live events only)."""
        self._lag_seconds = metrics.PROJECTION_LAG_SECONDS.labels(model.name)
        self.stats: dict[str, int] = {"events": 0, "duplicates": 0, "backfilled": 0, "stale": 0, "failed": 0}
        # The model's warm repository: its cache holds each game at this model's checkpoint.
        self.repo = GameRepository(client, self.layout, games=games, cache_size=self.cfg.cache_size)
        self.contexts = GameContexts(
            client, self.keys, model.name, self.repo,
            backfill_chunk=self.cfg.backfill_chunk, fold_cache=fold_cache, stats=self.stats,
        )  # fmt: skip
        self.feeds = GroupConsumer(client, self.group, consumer, self.layout.feed, batch=self.cfg.batch)
        self.log = get_logger("projection", model=model.name, consumer=consumer)
        self.loop = ConsumerLoop(self.log, "projection")
        self.reading = PendingFirst(
            self.feeds, self.shards, claim_idle_ms=self.cfg.claim_idle_ms, recover_every_ms=self.cfg.recover_every_ms
        )
        self.reading.restart()  # a worker that restarts first re-reads its own pending entries
        self._ready = False
        self._last_read = 0.0
        self._last_batch = 0
        self._next_settle = 0.0
        """When the model next makes good what earlier applies left owed (at once on start)."""

    @property
    def cache(self) -> Any:
        """The game contexts at this model's checkpoints (LRU)."""
        return self.contexts.cache

    # --- setup ----------------------------------------------------------------------------------------
    def ensure_groups(self) -> list[int]:
        """Create the model's group on each shard feed (from the feed's start); returns shards created now.

        A model that is new on a shard first catches up every game of it from the event store (the feed may
        have been trimmed long ago), so starting a model on an old deployment loses nothing either.
        """
        created = self.feeds.create_groups(self.shards, start="0")
        for shard in created:
            self.backfill_shard(shard)
        return created

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; errors are logged and the loop goes on (with a growing pause)."""
        self.log.info("projection.start", shards=len(self.shards))
        self.loop.run(self._serve_step, stop or threading.Event(), on_error=self._on_error)
        self.log.info("projection.stop", **self.stats)

    def _serve_step(self) -> None:
        if not self._ready:
            self.ensure_groups()
            self._ready = True
        if time.monotonic() >= self._next_settle:
            self._settle()
        self.step()

    def _on_error(self, exc: Exception) -> None:
        if isinstance(exc, redis.exceptions.NoScriptError):
            self.scripts = ProjectionScripts.load(self.r)
        else:
            self.reading.restart()  # what was read and not acked comes again

    def run_until_idle(self, max_steps: int = 100_000) -> int:
        """Step until nothing is left to read (tests, benchmarks); returns the entries handled."""
        if not self._ready:
            self.ensure_groups()
            self._ready = True
        self._settle()
        total = 0
        for _ in range(max_steps):
            n = self.step(block_ms=0)
            total += n
            if n == 0 and not self.reading.pending:
                break
        return total

    def step(self, block_ms: int | None = None) -> int:
        """Read one batch (own pending entries first), apply it, ack it; returns the entries read."""
        now = time.monotonic()
        self.reading.claim_idle_when_due(now)
        if block_ms is None and self._last_batch and now < self._last_read + self.cfg.gather_ms / 1000:
            # Busy: let entries gather a few ms rather than pay a read, an apply and an ack for each one or two.
            # (After a quiet spell the next read blocks and wakes at once: an idle feed adds no delay.)
            time.sleep(self._last_read + self.cfg.gather_ms / 1000 - now)
        self._last_read = time.monotonic()
        entries = self.reading.read(self.cfg.block_ms if block_ms is None else block_ms)
        self._last_batch = len(entries)
        if entries:
            self.handle(entries)
        return len(entries)

    # --- apply ----------------------------------------------------------------------------------------
    def handle(self, entries: Sequence[Entry]) -> None:
        """Apply a batch of feed entries (any shards, any games), then ack them all."""
        announced: list[Announced] = []
        for shard, eid, fields in entries:
            if not fields:
                continue  # deleted meanwhile: nothing to project
            found = parse_feed_entry(fields)
            if found is None:
                self.log.error("projection.bad_entry", shard=shard, entry=eid.decode())
                continue
            announced.append(found)
        if announced:
            # The feed announces versions; the events come from the games' streams, one pipelined read.
            bodies = read_announced(self.r, self.layout, announced)
            newest: dict[str, Announced] = {}
            for a in announced:
                if a.game_id not in newest or a.last > newest[a.game_id].last:
                    newest[a.game_id] = a
            by_game: dict[str, list[FeedEvent]] = {}
            for gid, a in newest.items():
                items = bodies.get(gid) or []
                # Nothing readable (the game went away meanwhile): a marker, so the store is asked (the gap path).
                by_game[gid] = items or [FeedEvent(gid, a.last, b"", a.at, a.command_id)]
            self.apply_games(by_game, live=True)
        acks: dict[int, list[bytes]] = {}
        for shard, eid, _ in entries:
            acks.setdefault(shard, []).append(eid)
        self._ack(acks)

    def _ack(self, acks: dict[int, list[bytes]]) -> None:
        """Ack handled entries (a crash before this only means they come again, and are skipped as applied)."""
        self.feeds.ack((shard, eid) for shard, ids in acks.items() for eid in ids)

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
        self.contexts.load_new(list(feed))
        for gid, events in feed.items():
            try:
                prepared = self.contexts.prepare(gid, events)
            except Exception as exc:
                self.contexts.drop(gid)
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
            except Exception as exc:
                self.contexts.drop(ctx.game_id)
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
        applied: list[GameCtx] = []
        for (ctx, batch, _base), res in zip(planned, results, strict=True):
            if isinstance(res, Exception):
                if isinstance(res, redis.exceptions.NoScriptError):
                    self.scripts = ProjectionScripts.load(self.r)
                self.contexts.drop(ctx.game_id)
                self.log.error("projection.apply_error", game=ctx.game_id, shard=ctx.shard, error=repr(res))
                retry[ctx.game_id] = feed[ctx.game_id]
                continue
            tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
            if tag == "OK":
                ctx = ctx.at(batch[-1].state, batch[-1].version)
                self.contexts.put(ctx)
                applied.append(ctx)
                self.stats["events"] += len(batch)
                progress[ctx.game_id] = len(batch)
                if live:
                    self._observe_lags(now, batch)
                if ctx.version < feed[ctx.game_id][-1].version:
                    retry[ctx.game_id] = feed[ctx.game_id]  # caught up one chunk of a long gap: go on
            else:
                # Someone else (a rebuild, a second worker) moved the checkpoint: recompute from it.
                self.stats["stale"] += 1
                self.contexts.drop(ctx.game_id)
                retry[ctx.game_id] = feed[ctx.game_id]
        self._after_apply(applied)
        return retry

    def _after_apply(self, applied: list[GameCtx]) -> None:
        """The model's writes owed by what was just applied; one that fails stays owed, for :meth:`_settle`."""
        if not applied:
            return
        try:
            self.model.after_apply(self.r, self.keys, self.scripts, applied)
        except redis.RedisError as exc:
            if isinstance(exc, redis.exceptions.NoScriptError):
                self.scripts = ProjectionScripts.load(self.r)
            self.log.error("projection.owed_later", games=len(applied), error=repr(exc))

    def _settle(self) -> None:
        """Make good what earlier applies left owed (a worker killed between the two steps, a failed write)."""
        self.model.settle(self.r, self.keys, self.scripts, self.shards)
        self._next_settle = time.monotonic() + self.cfg.recover_every_ms / 1000

    def _observe_lags(self, now: float, batch: list[Applied]) -> None:
        """Commit-to-write lags of live events: to the histogram, and to ``lags`` when the benchmark asks."""
        observe = self._lag_seconds.observe
        for a in batch:
            if a.at:
                observe((now - a.at) / 1000)
        if self.cfg.lag_samples:
            self.lags.extend(now - a.at for a in batch if a.at)

    # --- catching up from the store --------------------------------------------------------------------
    def catch_up(self, game_id: str) -> None:
        """Apply every recorded event of a game this model has not applied yet (from the event store)."""
        version = self.repo.versions([game_id])[game_id]
        if version is None:
            return
        # A marker (no JSON) at the stored version: apply_games reads the events from the store, in chunks.
        self.apply_games({game_id: [FeedEvent(game_id, version, b"", 0, "")]}, live=False)

    def games_of_shard(self, shard: int) -> list[str]:
        """Every game of a shard in the event store (live, ended and archived), by its metadata key."""
        out = []
        for key in self.r.scan_iter(match=self.layout.game_keys("meta", shard), count=1000):
            found = self.layout.game_of(key, "meta")
            if found is not None:
                out.append(found[1])
        return sorted(out)

    def backfill_shard(self, shard: int) -> int:
        """Catch up every game of a shard from the event store; returns the number of games."""
        games = self.games_of_shard(shard)
        for gid in games:
            self.catch_up(gid)
        return len(games)

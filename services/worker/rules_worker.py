"""The rules worker: the one authoritative writer of each shard it holds.

For each shard it holds a lease (services/worker/leases.py); every write goes through the store's commit script
(services/store/commit.py), which first checks that the lease still holds this worker's token, so a second
worker, or this one after its lease ran out, cannot write anything.

The loop: read a batch from the held shards' command streams with the consumer group (services/bus/consumer.py),
decide each command with the game's rules (services/worker/planning.py: the game is found by the name in its
metadata, never by anything else), then commit the batch in one pipeline. Each commit does fencing check,
duplicate check on the command id, append of the events at the expected version, snapshot, feed append, outcome,
reply and ack, atomically.

Recovery: on taking a shard, and every few seconds, pending entries of other (dead) consumers are claimed. An
entry that fails ``max_attempts`` times on its own content (the rules raise, a script error) goes to the shard's
dead-letter stream with the reason, and its submitter gets a ``dead_letter`` outcome. One delivered more often
than that (workers died holding it) is a suspect: it is decided alone, and dead-lettered only if a worker died
deciding it alone (services/worker/suspects.py). Failures hold back only later commands of the same game, never
the shard.

Transient Redis faults (services/bus/faults.py) are no failure of a command: the commands they hit are kept in
memory and committed again after a capped, jittered backoff, never counted as attempts; recovery and maintenance
pause meanwhile; the episode is logged when it starts and, with a summary, when it ends. Re-reading this
worker's own pending entries leaves their delivery counts alone (only a read or a claim after a crash counts).

Game states live in the repository's bounded LRU cache (services/store/repository.py), reloaded from snapshot
plus tail when missing; they are immutable values, so the worker may decide several commands of one game ahead
of their commits within a batch.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import redis

from services.bus.consumer import ConsumerLoop, Entry, GroupConsumer
from services.bus.entries import EnvelopeError, parse_entry
from services.bus.envelope import CommandEnvelope, CreateEnvelope
from services.bus.keys import GROUP, Layout
from services.log import get_logger
from services.metrics import catalog as metrics
from services.store.commit import CommitStore
from services.store.leases import LeaseStore
from services.store.repository import GameLookup, GameRepository, registry_game
from services.worker.commits import Committer
from services.worker.config import WorkerConfig
from services.worker.leases import LeaseKeeper
from services.worker.maintenance import Maintenance
from services.worker.planning import Plan, Planner, Round, now_ms
from services.worker.suspects import Suspects

__all__ = ["Entry", "RulesWorker", "WorkerConfig"]


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
        games: GameLookup = registry_game,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = cfg = config or WorkerConfig()
        self.shards = sorted(set(shards))
        self.worker_id = worker_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.log = get_logger("rules_worker", worker=self.worker_id)
        self.loop = ConsumerLoop(self.log, "worker", retry_first_ms=cfg.retry_first_ms, retry_cap_ms=cfg.retry_cap_ms)
        self.store = CommitStore(client, self.layout, cfg.commit_policy())
        self.repo = GameRepository(client, self.layout, games=games, cache_size=cfg.cache_size)
        self.lease = LeaseKeeper(
            LeaseStore(client, self.layout, self.store.scripts), self.shards, self.worker_id, cfg.lease_ttl_ms,
            self.loop.outage,
        )  # fmt: skip
        self.consumer = GroupConsumer(
            client, GROUP, self.worker_id, self.layout.cmds, batch=cfg.batch, cluster_poll_ms=cfg.cluster_poll_ms,
            watch=True,  # on a cluster: a thread per shard blocks on its stream, so a command is read at once
        )  # fmt: skip
        # ``clock``: the time stamped on each command (wall-clock ms; tests inject a controlled one).
        self.planner = Planner(self.layout, cfg, self.repo, self.lease.fence, self.worker_id, clock)
        self.maintenance = Maintenance(
            client, self.layout, cfg, self.store, self.consumer, self._fenced_at_archive, self._archived
        )
        self.stats: Counter[str] = Counter()
        self.committer = Committer(
            self.store, self.planner, self.repo, self.lease.held, max_attempts=cfg.max_attempts, stats=self.stats,
            log=self.log, outage=self.loop.outage, lost=self._lost,
        )  # fmt: skip
        # Shared with the committer (mutated in place, never rebound): shards to read again, entries to retry.
        self._reread = self.committer.reread
        self._retry = self.committer.retry
        self.suspects = Suspects(client, self.layout, self.worker_id)
        self._die_holding = os.environ.get("THRONE_TEST_DIE_HOLDING", "").encode()
        self._retry_at = 0.0
        self._next_recover = 0.0
        self._next_maintenance = time.monotonic() + cfg.maintenance_every_ms / 1000

    @property
    def leases(self) -> dict[int, str]:
        """Shard -> lease value (fencing token) this worker holds."""
        return self.lease.held

    @property
    def cache(self) -> Any:
        """The cached game states (LRU, at most ``cache_size``)."""
        return self.repo.cache

    # --- leases ---------------------------------------------------------------------------------------
    def refresh_leases(self) -> list[int]:
        """Renew held leases and try to take free ones; returns the shards newly taken."""
        changes = self.lease.refresh()
        for shard, why in changes.lost:
            self._forget_shard(shard, why)
        failed: Exception | None = None
        for shard in changes.taken:
            self.log.info("lease.acquired", shard=shard, token=self.lease.held[shard])
            try:
                self.consumer.create_groups([shard])  # from id 0: commands sent before any worker ran count too
                self.repo.forget_shard(shard)
                # Whatever is pending now was read by a worker that no longer holds the lease: claim it before any
                # new entry is read, so the commands of each game keep their order.
                self.recover([shard], min_idle_ms=0)
            except Exception as exc:
                # Its predecessor's entries were not claimed: do not serve the shard on this token (new entries
                # would overtake them); the lease runs out and is taken again, with a fresh token.
                self.lease.drop(shard)
                failed = failed or exc
        if failed is not None:
            raise failed
        return changes.taken

    def _lost(self, shard: int, why: str) -> None:
        self.lease.drop(shard)
        self._forget_shard(shard, why)

    def _forget_shard(self, shard: int, why: str) -> None:
        """The lease this worker held on ``shard`` is gone (maybe a new one taken): what it knew is stale."""
        self._reread.discard(shard)
        self._retry[:] = [e for e in self._retry if e[0] != shard]  # the new owner claims them
        self.repo.forget_shard(shard)
        self.stats["leases_lost"] += 1
        self.log.warning("lease.lost", shard=shard, reason=why)

    def release(self) -> None:
        """Give up every lease held (graceful stop), so another worker can take over at once."""
        self.lease.release()
        self.log.info("lease.released")

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; a Redis or programming error is logged and the loop goes on."""
        self.log.info("worker.start", shards=self.shards)
        try:
            self.loop.run(
                self.step, stop or threading.Event(), on_error=self._on_error,
                healthy=lambda: not self._retry and not self.lease.faulted,
            )  # fmt: skip
        finally:
            self.release()
            self.log.info("worker.stop", stats=dict(self.stats))

    def _on_error(self, exc: Exception) -> None:
        if isinstance(exc, redis.exceptions.NoScriptError):
            self.store.reload_scripts()
        # Entries this worker read but did not finish are still in its pending list (the reread covers those kept
        # for a retry too).
        self._reread.update(self.leases)
        self._retry.clear()

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
        if self.lease.due(now):
            self.refresh_leases()
        if self._retry:
            return self._step_retry(now)
        if not self.loop.outage.active:
            # (Paused during a fault episode: claiming entries bumps their delivery counts, and the shard's
            # commits wait for Redis anyway.)
            if now >= self._next_recover:
                self.recover(list(self.leases), min_idle_ms=self.cfg.claim_idle_ms)
                self._next_recover = now + self.cfg.recover_every_ms / 1000
            if now >= self._next_maintenance:
                self.maintain()
                self._next_maintenance = now + self.cfg.maintenance_every_ms / 1000
        wait = self.cfg.block_ms if block_ms is None else block_ms
        if not self.leases:
            time.sleep(wait / 1000)
            return 0
        entries = self._read(wait)
        if entries:
            self._die_if_holding(entries)
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
        self._retry.clear()
        self.stats["retried"] += len(entries)
        if entries:
            self.process(entries)
        self._after_commits()
        return len(entries)

    def _after_commits(self) -> None:
        if self._retry:
            self._retry_at = time.monotonic() + self.loop.faults.next()
        else:
            self.loop.faults.reset()
            self.loop.outage.recovered(stats={"retried": self.stats["retried"]})

    def _read(self, block_ms: int) -> list[Entry]:
        out: list[Entry] = []
        again = sorted(self._reread & set(self.leases))
        for shard in again:
            got = self.consumer.pending(shard)
            if len(got) < self.cfg.batch:
                self._reread.discard(shard)
            out.extend(got)
        fresh = [s for s in self.leases if s not in again]
        if out or not fresh:
            # Old entries first; new ones of the same shard wait for the next turn (per-game order).
            return out
        return self.consumer.read(fresh, block_ms)

    # --- recovery -------------------------------------------------------------------------------------
    def recover(self, shards: Sequence[int], min_idle_ms: int) -> int:
        """Claim entries pending (idle >= ``min_idle_ms``) in other consumers, process or dead-letter them."""
        total = 0
        for shard in shards:
            if shard not in self.leases:
                continue
            claimed = self.consumer.claim_idle(shard, min_idle_ms)
            self._die_if_holding([c.entry for c in claimed])
            total += len(claimed)
            self.stats["claimed"] += len(claimed)
            todo: list[tuple[Entry, bool]] = []  # (entry, suspect), in stream order
            dead: list[Plan] = []
            blamed: list[bytes] = []
            for c in claimed:
                if c.entry[2] is None or c.delivered <= self.cfg.max_attempts:
                    todo.append((c.entry, False))
                    continue
                # Delivered that often without an outcome: workers keep dying while holding it. Its fault only if
                # one died deciding it alone (services/worker/suspects.py); else it is decided alone now.
                killer_of = self.suspects.blamed(shard, c.entry[1])
                if killer_of is None:
                    todo.append((c.entry, True))
                    continue
                reason = f"killed worker {killer_of} when decided alone (delivered {c.delivered} times, no outcome)"
                dead.append(self.planner.dead(c.entry, reason, c.delivered))
                blamed.append(c.entry[1])
            if dead:
                self.committer.commit(dead, Round())
                for eid in blamed:
                    self.suspects.done(shard, eid)
            batch: list[Entry] = []
            for entry, suspect in todo:
                if not suspect:
                    batch.append(entry)
                    continue
                if batch:  # the game's earlier commands first: per-game order
                    self.process(batch)
                    batch = []
                self._decide_alone(entry)
            if batch:
                self.process(batch)
        return total

    def _decide_alone(self, entry: Entry) -> None:
        """Decide and commit a suspect entry by itself, under its marker: if this worker dies meanwhile, the
        next one to claim it blames the command (services/worker/suspects.py)."""
        shard, eid, _ = entry
        self.stats["suspects"] += 1
        self.log.warning("command.suspect", shard=shard, entry=eid.decode(), action="deciding alone")
        self.suspects.deciding(shard, eid)
        try:
            self.process([entry])
        finally:
            with contextlib.suppress(redis.RedisError):  # (Redis away: the marker stays; docs: Operating throne)
                self.suspects.done(shard, eid)

    def _die_if_holding(self, entries: list[Entry]) -> None:
        """Tests only (env ``THRONE_TEST_DIE_HOLDING``: a command id): SIGKILL this process while it holds that
        command, read or claimed and not decided yet, as a host that kills the worker would."""
        if self._die_holding and any(
            fields is not None and fields.get(b"id") == self._die_holding for _, _, fields in entries
        ):
            os.kill(os.getpid(), signal.SIGKILL)

    # --- decide and commit ----------------------------------------------------------------------------
    def process(self, entries: list[Entry]) -> None:
        """Decide and commit ``entries`` (in order); commands whose commit met a moved version are redone."""
        todo = entries
        for _ in range(3):
            if self.lease.due(time.monotonic()):
                # A long batch (a slow or loaded host) must not outlive the lease it is written under.
                self.refresh_leases()
            todo = self._round(todo)
            if not todo:
                return
        # Still conflicting: leave them pending and read them again next turn.
        self._reread.update(shard for shard, _, _ in todo)

    def _round(self, entries: list[Entry]) -> list[Entry]:
        started = time.perf_counter()
        rnd = Round()
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
        self._prefetch(rnd, [env.game_id for _, env in parsed if isinstance(env, CommandEnvelope | CreateEnvelope)])
        plans: list[Plan] = []
        for entry, env in parsed:
            if env is None:
                # Deleted from the stream while pending (trimmed by hand): nothing to decide, just ack it.
                self.consumer.ack([(entry[0], entry[1])])
                continue
            try:
                plan = self.planner.plan(entry, env, rnd)
            except Exception as exc:
                plan = self.committer.failed(entry, env, exc, rnd)
            if plan is not None:
                plans.append(plan)
        self._reread |= rnd.reread
        metrics.WORKER_DECIDE_SECONDS.observe(time.perf_counter() - started)  # once per batch, not per command
        metrics.WORKER_BATCH_COMMANDS.observe(len(entries))
        return self.committer.commit(plans, rnd)

    def _prefetch(self, rnd: Round, game_ids: list[str]) -> None:
        missing: list[str] = []
        for gid in game_ids:
            if gid in rnd.known:
                continue
            rnd.known[gid] = cached = self.repo.cached(gid)
            if cached is None:
                missing.append(gid)
        # An archived game needs no state: every command of it is answered game_over.
        for gid, got in self.repo.load_many(missing, fold_archived=False).items():
            if isinstance(got, Exception):
                # No rules for its name, or events that do not fold: each of its commands fails (and ends as a
                # dead letter after a few attempts); other games go on.
                rnd.broken[gid] = got
            elif got is not None:
                rnd.known[gid] = got
                self.stats["loads"] += 1
                self.repo.remember(got)

    # --- maintenance ----------------------------------------------------------------------------------
    def maintain(self) -> int:
        """Archive games ended more than ``archive_after_ms`` ago, forget consumers of long-gone workers.

        Returns how many games were archived.
        """
        return self.maintenance.run(self.leases)

    def _fenced_at_archive(self, shard: int) -> None:
        self._lost(shard, "fenced at archive")

    def _archived(self, shard: int, gid: str, version: int) -> None:
        self.repo.forget(gid)
        self.log.info("game.archived", shard=shard, game=gid, version=version)

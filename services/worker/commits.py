"""What the rules worker does with each commit's result.

* ``ok``: the game moves on in the cache (unless an earlier commit of it in the batch went wrong), the entry's
  failure count is dropped.
* ``duplicate``: the command id had this command's outcome already; nothing was written. ``id_conflict``: the
  seat used the id for another command; it is answered ``command_id_conflict`` (replied, not recorded).
* ``conflict``: the game's version moved (a plan decided ahead on a state that did not hold); the entry is decided
  again, unless an earlier command of the game waits for Redis, then it waits behind it.
* ``fenced``: the lease is another's; the shard is given up.
* An error: a transient Redis fault keeps the entry for a retry after a backoff, never counted as an attempt;
  anything else is a failure of the entry (a dead letter after ``max_attempts``), holding back only its game.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import redis

from services.bus.consumer import Entry
from services.bus.faults import Outage
from services.metrics import catalog as metrics
from services.store.commit import CommitResult, CommitStore
from services.store.repository import GameRepository
from services.worker.planning import Plan, Planner, Round


class Committer:
    """Commits plans and handles their results for one worker."""

    def __init__(
        self,
        store: CommitStore,
        planner: Planner,
        repository: GameRepository,
        held: dict[int, str],
        *,
        max_attempts: int,
        stats: Counter[str],
        log: Any,
        outage: Outage,
        lost: Callable[[int, str], None],
    ) -> None:
        self.store = store
        self.planner = planner
        self.repo = repository
        self.held = held
        self.max_attempts = max_attempts
        self.stats = stats
        self.log = log
        self.outage = outage
        self.lost = lost
        self.attempts: dict[tuple[int, bytes], int] = {}
        """Failures of an entry on its own content (never transient Redis faults)."""
        self.retry: list[Entry] = []
        """Entries whose commit met a transient Redis fault, in order: committed again after a backoff."""
        self.reread: set[int] = set()
        """Shards whose pending entries are read again (a failure or a conflict left some there)."""

    def commit(self, plans: list[Plan], rnd: Round) -> list[Entry]:
        """Commit ``plans`` in one pipeline; returns the entries to decide again (their game's version moved).

        A lost connection raises here: the run loop backs off, then rereads what is still pending (a commit that
        did happen answers the reread as a duplicate)."""
        if not plans:
            return []
        started = time.perf_counter()
        results = self.store.commit([p.request for p in plans])
        metrics.WORKER_COMMIT_SECONDS.observe(time.perf_counter() - started)
        redo: list[Entry] = []
        follow: list[Plan] = []
        tainted: set[str] = set()
        stalled: set[str] = set()
        for p, res in zip(plans, results, strict=True):
            gid = p.game_id
            if res.status == "ok":
                self._committed(p, res, tainted)
                continue
            if res.status in ("duplicate", "id_conflict"):
                self.attempts.pop((p.request.shard, p.request.entry_id), None)
                if res.status == "duplicate":
                    self.stats["duplicate"] += 1
                    self.log.info("command.duplicate", **_context(p))
                else:
                    self.stats["id_conflict"] += 1
                    follow.append(self.planner.conflict(p))
                if p.after is not None:
                    # The plan moved the game ahead speculatively; later plans of it will meet a conflict.
                    tainted.add(gid)
                    self.repo.forget(gid)
                continue
            tainted.add(gid)
            self.repo.forget(gid)
            if res.status == "error":
                self._error(p, res, rnd, stalled, follow)
            elif res.status == "conflict":
                if gid in stalled:
                    # An earlier command of the game is waiting for Redis: this one waits behind it.
                    self.retry.append(p.entry)
                    continue
                self.stats["conflict"] += 1
                self.log.warning("command.conflict", **_context(p), stored=res.version)
                redo.append(p.entry)
            elif res.status == "fenced":
                if p.request.shard in self.held:
                    self.lost(p.request.shard, "fenced at commit")
                self.stats["fenced"] += 1
        if follow:
            redo += self.commit(follow, rnd)
        return redo

    def failed(self, entry: Entry, env: Any, exc: Exception, rnd: Round) -> Plan | None:
        """An entry failed on its own content: its game is held back in this round, and after ``max_attempts``
        failures the entry goes to the dead letters (the plan returned)."""
        shard, eid, _ = entry
        n = self.attempts[(shard, eid)] = self.attempts.get((shard, eid), 0) + 1
        gid = getattr(env, "game_id", None)
        cid = getattr(env, "command_id", None)
        self.log.error("command.failed", shard=shard, game=gid, cid=cid, attempt=n, error=repr(exc)[:500])
        if gid is not None:
            rnd.held.add(gid)
            # Its state may be half-built: reload it next time.
            self.repo.forget(gid)
            rnd.known.pop(gid, None)
        if shard not in self.held:
            return None
        if n >= self.max_attempts:
            return self.planner.dead(entry, f"failed {n} times: {exc!r}"[:1000], n)
        self.reread.add(shard)
        return None

    def _committed(self, p: Plan, res: CommitResult, tainted: set[str]) -> None:
        self.attempts.pop((p.request.shard, p.request.entry_id), None)
        if p.after is not None and p.game_id not in tainted:
            self.repo.remember(p.after)
        self.stats[p.op] += 1
        ctx = _context(p)
        outcome = p.request.outcome or {}
        if p.op == "dead":
            metrics.DEAD_LETTERS.inc()
            self.log.error("command.dead_letter", **ctx, version=res.version, reason=p.reason)
        elif p.op == "reject":
            rej = outcome["rejection"]
            metrics.command_refused(rej["code"])
            self.log.info(
                "command.rejected", **ctx, version=res.version, code=rej["code"], message=rej["message"],
                rulings=rej.get("rulings") or [],
            )  # fmt: skip
        else:
            metrics.command_accepted(p.request.game_name, p.op)
            self.log.info("command.accepted", **ctx, version=res.version, events=outcome["events"])

    def _error(self, p: Plan, res: CommitResult, rnd: Round, stalled: set[str], follow: list[Plan]) -> None:
        assert res.error is not None
        if res.transient:
            # Redis could not do it now (out of memory, restarted, failing over): the command is fine. Commit it
            # again after a backoff, in order, and count no attempt.
            if not isinstance(res.error, redis.exceptions.NoScriptError):
                self.outage.failed(res.error, shard=p.request.shard)
            self.retry.append(p.entry)
            stalled.add(p.game_id)
            return
        plan = self.failed(p.entry, p.request, res.error, rnd)
        if plan is not None:
            follow.append(plan)


def _context(p: Plan) -> dict[str, Any]:
    return {"shard": p.request.shard, "game": p.game_id, "cid": p.request.command_id or None}

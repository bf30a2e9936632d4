"""A projection's games: each one's state at the model's checkpoint, loaded through the store's repository, and
the next events to apply to it (from the feed, or from the store across a gap).

* Each model keeps, per game, a checkpoint (the last version it applied, in its ``applied`` hash). A game's
  context is the store's loaded-game type at that checkpoint, from the model's own warm repository: cached
  (LRU), else loaded (snapshot at or below the checkpoint, then the recorded events up to it).
* A batch of feed events is applied only if it follows the checkpoint; a gap (a feed trimmed while the model
  was away, a rebuild, a marker from :meth:`ProjectionWorker.catch_up`) is filled from the event store, which is
  the truth; the feed is only the notification.
* :class:`FoldCache` shares parsed events and the states after them between the models of one process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx
from projections.store import RMKeys
from services.store.eventstore import FeedItem
from services.store.repository import GameRepository, UnknownGame

FeedEvent = FeedItem
"""One announced event: game, version, event JSON (empty: a marker, read the store), commit ms, command id."""


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


Prepared = tuple[GameCtx, Any, list[Applied], int]
"""A game's context, its state before the batch, the batch (events with the state after each), the checkpoint."""


class GameContexts:
    """The games of one model (``model``) at its checkpoints, cached in the model's own ``repository``."""

    def __init__(
        self,
        client: redis.Redis,
        keys: RMKeys,
        model: str,
        repository: GameRepository,
        *,
        backfill_chunk: int,
        fold_cache: FoldCache | None,
        stats: dict[str, int],
    ) -> None:
        self.r = client
        self.keys = keys
        self.model = model
        self.repo = repository
        """The model's own warm repository (its cache holds each game at this model's checkpoint)."""
        self.layout = repository.layout
        self.cache = self.repo.cache
        self.backfill_chunk = backfill_chunk
        self.fold_cache = fold_cache
        self.stats = stats

    def put(self, ctx: GameCtx) -> None:
        """Cache a context (as it stands now)."""
        self.repo.remember(ctx)

    def drop(self, game_id: str) -> None:
        """Forget a context (it may be wrong: a failed or refused apply)."""
        self.repo.forget(game_id)

    def load_new(self, gids: list[str]) -> None:
        """Contexts of games this model has applied nothing of yet, cheaply (a burst of new games): the initial
        state, no events to read. The others are left to :meth:`load`."""
        gids = [gid for gid in gids if gid not in self.cache]
        if not gids:
            return
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hget(self.keys.applied(self.layout.shard_of(gid), self.model), gid)
        fresh = [gid for gid, applied in zip(gids, pipe.execute(), strict=True) if applied is None]
        for gid, meta in self.repo.metas(fresh).items():
            if meta is None:
                continue  # gone: the full load says so
            try:
                game = self.repo.game(meta)
            except UnknownGame:
                continue  # load reports it
            shard = self.layout.shard_of(gid)
            self.put(GameCtx(gid, shard, meta, game, game.rules.initial_state(), 0, meta.status, 0))

    def load(self, gid: str) -> GameCtx | None:
        """A game's context at this model's checkpoint (None: no such game)."""
        shard = self.layout.shard_of(gid)
        applied = int(self.r.hget(self.keys.applied(shard, self.model), gid) or 0)
        try:
            return self.repo.get(gid, upto=applied)
        except UnknownGame as exc:
            if type(exc) is UnknownGame:
                return None
            raise

    def prepare(self, gid: str, events: list[FeedEvent]) -> Prepared | None:
        """The game's context and its next events to apply (from the feed, or the store across a gap); None:
        nothing new for this model."""
        ctx = self.repo.cached(gid)
        if ctx is None:
            ctx = self.load(gid)
            if ctx is None:
                return None
        target = events[-1].version
        fresh = [e for e in events if e.version > ctx.version]
        self.stats["duplicates"] += len(events) - len(fresh)
        if not fresh:
            return None
        # An entry without JSON is a marker from catch_up: the events come from the store.
        contiguous = all(e.raw and e.version == ctx.version + 1 + i for i, e in enumerate(fresh))
        if not contiguous:
            upto = max(target, ctx.version + self.backfill_chunk)
            stored = self.repo.events(gid, after=ctx.version, upto=upto)[: self.backfill_chunk]
            self.stats["backfilled"] += len(stored)
            fresh = [FeedEvent(gid, e.version, orjson.dumps(e.data), e.at, e.command_id) for e in stored]
            if not fresh:
                return None
        rules = ctx.rules
        before = ctx.state
        state = before
        batch = []
        cache = self.fold_cache
        for fe in fresh:
            hit = cache.get(gid, fe.version) if cache is not None else None
            if hit is not None:
                event, data, state = hit
            else:
                event = rules.parse_event(fe.raw)  # from the bytes: validating JSON beats validating a dict
                data = orjson.loads(fe.raw)
                state = rules.evolve(state, event)
                if cache is not None:
                    cache.put(gid, fe.version, (event, data, state))
            batch.append(Applied(fe.version, event, data, fe.at, fe.command_id, state, fe.raw))
        return ctx, before, batch, ctx.version

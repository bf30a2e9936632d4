"""The follower: from the shards' event feeds to the outbox of notices (one half of the webhooks process).

It reads every shard's feed with its own consumer group (``webhooks``, with acks), like the projection workers.
A feed entry is only the news that a game moved: for each game with webhooks it reads the game's events after
its checkpoint (``hooked``: the last version whose notices were queued) from the event store, whole commits
only, folds them with the game's rules onto the game at its checkpoint (the store repository's warm path:
cached, else caught up or loaded), asks the notice kinds (services/webhooks/notices.py) what each hooked seat
is told after each commit, and queues those notices and the new checkpoint in one script
(services/webhooks/outbox.py). Only then are the feed entries acked.

* Nothing lost: a process killed before the ack reads its pending entries again at its start (or, under
  another consumer name, they are claimed after ``claim_idle_ms``); one killed after the script finds the
  checkpoint moved and queues nothing twice. Every ``sweep_every_ms`` it also walks
  the shards' ``hookgames`` sets and catches up any game whose version is past its checkpoint (feed entries
  read by no one: the process was down when the group was created, or the feed was trimmed).
* Once: the script moves the checkpoint only from the value the follower read, so two followers never queue
  the same commit's notices twice.
* Transient Redis faults are waited out by the consumer loop (services/bus/consumer.py); one game that fails
  to fold is logged and retried with its next event or sweep, the others go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import redis

from services.bus.consumer import Entry
from services.bus.keys import WEBHOOKS_GROUP, Layout
from services.store.repository import GameLookup, GameRepository, registry_game
from services.webhooks.config import WebhookConfig
from services.webhooks.hooks import Hook
from services.webhooks.notices import Commit, commits, notices
from services.webhooks.outbox import encode
from services.webhooks.part import GroupFollower


class WebhookFollower(GroupFollower):
    """Queues the webhook notices of the games on ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: WebhookConfig | None = None,
        consumer: str = "webhooks",
        games: GameLookup = registry_game,
    ) -> None:
        super().__init__(
            client, shards, layout=layout, config=config, consumer=consumer, part="follower",
            group=WEBHOOKS_GROUP, stream=lambda layout: layout.feed,
            loop_name="webhooks", started="webhooks.follow", stopped="webhooks.follow_stop",
        )  # fmt: skip
        # Each game cached at its checkpoint (the warm path catches a copy that is behind up to it).
        self.repo = GameRepository(client, self.layout, games=games, cache_size=self.cfg.cache_size)
        self._next_sweep = 0.0

    # --- loop (the rest: GroupFollower) ---------------------------------------------------------------
    def when_due(self, now: float) -> None:
        """Sweep every ``sweep_every_ms`` (registration starts a game's checkpoint, and the sweep covers what
        no feed entry announces)."""
        if now >= self._next_sweep:
            self.sweep()
            self._next_sweep = now + self.cfg.sweep_every_ms / 1000

    def handle(self, entries: Sequence[Entry]) -> None:
        """Queue the notices of the games the feed entries announce."""
        games: dict[str, None] = {}
        for _shard, _eid, fields in entries:
            gid = (fields or {}).get(b"g")
            if gid is not None:
                games[gid.decode(errors="replace")] = None
        if games:
            self.advance(list(games))

    def sweep(self) -> int:
        """Catch up every game with webhooks on the served shards; returns the notices queued."""
        queued = 0
        for shard in self.shards:
            gids = [g.decode() for g in self.r.sscan_iter(self.layout.hook_games(shard), count=1000)]
            for i in range(0, len(gids), 200):
                queued += self.advance(gids[i : i + 200], listed=True)
        self.stats["sweeps"] += 1
        return queued

    # --- notices --------------------------------------------------------------------------------------
    def advance(self, game_ids: Sequence[str], *, listed: bool = False) -> int:
        """Queue the notices of every commit past each game's checkpoint; returns the notices queued.
        ``listed``: the games come from the ``hookgames`` sets (those without webhooks are taken out)."""
        layout = self.layout
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            shard = layout.shard_of(gid)
            pipe.exists(layout.hooks(shard, gid))
            pipe.get(layout.hooked(shard, gid))
            pipe.hget(layout.meta(shard, gid), "version")
        got = pipe.execute()
        queued = 0
        for i, gid in enumerate(game_ids):
            has_hooks, checkpoint, version = got[3 * i : 3 * i + 3]
            if not has_hooks or version is None:
                if listed:  # its webhooks were deleted, or expired with the ended game
                    self.r.srem(layout.hook_games(layout.shard_of(gid)), gid)
                continue
            if checkpoint is None:  # hooks without a checkpoint (cannot happen through registration): from now on
                self.r.set(layout.hooked(layout.shard_of(gid), gid), int(version), nx=True)
                continue
            if int(checkpoint) >= int(version):
                continue
            try:
                queued += self._advance_game(gid, int(checkpoint))
            except (redis.exceptions.RedisError, OSError):
                raise  # the consumer loop waits Redis out; the entries come again
            except Exception as exc:  # this game only: its next event or the next sweep tries again
                self.repo.forget(gid)
                self.stats["failed"] += 1
                self.log.error("webhooks.game_failed", game=gid, error=repr(exc)[:300])
        return queued

    def _advance_game(self, game_id: str, checkpoint: int) -> int:
        stored = self.repo.events(game_id, after=checkpoint)
        if not stored:
            return 0
        game = self.repo.get(game_id, upto=checkpoint)
        hooks = self.hooks.of_game(game_id)
        by_seat: dict[int, list[Hook]] = {}
        for hook in hooks.values():
            by_seat.setdefault(hook.seat, []).append(hook)
        wanted = sorted({kind for hook in hooks.values() for kind in hook.kinds})
        rules = game.rules
        state, version = game.state, checkpoint
        items: list[tuple[str, bytes]] = []
        for group in commits(stored):
            before, events = state, []  # each event of the commit with the state after it
            records = ((e.version, e.data) for e in group)
            state, version = self.repo.fold(rules, state, version, records, events, game_id=game_id)
            commit = Commit(game_id, game.plugin, game.players, before, tuple(events), group[-1].at)
            for notice in notices(commit, by_seat, wanted):
                body = encode(notice.body)
                items.extend((h.field, body) for h in by_seat[notice.seat] if notice.kind in h.kinds)
        over = rules.is_over(state)
        if not self.outbox.enqueue(
            game_id, checkpoint, version, items, ended_keep_ms=self.cfg.ended_keep_ms if over else 0
        ):
            self.repo.forget(game_id)  # another process moved the checkpoint: its notices are queued already
            self.stats["stale"] += 1
            return 0
        self.repo.keep(game.at(state, version))
        self.stats["queued"] += len(items)
        if items:
            self.log.debug("webhooks.queued", game=game_id, version=version, notices=len(items))
        return len(items)

"""Housekeeping of the shards a worker holds: archive ended games, forget consumers of long-gone workers."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from services.bus.consumer import GroupConsumer
from services.bus.keys import Layout
from services.store import eventstore
from services.store.commit import CommitStore
from services.worker.config import WorkerConfig


class Maintenance:
    """Archives the ended games of held shards ``archive_after_ms`` after their end, and removes consumers
    (worker processes) that have nothing pending and were silent for ``forget_consumer_after_ms``."""

    def __init__(
        self,
        client: redis.Redis,
        layout: Layout,
        config: WorkerConfig,
        store: CommitStore,
        consumer: GroupConsumer,
        on_fenced: Callable[[int], None],
        on_archived: Callable[[int, str, int], None],
    ) -> None:
        self.r = client
        self.layout = layout
        self.cfg = config
        self.store = store
        self.consumer = consumer
        self.on_fenced = on_fenced
        self.on_archived = on_archived

    def run(self, leases: dict[int, str]) -> int:
        """One pass over the held shards (``shard -> fencing token``); returns how many games were archived."""
        for shard in list(leases):
            # Every worker process is a consumer of its own; one with nothing pending, silent for long, is gone
            # (its pending entries were claimed long ago).
            self.consumer.forget_idle_consumers(shard, self.cfg.forget_consumer_after_ms)
        done = 0
        cutoff = int(time.time() * 1000) - self.cfg.archive_after_ms
        for shard, token in list(leases.items()):
            for raw_gid in self.r.zrangebyscore(self.layout.ended(shard), "-inf", cutoff, start=0, num=50):
                gid = raw_gid.decode()
                status = self._archive(shard, token, gid)
                if status == "archived":
                    done += 1
                elif status == "fenced":
                    self.on_fenced(shard)
                    break
        return done

    def _archive(self, shard: int, token: str, gid: str) -> str:
        meta = eventstore.read_meta(self.r, self.layout, gid)
        if meta is None:
            self.r.zrem(self.layout.ended(shard), gid)
            return "gone"
        events = eventstore.read_events(self.r, self.layout, gid)
        commands = eventstore.read_commands(self.r, self.layout, gid)
        version = int(meta.get("version", "0"))
        blob = eventstore.make_archive(meta, events, commands)
        last_log = commands[-1].log_id if commands else ""
        status = self.store.archive(shard, token, gid, blob, version, last_log, int(time.time() * 1000))
        if status == "archived":
            self.on_archived(shard, gid, version)
        return status

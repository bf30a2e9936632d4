"""Reading many shards' streams with one consumer group, on a single Redis or on a Redis Cluster.

On a single Redis (or fakeredis) one XREADGROUP covers every stream and blocks server-side. A cluster refuses
a command whose keys lie in several slots (CROSSSLOT), and every shard is a slot of its own, so there the
reader sends one XREADGROUP per stream, pipelined per node (each node's streams in one round trip, straight to
the node that owns their slots), and emulates BLOCK by polling: first after 1 ms, then backing off to
``poll_ms``. An idle cluster worker therefore costs one round trip per node every ``poll_ms``. So that a command
arriving on an idle shard need not wait for the next poll, a reader given a ``doorbell`` channel waits on it
instead of sleeping: submitters PUBLISH the keys of the streams they added to (:class:`services.bus.client.BusClient`,
the gateway's bus), and the reader reads those at once. A lost ring costs only that wait (the poll still runs).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from typing import Any

import redis
from redis.cluster import RedisCluster

from services.bus.connection import is_cluster

StreamEntries = list[tuple[bytes, dict[bytes, bytes] | None]]
"""The entries of one stream as XREADGROUP returns them: (entry id, fields; None once deleted)."""


def _is_redirect(err: Exception) -> bool:
    text = str(err)
    return text.startswith(("MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN"))


class GroupReader:
    """XREADGROUP of one consumer over many streams, the same on a single Redis and on a cluster."""

    def __init__(
        self, client: redis.Redis, group: str, consumer: str, poll_ms: int = 10, doorbell: str | None = None
    ) -> None:
        self.r = client
        self.group = group
        self.consumer = consumer
        self.poll_ms = max(1, poll_ms)
        self.cluster = is_cluster(client)
        self.doorbell = doorbell if self.cluster else None
        self._bell: Any = None

    def read(
        self, streams: Mapping[str, str], count: int, block_ms: int = 0, *, noack: bool = False
    ) -> list[tuple[bytes, StreamEntries]]:
        """Entries of ``streams`` (key -> last id, ``">"`` for new ones), at most ``count`` per stream.

        Blocks up to ``block_ms`` (0: not at all) while there is nothing. Returns ``[(key, entries), ...]``
        for the streams that had entries, like redis-py's ``xreadgroup``. ``noack``: the entries are not kept
        pending (for readers to whom an entry is only a hint). A missing group raises ``redis.ResponseError``
        (NOGROUP) in both modes.
        """
        if not streams:
            return []
        if not self.cluster:
            res = self.r.xreadgroup(
                self.group,
                self.consumer,
                dict(streams),
                count=count,
                block=block_ms if block_ms > 0 else None,
                noack=noack,
            )
            return [(key, got) for key, got in (res or []) if got]
        deadline = time.monotonic() + block_ms / 1000
        pause = 0.001
        rung: set[str] = set()
        while True:
            if rung:
                # Rung for these streams: read them first (one node's round trip, not one per node).
                got = self._read_cluster({k: streams[k] for k in rung}, count, noack)
                if got:
                    return got
            got = self._read_cluster(streams, count, noack)
            if got or time.monotonic() >= deadline:
                return got
            rung = self._wait(min(pause, max(0.0, deadline - time.monotonic()))) & streams.keys()
            pause = min(pause * 2, self.poll_ms / 1000)

    def _wait(self, seconds: float) -> set[str]:
        """Sleep ``seconds``, or less if the doorbell rings meanwhile; returns the stream keys rung for."""
        if self.doorbell is None:
            time.sleep(seconds)
            return set()
        rung: set[str] = set()
        try:
            if self._bell is None:
                self._bell = self.r.pubsub(ignore_subscribe_messages=True)
                self._bell.subscribe(self.doorbell)
            message = self._bell.get_message(timeout=seconds)
            while message is not None:  # drain: one read serves every ring so far
                data = message.get("data")
                if isinstance(data, bytes):
                    rung.update(data.decode(errors="replace").split())
                message = self._bell.get_message(timeout=0)
        except (redis.RedisError, OSError):
            self.close()  # subscribe again next time; meanwhile the poll goes on
            time.sleep(seconds)
        return rung

    def close(self) -> None:
        """Drop the doorbell subscription (if any)."""
        bell, self._bell = self._bell, None
        if bell is not None:
            with contextlib.suppress(redis.RedisError, OSError):
                bell.close()

    def _read_cluster(self, streams: Mapping[str, str], count: int, noack: bool) -> list[tuple[bytes, StreamEntries]]:
        cluster: RedisCluster = self.r  # type: ignore[assignment]
        by_node: dict[str, tuple[Any, list[str]]] = {}
        for key in streams:
            node = cluster.get_node_from_key(key)
            by_node.setdefault(node.name, (node, []))[1].append(key)
        out: list[tuple[bytes, StreamEntries]] = []
        stale_topology = False
        for node, keys in by_node.values():
            # The node's own connection: a plain pipeline, no per-command key lookup (redis-py would ask the
            # server COMMAND GETKEYS for every XREADGROUP it routes itself).
            pipe = cluster.get_redis_connection(node).pipeline(transaction=False)
            for key in keys:
                pipe.xreadgroup(self.group, self.consumer, {key: streams[key]}, count=count, noack=noack)
            try:
                results = pipe.execute(raise_on_error=False)
            except redis.ConnectionError:
                stale_topology = True  # the node went away (failover): learn the new layout, read it next time
                continue
            for res in results:
                if isinstance(res, Exception):
                    if _is_redirect(res):
                        stale_topology = True
                        continue
                    raise res
                out.extend((key, got) for key, got in (res or []) if got)
        if stale_topology:
            cluster.nodes_manager.initialize()
        return out

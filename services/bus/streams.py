"""Reading many shards' streams with one consumer group, on a single Redis or on a Redis Cluster.

On a single Redis (or fakeredis) one XREADGROUP covers every stream and blocks server-side. A cluster refuses
a command whose keys lie in several slots (CROSSSLOT), and every shard is a slot of its own, so there the
reader sends one XREADGROUP per stream, pipelined per node (each node's streams in one round trip, straight to
the node that owns their slots). While there is nothing to read it waits, up to ``poll_ms`` between polls, and
with ``watch`` it is woken at once: one small thread per stream blocks on a plain XREAD of it (a blocking read
may name keys of one slot only) and rings when an entry arrives, so a command on an idle shard is read as soon
as on a single Redis. Watching costs a connection and a mostly sleeping thread per stream, and no extra work
for the submitters; a watcher that fails only falls back to the poll.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import redis
from redis.cluster import RedisCluster

from services.bus.connection import is_cluster, is_redirect

StreamEntries = list[tuple[bytes, dict[bytes, bytes] | None]]
"""The entries of one stream as XREADGROUP returns them: (entry id, fields; None once deleted)."""


class GroupReader:
    """XREADGROUP of one consumer over many streams, the same on a single Redis and on a cluster."""

    def __init__(self, client: redis.Redis, group: str, consumer: str, poll_ms: int = 10, watch: bool = False) -> None:
        self.r = client
        self.group = group
        self.consumer = consumer
        self.poll_ms = max(1, poll_ms)
        self.cluster = is_cluster(client)
        self.watch = watch and self.cluster
        self._watchers: dict[str, _Watcher] = {}
        self._rung = threading.Event()

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
        if self.watch:
            self._ensure_watchers(streams)
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
        """Sleep ``seconds``, or less if a watched stream gets an entry meanwhile; returns the keys rung for."""
        if not self.watch:
            time.sleep(seconds)
            return set()
        if self._rung.wait(seconds):
            self._rung.clear()
        return {key for key, w in self._watchers.items() if w.take()}

    def _ensure_watchers(self, streams: Mapping[str, str]) -> None:
        for key in streams:
            if key not in self._watchers:
                watcher = _Watcher(self.r, key, self._rung)  # type: ignore[arg-type]
                self._watchers[key] = watcher
                watcher.start()

    def close(self) -> None:
        """Stop the watcher threads (they end within their blocking read's timeout)."""
        for watcher in self._watchers.values():
            watcher.stop.set()
        self._watchers.clear()

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
                    if is_redirect(res):
                        stale_topology = True
                        continue
                    raise res
                out.extend((key, got) for key, got in (res or []) if got)
        if stale_topology:
            cluster.nodes_manager.initialize()
        return out


class _Watcher(threading.Thread):
    """Blocks on a plain XREAD of one stream (its node's own connection) and rings when entries arrive."""

    BLOCK_MS = 1000

    def __init__(self, cluster: RedisCluster, key: str, rung: threading.Event) -> None:
        super().__init__(name=f"watch:{key}", daemon=True)
        self.cluster = cluster
        self.key = key
        self.rung = rung
        self.stop = threading.Event()
        self._hit = False
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Whether entries arrived since the last call."""
        with self._lock:
            hit, self._hit = self._hit, False
        return hit

    def run(self) -> None:
        last: bytes | str = "$"
        conn: redis.Redis | None = None
        while not self.stop.is_set():
            try:
                if conn is None:
                    node = self.cluster.get_node_from_key(self.key)
                    auth = self.cluster.get_redis_connection(node).connection_pool.connection_kwargs
                    conn = redis.Redis(
                        host=node.host, port=node.port, username=auth.get("username"), password=auth.get("password"),
                        socket_timeout=self.BLOCK_MS / 1000 + 5,
                    )  # fmt: skip
                got = conn.xread({self.key: last}, count=100, block=self.BLOCK_MS)
                for _key, entries in got or ():
                    if entries:
                        last = entries[-1][0]
                        with self._lock:
                            self._hit = True
                        self.rung.set()
            except Exception:  # a watcher only speeds things up: it must never die
                conn = None  # a moved slot or a failed node: find the owner again; the poll covers the gap
                last = "$"
                self.stop.wait(0.5)

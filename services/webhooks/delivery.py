"""The deliverer: from the outbox to the receivers (the other half of the webhooks process), on asyncio.

It reads the shards' outbox streams with the consumer group ``deliver`` (its own pending entries first, then
new ones, and every ``recover_every_ms`` the entries another consumer left idle for ``claim_idle_ms``) and
starts one task per notice. A task reads the hook (URL and key; a deleted hook ends the notice quietly),
signs the body (services/webhooks/signing.py) and POSTs it, connecting only to addresses it checked
(services/webhooks/targets.py: CheckedBackend):

* 2xx: delivered. A network error, a timeout, 408, 429 or 5xx: tried again after a jittered, growing pause
  (``retry_first_s`` up to ``retry_cap_s``), at most ``max_attempts`` times in all. Any other answer (a 3xx:
  redirects are not followed; a 4xx) or a target the address policy refuses: failed at once.
* A notice given up on is recorded, never dropped silently: the hook's ``failed`` counter and last error (shown
  by the gateway's webhook listing), an entry in the shard's ``webhooks:failed`` stream, and an error log line
  ``webhooks.delivery_failed`` (the URL's host, never the key or the body).
* Every attempt carries the same ``X-Throne-Id`` and body; its timestamp and signature are new.

Slow receivers do not hold up the rest: each step of an attempt is bounded by ``timeout_s`` and the whole
attempt (resolving, connecting, sending, reading the whole answer) by ``deadline_s``, so a receiver trickling
its answer is cut and its notice retried like any timeout; the attempts share the slots fairly
(services/webhooks/slots.py: a prompt lane that an attempt leaves after ``slow_after_s``, caps per host and
per seat, turns by seat); the reading of the outbox stops only when ``max_in_flight`` notices are unsettled, and
the follower (in its own thread) never waits for deliveries at all.

An entry is acked and deleted only once settled. A process that dies leaves its entries pending, and they are
delivered again (by the same consumer when it restarts, else claimed by another): at least once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
import orjson
import redis

from services.bus.consumer import Entry
from services.bus.faults import Backoff, Outage, is_transient
from services.bus.keys import DELIVER_GROUP, Layout
from services.bus.readiness import PROCESS
from services.metrics import catalog as metrics
from services.webhooks.config import WebhookConfig
from services.webhooks.hooks import Hook
from services.webhooks.part import WebhooksPart
from services.webhooks.signing import signature
from services.webhooks.slots import FairSlots
from services.webhooks.targets import BadTarget, check_url, checked_transport

T = TypeVar("T")

USER_AGENT = "throne-webhooks/1"
MAX_ANSWER = 64 * 1024
"""Bytes of a receiver's answer read at most (the rest is dropped with the connection)."""
RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
"""Answers worth another attempt (besides network errors and timeouts); any other 5xx is retried too."""


class _Permanent(Exception):
    """An attempt's outcome that another attempt would not change."""


class _Retry(Exception):
    """An outcome worth another attempt (5xx, 408, 429; an attempt cut by its deadline or as too slow)."""


def _retriable(status: int) -> bool:
    return status in RETRY_STATUS or status >= 500


class Deliverer(WebhooksPart):
    """Delivers the queued notices of ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: WebhookConfig | None = None,
        consumer: str = "webhooks",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(client, shards, layout=layout, config=config, consumer=consumer, part="deliverer")
        self.outbox_reader = self.group_consumer(DELIVER_GROUP, self.layout.webhooks)
        self.transport = transport
        self._outage = Outage(self.log, part="webhooks-deliverer", readiness=PROCESS)
        self._faults = Backoff(0.05, 2.0)
        self._tasks: set[asyncio.Task[None]] = set()
        self._busy: set[tuple[int, bytes]] = set()
        self.slots = FairSlots(
            prompt=self.cfg.concurrency, slow=self.cfg.slow_slots, per_host=self.cfg.per_host,
            per_seat=self.cfg.per_seat,
        )  # fmt: skip
        self._stop = threading.Event()
        self._http: httpx.AsyncClient | None = None

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Deliver until ``stop`` is set (runs its own event loop: call it from a thread of its own or the main)."""
        asyncio.run(self._serve_with_threads(stop))

    async def _serve_with_threads(self, stop: threading.Event) -> None:
        # Redis calls run in threads (the sync client, shared with the building blocks); the default pool of
        # cpu + 4 threads would make the tasks queue for it behind the blocking outbox read.
        with ThreadPoolExecutor(max_workers=self.cfg.redis_threads, thread_name_prefix="webhooks-redis") as pool:
            asyncio.get_running_loop().set_default_executor(pool)
            await self.serve(stop)

    async def serve(self, stop: threading.Event) -> None:
        """Deliver until ``stop`` is set; unsettled notices are left pending for the next start."""
        self._stop = stop
        self.log.info("webhooks.deliver", shards=len(self.shards), concurrency=self.cfg.concurrency)
        in_flight = self.cfg.concurrency + self.cfg.slow_slots  # both lanes: never a wait for a connection
        limits = httpx.Limits(max_connections=in_flight, max_keepalive_connections=self.cfg.concurrency)
        transport = self.transport or checked_transport(limits, allow_private=self.cfg.allow_private)
        async with httpx.AsyncClient(
            timeout=self.cfg.timeout_s, follow_redirects=False, transport=transport,
            headers={"User-Agent": USER_AGENT}, trust_env=False,
        ) as http:  # fmt: skip
            self._http = http
            ready = False
            self._outage.start()
            next_recover = 0.0
            while not stop.is_set():
                try:
                    if not ready:
                        await asyncio.to_thread(self.outbox_reader.create_groups, self.shards, "0")
                        for shard in self.shards:  # what this consumer read before it stopped: first
                            self._start(await asyncio.to_thread(self.outbox_reader.pending, shard, 100_000))
                        ready = True
                    if len(self._tasks) >= self.cfg.max_in_flight:
                        await asyncio.wait(self._tasks, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
                        continue
                    if time.monotonic() >= next_recover:
                        next_recover = time.monotonic() + self.cfg.recover_every_ms / 1000
                        await self._claim_idle()
                    entries = await asyncio.to_thread(self.outbox_reader.read, self.shards, self.cfg.block_ms)
                    self._start(entries)
                    self._faults.reset()
                    self._outage.recovered()
                except Exception as exc:
                    ready = False
                    await asyncio.sleep(self._failed(exc))
            self._outage.stop()
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.wait(self._tasks, timeout=5)
        self.log.info("webhooks.deliver_stop", **self.stats)

    def _failed(self, exc: Exception) -> float:
        if is_transient(exc):
            self.stats["redis_faults"] += 1
            self._outage.failed(exc)
            return self._faults.next()
        self.log.exception("webhooks.error", error=repr(exc)[:300])
        return min(2.0, self._faults.next() * 5)

    async def _claim_idle(self) -> None:
        for shard in self.shards:
            claimed = await asyncio.to_thread(
                self.outbox_reader.claim_idle, shard, self.cfg.claim_idle_ms, pages=1, counts=False
            )
            self._start([c.entry for c in claimed])

    def _start(self, entries: list[Entry]) -> None:
        for shard, eid, fields in entries:
            if (shard, eid) in self._busy:
                continue  # already being delivered here (read again as pending or claimed back)
            self._busy.add((shard, eid))
            task = asyncio.create_task(self._guarded(shard, eid, fields))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(lambda _t, key=(shard, eid): self._busy.discard(key))

    # --- one notice -----------------------------------------------------------------------------------
    async def _guarded(self, shard: int, eid: bytes, fields: dict[bytes, bytes] | None) -> None:
        try:
            await self._deliver(shard, eid, fields)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # left pending: claimed back and tried again after claim_idle_ms
            self.log.exception("webhooks.notice_error", shard=shard, entry=eid.decode(), error=repr(exc)[:300])

    async def _deliver(self, shard: int, eid: bytes, fields: dict[bytes, bytes] | None) -> None:
        if not fields or b"g" not in fields or b"h" not in fields or b"n" not in fields:
            await self._redis(lambda: self.outbox.finish(shard, eid, "", "", delivered=True))
            return
        game_id, field, body = fields[b"g"].decode(), fields[b"h"].decode(), fields[b"n"]
        notice_id = str(orjson.loads(body).get("id", ""))
        hook = await self._redis(lambda: self.hooks.get(game_id, field))
        if hook is None:  # deleted (or gone with its ended game): nobody to tell
            self.stats["no_hook"] += 1
            metrics.WEBHOOK_DELIVERIES.labels("no_hook").inc()
            await self._redis(lambda: self.outbox.finish(shard, eid, game_id, "", delivered=True))
            return
        ctx = {"game": game_id, "hook": hook.id, "notice": notice_id, "host": urlsplit(hook.url).hostname}
        backoff = Backoff(self.cfg.retry_first_s, self.cfg.retry_cap_s)
        error = ""
        attempt = 0
        for attempt in range(1, self.cfg.max_attempts + 1):
            try:
                await self._attempt(hook, notice_id, body, attempt)
            except _Permanent as exc:
                error = str(exc)
                break
            except (httpx.HTTPError, OSError, _Retry) as exc:
                error = str(exc) or type(exc).__name__
                metrics.WEBHOOK_ATTEMPT_ERRORS.inc()
                self.log.info("webhooks.retry", **ctx, attempt=attempt, error=error[:200])
                if attempt < self.cfg.max_attempts:
                    await asyncio.sleep(backoff.next())
                continue
            self.stats["delivered"] += 1
            metrics.WEBHOOK_DELIVERIES.labels("delivered").inc()
            await self._redis(lambda: self.outbox.finish(shard, eid, game_id, field, delivered=True))
            return
        self.stats["failed"] += 1
        metrics.WEBHOOK_DELIVERIES.labels("failed").inc()
        self.log.error("webhooks.delivery_failed", **ctx, attempts=attempt, error=error[:300])
        await self._redis(
            lambda: self.outbox.finish(
                shard, eid, game_id, field, delivered=False, error=error, notice_id=notice_id, attempts=attempt
            )
        )

    async def _attempt(self, hook: Hook, notice_id: str, body: bytes, attempt: int) -> None:
        """One attempt, in a fair slot (services/webhooks/slots.py), within ``deadline_s`` in all; one still
        running after ``slow_after_s`` moves to the slow lane, or is cut if that is full."""
        host = urlsplit(hook.url).hostname or ""
        async with self.slots.hold((hook.game_id, hook.seat), host) as ticket:
            post = asyncio.create_task(self._post(hook, notice_id, body, attempt))
            deadline = asyncio.timeout(self.cfg.deadline_s)
            try:
                async with deadline:
                    await asyncio.wait({post}, timeout=self.cfg.slow_after_s)
                    if not post.done() and not self.slots.demote(ticket):
                        self.stats["cut_slow"] += 1
                        raise _Retry(f"no answer within {self.cfg.slow_after_s:g} s while the slow lane was full")
                    status = await post
            except TimeoutError:
                if not deadline.expired():
                    raise  # the attempt's own timeout (an OSError: retried), not the deadline
                self.stats["cut_deadline"] += 1
                raise _Retry(f"no whole answer within {self.cfg.deadline_s:g} s") from None
            finally:
                if not post.done():
                    post.cancel()  # its connection is closed, not kept
                    await asyncio.wait({post})
                if not post.cancelled():
                    post.exception()  # seen: an outcome that came too late is decided above already
        if 200 <= status < 300:
            return
        if _retriable(status):
            raise _Retry(f"HTTP {status}")
        raise _Permanent(f"HTTP {status}")

    async def _post(self, hook: Hook, notice_id: str, body: bytes, attempt: int) -> int:
        """POST the signed notice (a new connection goes only to checked addresses: CheckedBackend), read the
        answer; its status."""
        try:
            return await self._send(hook, notice_id, body, attempt)
        except BadTarget as exc:
            raise _Permanent(f"{exc.code}: {exc.message}") from None

    async def _send(self, hook: Hook, notice_id: str, body: bytes, attempt: int) -> int:
        check_url(hook.url, allow_private=self.cfg.allow_private)
        assert self._http is not None
        now = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "X-Throne-Id": notice_id,
            "X-Throne-Timestamp": str(now),
            "X-Throne-Signature": signature(hook.key, now, body),
            "X-Throne-Attempt": str(attempt),
            "X-Throne-Hook": hook.id,
        }
        # Streamed: an answer's body is never needed; a short one is read (so the connection is kept for the
        # next notice), a long one is cut off with its connection, never held in memory.
        async with self._http.stream("POST", hook.url, content=body, headers=headers) as response:
            seen = 0
            async for chunk in response.aiter_raw():
                seen += len(chunk)
                if seen > MAX_ANSWER:
                    break
            return response.status_code

    async def _redis(self, call: Callable[[], T]) -> T:
        """Run a Redis call in a thread, waiting out transient faults (until stopped: then the entry stays
        pending and is delivered again later)."""
        backoff = Backoff(0.05, 2.0)
        while True:
            try:
                return await asyncio.to_thread(call)
            except Exception as exc:
                if not is_transient(exc) or self._stop.is_set():
                    raise
                self.stats["redis_faults"] += 1
                self._outage.failed(exc)
                await asyncio.sleep(backoff.next())

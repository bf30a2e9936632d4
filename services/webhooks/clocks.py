"""Clock notices to webhooks: from the shards' ``notices`` streams to the outbox (a part of the webhooks process).

The timer process (services/timer/timer.py) writes a ``clock_low`` notice to its shard's stream
``throne:{sN}:notices`` when an awaited seat's running clock reaches the table's ``low_s`` mark. This follower
reads every served shard's stream with its own consumer group (``webhooks:clocks``, with acks) and queues each
notice, with :meth:`~services.webhooks.outbox.Outbox.notify`, for the seat's webhooks that ask for ``clock_low``;
only then is the entry acked.

* At least once: a process killed before the ack reads its own pending entries again first when it starts (or,
  under another consumer name, they are claimed after ``claim_idle_ms``); the notice is then queued again under
  the same id, and the receiver drops the copy.
* One id per running clock: ``<game>:<seat>:clock_low:<deadline ms>``. The timer may write the same notice
  twice (it died between the notice and moving the alarm on; another seat moved meanwhile, so the version
  differs): both carry the clock's deadline, so both copies share the id.
* The group starts at the stream's end when it is first created: notices written before any webhooks process
  served the shard are not sent (they are about clocks that have long run on). Transient Redis faults are
  waited out by the consumer loop (services/bus/consumer.py); an entry that cannot be read as a notice is
  logged and acked (it would fail the same way every time).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

import orjson
import redis

from services.bus.consumer import ConsumerLoop, Entry, GroupConsumer
from services.bus.keys import CLOCK_HOOKS_GROUP, Layout
from services.log import get_logger
from services.webhooks.config import WebhookConfig
from services.webhooks.hooks import HookStore
from services.webhooks.notices import CLOCK_LOW
from services.webhooks.outbox import Outbox


def time_in_words(ms: int) -> str:
    """A duration for a sentence: ``2 min 10 s``, ``1 h 5 min``, ``3 d 4 h``, ``45 s`` (coarser parts first,
    at most two of them; never below ``0 s``)."""
    seconds = max(0, ms) // 1000
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count or (parts and len(parts) < 2):
            parts.append((count, unit))
        if len(parts) == 2:
            break
    words = [f"{count} {unit}" for count, unit in parts if count]
    return " ".join(words) or "0 s"


def clock_low_text(game_id: str, remaining_ms: int) -> str:
    """The sentence of a ``clock_low`` notice."""
    return f"Your clock in game {game_id} runs low: {time_in_words(remaining_ms)} left."


class ClockNoticeFollower:
    """Queues the ``clock_low`` webhook notices of the games on ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: WebhookConfig | None = None,
        consumer: str = "webhooks",
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or WebhookConfig()
        self.shards = sorted(set(shards))
        self.consumer = consumer
        self.notices = GroupConsumer(
            client, CLOCK_HOOKS_GROUP, consumer, self.layout.notices, batch=self.cfg.batch,
            cluster_poll_ms=self.cfg.cluster_poll_ms,
        )  # fmt: skip
        self.hooks = HookStore(client, self.layout)
        self.outbox = Outbox(client, self.layout)
        self.log = get_logger("webhooks", consumer=consumer, part="clocks")
        self.loop = ConsumerLoop(self.log, "webhooks.clocks")
        self.stats: Counter[str] = Counter()
        self._pending: set[int] = set()
        self._ready = False
        self._next_recover = 0.0

    # --- loop -----------------------------------------------------------------------------------------
    def setup(self) -> None:
        """Create the group on every served shard's notice stream (new entries only, see the module docstring),
        and read this consumer's own pending entries again before anything new."""
        self.notices.create_groups(self.shards, start="$")
        self._pending = set(self.shards)
        self._ready = True

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; errors are logged and the loop goes on."""
        self.log.info("webhooks.clocks_follow", shards=len(self.shards))
        self.loop.run(self._serve_step, stop or threading.Event(), on_error=self._on_error)
        self.log.info("webhooks.clocks_stop", **self.stats)

    def _serve_step(self) -> None:
        if not self._ready:
            self.setup()
        self.step()

    def _on_error(self, exc: Exception) -> None:
        self._ready = False  # the group again (a flushed Redis), and what was read and not acked comes again

    def step(self, block_ms: int | None = None) -> int:
        """Read a batch of notices (own pending ones first; idle ones of dead consumers when due), queue each for
        its seat's webhooks, ack them; returns the entries read."""
        now = time.monotonic()
        if now >= self._next_recover:
            self._claim_idle()
            self._next_recover = now + self.cfg.recover_every_ms / 1000
        entries = self._read(self.cfg.block_ms if block_ms is None else block_ms)
        for entry in entries:
            self.queue(entry)
        if entries:
            self.notices.ack((shard, eid) for shard, eid, _ in entries)
        return len(entries)

    def _read(self, block_ms: int) -> list[Entry]:
        out: list[Entry] = []
        for shard in sorted(self._pending):
            got = self.notices.pending(shard)
            if len(got) < self.cfg.batch:
                self._pending.discard(shard)
            out.extend(got)
        if out:
            return out
        return self.notices.read(self.shards, block_ms)

    def _claim_idle(self) -> None:
        """Take over the entries a dead consumer (another name) left pending: read with the next batch."""
        for shard in self.shards:
            if self.notices.claim_idle(shard, self.cfg.claim_idle_ms, pages=1, counts=False):
                self._pending.add(shard)

    # --- one notice -----------------------------------------------------------------------------------
    def queue(self, entry: Entry) -> str | None:
        """Queue one timer notice for its seat's ``clock_low`` webhooks; returns the notice id (None: the entry
        is not a clock notice, or was deleted)."""
        shard, eid, fields = entry
        if not fields or b"n" not in fields:
            return None
        try:
            notice: dict[str, Any] = orjson.loads(fields[b"n"])
            game_id, seat = str(notice["game_id"]), int(notice["seat"])
            version, deadline = int(notice["version"]), int(notice["deadline_ms"])
            remaining, at = int(notice["remaining_ms"]), int(notice["at_ms"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            self.stats["bad"] += 1
            self.log.error("webhooks.clock_notice_bad", shard=shard, entry=eid.decode(), error=repr(exc)[:200])
            return None
        if notice.get("kind", CLOCK_LOW) != CLOCK_LOW:
            return None
        body = {"remaining_ms": remaining, "deadline_ms": deadline, "at_ms": at,
                "text": clock_low_text(game_id, remaining)}  # fmt: skip
        nid = self.outbox.notify(self.hooks, game_id, seat, CLOCK_LOW, version, body, about=deadline)
        self.stats["clock_low"] += 1
        self.log.debug("webhooks.clock_low", game=game_id, seat=seat, id=nid)
        return nid

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

from collections.abc import Iterable, Sequence
from typing import Any

import orjson
import redis

from services.bus.consumer import Entry
from services.bus.keys import CLOCK_HOOKS_GROUP, Layout
from services.webhooks.config import WebhookConfig
from services.webhooks.notices import CLOCK_LOW
from services.webhooks.part import GroupFollower


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


class ClockNoticeFollower(GroupFollower):
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
        super().__init__(
            client, shards, layout=layout, config=config, consumer=consumer, part="clocks",
            group=CLOCK_HOOKS_GROUP, stream=lambda layout: layout.notices,
            loop_name="webhooks.clocks", started="webhooks.clocks_follow", stopped="webhooks.clocks_stop",
        )  # fmt: skip

    def handle(self, entries: Sequence[Entry]) -> None:
        """Queue each notice read for its seat's webhooks (the loop: GroupFollower)."""
        for entry in entries:
            self.queue(entry)

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

"""What the parts of the webhooks process share (the follower, the clock notices, the deliverer).

* :class:`WebhooksPart`: the settings, the served shards, the webhooks and the outbox, a logger and counters,
  and this process's consumer of the part's group (one stream per shard).
* :class:`GroupFollower`: the loop of the two synchronous followers (services/webhooks/follower.py,
  services/webhooks/clocks.py): the group is created at the streams' ends; a batch is read in the order of
  :class:`~services.bus.consumer.PendingFirst` (own pending entries first after a start or an error, and the
  idle entries of dead consumers every ``recover_every_ms``), handled, and only then acked; transient Redis
  faults are waited out by the consumer loop (services/bus/consumer.py).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import redis

from services.bus.consumer import ConsumerLoop, Entry, GroupConsumer, PendingFirst
from services.bus.keys import Layout
from services.log import get_logger
from services.webhooks.config import WebhookConfig
from services.webhooks.hooks import HookStore
from services.webhooks.outbox import Outbox


class WebhooksPart:
    """One part of the webhooks process over ``shards`` (``part`` names it in the logs)."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None,
        config: WebhookConfig | None,
        consumer: str,
        part: str,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or WebhookConfig()
        self.shards = sorted(set(shards))
        self.consumer = consumer
        self.hooks = HookStore(client, self.layout)
        self.outbox = Outbox(client, self.layout)
        self.log = get_logger("webhooks", consumer=consumer, part=part)
        self.stats: Counter[str] = Counter()

    def group_consumer(self, group: str, stream: Callable[[int], str]) -> GroupConsumer:
        """This process's consumer of ``group`` over the streams ``stream(shard)``, read a batch at a time."""
        return GroupConsumer(
            self.r, group, self.consumer, stream, batch=self.cfg.batch, cluster_poll_ms=self.cfg.cluster_poll_ms
        )


class GroupFollower(WebhooksPart):
    """A synchronous part that reads its group's streams with acks and handles each batch (:meth:`handle`).

    ``group`` is read over the streams ``stream(layout)(shard)``; ``loop_name`` names the consumer loop (its error
    log lines), ``started``/``stopped`` the log lines of :meth:`run`.
    """

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None,
        config: WebhookConfig | None,
        consumer: str,
        part: str,
        group: str,
        stream: Callable[[Layout], Callable[[int], str]],
        loop_name: str,
        started: str,
        stopped: str,
    ) -> None:
        super().__init__(client, shards, layout=layout, config=config, consumer=consumer, part=part)
        self.reader = self.group_consumer(group, stream(self.layout))
        self.reading = PendingFirst(
            self.reader, self.shards, claim_idle_ms=self.cfg.claim_idle_ms, recover_every_ms=self.cfg.recover_every_ms
        )
        self.loop = ConsumerLoop(self.log, loop_name)
        self._started, self._stopped = started, stopped
        self._ready = False

    # --- loop -----------------------------------------------------------------------------------------
    def setup(self) -> None:
        """Create the group on every served stream (new entries only), and read this consumer's own pending
        entries again before anything new."""
        self.reader.create_groups(self.shards, start="$")
        self.reading.restart()
        self._ready = True

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; errors are logged and the loop goes on."""
        self.log.info(self._started, shards=len(self.shards))
        self.loop.run(self._serve_step, stop or threading.Event(), on_error=self._on_error)
        self.log.info(self._stopped, **self.stats)

    def _serve_step(self) -> None:
        if not self._ready:
            self.setup()
        self.step()

    def _on_error(self, exc: Exception) -> None:
        self._ready = False  # the groups again (a flushed Redis), and what was read and not acked comes again

    def step(self, block_ms: int | None = None) -> int:
        """Do what is due (:meth:`when_due`; the idle entries of dead consumers), read a batch (own pending
        entries first), handle it, ack it; returns the entries read."""
        now = time.monotonic()
        self.when_due(now)
        self.reading.claim_idle_when_due(now)
        entries = self.reading.read(self.cfg.block_ms if block_ms is None else block_ms)
        self.handle(entries)
        if entries:
            self.reader.ack((shard, eid) for shard, eid, _ in entries)
        return len(entries)

    def when_due(self, now: float) -> None:
        """The part's own periodic work, before each read (``now``: monotonic seconds); none by default."""

    def handle(self, entries: Sequence[Entry]) -> None:
        """Handle a batch read (maybe empty); an error leaves it unacked, to be read again."""
        raise NotImplementedError

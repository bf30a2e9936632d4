"""Tuning and policy of a webhooks process; the defaults suit production, tests shorten the timings."""

from __future__ import annotations

import os
from dataclasses import dataclass


def allow_private_from_env() -> bool:
    """Whether env ``THRONE_WEBHOOKS_ALLOW_PRIVATE`` allows private targets (``1``, ``true``, ``yes``)."""
    return os.environ.get("THRONE_WEBHOOKS_ALLOW_PRIVATE", "").strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """How a webhooks process follows the feeds and delivers notices."""

    # --- following the feeds --------------------------------------------------------------------------
    batch: int = 256
    """Feed (and outbox) entries read per shard at a time."""
    block_ms: int = 100
    """How long one read of the feeds blocks while they are quiet."""
    sweep_every_ms: int = 5000
    """How often the shards' ``hookgames`` sets are walked (games whose feed entries were missed: a process
    that was down, a trimmed feed)."""
    cache_size: int = 5000
    """Games kept folded in memory (LRU)."""
    ended_keep_ms: int = 86_400_000
    """How long an ended game's webhooks and counters stay (its last notices are delivered long before)."""
    cluster_poll_ms: int = 10

    # --- delivering -----------------------------------------------------------------------------------
    concurrency: int = 64
    """Attempts in the prompt lane at once: where every attempt starts (services/webhooks/slots.py)."""
    slow_after_s: float = 2.0
    """An attempt still running this long moves to the slow lane, giving its prompt slot back (or is cut and
    retried later, when the slow lane is full)."""
    slow_slots: int = 64
    """Attempts in the slow lane at once."""
    per_host: int = 4
    """Attempts in flight at once to one host (both lanes)."""
    per_seat: int = 8
    """Attempts in flight at once for one seat's webhooks (both lanes); free prompt slots go to the waiting seat
    that holds fewest, round-robin."""
    max_in_flight: int = 1024
    """Notices read from the outbox and not settled yet (waiting for a slot, or for their next attempt)."""
    timeout_s: float = 10.0
    """Seconds each step of an attempt may take (connecting, each write, each read)."""
    deadline_s: float = 15.0
    """Seconds a whole attempt may take: resolving the host, connecting, sending, reading the whole answer. A
    receiver that trickles its answer (each read within ``timeout_s``) is cut here, and the notice retried."""
    max_attempts: int = 6
    """Attempts of one notice before it is recorded as failed."""
    retry_first_s: float = 1.0
    retry_cap_s: float = 60.0
    """Backoff between attempts: full jitter, growing from ``retry_first_s`` up to ``retry_cap_s``."""
    claim_idle_ms: int = 600_000
    """Feed and outbox entries pending this long in another consumer are taken over (it is presumed dead).
    Longer than one notice's whole retry schedule, so a live process's retries are not taken from it."""
    recover_every_ms: int = 30_000
    """How often idle entries of other consumers are looked for."""
    redis_threads: int = 16
    """Threads for the deliverer's Redis calls (hook look-ups, settling, outbox reads)."""
    allow_private: bool = False
    """Deliver to loopback, private and reserved addresses (tests, development): see services/webhooks/targets.py."""

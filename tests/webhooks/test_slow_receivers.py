"""Slow receivers hold up nobody else: 64 receivers that trickle their answers (on 64 hosts, for 16 seats) while
an honest seat's notice is due, on a real Redis with real HTTP receivers on loopback."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
import redis

from services.bench.trickle import trickling_receiver
from services.webhooks.config import WebhookConfig
from services.webhooks.hooks import HookStore
from services.webhooks.notices import CLOCK_LOW
from services.webhooks.outbox import Outbox
from tests.gateway.conftest import Served, new_game
from tests.service.helpers import wait_for
from tests.webhooks.conftest import FAST_HOOKS, Hooks
from tests.webhooks.receiver import Received, receiver
from tests.webhooks.test_webhooks import TOY

pytestmark = pytest.mark.redis

TRICKLERS = 64
SLOW_HOOKS = dataclasses.replace(
    FAST_HOOKS, concurrency=TRICKLERS, slow_slots=TRICKLERS + 8, per_host=4, per_seat=8, timeout_s=5,
    slow_after_s=0.5, deadline_s=8,
)  # fmt: skip
"""As many trickling receivers as prompt slots (the slow lane has room for them all, so none is cut for want of
it); each read of theirs comes well within ``timeout_s``, so only the total deadline cuts them."""


def test_given_64_trickling_receivers_when_an_honest_seat_is_due_a_notice_then_it_gets_it_while_they_hang_on(
    gateway: Served, redis_url: str, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    r = redis.Redis.from_url(redis_url)
    store, outbox = HookStore(r, gateway.layout), Outbox(r, gateway.layout)
    with trickling_receiver(TRICKLERS, every_s=1.0) as slow, receiver() as honest:
        # Given 16 seats (8 games) with 4 webhooks each, every one on a host of its own that answers a byte a second
        seats = [(new_game(gateway, "toy21", TOY, seed=n)["game_id"], seat) for n in range(8) for seat in (0, 1)]
        paths: list[str] = []
        for n, url in enumerate(slow.urls):
            gid, seat = seats[n // 4]
            paths.append(f"/slow/{n}")
            store.register(gid, seat, url + paths[-1], (CLOCK_LOW,), max_per_seat=4)
        # And an honest seat with its webhook on a receiver that answers at once
        honest_game = new_game(gateway, "toy21", TOY, seed=99)["game_id"]
        hook = store.register(honest_game, 0, honest.hook_url("/honest"), (CLOCK_LOW,), max_per_seat=4)
        honest.secrets["/honest"] = hook.key
        seen_at_delivery: list[tuple[int, int]] = []

        def answer(_got: Received) -> int:
            with slow.lock:
                seen_at_delivery.append((slow.open, slow.cut))
            return 200

        honest.answer = answer
        hooks = hooks_process(SLOW_HOOKS)
        # When every trickling receiver is sent a notice and holds its connection
        for gid, seat in seats:
            outbox.notify(store, gid, seat, CLOCK_LOW, 1, {"text": "slow"})
        wait_for(lambda: slow.open == TRICKLERS, 60)
        # And then the honest seat is due its notice
        nid = outbox.notify(store, honest_game, 0, CLOCK_LOW, 1, {"text": "honest"})
        # Then it is delivered while all 64 trickling receivers still hold their connections, none cut yet
        wait_for(lambda: nid in honest.unique, 60)
        assert seen_at_delivery[0] == (TRICKLERS, 0)
        # And each trickling attempt is cut by the total deadline (no single read was slow enough to time out),
        # and its notice is tried again, not lost
        wait_for(lambda: all(2 in slow.attempts(p) for p in paths), 60)
        assert slow.cut >= TRICKLERS
        assert hooks.deliverer.stats["cut_deadline"] >= TRICKLERS and hooks.deliverer.stats["cut_slow"] == 0
        assert hooks.deliverer.stats["delivered"] == 1

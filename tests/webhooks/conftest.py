"""Fixtures of the webhooks suite: a real redis-server, a gateway (with a rules worker) that accepts loopback
webhook URLs, and the webhooks process's two halves in threads (or, for the crash test, the real process)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import redis

import tests.service.toy_game  # noqa: F401 - registers toy21
from services.webhooks.config import WebhookConfig
from services.webhooks.delivery import Deliverer
from services.webhooks.follower import WebhookFollower
from tests.gateway.conftest import OPEN, Served, serve
from tests.service.conftest import _quiet_logs, redis_url  # noqa: F401 - fixtures

LOOPBACK_OK = dataclasses.replace(OPEN, webhooks_allow_private=True)
FAST_HOOKS = WebhookConfig(
    block_ms=20, sweep_every_ms=200, retry_first_s=0.05, retry_cap_s=0.2, max_attempts=4, timeout_s=5,
    claim_idle_ms=2000, recover_every_ms=200, allow_private=True,
)  # fmt: skip
"""Test timings: retries in tenths of a second; loopback receivers allowed."""


@pytest.fixture(scope="module")
def gateway(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway + rules worker accepting loopback webhook URLs."""
    served = serve(redis_url, limits=LOOPBACK_OK)
    try:
        yield served
    finally:
        served.close()


@dataclass
class Hooks:
    """The webhooks process's halves running in threads of the test."""

    follower: WebhookFollower
    deliverer: Deliverer
    stop: threading.Event
    threads: list[threading.Thread] = field(default_factory=list)


def start_hooks(served: Served, url: str, config: WebhookConfig = FAST_HOOKS) -> Hooks:
    """Start the follower and the deliverer on ``served``'s layout, each in its own thread."""
    shards = range(served.layout.shards)
    follower = WebhookFollower(redis.Redis.from_url(url), shards, layout=served.layout, config=config)
    deliverer = Deliverer(redis.Redis.from_url(url), shards, layout=served.layout, config=config)
    stop = threading.Event()
    hooks = Hooks(follower, deliverer, stop)
    for name, run in (("webhooks-follower", follower.run), ("webhooks-deliverer", deliverer.run)):
        thread = threading.Thread(target=run, args=(stop,), daemon=True, name=name)
        thread.start()
        hooks.threads.append(thread)
    return hooks


@pytest.fixture
def hooks_process(gateway: Served, redis_url: str) -> Iterator[Callable[[WebhookConfig], Hooks]]:  # noqa: F811
    """Start the webhooks halves in threads (with a config); stopped at the end of the test."""
    started: list[Hooks] = []

    def start(config: WebhookConfig = FAST_HOOKS) -> Hooks:
        started.append(start_hooks(gateway, redis_url, config))
        return started[-1]

    yield start
    for hooks in started:
        hooks.stop.set()
        for thread in hooks.threads:
            thread.join(10)

"""Clock notices to webhooks on a real Redis: the timer (its time set by the test, nobody waits) finds a seat's
clock low, and the webhooks process tells that seat's webhooks that asked for ``clock_low``, signed, under one id."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from services.bus.keys import CLOCK_HOOKS_GROUP
from services.timer.timer import ClockTimer
from services.webhooks.clocks import ClockNoticeFollower, clock_low_text, time_in_words
from services.webhooks.config import WebhookConfig
from services.webhooks.notices import kinds
from tests.gateway.conftest import Served
from tests.service.helpers import wait_for
from tests.webhooks.conftest import FAST_HOOKS, Hooks
from tests.webhooks.receiver import receiver
from tests.webhooks.test_webhooks import register

pytestmark = pytest.mark.redis

CLOCK = {"mode": "bank", "bank_s": 3600, "increment_s": 30, "low_s": 60}
LOW_AFTER_MS = 3_550_000
"""Where the test's timer puts its clock: 59 min 10 s after now, inside every clock's last minute."""


def clocked_game(served: Served, seed: int = 5) -> tuple[dict[str, Any], int]:
    """A new two-seat Barracks game on a one-hour bank with a notice at one minute; returns it and the awaited
    seat."""
    with served.http() as http:
        r = http.post("/games", json={"game": "barracks", "players": ["Ann", "Bob"], "seed": seed,
                                      "settings": {"clock": CLOCK}})  # fmt: skip
        assert r.status_code == 201, r.text
        game = r.json()
        awaited = http.get(f"/games/{game['game_id']}").json()["awaiting"]
    assert len(awaited) == 1
    return game, awaited[0]


def hook(served: Served, rx: Any, game: dict[str, Any], seat: int, name: str, wanted: list[str] | None) -> str:
    """Register a webhook of ``seat`` on ``rx`` at path ``/<name>`` (``wanted`` kinds; None: the default)."""
    extra = {} if wanted is None else {"kinds": wanted}
    r = register(served, game, seat, rx.hook_url(f"/{name}"), **extra)
    assert r.status_code == 201, r.text
    rx.secrets[f"/{name}"] = r.json()["secret"]
    return f"/{name}"


def settled(served: Served, hooks: Hooks) -> bool:
    """Every clock notice written so far was read and acked, and every notice queued was delivered or failed."""
    r, layout = served.redis, served.layout
    for shard in range(layout.shards):
        groups = {g["name"].decode(): g for g in r.xinfo_groups(layout.notices(shard))}
        group = groups[CLOCK_HOOKS_GROUP]
        last = r.xinfo_stream(layout.notices(shard))["last-generated-id"]
        if group["pending"] or (r.xlen(layout.notices(shard)) and group["last-delivered-id"] != last):
            return False
        if r.xlen(layout.webhooks(shard)):
            return False
    return True


def test_given_hooked_seats_when_the_awaited_seats_clock_runs_low_then_its_hook_hears_it_once_and_no_other(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    assert "clock_low" in kinds()
    with receiver() as rx:
        # Given a clocked game: the awaited seat has a webhook by default kinds (clock_low among them) and one for
        # turns only; the other seat has a webhook for clock_low
        game, seat = clocked_game(gateway)
        gid, other = game["game_id"], 1 - seat
        low = hook(gateway, rx, game, seat, "low", None)
        hook(gateway, rx, game, seat, "turns", ["turn"])
        hook(gateway, rx, game, other, "other", ["clock_low"])
        hooks = hooks_process(FAST_HOOKS)
        wait_for(lambda: hooks.clocks._ready)  # its groups on the notice streams exist
        # When a timer whose clock is 59 min 10 s on finds the seat's bank under its minute, and (as a timer that
        # died before moving the alarm on would) notices it again a second later
        timer = ClockTimer(gateway.redis, range(gateway.layout.shards), layout=gateway.layout)
        shard = gateway.layout.shard_of(gid)
        now = int(time.time() * 1000) + LOW_AFTER_MS
        assert timer.handle(shard, gid, now) == "notice"
        assert timer.handle(shard, gid, now + 1000) == "notice"
        # Then the seat's clock_low webhook hears it, signed, twice at most but under one id (the receiver keeps one)
        wait_for(lambda: settled(gateway, hooks), 60)
        got = [r for r in rx.requests if r.path == low]
        assert len(got) == 2 and rx.bad_signatures == 0
        assert len(rx.unique) == 1
        notice = rx.unique[got[0].notice_id].notice
        deadline = notice["deadline_ms"]
        assert got[0].notice_id == got[1].notice_id == notice["id"] == f"{gid}:{seat}:clock_low:{deadline}"
        assert notice["kind"] == "clock_low" and notice["game_id"] == gid and notice["seat"] == seat
        assert notice["version"] == game["version"] and notice["at_ms"] in (now, now + 1000)  # whichever came first
        assert 0 < notice["remaining_ms"] <= 60_000 and notice["remaining_ms"] == deadline - notice["at_ms"]
        assert notice["text"] == clock_low_text(gid, notice["remaining_ms"])
        assert notice["text"].startswith(f"Your clock in game {gid} runs low: ") and " s left." in notice["text"]
        # And the seat's turns-only webhook and the other seat's webhook heard nothing of it
        assert {r.path for r in rx.requests} == {low}


def test_given_a_webhooks_process_that_died_holding_clock_notices_when_it_or_another_comes_then_they_are_queued(
    gateway: Served,
) -> None:
    r, layout = gateway.redis, gateway.layout
    shards = range(layout.shards)
    with receiver() as rx:
        # Given a clocked game whose awaited seat has a clock_low webhook
        game, seat = clocked_game(gateway, seed=6)
        gid = game["game_id"]
        hook(gateway, rx, game, seat, "low", ["clock_low"])
        shard = layout.shard_of(gid)
        outbox = layout.webhooks(shard)
        start = r.xinfo_stream(outbox)["last-generated-id"] if r.exists(outbox) else b"0-0"

        def queued() -> list[dict[str, Any]]:
            return [orjson.loads(f[b"n"]) for _, f in r.xrange(outbox, min=start) if f[b"g"].decode() == gid]

        # And a process "a" that read the timer's notice and died before queuing it (nothing acked)
        a = ClockNoticeFollower(r, shards, layout=layout, config=FAST_HOOKS, consumer="a")
        a.setup()
        timer = ClockTimer(r, shards, layout=layout)
        assert timer.handle(shard, gid, int(time.time() * 1000) + LOW_AFTER_MS) == "notice"
        assert [e[0] for e in a.reader.read(list(shards), 0)] == [shard]
        assert queued() == []
        # When "a" starts again under its name: its own pending notice comes first, queued, then acked
        again = ClockNoticeFollower(r, shards, layout=layout, config=FAST_HOOKS, consumer="a")
        again.setup()
        assert again.step(block_ms=0) == 1
        first = queued()
        assert [(n["kind"], n["seat"]) for n in first] == [("clock_low", seat)]
        assert r.xpending(layout.notices(shard), CLOCK_HOOKS_GROUP)["pending"] == 0
        # And when a notice is left pending by a dead "b", a process under another name ("c") claims it once idle
        assert timer.handle(shard, gid, int(time.time() * 1000) + LOW_AFTER_MS + 5000) == "notice"
        b = ClockNoticeFollower(r, shards, layout=layout, config=FAST_HOOKS, consumer="b")
        assert len(b.reader.read(list(shards), 0)) == 1
        c = ClockNoticeFollower(
            r, shards, layout=layout, consumer="c",
            config=dataclasses.replace(FAST_HOOKS, claim_idle_ms=0),
        )  # fmt: skip
        c.setup()
        assert c.step(block_ms=0) == 1
        both = queued()
        # Then both copies carry the one id of the seat's running clock: the receiver keeps one notice
        assert len(both) == 2 and both[0]["id"] == both[1]["id"] == first[0]["id"]
        assert r.xpending(layout.notices(shard), CLOCK_HOOKS_GROUP)["pending"] == 0


def test_given_durations_when_put_in_words_then_the_two_coarsest_parts_show() -> None:
    assert time_in_words(130_000) == "2 min 10 s"
    assert time_in_words(45_999) == "45 s"
    assert time_in_words(3_600_000) == "1 h"
    assert time_in_words(3_900_000) == "1 h 5 min"
    assert time_in_words(2 * 86_400_000 + 4 * 3_600_000 + 59_000) == "2 d 4 h"
    assert time_in_words(-5) == "0 s"

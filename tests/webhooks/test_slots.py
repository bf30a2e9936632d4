"""The deliverer's slots (services/webhooks/slots.py): who gets a free slot, the caps, the slow lane."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from services.webhooks.slots import PROMPT, SLOW, FairSlots, Ticket


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(5):
        await asyncio.sleep(0)


def waiting_in(slots: FairSlots, seat: str, host: str, order: list[str]) -> asyncio.Task[Ticket]:
    """A task that waits for a slot and notes ``seat`` in ``order`` when it gets one."""

    async def take() -> Ticket:
        ticket = await slots.acquire(seat, host)
        order.append(seat)
        return ticket

    return asyncio.create_task(take())


def test_given_full_slots_when_they_free_then_the_seat_holding_fewest_goes_first_and_equals_take_turns() -> None:
    async def scenario() -> None:
        slots = FairSlots(prompt=3, slow=0, per_host=10, per_seat=10)
        # Given seat A holding every slot, and four more of A's attempts waiting
        held = [await slots.acquire("A", f"a{n}") for n in range(3)]
        order: list[str] = []
        a_tasks = [waiting_in(slots, "A", f"a{n}", order) for n in range(4)]
        await settle()
        # When seats B and C (holding nothing) come to wait after them, B twice
        b_tasks = [waiting_in(slots, "B", "b", order) for _ in range(2)]
        c_task = waiting_in(slots, "C", "c", order)
        await settle()
        assert order == [] and slots.waiting() == 7
        # Then each slot A frees goes to a seat holding none: B, C, then A (its first attempts have ended)
        for ticket in held:
            slots.release(ticket)
            await settle()
        assert order == ["B", "C", "A"]
        # And between seats holding as many, the one served longest ago goes first: B's second before A's next
        slots.release(c_task.result())
        await settle()
        assert order == ["B", "C", "A", "B"]
        slots.release(b_tasks[0].result())
        await settle()
        assert order == ["B", "C", "A", "B", "A"]
        for task in a_tasks:
            task.cancel()
        await asyncio.gather(*a_tasks, return_exceptions=True)

    run(scenario())


def test_given_the_caps_when_one_seat_or_one_host_asks_for_more_then_it_waits_while_others_go() -> None:
    async def scenario() -> None:
        slots = FairSlots(prompt=10, slow=10, per_host=2, per_seat=3)
        order: list[str] = []
        # Given seat A asking for 5 slots on 5 hosts, and seat B for 3 on one host
        tasks = [waiting_in(slots, "A", f"a{n}", order) for n in range(5)]
        tasks += [waiting_in(slots, "B", "shared", order) for _ in range(3)]
        await settle()
        # Then A holds its cap of 3 and B its host's cap of 2, though 5 of the 10 slots are free
        assert sorted(order) == ["A", "A", "A", "B", "B"] and slots.held[PROMPT] == 5 and slots.waiting() == 3
        # And the slow lane counts too: a demoted attempt still holds its seat's and host's share
        first_a = next(t.result() for t in tasks[:5] if t.done())
        assert slots.demote(first_a) and first_a.lane == SLOW and slots.held[PROMPT] == 4
        await settle()
        assert len(order) == 5
        # When one of B's attempts ends, B's next one goes
        slots.release(next(t.result() for t in tasks[5:] if t.done()))
        await settle()
        assert order[-1] == "B" and len(order) == 6
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if not task.cancelled():
                slots.release(task.result())
        # And once nothing is held or waiting, nothing of the seats and hosts is remembered
        assert len(slots) == 0 and slots.held[PROMPT] == slots.held[SLOW] == 0

    run(scenario())


def test_given_a_full_prompt_lane_when_an_attempt_is_demoted_then_its_slot_goes_on_unless_the_slow_lane_is_full() -> (
    None
):
    async def scenario() -> None:
        slots = FairSlots(prompt=1, slow=1, per_host=5, per_seat=5)
        order: list[str] = []
        # Given one prompt slot held, and seat B waiting
        first = await slots.acquire("A", "a")
        second = waiting_in(slots, "B", "b", order)
        await settle()
        assert order == []
        # When the holder runs long and moves to the slow lane, B gets the prompt slot
        assert slots.demote(first)
        await settle()
        assert order == ["B"]
        # And when B runs long too, the slow lane is full: B must be cut (it keeps its prompt slot till then)
        assert not slots.demote(second.result()) and second.result().lane == PROMPT
        slots.release(second.result())
        slots.release(first)
        assert len(slots) == 0

    run(scenario())


def test_given_waiting_attempts_when_they_are_cancelled_then_they_leave_no_trace() -> None:
    async def scenario() -> None:
        slots = FairSlots(prompt=1, slow=0, per_host=1, per_seat=1)
        held = await slots.acquire("A", "a")
        order: list[str] = []
        waiters = [waiting_in(slots, seat, "h", order) for seat in "BCD"]
        await settle()
        waiters[0].cancel()
        await settle()
        assert slots.waiting() == 2
        slots.release(held)
        await settle()
        assert order == ["C"]
        for waiter in waiters[2:]:
            waiter.cancel()
        await settle()
        slots.release(waiters[1].result())
        assert len(slots) == 0 and slots.waiting() == 0

    run(scenario())


def test_given_nonsense_sizes_when_slots_are_made_then_they_are_refused() -> None:
    with pytest.raises(ValueError):
        FairSlots(prompt=0, slow=1, per_host=1, per_seat=1)

"""The deliverer's slots: how the delivery attempts in flight are shared between seats and hosts.

A receiver is chosen by a player, so it may be slow on purpose: a server that trickles its answer one byte at a
time holds whatever slot its attempt took for as long as the attempt lasts. Three rules keep such receivers from
holding up everyone else's notices:

* **Two lanes.** An attempt starts in the *prompt* lane (``prompt`` attempts at once). One still running after
  ``slow_after_s`` (the deliverer's clock, :meth:`FairSlots.demote`) moves to the *slow* lane (``slow`` at once),
  freeing its prompt slot; if the slow lane is full, the attempt is cut (and retried later). So a prompt slot is
  always given back within ``slow_after_s``, however many receivers are slow, and the slow ones hold only the
  slow lane (until the attempt's total deadline cuts them).
* **Caps.** One host holds at most ``per_host`` attempts and one seat (a game's seat: the owner of up to a few
  webhooks) at most ``per_seat``, both lanes together.
* **Fair turns.** A free prompt slot goes to the waiting seat that holds the fewest slots (ties: the seat served
  longest ago, round-robin), its oldest waiting attempt whose host is under its cap. A seat that floods the
  queue waits behind seats that hold nothing, and an honest seat's notice is next in line whenever a slot frees.

Everything here runs on one event loop (no locks); the counters of a host or seat are forgotten once nothing of
it is held or waiting, so the hosts and seats met over time take no memory.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass, field

PROMPT = "prompt"
SLOW = "slow"


@dataclass(eq=False)
class Ticket:
    """One attempt's claim on a slot: its seat and host, and the lane it holds (None while it waits)."""

    seat: Hashable
    host: str
    granted: asyncio.Future[None] = field(repr=False)
    lane: str | None = None


class FairSlots:
    """The slots of the attempts in flight (see the module docstring)."""

    def __init__(self, *, prompt: int, slow: int, per_host: int, per_seat: int) -> None:
        if min(prompt, per_host, per_seat) < 1 or slow < 0:
            raise ValueError("prompt, per_host and per_seat are at least 1, slow at least 0")
        self.prompt, self.slow, self.per_host, self.per_seat = prompt, slow, per_host, per_seat
        self.held: Counter[str] = Counter()
        """Attempts holding each lane."""
        self._hosts: Counter[str] = Counter()
        self._seats: Counter[Hashable] = Counter()
        self._waiting: OrderedDict[Hashable, deque[Ticket]] = OrderedDict()
        """Waiting attempts by seat; a seat served moves to the end (round-robin among equals)."""

    # --- holding --------------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def hold(self, seat: Hashable, host: str) -> AsyncIterator[Ticket]:
        """Wait for a prompt slot for one attempt of ``seat`` to ``host``; hold it (or its slow slot, once
        demoted) for the block."""
        ticket = await self.acquire(seat, host)
        try:
            yield ticket
        finally:
            self.release(ticket)

    async def acquire(self, seat: Hashable, host: str) -> Ticket:
        """Wait in ``seat``'s line for a prompt slot; the ticket holds it until :meth:`release`."""
        ticket = Ticket(seat, host, asyncio.get_running_loop().create_future())
        self._waiting.setdefault(seat, deque()).append(ticket)
        self._dispatch()
        try:
            await ticket.granted
        except asyncio.CancelledError:
            if ticket.lane is not None:  # granted just as it was cancelled
                self.release(ticket)
            else:
                self._forget_waiting(ticket)
            raise
        return ticket

    def demote(self, ticket: Ticket) -> bool:
        """Move a prompt attempt that runs long to the slow lane (its prompt slot goes to the next in line);
        False if the slow lane is full (then the caller cuts the attempt)."""
        if ticket.lane != PROMPT:
            return ticket.lane == SLOW
        if self.held[SLOW] >= self.slow:
            return False
        self.held[PROMPT] -= 1
        self.held[SLOW] += 1
        ticket.lane = SLOW
        self._dispatch()
        return True

    def release(self, ticket: Ticket) -> None:
        """Give a ticket's slot back (and its seat's and host's share of it)."""
        if ticket.lane is None:
            return
        self.held[ticket.lane] -= 1
        ticket.lane = None
        _drop(self._hosts, ticket.host)
        _drop(self._seats, ticket.seat)
        self._dispatch()

    # --- looking ----------------------------------------------------------------------------------------
    def waiting(self) -> int:
        """Attempts waiting for a slot."""
        return sum(len(q) for q in self._waiting.values())

    def __len__(self) -> int:
        """Hosts and seats with anything held or waiting (0 once idle: nothing is remembered)."""
        return len(self._hosts) + len(self._seats) + len(self._waiting)

    # --- the turns ------------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        while self.held[PROMPT] < self.prompt:
            ticket = self._next()
            if ticket is None:
                return
            ticket.lane = PROMPT
            self.held[PROMPT] += 1
            self._hosts[ticket.host] += 1
            self._seats[ticket.seat] += 1
            ticket.granted.set_result(None)

    def _next(self) -> Ticket | None:
        """Take the next ticket to serve off its line: the eligible seat holding fewest slots, first in turn."""
        best: tuple[int, Hashable, Ticket] | None = None
        for seat, line in list(self._waiting.items()):
            while line and line[0].granted.done():  # cancelled while waiting
                line.popleft()
            if not line:
                del self._waiting[seat]
                continue
            holds = self._seats[seat]
            if holds >= self.per_seat or (best is not None and holds >= best[0]):
                continue
            ticket = next((t for t in line if not t.granted.done() and self._hosts[t.host] < self.per_host), None)
            if ticket is not None:
                best = (holds, seat, ticket)
                if holds == 0:
                    break
        if best is None:
            return None
        _, seat, ticket = best
        line = self._waiting.pop(seat)
        line.remove(ticket)
        if line:
            self._waiting[seat] = line  # to the end of the turn
        return ticket

    def _forget_waiting(self, ticket: Ticket) -> None:
        line = self._waiting.get(ticket.seat)
        if line is not None:
            with contextlib.suppress(ValueError):
                line.remove(ticket)
            if not line:
                del self._waiting[ticket.seat]


def _drop(counter: Counter[str] | Counter[Hashable], key: Hashable) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]

"""Clocks: the table setting, the two recorded clock facts and the timeout command, shared by every game.

A game with clocks lists :class:`ClockSettings` under ``clock`` in its table settings, puts :class:`ClockStamped`
and :class:`SeatTimedOut` in its event union, and folds them with ``services/rules/clock.py`` (the arithmetic,
written once). :class:`TimeOut` is no game's command: the contract decides it (``GameRules.execute_at``) with the
game's documented default move.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.base import Command, Event

MAX_SECONDS = 30 * 24 * 3600
"""The longest limit, bank or increment a table may set: 30 days (asynchronous play)."""


class ClockSettings(BaseModel):
    """How much time each seat has to make its decisions (the table setting ``clock``; absent: no clocks).

    ``per_decision``: every decision of a seat gets ``per_decision_s`` seconds, whatever it used before (live play:
    seconds; asynchronous play: hours or days). ``bank``: each seat has one bank of ``bank_s`` seconds that runs
    while the game awaits it, and gains ``increment_s`` after each of its moves (a Fischer clock).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    mode: Literal["per_decision", "bank"] = Field(description="A limit per decision, or a time bank per seat.")
    per_decision_s: int | None = Field(None, ge=1, le=MAX_SECONDS, description="per_decision: seconds per decision.")
    bank_s: int | None = Field(None, ge=1, le=MAX_SECONDS, description="bank: each seat's bank at the start.")
    increment_s: int = Field(0, ge=0, le=MAX_SECONDS, description="bank: seconds added after each of a seat's moves.")
    low_s: int | None = Field(
        None,
        ge=1,
        le=MAX_SECONDS,
        description="A notice goes out when a seat has this much time left (none: never).",
    )
    autoplay_after: int | None = Field(
        None,
        ge=1,
        le=100,
        description="After this many timeouts in a row, the seat's decisions get their default move at once, "
        "without waiting, until it moves by itself again (none: every decision waits its full time).",
    )

    @model_validator(mode="after")
    def _complete(self) -> ClockSettings:
        if self.mode == "per_decision" and (self.per_decision_s is None or self.bank_s is not None):
            raise ValueError("clock: mode per_decision takes per_decision_s (and no bank_s)")
        if self.mode == "bank" and (self.bank_s is None or self.per_decision_s is not None):
            raise ValueError("clock: mode bank takes bank_s (and no per_decision_s)")
        if self.mode == "per_decision" and self.increment_s:
            raise ValueError("clock: increment_s belongs to mode bank")
        return self


class ClockStamped(Event):
    """The time the worker stamped on an accepted command (or a game's creation, ``seat`` None): the clocks are
    folded from these facts alone, so a replay or a verification never reads a clock."""

    type: Literal["ClockStamped"] = "ClockStamped"
    seat: int | None
    at_ms: int
    timed_out: bool = False
    """The stamp closes a timeout of ``seat`` (its run of timeouts goes on), not a move of its own."""


class SeatTimedOut(Event):
    """``seat`` let its time run out on ``decision``: the referee made its documented default move (``default``,
    the command's JSON; the ruling cited says which default)."""

    type: Literal["SeatTimedOut"] = "SeatTimedOut"
    seat: int
    decision: str
    default: dict[str, Any]
    timeouts: int
    """The seat's timeouts in a row, this one included."""
    autoplay: bool = False
    """From now on (``autoplay_after`` reached) the seat's decisions get their default at once, until it moves."""


class TimeOut(Command):
    """The timer's claim that ``seat``'s time ran out on the decision of clock turn ``turn`` (the number of stamps
    recorded so far): once anything else was accepted, the claim is stale and refused, changing nothing."""

    type: Literal["TimeOut"] = "TimeOut"
    turn: int = Field(ge=0)


TIME_OUT = "TimeOut"

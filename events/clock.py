"""The table around every game: the clock setting, the recorded table facts and the table's commands.

A game with clocks lists :class:`ClockSettings` under ``clock`` in its table settings; nothing else here is the
game's. The table (``services/rules/table/``) decides :class:`TimeOut`, :class:`TakeSeat` and
:class:`LeaveSeat` and folds :class:`ClockStamped`, :class:`SeatTimedOut`, :class:`SeatHandedOver` and
:class:`SeatLeft` itself, around any game: a timeout plays the game's documented default move.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.base import Command, Event

MAX_SECONDS = 30 * 24 * 3600
"""The longest limit, bank or increment a table may set: 30 days (asynchronous play)."""


_NUMBER = {"type": "integer"}
_NONE = {"type": "null"}
_RULES: dict[str, Any] = {
    "allOf": [
        {
            "if": {"properties": {"mode": {"const": "per_decision"}}},
            "then": {
                "required": ["per_decision_s"],
                "properties": {"per_decision_s": _NUMBER, "bank_s": _NONE, "increment_s": {"const": 0}},
            },
        },
        {
            "if": {"properties": {"mode": {"const": "bank"}}},
            "then": {"required": ["bank_s"], "properties": {"bank_s": _NUMBER, "per_decision_s": _NONE}},
        },
        {
            "anyOf": [
                {"properties": {"bot": _NONE, "bot_after": _NONE}},
                {"required": ["bot", "bot_after"], "properties": {"bot": {"type": "string"}, "bot_after": _NUMBER}},
            ]
        },
        {
            "not": {
                "required": ["bot_after", "autoplay_after"],
                "properties": {"bot_after": _NUMBER, "autoplay_after": _NUMBER},
            }
        },
    ]
}
"""What :meth:`ClockSettings._complete` checks, as JSON Schema (so the published schema refuses what it refuses)."""


class ClockSettings(BaseModel):
    """How much time each seat has to make its decisions (the table setting ``clock``; absent: no clocks).

    ``per_decision``: every decision of a seat gets ``per_decision_s`` seconds, whatever it used before (live play:
    seconds; asynchronous play: hours or days). ``bank``: each seat has one bank of ``bank_s`` seconds that runs
    while the game awaits it, and gains ``increment_s`` after each of its moves (a Fischer clock).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, json_schema_extra=lambda s: s.update(_RULES))

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
    bot_after: int | None = Field(
        None,
        ge=1,
        le=100,
        description="After this many timeouts in a row, the seat is handed to the bot named by `bot`, which plays "
        "it from then on, until the seat's player takes it back with the command TakeSeat (none: never).",
    )
    bot: str | None = Field(
        None,
        pattern=r"^[a-z][a-z0-9_-]{0,31}$",
        description="The kind of bot a seat is handed to after `bot_after` timeouts (e.g. heuristic, random).",
    )

    @model_validator(mode="after")
    def _complete(self) -> ClockSettings:
        if self.mode == "per_decision" and (self.per_decision_s is None or self.bank_s is not None):
            raise ValueError("clock: mode per_decision takes per_decision_s (and no bank_s)")
        if self.mode == "bank" and (self.bank_s is None or self.per_decision_s is not None):
            raise ValueError("clock: mode bank takes bank_s (and no per_decision_s)")
        if self.mode == "per_decision" and self.increment_s:
            raise ValueError("clock: increment_s belongs to mode bank")
        if (self.bot_after is None) != (self.bot is None):
            raise ValueError("clock: bot_after and bot go together (after N timeouts, the named bot plays the seat)")
        if self.bot_after is not None and self.autoplay_after is not None:
            raise ValueError("clock: choose autoplay_after or bot_after: both say what repeated timeouts mean")
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


class SeatHandedOver(Event):
    """Who plays ``seat`` from now on: the bot of kind ``bot`` (its ``bot_after`` timeouts in a row were reached),
    or, ``bot`` None, its own player again (it took the seat back with :class:`TakeSeat`)."""

    type: Literal["SeatHandedOver"] = "SeatHandedOver"
    seat: int
    bot: str | None = None


class TimeOut(Command):
    """The timer's claim that ``seat``'s time ran out on the decision of clock turn ``turn`` (the number of stamps
    recorded so far): once anything else was accepted, the claim is stale and refused, changing nothing."""

    type: Literal["TimeOut"] = "TimeOut"
    turn: int = Field(ge=0)


class TakeSeat(Command):
    """The seat's player takes back a seat its clock handed to a bot: the bot moves for it no more."""

    type: Literal["TakeSeat"] = "TakeSeat"


class SeatLeft(Event):
    """``seat``'s player left (resigned) the running game: the bot of kind ``bot`` plays the seat to the end, and
    the player's token may command it no more."""

    type: Literal["SeatLeft"] = "SeatLeft"
    seat: int
    bot: str


class LeaveSeat(Command):
    """The seat's player leaves (resigns) the running game: a bot of kind ``bot`` plays the seat from now on."""

    type: Literal["LeaveSeat"] = "LeaveSeat"
    bot: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")


TIME_OUT = "TimeOut"
TAKE_SEAT = "TakeSeat"
LEAVE_SEAT = "LeaveSeat"

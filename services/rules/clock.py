"""The clock arithmetic, written once for every game: banks, increments, per-decision limits, deadlines.

Pure: the time is data. The clocks of a game are folded from its recorded :class:`events.clock.ClockStamped` and
:class:`events.clock.SeatTimedOut` facts and the seats the game awaits after each batch (``GameRules.awaited``);
nothing here reads a clock. A stamp at time ``t`` after a batch of events:

- charges the seat that moved (if its clock ran) the time since its clock started, and in ``bank`` mode takes it
  from the bank (never below zero) and then adds the increment;
- charges any other seat whose clock ran but that the game no longer awaits (another seat's move took its
  decision away: the time it had was still its own);
- starts the clock of every awaited seat whose clock is not running, at ``t``.

A running clock keeps running across other seats' moves (a sealed vote awaits several seats, each on its own
clock). Stamps never go back in time: a stamp older than the last one counts as the last one's time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from events.clock import ClockSettings


@dataclass(frozen=True, slots=True)
class Clocks:
    """The clocks of one table (immutable; replaced whole by each clock fact)."""

    bank_ms: tuple[int, ...]
    """Per seat, ``bank`` mode: what is left in its bank, not counting the running clock (per_decision: 0)."""
    since: tuple[int | None, ...]
    """Per seat: when its clock started running (ms), None when it does not run."""
    timeouts: tuple[int, ...]
    """Per seat: timeouts in a row (an own move resets it)."""
    turn: int = 0
    """Stamps recorded so far: what a timeout names as the decision it claims (stale once another is recorded)."""
    at_ms: int = 0
    """The time of the last stamp."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (snapshots)."""
        return {
            "bank_ms": list(self.bank_ms),
            "since": list(self.since),
            "timeouts": list(self.timeouts),
            "turn": self.turn,
            "at_ms": self.at_ms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Clocks:
        """Inverse of :meth:`to_json`."""
        return cls(
            bank_ms=tuple(data["bank_ms"]),
            since=tuple(data["since"]),
            timeouts=tuple(data["timeouts"]),
            turn=data["turn"],
            at_ms=data["at_ms"],
        )


def initial(settings: ClockSettings, seats: int) -> Clocks:
    """The clocks before the first stamp: full banks, nothing running."""
    bank = (settings.bank_s or 0) * 1000
    return Clocks(bank_ms=(bank,) * seats, since=(None,) * seats, timeouts=(0,) * seats)


def stamp(
    settings: ClockSettings, clocks: Clocks, at_ms: int, seat: int | None, awaited: Sequence[int], timed_out: bool
) -> Clocks:
    """The clocks after a batch stamped ``at_ms`` (``seat`` moved, or None: the game's creation), ``awaited`` being
    the seats the game waits for after the batch (see the module docstring)."""
    t = max(at_ms, clocks.at_ms)
    bank, since, timeouts = list(clocks.bank_ms), list(clocks.since), list(clocks.timeouts)
    banked = settings.mode == "bank"

    def charge(s: int) -> None:
        started = since[s]
        if started is not None and banked:
            bank[s] = max(0, bank[s] - (t - started))
        since[s] = None

    if seat is not None and 0 <= seat < len(since):
        if since[seat] is not None:
            charge(seat)
            if banked:
                bank[seat] += settings.increment_s * 1000
        if not timed_out:
            timeouts[seat] = 0
    waiting = set(awaited)
    for s in range(len(since)):
        if since[s] is not None and s not in waiting:
            charge(s)
    for s in waiting:
        if 0 <= s < len(since) and since[s] is None:
            since[s] = t
    return Clocks(tuple(bank), tuple(since), tuple(timeouts), clocks.turn + 1, t)


def timed_out(clocks: Clocks, seat: int) -> Clocks:
    """The clocks after ``seat`` timed out (one more in its run of timeouts; the stamp that follows charges it)."""
    timeouts = list(clocks.timeouts)
    timeouts[seat] += 1
    return Clocks(clocks.bank_ms, clocks.since, tuple(timeouts), clocks.turn, clocks.at_ms)


def autoplay(settings: ClockSettings, clocks: Clocks, seat: int) -> bool:
    """Whether ``seat``'s decisions get their default at once (``autoplay_after`` timeouts in a row)."""
    after = settings.autoplay_after
    return after is not None and clocks.timeouts[seat] >= after


def budget_ms(settings: ClockSettings, clocks: Clocks, seat: int) -> int:
    """The time ``seat`` has for its current (or next) decision, from the moment its clock starts."""
    if autoplay(settings, clocks, seat):
        return 0
    if settings.mode == "per_decision":
        return (settings.per_decision_s or 0) * 1000
    return clocks.bank_ms[seat]


def deadline(settings: ClockSettings, clocks: Clocks, seat: int) -> int | None:
    """When ``seat``'s running clock runs out (ms); None when it does not run."""
    started = clocks.since[seat]
    return None if started is None else started + budget_ms(settings, clocks, seat)


def remaining(settings: ClockSettings, clocks: Clocks, seat: int, now_ms: int) -> int:
    """The time ``seat`` has left at ``now_ms`` (never below zero); a stopped clock shows its budget."""
    end = deadline(settings, clocks, seat)
    if end is None:
        return budget_ms(settings, clocks, seat)
    return max(0, end - max(now_ms, clocks.at_ms))


def expired(settings: ClockSettings, clocks: Clocks, seat: int, at_ms: int) -> bool:
    """Whether ``seat``'s running clock has run out at ``at_ms``."""
    end = deadline(settings, clocks, seat)
    return end is not None and max(at_ms, clocks.at_ms) >= end


def low_at(settings: ClockSettings, clocks: Clocks, seat: int) -> int | None:
    """When ``seat``'s running clock reaches the ``low_s`` notice (None: no notice, or it does not run)."""
    end = deadline(settings, clocks, seat)
    if end is None or settings.low_s is None or autoplay(settings, clocks, seat):
        return None
    return end - settings.low_s * 1000


def next_alarm(settings: ClockSettings, clocks: Clocks, after_ms: int) -> int | None:
    """The first moment after ``after_ms`` at which something is due: a low-time notice still ahead, or a deadline
    (a deadline already passed counts: it is due now). None: no clock runs."""
    best: int | None = None
    for seat in range(len(clocks.since)):
        end = deadline(settings, clocks, seat)
        if end is None:
            continue
        low = low_at(settings, clocks, seat)
        due = low if low is not None and low > after_ms else end
        best = due if best is None else min(best, due)
    return best


def status(settings: ClockSettings, clocks: Clocks, now_ms: int) -> list[dict[str, Any]]:
    """Per seat, what a view shows: time left at ``now_ms``, whether it runs, its deadline, the low-time mark,
    timeouts in a row and autoplay."""
    out = []
    for seat in range(len(clocks.since)):
        left = remaining(settings, clocks, seat, now_ms)
        out.append(
            {
                "seat": seat,
                "remaining_ms": left,
                "running": clocks.since[seat] is not None,
                "deadline_ms": deadline(settings, clocks, seat),
                "low": settings.low_s is not None and left <= settings.low_s * 1000,
                "timeouts": clocks.timeouts[seat],
                "autoplay": autoplay(settings, clocks, seat),
            }
        )
    return out


def describe(settings: ClockSettings) -> str:
    """The setting in words ("bank 5:00 + 0:03 a move")."""
    if settings.mode == "per_decision":
        return f"{format_ms((settings.per_decision_s or 0) * 1000)} per decision"
    text = f"bank {format_ms((settings.bank_s or 0) * 1000)}"
    return text + (f" + {format_ms(settings.increment_s * 1000)} a move" if settings.increment_s else "")


def format_ms(ms: int) -> str:
    """A duration for people: ``0:42``, ``12:05``, ``3:04:05``, ``2d 03:04``."""
    seconds = max(0, ms) // 1000
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours:02d}:{minutes:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def describe_fact(data: dict[str, Any], name: Callable[[int | None], str]) -> str:
    """A recorded clock fact (``ClockStamped``, ``SeatTimedOut``, as JSON) in plain words; ``name`` names a seat."""
    if data.get("type") == "SeatTimedOut":
        default = data.get("default")
        move = f"plays {default.get('type', 'its default')} for it" if isinstance(default, dict) else "decides for it"
        text = f"{name(data.get('seat'))} ran out of time ({data.get('decision')}): the referee {move}"
        if data.get("autoplay"):
            text += f"; after {data.get('timeouts')} timeouts in a row its decisions are made at once until it plays"
        return text + "."
    if data.get("seat") is None:
        return "The clocks start."
    return f"{name(data.get('seat'))}'s clock is stamped" + (" after the timeout." if data.get("timed_out") else ".")


def text(rows: Sequence[dict[str, Any]], setting: str, names: Sequence[str]) -> str:
    """The clocks in one line for a board or a chat (``rows`` from :func:`status`): ``Clocks (60 s per decision):
    Ann 0:42 running, LOW; Bob 1:00``."""
    parts = []
    for row in rows:
        seat = row["seat"]
        name = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
        part = f"{name} {format_ms(row['remaining_ms'])}"
        if row["running"]:
            part += " running"
        if row["low"] and row["running"]:
            part += ", LOW"
        if row["autoplay"]:
            part += ", on defaults"
        parts.append(part)
    return f"Clocks ({setting}): " + "; ".join(parts)

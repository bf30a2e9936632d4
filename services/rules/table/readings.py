"""What the table shows of itself: the clocks as of a time, the timer's next alarm and due timeouts, the seats a
bot plays, the committed seed. Read-only views of a :class:`TableState`, mixed into :class:`Table`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.clock import ClockSettings, TimeOut
from services.rules import clock, fair
from services.rules.clock import Clocks
from services.rules.contract import JSON
from services.rules.fair import Seal
from services.rules.table.state import TableState


class TableReadings:
    """The table's read side; :class:`Table` supplies ``is_over`` and ``awaited`` (the game's)."""

    def is_over(self, state: TableState[Any]) -> bool:  # pragma: no cover - Table's
        raise NotImplementedError

    def awaited(self, state: TableState[Any]) -> tuple[int, ...]:  # pragma: no cover - Table's
        raise NotImplementedError

    def seal_of(self, state: TableState[Any]) -> Seal | None:
        """The committed seed (None: none recorded)."""
        return state.seal

    def fairness(self, state: TableState[Any]) -> JSON | None:
        """What anyone may know of the seed now (None: no commitment recorded)."""
        return None if state.seal is None else fair.public(state.seal, self.is_over(state))

    def clock_of(self, state: TableState[Any]) -> tuple[ClockSettings, Clocks] | None:
        """The clock setting and the clocks now (None: the table plays without clocks)."""
        return None if state.clock is None or state.clocks is None else (state.clock, state.clocks)

    def clock_status(self, state: TableState[Any], now_ms: int) -> list[JSON] | None:
        """Per seat, its clock as of ``now_ms`` (``services/rules/clock.py: status``) and the setting in words;
        None: no clocks. For display only."""
        clk = self.clock_of(state)
        if clk is None:
            return None
        settings, clocks = clk
        over = self.is_over(state)
        rows = clock.status(settings, clocks, clocks.at_ms if over else now_ms)
        text = clock.describe(settings)
        return [{**row, "setting": text, **({"running": False, "deadline_ms": None} if over else {})} for row in rows]

    def clock_text(self, state: TableState[Any], names: Sequence[str], now_ms: int | None = None) -> str | None:
        """The clocks in one line (time left as of ``now_ms``; None: as of the last recorded stamp, which a replay
        shows the same on any day); None without clocks."""
        clk = self.clock_of(state)
        if clk is None:
            return None
        at = clk[1].at_ms if now_ms is None else now_ms
        return clock.text(self.clock_status(state, at) or [], clock.describe(clk[0]), names)

    def next_alarm(self, state: TableState[Any], after_ms: int) -> int | None:
        """When the timer must look at this game next (a deadline, or a low-time notice after ``after_ms``); None:
        no clock runs."""
        clk = self.clock_of(state)
        if clk is None or self.is_over(state):
            return None
        return clock.next_alarm(clk[0], clk[1], after_ms)

    def due_timeouts(self, state: TableState[Any], now_ms: int) -> list[TimeOut]:
        """The timeouts the timer may claim at ``now_ms``: one per awaited seat whose clock ran out."""
        clk = self.clock_of(state)
        if clk is None or self.is_over(state):
            return []
        settings, clocks = clk
        return [
            TimeOut(seat=seat, turn=clocks.turn)
            for seat in self.awaited(state)
            if clock.expired(settings, clocks, seat, now_ms)
        ]

    def table_bots(self, state: TableState[Any]) -> dict[int, str]:
        """The seats the table gave to a bot, with the bot's kind: those whose players left (to the end), and those
        the clock handed over (until their players take them back). The bots process plays them."""
        if not state.started or self.is_over(state):
            return {}
        handed = {} if state.clocks is None else clock.handed_seats(state.clocks)
        return {**handed, **dict(state.left)}

    def hands_over(self, state: TableState[Any], seat: int) -> bool:
        """Whether a timeout of ``seat`` now would hand the seat to a bot (the timer readies the bots first)."""
        clk = self.clock_of(state)
        return clk is not None and not self.is_over(state) and clock.hands_over(clk[0], clk[1], seat)

    def has_left(self, state: TableState[Any], seat: int) -> bool:
        """Whether ``seat``'s player left the game (a bot plays it to the end)."""
        return state.has_left(seat)

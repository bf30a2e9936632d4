"""The table's referee: a game's rules with the table around them, behind the same contract.

:class:`Table` is a :class:`services.rules.contract.GameRules` over :class:`TableState`: it starts a game with
the seed's commitment and the clocks' first stamp, decides the table's commands (a timeout with the game's default
move, a seat taken back from a bot, a player leaving), stamps every accepted command on a clocked table, reveals the
seed when the game ends, and folds and encodes the table's facts itself. Everything else it hands to the game.
The time is data: the worker passes the time it stamped (``at_ms``); without one nothing is stamped (a bot's
simulation, the engine's tests, the oracle).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from events.base import Rejection
from events.clock import (
    ClockSettings,
    ClockStamped,
    LeaveSeat,
    SeatHandedOver,
    SeatLeft,
    SeatTimedOut,
    TakeSeat,
    TimeOut,
)
from services.rules import clock, fair
from services.rules.contract import JSON, Bot, Command, Event, GameRules
from services.rules.table.readings import TableReadings
from services.rules.table.state import (
    TABLE_COMMAND_ADAPTERS,
    TABLE_COMMANDS,
    TABLE_EVENT_ADAPTERS,
    TABLE_EVENTS,
    TableState,
)

Outcome = tuple[list[Event], TableState[Any]] | Rejection


class Table(TableReadings, GameRules[TableState[Any]]):
    """``game``'s rules with the table around them (clocks, seats, the committed seed)."""

    def __init__(self, game: GameRules[Any]) -> None:
        self.game = game
        self.name = game.name
        self.rules_version = game.rules_version
        self.capabilities = game.capabilities
        self.rulings = game.table_rulings
        self._fold_table: dict[str, Callable[[TableState[Any], Any], TableState[Any]]] = {
            "ClockStamped": self._stamped,
            "SeatTimedOut": self._timed_out,
            "SeatHandedOver": self._handed_over,
            "SeatLeft": self._left,
            "SeedCommitted": self._sealed,
            "SeedRevealed": self._sealed,
        }

    # --- starting ---------------------------------------------------------------------------------------------
    def start(
        self,
        players: Sequence[str],
        settings: Mapping[str, Any],
        seed: int,
        at_ms: int | None = None,
        salt: str | None = None,
        practice: bool = False,
    ) -> list[Event]:
        """The game's opening events; with a ``salt`` (the service draws one for every game), in a game with
        :attr:`commits_seed`, the commitment to the seed (``practice``: the creator chose it); and on a clocked
        table, with ``at_ms`` (the time the worker stamped), the creation's time stamp. All data: the same inputs
        always give the same events."""
        events = self.game.start(players, settings, seed)
        if salt is not None and self.commits_seed:
            cite = tuple(r for r in (self.rulings.fair, self.rulings.practice if practice else "") if r)
            events = [*events, fair.committed(seed, salt, practice, cite)]
        if at_ms is None:
            return events
        return events + self._stamp(self.fold(events), None, at_ms, False)

    def initial_state(self) -> TableState[Any]:
        """No table before the game's first event."""
        return TableState(self.game.initial_state())

    # --- folding ----------------------------------------------------------------------------------------------
    def evolve(self, state: TableState[Any], event: Event) -> TableState[Any]:
        """A table fact folds into the table (the game counts it, :meth:`GameRules.count_table_event`); any other
        event is the game's."""
        fold = self._fold_table.get(event.type)
        if fold is not None:
            return fold(state.with_game(self.game.count_table_event(state.game)), event)
        game = self.game.evolve(state.game, event)
        if state.started:
            return state.with_game(game)
        return self._opened(game, event)

    def fold(self, events: Sequence[Event], state: TableState[Any] | None = None) -> TableState[Any]:
        """The state after ``events``: each run of the game's own events folded by the game in one call (a game
        may fold a run faster than event by event)."""
        current = self.initial_state() if state is None else state
        run: list[Event] = []
        table = self._fold_table
        for event in events:
            if event.type not in table and current.started:
                run.append(event)
                continue
            if run:
                current, run = current.with_game(self.game.fold(run, current.game)), []
            current = self.evolve(current, event)
        if run:
            current = current.with_game(self.game.fold(run, current.game))
        return current

    def _opened(self, game: Any, first: Event) -> TableState[Any]:
        """The table once the game's first event is folded: its seats and clock setting, from that event's record
        of the players and the settings (what every game's first event records)."""
        record = self.game.encode_event(first)
        setting = (record.get("settings") or {}).get("clock")
        players = tuple(str(name) for name in record.get("players") or ())
        if setting is None:
            return TableState(game, True, players)
        settings = ClockSettings.model_validate(setting, strict=False)
        return TableState(game, True, players, settings, clock.initial(settings, len(players)))

    def _stamped(self, s: TableState[Any], e: Any) -> TableState[Any]:
        assert s.clock is not None and s.clocks is not None, "a clock stamp on a table without clocks"
        clocks = clock.stamp(s.clock, s.clocks, e.at_ms, e.seat, self.game.awaited(s.game), e.timed_out)
        return TableState(s.game, s.started, s.players, s.clock, clocks, s.seal, s.left)

    def _timed_out(self, s: TableState[Any], e: Any) -> TableState[Any]:
        assert s.clocks is not None, "a timeout on a table without clocks"
        clocks = clock.timed_out(s.clocks, e.seat)
        return TableState(s.game, s.started, s.players, s.clock, clocks, s.seal, s.left)

    def _handed_over(self, s: TableState[Any], e: Any) -> TableState[Any]:
        assert s.clocks is not None, "a seat handed over on a table without clocks"
        clocks = clock.hand_over(s.clocks, e.seat, e.bot)
        return TableState(s.game, s.started, s.players, s.clock, clocks, s.seal, s.left)

    def _left(self, s: TableState[Any], e: Any) -> TableState[Any]:
        left = s.left if s.has_left(e.seat) else (*s.left, (e.seat, e.bot))
        return TableState(s.game, s.started, s.players, s.clock, s.clocks, s.seal, left)

    def _sealed(self, s: TableState[Any], e: Any) -> TableState[Any]:
        return TableState(s.game, s.started, s.players, s.clock, s.clocks, fair.fold(s.seal, e), s.left)

    # --- deciding ---------------------------------------------------------------------------------------------
    def execute(self, state: TableState[Any], command: Command, at_ms: int | None = None) -> Outcome:
        """The events of ``command`` and the state after them, or a rejection. A table command is the table's; a
        game command is the game's, stamped ``at_ms`` on a clocked table (None: not stamped). When the events end a
        game whose seed is committed, the reveal follows."""
        kind = command.type
        if kind in TABLE_COMMANDS:
            if kind == "TimeOut":
                return self._time_out(state, command, at_ms)
            if kind == "TakeSeat":
                return self._take_seat(state, command)
            return self._leave(state, command)
        done = self.game.execute(state.game, command)
        if isinstance(done, Rejection):
            return done
        return self._close(done[0], state.with_game(done[1]), command.seat, at_ms)

    def decide(self, state: TableState[Any], command: Command, at_ms: int | None = None) -> list[Event] | Rejection:
        """The events of :meth:`execute`, a game command's as the game's ``decide`` gives them (verification and
        the offline adjudicator re-decide with this)."""
        if command.type in TABLE_COMMANDS:
            done = self.execute(state, command, at_ms)
            return done if isinstance(done, Rejection) else done[0]
        events = self.game.decide(state.game, command)
        if isinstance(events, Rejection) or ((at_ms is None or state.clocks is None) and state.seal is None):
            return events
        return self._close(events, self.fold(events, state), command.seat, at_ms)[0]

    def _close(
        self, events: list[Event], after: TableState[Any], seat: int, at_ms: int | None
    ) -> tuple[list[Event], TableState[Any]]:
        """A game command's events closed by the table: the time stamp (with ``at_ms``, on a clocked table), and
        the reveal of the seed when they end the game."""
        if at_ms is not None:
            for stamp in self._stamp(after, seat, at_ms, False):
                events = [*events, stamp]
                after = self.evolve(after, stamp)
        return self._reveal(events, after)

    def _cite(self, *ids: str) -> tuple[str, ...]:
        return tuple(i for i in ids if i)

    def _refuse_closed(self, state: TableState[Any], cite: tuple[str, ...]) -> Rejection | None:
        if not state.started:
            return Rejection(code="no_game", message="There is no game yet.", rulings=cite)
        if self.game.is_over(state.game):
            return Rejection(code="game_over", message="The game is over.", rulings=cite)
        return None

    def _leave(self, state: TableState[Any], command: LeaveSeat) -> Outcome:
        """The seat's player leaves; a bot of the given kind plays the seat from now on."""
        cite = self._cite(self.rulings.leave)
        refused = self._refuse_closed(state, cite)
        if refused is not None:
            return refused
        if not 0 <= command.seat < len(state.players):
            return Rejection(code="no_such_seat", message=f"There is no seat {command.seat}.", rulings=cite)
        if state.has_left(command.seat):
            message = f"The player of seat {command.seat} has left already: a bot plays it."
            return Rejection(code="seat_left", message=message, rulings=cite)
        fact = SeatLeft(seat=command.seat, bot=command.bot, rulings=cite)
        return [fact], self.evolve(state, fact)

    def _take_seat(self, state: TableState[Any], command: TakeSeat) -> Outcome:
        """The seat's player takes back a seat its clock handed to a bot; no stamp: its clock runs on as it was."""
        cite = self._cite(self.rulings.bot)
        if state.clocks is None:
            return Rejection(code="no_clock", message="This table plays without clocks.", rulings=cite)
        refused = self._refuse_closed(state, cite)
        if refused is not None:
            return refused
        if state.has_left(command.seat):
            message = f"The player of seat {command.seat} has left the game: the seat stays with its bot."
            return Rejection(code="seat_left", message=message, rulings=self._cite(self.rulings.leave))
        if not clock.handed(state.clocks, command.seat):
            message = f"Seat {command.seat} is played by its player already: no bot plays it."
            return Rejection(code="not_handed_over", message=message, rulings=cite)
        fact = SeatHandedOver(seat=command.seat, bot=None, rulings=cite)
        return [fact], self.evolve(state, fact)

    def _stamp(self, state: TableState[Any], seat: int | None, at_ms: int, timed_out: bool) -> list[Event]:
        if state.clocks is None or self.game.is_over(state.game):
            return []
        return [ClockStamped(seat=seat, at_ms=at_ms, timed_out=timed_out, rulings=self._cite(self.rulings.clock))]

    def _time_out(self, state: TableState[Any], command: TimeOut, at_ms: int | None) -> Outcome:
        """A seat's time ran out: the recorded fact, the game's default move, the stamp. Stale or early: refused."""
        cite = self._cite(self.rulings.clock)
        if state.clock is None or state.clocks is None:
            return Rejection(code="no_clock", message="This table plays without clocks.", rulings=cite)
        refused = self._refuse_closed(state, cite)
        if refused is not None:
            return refused
        settings, clocks, seat = state.clock, state.clocks, command.seat
        awaited = self.game.awaited(state.game)
        if command.turn != clocks.turn or seat not in awaited:
            message = (
                f"The timeout claims clock turn {command.turn} of seat {seat}; the game is at turn {clocks.turn}"
                + ("" if seat in awaited else " and does not await that seat")
                + ": a move came first."
            )
            return Rejection(code="stale_timeout", message=message, rulings=cite)
        now = clocks.at_ms if at_ms is None else at_ms
        if not clock.expired(settings, clocks, seat, now):
            left = clock.remaining(settings, clocks, seat, now)
            message = f"Seat {seat} still has {clock.format_ms(left)} ({left} ms) on its clock."
            return Rejection(code="clock_running", message=message, rulings=cite)
        default = self.game.default_command(state.game, seat)
        if default is None:
            message = f"The game has no default move for seat {seat} now."
            return Rejection(code="no_default", message=message, rulings=cite)
        move, ruling = default
        count = clocks.timeouts[seat] + 1
        fact = SeatTimedOut(
            seat=seat,
            decision=self.game.decision_of(state.game, seat),
            default=self.game.encode_command(move),
            timeouts=count,
            autoplay=settings.autoplay_after is not None and count >= settings.autoplay_after,
            rulings=self._cite(self.rulings.clock, ruling),
        )
        facts: list[Event] = [fact]
        if clock.hands_over(settings, clocks, seat):
            facts.append(
                SeatHandedOver(seat=seat, bot=settings.bot, rulings=self._cite(self.rulings.clock, self.rulings.bot))
            )
        before = state
        for event in facts:
            before = self.evolve(before, event)
        done = self.game.execute(before.game, move)
        if isinstance(done, Rejection):  # a game's default must be legal: a bug, not a refusal of the timer
            raise RuntimeError(f"{self.name}: the default move {move!r} was refused: {done.code}: {done.message}")
        events, after = [*facts, *done[0]], before.with_game(done[1])
        for stamp in self._stamp(after, seat, now, True):
            events.append(stamp)
            after = self.evolve(after, stamp)
        return self._reveal(events, after)

    def _reveal(self, events: list[Event], after: TableState[Any]) -> tuple[list[Event], TableState[Any]]:
        """``events`` and, when they end a game whose seed is committed and not yet revealed, the reveal."""
        seal = after.seal
        if seal is None or seal.revealed or not self.game.is_over(after.game):
            return events, after
        fact = fair.reveal(seal, self._cite(self.rulings.fair))
        return [*events, fact], self.evolve(after, fact)

    # --- the game's, through the table ------------------------------------------------------------------------
    def legal_commands(self, state: TableState[Any], seat: int) -> list[Command]:
        """The game's legal commands of ``seat`` (the table's commands are not moves: :meth:`table_commands`)."""
        return self.game.legal_commands(state.game, seat)

    def table_commands(self, state: TableState[Any], seat: int) -> list[str]:
        """The table commands ``seat``'s player may send now, by type: ``TakeSeat`` while its clock handed it to a
        bot, ``LeaveSeat`` while the game runs and the player has not left."""
        if not state.started or self.game.is_over(state.game) or state.has_left(seat):
            return []
        handed = state.clocks is not None and bool(clock.handed(state.clocks, seat))
        return [*(["TakeSeat"] if handed else []), "LeaveSeat"]

    def choose(self, bot: Bot, state: TableState[Any], seat: int) -> Command | None:
        """``bot``'s command for ``seat``: every bot plays the game alone (the table's commands are not moves; the
        table decides its own), so a game's own bot sees only its game's state and rules."""
        return bot.choose(self.game, state.game, seat)

    def sample_legal(self, state: TableState[Any], seat: int, rng: random.Random) -> Command | None:
        """The game's random legal command of ``seat``."""
        return self.game.sample_legal(state.game, seat, rng)

    def determinize(self, state: TableState[Any], seat: int, rng: random.Random) -> TableState[Any]:
        """The table (public) around the game's determinized state."""
        return state.with_game(self.game.determinize(state.game, seat, rng))

    def awaited(self, state: TableState[Any]) -> tuple[int, ...]:
        """The seats the game awaits."""
        return self.game.awaited(state.game)

    def is_over(self, state: TableState[Any]) -> bool:
        """Whether the game has ended."""
        return self.game.is_over(state.game)

    def result(self, state: TableState[Any]) -> JSON | None:
        """The game's result."""
        return self.game.result(state.game)

    def default_command(self, state: TableState[Any], seat: int) -> tuple[Command, str] | None:
        """The game's default move of ``seat``."""
        return self.game.default_command(state.game, seat)

    def decision_of(self, state: TableState[Any], seat: int) -> str:
        """The decision the game awaits of ``seat``."""
        return self.game.decision_of(state.game, seat)

    # --- codecs: the table's messages here, the game's by the game ----------------------------------------------
    def parse_command(self, raw: bytes | str | JSON) -> Command:
        """A command from JSON: a table command (:data:`TABLE_COMMANDS`), else the game's. The one parser of the
        service; the gateway refuses a ``TimeOut`` from a player (only the timer claims one)."""
        data = orjson.loads(raw) if isinstance(raw, bytes | str) else raw
        adapter = TABLE_COMMAND_ADAPTERS.get(data.get("type")) if isinstance(data, dict) else None
        return self.game.parse_command(data) if adapter is None else adapter.validate_python(data)

    def parse_event(self, raw: bytes | str | JSON) -> Event:
        """A recorded event from JSON: a table fact, else the game's."""
        if isinstance(raw, bytes | str):
            kind = _type_of(raw)
            if kind is not None and kind not in TABLE_EVENTS:
                return self.game.parse_event(raw)
            raw = orjson.loads(raw)
        adapter = TABLE_EVENT_ADAPTERS.get(raw.get("type")) if isinstance(raw, dict) else None
        return self.game.parse_event(raw) if adapter is None else adapter.validate_python(raw)

    def encode_event(self, event: Event) -> JSON:
        """An event as JSON-ready data."""
        return event.to_dict() if event.type in TABLE_EVENTS else self.game.encode_event(event)

    def encode_event_bytes(self, event: Event) -> bytes:
        """An event as compact JSON bytes."""
        return event.to_json() if event.type in TABLE_EVENTS else self.game.encode_event_bytes(event)

    def encode_command(self, command: Command) -> JSON:
        """A command as JSON-ready data."""
        return command.to_dict() if command.type in TABLE_COMMANDS else self.game.encode_command(command)

    def snapshot(self, state: TableState[Any]) -> bytes:
        """The table's part as one JSON line, then the game's own snapshot."""
        return orjson.dumps(state.to_json()) + b"\n" + self.game.snapshot(state.game)

    def restore(self, data: bytes) -> TableState[Any]:
        """Inverse of :meth:`snapshot`."""
        head, _, game = data.partition(b"\n")
        return TableState.from_json(orjson.loads(head), self.game.restore(game))


def _type_of(raw: bytes | str) -> str | None:
    """The ``type`` of an event's JSON without parsing it whole (events are written with ``type`` among their
    first keys); None: not found cheaply (the caller parses the whole)."""
    text = raw if isinstance(raw, str) else raw[:80].decode("utf-8", "replace")
    at = text.find('"type":"')
    if at < 0:
        return None
    end = text.find('"', at + 8)
    return text[at + 8 : end] if end > 0 else None

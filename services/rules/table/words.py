"""The table's presenter: a game's presenter with the table's facts and commands worded once, for every game.

:class:`TablePresenter` is a :class:`services.rules.contract.Presenter` over :class:`TableState`: the table's
facts (clocks, timeouts, seats handed over or left, the seed's commitment and reveal) and commands (a timeout, a
seat taken back, a player leaving) it words and redacts itself; everything else it hands to the game's presenter
with the game's own state. A timeout's default move is the one thing of the table a game may keep secret: the
game says so (:meth:`Presenter.default_is_secret`), the table hides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.rules import clock, fair
from services.rules.contract import JSON, Command, Event, Presenter, Secret, Standing
from services.rules.table.referee import Table
from services.rules.table.state import TABLE_COMMANDS, TABLE_EVENTS, TableState

TableView = TableState[Any]


def seat_name(players: Sequence[str], seat: int | None) -> str:
    """A seat by its player's name (``seat 2`` without one)."""
    if seat is None:
        return "the table"
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def describe_table_fact(data: JSON, players: Sequence[str]) -> str:
    """A table fact (as JSON) in plain words."""
    kind = data.get("type")
    if kind in ("SeedCommitted", "SeedRevealed"):
        return fair.describe_fact(data)
    if kind == "SeatLeft":
        return f"{seat_name(players, data.get('seat'))} leaves the game: the {data.get('bot')} bot plays the seat now."
    return clock.describe_fact(data, lambda seat: seat_name(players, seat))


def label_table_command(command: Command) -> str:
    """A table command as a menu label, addressed to its seat."""
    if command.type == "TimeOut":
        return f"claim the timeout of seat {command.seat} (clock turn {command.turn})"
    if command.type == "TakeSeat":
        return "take your seat back from the bot"
    return f"leave the game (the {command.bot} bot plays your seat)"


class TablePresenter(Presenter[TableView]):
    """``game``'s presenter with the table around it."""

    def __init__(self, game: Presenter[Any], rules: Table) -> None:
        super().__init__(rules)
        self.game = game
        self.quiet_events = game.quiet_events | {"ClockStamped"}
        self.leaderboard = game.leaderboard
        self.flow_events = game.flow_events

    def over(self, state: TableView | None) -> bool:
        """Whether the game is over."""
        return state is not None and self.game.over(state.game)

    # --- secrets -------------------------------------------------------------------------------------------
    def view(self, state: TableView, seat: int | None) -> JSON:
        """The game's view for ``seat``."""
        return self.game.view(state.game, seat)

    def views(self, state: TableView, seats: Sequence[int | None]) -> list[JSON]:
        """The game's views for several seats."""
        return self.game.views(state.game, seats)

    def redact(self, event: Event, seat: int | None, state: TableView) -> JSON | None:
        """A table fact as ``seat`` may see it (a timeout's default hidden where the game keeps it secret, the
        seed and the salt until the end); any other event as the game's presenter shows it."""
        if event.type not in TABLE_EVENTS:
            return self.game.redact(event, seat, state.game)
        data = event.to_dict()
        over = self.over(state)
        secret = event.type == "SeatTimedOut" and event.seat != seat and not over
        if secret and self.game.default_is_secret(event.decision, event.seat, seat, state.game):
            hidden = {k: v for k, v in data.items() if k != "default"}
            summary = describe_table_fact(hidden, state.players)
            return {**hidden, "default": None, "redacted": True, "summary": summary}
        return fair.seal_json(data, over)

    redact.sealed = True  # type: ignore[attr-defined]  # sealed already: the game's redact is, and so is the table's

    def secrets(self, state: TableView) -> Sequence[Secret]:
        """The game's secrets (the table holds none)."""
        return self.game.secrets(state.game)

    def replay_view(self, state: TableView, seat: int | None, final: TableView | None) -> JSON:
        """The game's view of a past position (``final``: the game's end, None while it runs)."""
        return self.game.replay_view(state.game, seat, None if final is None else final.game)

    # --- words -----------------------------------------------------------------------------------------------
    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """A table fact in the table's words; any other event in the game's."""
        if event.type in TABLE_EVENTS:
            return describe_table_fact(event.to_dict(), players)
        return self.game.describe(event, players)

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """Why an event happened, with its rulings."""
        if event.type in TABLE_EVENTS:
            return super().explain_event(event, players)
        return self.game.explain_event(event, players)

    def flow_event(self, event: Event) -> bool:
        """Whether the game's own flow recorded ``event`` (a table fact never is)."""
        return event.type not in TABLE_EVENTS and self.game.flow_event(event)

    def narrate(self, event: Event, seat: int | None, state: TableView, players: Sequence[str] = ()) -> str | None:
        """``event`` in words as ``seat`` may know it."""
        if event.type not in TABLE_EVENTS:
            return self.game.narrate(event, seat, state.game, players)
        shown = self.redact(event, seat, state)
        if shown is None:
            return None
        summary = shown.get("summary")
        return summary if shown.get("redacted") and isinstance(summary, str) else self.describe(event, players)

    def prompt(self, state: TableView, seat: int) -> str | None:
        """What the game asks ``seat`` now."""
        return self.game.prompt(state.game, seat)

    def label(self, command: Command, state: TableView | None = None) -> str:
        """A table command in the table's words; a game command in the game's."""
        if command.type in TABLE_COMMANDS:
            return label_table_command(command)
        return self.game.label(command, None if state is None else state.game)

    def menu_groups(self, commands: Sequence[Command], state: TableView | None = None) -> list[tuple[str, list[int]]]:
        """The game's menu groups."""
        return self.game.menu_groups(commands, None if state is None else state.game)

    # --- pictures and standings --------------------------------------------------------------------------------
    def scoreboard(self, state: TableView) -> JSON:
        """The game's scoreboard."""
        return self.game.scoreboard(state.game)

    def final_standings(self, state: TableView) -> list[Standing] | None:
        """The game's final standings."""
        return self.game.final_standings(state.game)

    def render_text(self, state: TableView, seat: int | None, final: TableView | None = None) -> str:
        """The game's board as text."""
        return self.game.render_text(state.game, seat, None if final is None else final.game)

    def render_svg(self, state: TableView, seat: int | None, final: TableView | None = None) -> str:
        """The game's board as SVG."""
        return self.game.render_svg(state.game, seat, None if final is None else final.game)

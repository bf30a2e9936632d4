"""Deprecated (issue [2/7]): a game plug-in behind the old Decider interface (services/rules/decider.py).

The rules worker, the gateway, the projections and the bots runner still call ``registry.get_decider(name)``
and the 21 methods of the old protocol; until they use :func:`services.rules.registry.get_game` (rules through
``plugin.rules``, display through ``plugin.presenter``), :class:`LegacyDecider` gives them those methods,
each delegating to the one place that now holds it. New code must not use it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from events.base import Command, Event, Rejection
from services.rules.contract import JSON, GamePlugin


class LegacyDecider:
    """Deprecated: the old Decider methods of one :class:`GamePlugin` (rules + presenter)."""

    def __init__(self, plugin: GamePlugin) -> None:
        self.plugin = plugin
        self.rules = plugin.rules
        self.presenter = plugin.presenter
        self.name = plugin.name
        self.rules_version = plugin.rules.rules_version

    # --- rules -----------------------------------------------------------------------------------------------
    def start(self, players: Sequence[str], settings: dict[str, Any] | None, seed: int) -> list[Event]:
        """``rules.start``."""
        return self.rules.start(players, settings or {}, seed)

    def initial_state(self) -> Any:
        """``rules.initial_state``."""
        return self.rules.initial_state()

    def evolve(self, state: Any, event: Event) -> Any:
        """``rules.evolve``."""
        return self.rules.evolve(state, event)

    def decide(self, state: Any, command: Command) -> list[Event] | Rejection:
        """``rules.decide``."""
        return self.rules.decide(state, command)

    def execute(self, state: Any, command: Command) -> tuple[list[Event], Any] | Rejection:
        """``rules.execute``."""
        return self.rules.execute(state, command)

    def legal_commands(self, state: Any, seat: int) -> list[Command]:
        """``rules.legal_commands``."""
        return self.rules.legal_commands(state, seat)

    def sample_legal(self, state: Any, seat: int, rng: random.Random) -> Command | None:
        """``rules.sample_legal``."""
        return self.rules.sample_legal(state, seat, rng)

    def awaited(self, state: Any) -> tuple[int, ...]:
        """``rules.awaited``."""
        return self.rules.awaited(state)

    def is_over(self, state: Any) -> bool:
        """``rules.is_over``."""
        return self.rules.is_over(state)

    def result(self, state: Any) -> JSON | None:
        """``rules.result``."""
        return self.rules.result(state)

    def parse_command(self, raw: bytes | str | JSON) -> Command:
        """``rules.parse_command``."""
        return self.rules.parse_command(raw)

    def parse_event(self, raw: bytes | str | JSON) -> Event:
        """``rules.parse_event``."""
        return self.rules.parse_event(raw)

    def snapshot(self, state: Any) -> bytes:
        """``rules.snapshot``."""
        return self.rules.snapshot(state)

    def restore(self, data: bytes) -> Any:
        """``rules.restore``."""
        return self.rules.restore(data)

    # --- presenter -------------------------------------------------------------------------------------------
    def view(self, state: Any, seat: int | None) -> JSON:
        """``presenter.view``."""
        return self.presenter.view(state, seat)

    def views(self, state: Any, seats: Sequence[int | None]) -> list[JSON]:
        """``presenter.views``."""
        return self.presenter.views(state, seats)

    def redact(self, event: Event, seat: int | None, state: Any) -> JSON | None:
        """``presenter.redact``."""
        return self.presenter.redact(event, seat, state)

    def replay_view(self, state: Any, seat: int | None, final: Any) -> JSON:
        """``presenter.replay_view``."""
        return self.presenter.replay_view(state, seat, final)

    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """``presenter.describe``."""
        return self.presenter.describe(event, players)

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """``presenter.explain_event``."""
        return self.presenter.explain_event(event, players)

    def label(self, command: Command, state: Any = None) -> str:
        """``presenter.label``."""
        return self.presenter.label(command, state)

    def scoreboard(self, state: Any) -> JSON:
        """``presenter.scoreboard``."""
        return self.presenter.scoreboard(state)

    def render_text(self, state: Any, seat: int | None, final: Any = None) -> str:
        """``presenter.render_text``."""
        return self.presenter.render_text(state, seat, final)

    def render_svg(self, state: Any, seat: int | None, final: Any = None) -> str:
        """``presenter.render_svg``."""
        return self.presenter.render_svg(state, seat, final)

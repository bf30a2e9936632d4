"""The Shadow decider: the pure rules of In the Shadow of the Emperor behind the game-agnostic interface."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from events.base import Command, Event, Rejection, parse_json
from events.shadow import events as ev
from events.shadow.commands import COMMAND_ADAPTER
from events.shadow.settings import ShadowSettings
from services.rules.shadow import actions, audit, flow, labels, redact, render
from services.rules.shadow.board import default_layout_record
from services.rules.shadow.decide import decide, execute
from services.rules.shadow.describe import describe
from services.rules.shadow.effects import Tx
from services.rules.shadow.evolve import evolve
from services.rules.shadow.snapshot import restore, snapshot
from services.rules.shadow.state import GameState
from services.rules.shadow.view import view

RULES_VERSION = "shadow-1"


class ShadowDecider:
    """In the Shadow of the Emperor, for 2 to 4 players."""

    name = "shadow"
    rules_version = RULES_VERSION

    def start(self, players: Sequence[str], settings: dict[str, Any] | None, seed: int) -> list[Event]:
        """GameStarted (players, settings, seed, board), the two-player draw [G4, T1], the first request."""
        if not 2 <= len(players) <= 4:
            raise ValueError("In the Shadow of the Emperor is played by 2, 3 or 4 players.")
        table = ShadowSettings(**(settings or {}))
        if table.start_player >= len(players):
            raise ValueError("start_player must be one of the seats.")
        tx = Tx(None)  # type: ignore[arg-type]
        tx.emit(
            ev.GameStarted(
                players=tuple(players),
                settings=table.model_dump(),
                seed=seed,
                emperor=table.start_player,
                layout=default_layout_record(),
                rules_version=RULES_VERSION,
                rulings=("S1", "S3", "B1", "B2"),
            )
        )
        if len(players) == 2:
            tx.emit(draw_closed_electorates(tx.state, seed))
        flow.begin_setup(tx)
        return tx.events

    def initial_state(self) -> None:
        """No game before GameStarted."""
        return None

    def evolve(self, state: GameState | None, event: Event) -> GameState:
        """Apply one recorded event."""
        return evolve(state, event)

    def decide(self, state: GameState | None, command: Command) -> list[Event] | Rejection:
        """The events a command causes, or a typed rejection."""
        return decide(state, command)

    def execute(self, state: GameState, command: Command) -> tuple[list[Event], GameState] | Rejection:
        """decide + evolve in one pass (faster for the rules worker)."""
        return execute(state, command)

    def legal_commands(self, state: GameState | None, seat: int) -> list[Command]:
        """Every command ``seat`` may send now."""
        if state is None:
            return []
        return [actions.command_of(seat, k) for k in actions.legal_keys(state, seat)]

    def sample_legal(self, state: GameState, seat: int, rng: random.Random) -> Command | None:
        """A uniformly random legal command of ``seat`` (builds one model instead of all)."""
        keys = actions.legal_keys(state, seat)
        return actions.command_of(seat, rng.choice(keys)) if keys else None

    def awaited(self, state: GameState | None) -> tuple[int, ...]:
        """Seats the game waits for."""
        return () if state is None else actions.awaited(state)

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """The game as one seat or a spectator sees it."""
        return view(state, seat)

    def is_over(self, state: GameState | None) -> bool:
        """Whether the game has ended."""
        return state is not None and state.over

    def result(self, state: GameState | None) -> dict[str, Any] | None:
        """Scores, thalers and winners once the game is over."""
        if state is None or not state.over:
            return None
        return {
            "scores": list(state.vp),
            "thalers": list(state.thalers),
            "winners": list(state.winners or ()),
            "players": list(state.players),
            "shared": len(state.winners or ()) > 1,
        }

    def parse_command(self, raw: bytes | str | dict[str, Any]) -> Command:
        """Validate a command from JSON."""
        return parse_json(COMMAND_ADAPTER, raw)

    def parse_event(self, raw: bytes | str | dict[str, Any]) -> Event:
        """Validate a recorded event from JSON."""
        return parse_json(ev.EVENT_ADAPTER, raw)

    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """One event in plain words."""
        return describe(event, players)

    def snapshot(self, state: GameState) -> bytes:
        """Serialize a state."""
        return snapshot(state)

    def restore(self, data: bytes) -> GameState:
        """Deserialize a state."""
        return restore(data)

    # --- read models: secrets, labels, audit, pictures (services/rules/shadow/{redact,labels,audit,render}.py)
    def redact(self, event: Event, seat: int | None, state: GameState | None) -> dict[str, Any] | None:
        """``event`` as ``seat`` may see it while the game is at ``state``: sealed votes and hidden VP masked."""
        return redact.redact(event, seat, state)

    def replay_view(self, state: GameState, seat: int | None, final: GameState | None) -> dict[str, Any]:
        """The view of a past position; everything is public once the game (``final``) is over."""
        return redact.replay_view(state, seat, final)

    def views(self, state: GameState, seats: list[int | None]) -> list[dict[str, Any]]:
        """``view`` for several seats at once (optional, for read models: the shared part is built once)."""
        return redact.views(state, seats)

    def label(self, command: Command, state: GameState | Sequence[str] | None = None) -> str:
        """A readable label of a command (``state``, or just the player names, adds costs and names)."""
        return labels.label(command, state)

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """Why an event happened, with its deciding inputs and rulings, for a referee."""
        return audit.explain_event(event, players)

    def scoreboard(self, state: GameState | None) -> dict[str, Any]:
        """VP (None while hidden), thalers and electorates per seat; Emperor, round, phase."""
        return render.scoreboard(state)

    def render_text(self, state: GameState, seat: int | None, final: GameState | None = None) -> str:
        """The board as text."""
        return render.render_text(state, seat, final)

    def render_svg(self, state: GameState, seat: int | None, final: GameState | None = None) -> str:
        """The board as SVG."""
        return render.render_svg(state, seat, final)


def draw_closed_electorates(state: GameState, seed: int) -> ev.ElectoratesClosed:
    """Two players: one archdiocese and one secular electorate closed at random from the seed [T1, G4]."""
    rng = random.Random(f"closed-electorates:{seed}")
    spiritual = tuple(e.key for e in state.layout.electorates if e.spiritual)
    secular = tuple(e.key for e in state.layout.electorates if not e.spiritual)
    return ev.ElectoratesClosed(
        electorates=(rng.choice(spiritual), rng.choice(secular)), drawn_from=(spiritual, secular), rulings=("T1", "G4")
    )

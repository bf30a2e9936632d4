"""A tiny counting game, registered as ``toy21``: it proves the service knows games only through the Decider.

Two seats alternate adding 1, 2 or 3 to a shared total; whoever brings it to 21 or more wins.

For the crash test only: in a process with env TOY21_STALL_AT_TOTAL=N, deciding on a total >= N hangs, so the
test can kill a worker that certainly holds commands it has read but not committed. Likewise
TOY21_STALL_VIEW_AT_TOTAL=N hangs ``view`` (which the seat-feed projection calls) from a total of N on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import Field, TypeAdapter

from events.base import Command, Event, Rejection, parse_json
from services.rules import registry

NAME = "toy21"
TARGET = 21


class Add(Command):
    """Add 1..3 to the total."""

    type: Literal["Add"] = "Add"
    amount: int = Field(ge=1, le=3)


class Started(Event):
    type: Literal["Started"] = "Started"
    players: tuple[str, ...]
    settings: dict[str, Any]
    seed: int


class Added(Event):
    type: Literal["Added"] = "Added"
    seat: int
    amount: int
    total: int


class Won(Event):
    type: Literal["Won"] = "Won"
    seat: int


ToyCommand = Annotated[Add, Field(discriminator="type")]
ToyEvent = Annotated[Started | Added | Won, Field(discriminator="type")]
_COMMANDS: TypeAdapter[Add] = TypeAdapter(ToyCommand)
_EVENTS: TypeAdapter[Started | Added | Won] = TypeAdapter(ToyEvent)


@dataclass(frozen=True, slots=True)
class ToyState:
    players: tuple[str, ...] = ()
    total: int = 0
    turn: int = 0
    winner: int | None = None


class ToyDecider:
    """The Decider of the counting game."""

    name = NAME
    rules_version = "1"

    def start(self, players: Sequence[str], settings: dict[str, Any], seed: int) -> list[Event]:
        if len(players) != 2:
            raise ValueError("toy21 needs exactly 2 players")
        return [Started(players=tuple(players), settings=settings, seed=seed)]

    def initial_state(self) -> ToyState:
        return ToyState()

    def evolve(self, state: ToyState, event: Event) -> ToyState:
        if isinstance(event, Started):
            return ToyState(players=event.players)
        if isinstance(event, Added):
            return ToyState(state.players, event.total, 1 - event.seat, state.winner)
        if isinstance(event, Won):
            return ToyState(state.players, state.total, state.turn, event.seat)
        raise ValueError(f"unknown event {event!r}")

    def decide(self, state: ToyState, command: Command) -> list[Event] | Rejection:
        stall = os.environ.get("TOY21_STALL_AT_TOTAL")
        if stall and state.total >= int(stall):
            time.sleep(3600)
        if state.winner is not None:
            return Rejection(code="game_over", message="the game is over")
        if not isinstance(command, Add):
            return Rejection(code="illegal_command", message=f"unknown command {command!r}")
        if command.seat != state.turn:
            return Rejection(code="not_your_turn", message=f"it is seat {state.turn}'s turn")
        total = state.total + command.amount
        events: list[Event] = [Added(seat=command.seat, amount=command.amount, total=total)]
        if total >= TARGET:
            events.append(Won(seat=command.seat))
        return events

    def legal_commands(self, state: ToyState, seat: int) -> list[Command]:
        if state.winner is not None or seat != state.turn:
            return []
        return [Add(seat=seat, amount=n) for n in (1, 2, 3)]

    def awaited(self, state: ToyState) -> tuple[int, ...]:
        return () if state.winner is not None or not state.players else (state.turn,)

    def view(self, state: ToyState, seat: int | None) -> dict[str, Any]:
        stall = os.environ.get("TOY21_STALL_VIEW_AT_TOTAL")
        if stall and state.total >= int(stall):
            time.sleep(3600)
        return {"total": state.total, "turn": state.turn, "winner": state.winner}

    def is_over(self, state: ToyState) -> bool:
        return state.winner is not None

    def parse_command(self, raw: bytes | str | dict[str, Any]) -> Command:
        return parse_json(_COMMANDS, raw)

    def parse_event(self, raw: bytes | str | dict[str, Any]) -> Event:
        return parse_json(_EVENTS, raw)

    def describe(self, event: Event) -> str:
        if isinstance(event, Added):
            return f"seat {event.seat} adds {event.amount}: total {event.total}"
        if isinstance(event, Won):
            return f"seat {event.seat} wins"
        return "a game of toy21 starts"

    def snapshot(self, state: ToyState) -> bytes:
        return orjson.dumps([list(state.players), state.total, state.turn, state.winner])

    def restore(self, data: bytes) -> ToyState:
        players, total, turn, winner = orjson.loads(data)
        return ToyState(tuple(players), total, turn, winner)

    def result(self, state: ToyState) -> dict[str, Any] | None:
        return None if state.winner is None else {"winner": state.winner, "total": state.total}

    # Read models: toy21 has no secrets; its board is one number.
    def redact(self, event: Event, seat: int | None, state: ToyState) -> dict[str, Any] | None:
        return event.to_dict()

    def replay_view(self, state: ToyState, seat: int | None, final: ToyState | None) -> dict[str, Any]:
        return self.view(state, seat)

    def label(self, command: Command, state: Any = None) -> str:
        return f"Add {command.amount}" if isinstance(command, Add) else type(command).__name__

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        return f"{self.describe(event)} (toy21: reaching {TARGET} wins)"

    def scoreboard(self, state: ToyState) -> dict[str, Any]:
        winners = None if state.winner is None else [state.winner]
        # The winner scores the total reached, the other seat nothing.
        seats = [
            {"seat": i, "name": p, "score": state.total if state.winner == i else 0}
            for i, p in enumerate(state.players)
        ]
        return {"total": state.total, "winners": winners, "seats": seats}

    def render_text(self, state: ToyState, seat: int | None, final: ToyState | None = None) -> str:
        return f"total {state.total}, seat {state.turn} to play" + ("" if state.winner is None else ", over")

    def render_svg(self, state: ToyState, seat: int | None, final: ToyState | None = None) -> str:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="20"><text y="15">{state.total}</text></svg>'


registry.register(NAME, ToyDecider)

"""A tiny counting game, ``toy21``, as a game plug-in: it proves the service knows games only through the
contract (services/rules/contract.py).

Two seats alternate adding 1, 2 or 3 to a shared total; whoever brings it to 21 or more wins. Its presenter
uses the contract's defaults except for the view, labels, words and scoreboard.

It is found like any game: through the entry point ``toy21 = tests.service.toy_game:plugin`` of the group
``throne.games`` when a distribution declares it (tests/games/shadow/test_registry.py does), or registered when this
module is imported (``--plugin tests.service.toy_game``, and the service tests' conftest).

For the crash test only: in a process with env TOY21_STALL_AT_TOTAL=N, deciding on a total >= N hangs, so the
test can kill a worker that certainly holds commands it has read but not committed. Likewise
TOY21_STALL_VIEW_AT_TOTAL=N hangs ``view`` (which the seat-feed projection calls) from a total of N on, and
TOY21_DIE_AT_TOTAL=N kills the deciding process (SIGKILL) from a total of N on: a poison command.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import Field, TypeAdapter

from events.base import Command, Event, Rejection, parse_json
from services.rules.contract import JSON, Capabilities, GamePlugin, GameRules, Presenter
from services.rules.registry import register_game

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
RULES = ("T21",)
"""toy21's only rule: seats alternate adding 1 to 3; reaching 21 wins."""


@dataclass(frozen=True, slots=True)
class ToyState:
    players: tuple[str, ...] = ()
    total: int = 0
    turn: int = 0
    winner: int | None = None


class ToyRules(GameRules[ToyState]):
    """The rules of the counting game."""

    name = NAME
    rules_version = "1"
    capabilities = Capabilities(min_players=2, max_players=2)

    def start(self, players: Sequence[str], settings: Mapping[str, Any], seed: int) -> list[Event]:
        if len(players) != 2:
            raise ValueError("toy21 needs exactly 2 players")
        return [Started(players=tuple(players), settings=dict(settings), seed=seed, rulings=RULES)]

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
        die = os.environ.get("TOY21_DIE_AT_TOTAL")
        if die and state.players and state.total >= int(die):
            os.kill(os.getpid(), signal.SIGKILL)  # a poison command: the process dies every time it decides it
        if not state.players:
            return Rejection(code="no_game", message="there is no game yet")
        if state.winner is not None:
            return Rejection(code="game_over", message="the game is over", rulings=RULES)
        if not isinstance(command, Add):
            return Rejection(code="illegal_command", message=f"unknown command {command!r}")
        if command.seat != state.turn:
            return Rejection(code="not_your_turn", message=f"it is seat {state.turn}'s turn", rulings=RULES)
        total = state.total + command.amount
        events: list[Event] = [Added(seat=command.seat, amount=command.amount, total=total, rulings=RULES)]
        if total >= TARGET:
            events.append(Won(seat=command.seat, rulings=RULES))
        return events

    def legal_commands(self, state: ToyState, seat: int) -> list[Command]:
        if state.winner is not None or not state.players or seat != state.turn:
            return []
        return [Add(seat=seat, amount=n) for n in (1, 2, 3)]

    def awaited(self, state: ToyState) -> tuple[int, ...]:
        return () if state.winner is not None or not state.players else (state.turn,)

    def is_over(self, state: ToyState) -> bool:
        return state.winner is not None

    def result(self, state: ToyState) -> JSON | None:
        if state.winner is None:
            return None
        # The contract's keys (players, scores, winners, shared), and the toy's own (winner, total).
        scores = [state.total if seat == state.winner else 0 for seat in range(len(state.players))]
        return {
            "players": list(state.players), "scores": scores, "winners": [state.winner], "shared": False,
            "winner": state.winner, "total": state.total,
        }  # fmt: skip

    def parse_command(self, raw: bytes | str | JSON) -> Command:
        return parse_json(_COMMANDS, raw)

    def parse_event(self, raw: bytes | str | JSON) -> Event:
        return parse_json(_EVENTS, raw)

    def encode_event(self, event: Event) -> JSON:
        return event.to_dict()

    def encode_command(self, command: Command) -> JSON:
        return command.to_dict()

    def snapshot(self, state: ToyState) -> bytes:
        return orjson.dumps([list(state.players), state.total, state.turn, state.winner])

    def restore(self, data: bytes) -> ToyState:
        players, total, turn, winner = orjson.loads(data)
        return ToyState(tuple(players), total, turn, winner)


ToyDecider = ToyRules
"""Deprecated name of :class:`ToyRules`, for tests written against the old Decider."""


class ToyPresenter(Presenter[ToyState]):
    """toy21 has no secrets and its board is one number: the defaults, plus a view, labels and words."""

    def view(self, state: ToyState, seat: int | None) -> JSON:
        stall = os.environ.get("TOY21_STALL_VIEW_AT_TOTAL")
        if stall and state.total >= int(stall):
            time.sleep(3600)
        return {"total": state.total, "turn": state.turn, "winner": state.winner}

    def label(self, command: Command, state: ToyState | None = None) -> str:
        return f"Add {command.amount}" if isinstance(command, Add) else type(command).__name__

    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        if isinstance(event, Added):
            return f"seat {event.seat} adds {event.amount}: total {event.total}"
        if isinstance(event, Won):
            return f"seat {event.seat} wins"
        return "a game of toy21 starts"

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        return f"{self.describe(event)} (toy21: reaching {TARGET} wins)"

    def scoreboard(self, state: ToyState) -> JSON:
        winners = None if state.winner is None else [state.winner]
        # The winner scores the total reached, the other seat nothing.
        seats = [
            {"seat": i, "name": p, "score": state.total if state.winner == i else 0}
            for i, p in enumerate(state.players)
        ]
        return {"total": state.total, "winners": winners, "seats": seats}


def plugin(rules: ToyRules | None = None) -> GamePlugin:
    """The toy21 plug-in (``rules``: a variant of the rules under its own name, for tests)."""
    rules = rules or ToyRules()
    return GamePlugin(game_rules=rules, game_presenter=ToyPresenter(rules))


register_game(plugin())

"""decide(state, command): the events a command causes, or a typed rejection.

``execute`` answers with the core's event tuples (facts.py) and the state after them; ``decide`` with the events
as pydantic models, made at this edge from the same tuples."""

from __future__ import annotations

from events.base import Command, Event, Rejection
from services.games.shadow.rules import actions
from services.games.shadow.rules.actions import OPTIONS, awaited, is_legal, key_of
from services.games.shadow.rules.effects import Tx
from services.games.shadow.rules.explain import DECISION_RULINGS, explain
from services.games.shadow.rules.facts import to_model
from services.games.shadow.rules.state import GameState


def reject(code: str, message: str, *rulings: str) -> Rejection:
    """A typed rejection."""
    return Rejection(code=code, message=message, rulings=tuple(rulings))


def decide(state: GameState | None, command: Command) -> list[Event] | Rejection:
    """Validate ``command`` against the decision the game waits for and return its events."""
    result = _run(state, command)
    return result if isinstance(result, Rejection) else [to_model(e) for e in result.events]


def execute(state: GameState | None, command: Command) -> tuple[list[Event], GameState] | Rejection:
    """decide and fold in one pass (the state after the events is computed while deciding)."""
    result = _run(state, command)
    return result if isinstance(result, Rejection) else (result.events, result.state)


def _run(state: GameState | None, command: Command) -> Tx | Rejection:
    """The checks in the order a player learns the most from, then the command's effects on a Tx."""
    if state is None:
        return reject("no_game", "There is no game yet.", "X15")
    if state.over:
        return reject("game_over", "The game is over.", "G3")
    seat = command.seat
    if not 0 <= seat < state.n:
        return reject("unknown_seat", f"Seat {seat} does not exist in a {state.n}-player game.", "G1", "X15")
    prompt = state.prompt
    assert prompt is not None
    waiting = awaited(state)
    if seat not in waiting:
        if prompt.decision == "vote" and seat in prompt.seats:
            return reject("already_voted", "You have already sealed your vote.", "E2")
        names = ", ".join(state.players[s] for s in waiting)
        return reject("not_your_turn", f"The game is waiting for {names}, not for seat {seat}.", "G1")
    by_type = OPTIONS[prompt.decision]
    command_type = command.type  # type: ignore[attr-defined]
    if command_type not in by_type:
        expected = ", ".join(sorted(by_type))
        return reject(
            "wrong_decision",
            f"The game waits for '{prompt.decision}'; {command_type} is not possible now "
            f"(expected one of: {expected}).",
            "X15",
            *DECISION_RULINGS[prompt.decision],
        )
    if not is_legal(state, seat, prompt, command_type, key_of(command)):
        code, message, rulings = explain(state, command, prompt)
        return reject(code, message, *rulings)
    tx = Tx(state)
    actions.APPLY[(prompt.decision, command_type)](tx, command, prompt)
    return tx

"""Small named effects that emit events: the building blocks of command handlers and of the flow.

``Tx`` collects the events of one decision (the core's tuples, facts.py) and keeps the state folded as it goes,
so each step sees the result of the previous one: the Tx works on one copy of the state, changed in place.
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.evolve import APPLY
from services.games.shadow.rules.facts import E
from services.games.shadow.rules.state import COUPLE, OWNER, GameState

__all__ = ["E", "Tx"]


class Tx:
    """The events of one decision, and the state after them."""

    __slots__ = ("events", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state.copy()
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        """Record an event and fold it into the working state."""
        self.events.append(event)
        APPLY[event.type](self.state, event)

    def sid(self, index: int) -> str:
        """The id of a space index."""
        return self.state.layout.spaces[index].id


def gain_thalers(tx: Tx, seat: int, amount: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Add thalers, capped at the maximum [G2]."""
    s = tx.state
    cap = s.layout.constants["max_thalers"]
    balance = min(cap, s.thalers[seat] + amount)
    lost = s.thalers[seat] + amount - balance
    tx.emit(
        E.ThalersChanged(
            seat=seat,
            delta=balance - s.thalers[seat],
            balance=balance,
            reason=reason,
            lost_to_cap=lost,
            rulings=(*rulings, "G2"),
        )
    )


def pay(tx: Tx, seat: int, amount: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Pay thalers (callers check affordability first) [G2]."""
    if amount:
        balance = tx.state.thalers[seat] - amount
        tx.emit(E.ThalersChanged(seat=seat, delta=-amount, balance=balance, reason=reason, rulings=rulings))


def score(tx: Tx, seat: int, points: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Award victory points [B6]."""
    if points:
        total = tx.state.vp[seat] + points
        tx.emit(E.VictoryPointsScored(seat=seat, points=points, total=total, reason=reason, rulings=rulings))


def push_knight(tx: Tx, space: int, by: int, rulings: tuple[str, ...]) -> None:
    """Send the knight on ``space`` back to its owner's supply [D2]."""
    tx.emit(
        E.KnightPushed(
            owner=OWNER[tx.state.cells[space]],
            space=tx.sid(space),
            by=by,
            rulings=rulings if "D2" in rulings else (*rulings, "D2"),
        )
    )


def place_from_supply(
    tx: Tx,
    owner: int,
    target: int,
    push: int | None,
    couple: bool,
    age: int,
    reason: str,
    rulings: tuple[str, ...],
) -> None:
    """A tile from ``owner``'s supply onto ``target`` (pushing a knight there first if ``push``)."""
    if push is not None:
        push_knight(tx, push, owner, rulings)
    tx.emit(
        E.AristocratPlaced(owner=owner, space=tx.sid(target), couple=couple, age=age, reason=reason, rulings=rulings)
    )


def move_tile(tx: Tx, source: int, target: int, push: int | None, reason: str, rulings: tuple[str, ...]) -> None:
    """Move a tile between spaces (pushing a knight from the target first if ``push``)."""
    owner = OWNER[tx.state.cells[source]]
    if push is not None:
        push_knight(tx, push, owner, rulings)
    tx.emit(
        E.AristocratMoved(
            owner=owner, from_space=tx.sid(source), to_space=tx.sid(target), reason=reason, rulings=rulings
        )
    )


def return_to_supply(tx: Tx, space: int, reason: str, rulings: tuple[str, ...]) -> None:
    """A tile back to its owner's supply without dying."""
    tx.emit(
        E.AristocratReturned(owner=OWNER[tx.state.cells[space]], space=tx.sid(space), reason=reason, rulings=rulings)
    )


def kill(tx: Tx, space: int, cause: str, rulings: tuple[str, ...]) -> None:
    """A tile dies and goes to its owner's supply."""
    code = tx.state.cells[space]
    tx.emit(
        E.AristocratDied(
            owner=OWNER[code],
            space=tx.sid(space),
            couple=COUPLE[code],
            cause=cause,  # type: ignore[arg-type]
            rulings=rulings,
        )
    )


# Requests repeat (the same decision for the same seats in the same context): events are immutable, so one
# validated instance per distinct request is shared. Bounded: cleared when full.
_requests: dict[tuple[object, ...], Any] = {}
_REQUESTS_KEPT = 4096


def request(tx: Tx, decision: str, seats: tuple[int, ...], rulings: tuple[str, ...] = (), **context: object) -> None:
    """Ask for a decision: the game now waits for ``seats``."""
    key = (decision, seats, rulings, *context.items()) if context else (decision, seats, rulings)
    try:
        event = _requests.get(key)
    except TypeError:  # an unhashable context value: build it every time
        key, event = None, None  # type: ignore[assignment]
    if event is None:
        event = E.DecisionRequested(prompt=E.Prompt(decision=decision, seats=seats, **context), rulings=rulings)
        if key is not None:
            if len(_requests) >= _REQUESTS_KEPT:
                _requests.clear()
            _requests[key] = event
    tx.emit(event)

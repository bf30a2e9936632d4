"""Small named effects that emit events: the building blocks of command handlers and of the flow.

``Tx`` collects the events of one decision (the core's tuples, facts.py) and keeps the state folded as it goes,
so each step sees the result of the previous one: the Tx works on one copy of the state, changed in place.
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.evolve import APPLY
from services.games.shadow.rules.facts import E
from services.games.shadow.rules.state import COUPLE, OWNER, GameState
from services.rules.facts import maker

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


# The hottest events are built from one tuple in the mirror's order (services/rules/facts.py: ``maker``): a keyword
# call runs the tuple's Python ``__new__``, several times the cost of the C-level construction.
_THALERS = maker(E.ThalersChanged, "seat delta balance reason rulings type lost_to_cap")
_SCORED = maker(E.VictoryPointsScored, "seat points total reason rulings type")
_PUSHED = maker(E.KnightPushed, "owner space by rulings type")
_PLACED = maker(E.AristocratPlaced, "owner space couple age reason rulings type")
_MOVED = maker(E.AristocratMoved, "owner from_space to_space reason rulings type")
_DIED = maker(E.AristocratDied, "owner space couple cause rulings type")


def gain_thalers(tx: Tx, seat: int, amount: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Add thalers, capped at the maximum [G2]."""
    s = tx.state
    before = s.thalers[seat]
    balance = min(s.layout.constants["max_thalers"], before + amount)
    tx.emit(
        _THALERS(
            (seat, balance - before, balance, reason, (*rulings, "G2"), "ThalersChanged", before + amount - balance)
        )
    )


def pay(tx: Tx, seat: int, amount: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Pay thalers (callers check affordability first) [G2]."""
    if amount:
        balance = tx.state.thalers[seat] - amount
        tx.emit(_THALERS((seat, -amount, balance, reason, rulings, "ThalersChanged", 0)))


def score(tx: Tx, seat: int, points: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Award victory points [B6]."""
    if points:
        tx.emit(_SCORED((seat, points, tx.state.vp[seat] + points, reason, rulings, "VictoryPointsScored")))


def push_knight(tx: Tx, space: int, by: int, rulings: tuple[str, ...]) -> None:
    """Send the knight on ``space`` back to its owner's supply [D2]."""
    s = tx.state
    cite = rulings if "D2" in rulings else (*rulings, "D2")
    tx.emit(_PUSHED((OWNER[s.cells[space]], s.layout.spaces[space].id, by, cite, "KnightPushed")))


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
    space = tx.state.layout.spaces[target].id
    tx.emit(_PLACED((owner, space, couple, age, reason, rulings, "AristocratPlaced")))


def move_tile(tx: Tx, source: int, target: int, push: int | None, reason: str, rulings: tuple[str, ...]) -> None:
    """Move a tile between spaces (pushing a knight from the target first if ``push``)."""
    s = tx.state
    owner = OWNER[s.cells[source]]
    if push is not None:
        push_knight(tx, push, owner, rulings)
    spaces = s.layout.spaces
    tx.emit(_MOVED((owner, spaces[source].id, spaces[target].id, reason, rulings, "AristocratMoved")))


def return_to_supply(tx: Tx, space: int, reason: str, rulings: tuple[str, ...]) -> None:
    """A tile back to its owner's supply without dying."""
    tx.emit(
        E.AristocratReturned(owner=OWNER[tx.state.cells[space]], space=tx.sid(space), reason=reason, rulings=rulings)
    )


def kill(tx: Tx, space: int, cause: str, rulings: tuple[str, ...]) -> None:
    """A tile dies and goes to its owner's supply."""
    s = tx.state
    code = s.cells[space]
    tx.emit(_DIED((OWNER[code], s.layout.spaces[space].id, COUPLE[code], cause, rulings, "AristocratDied")))


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

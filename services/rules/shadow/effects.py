"""Small named effects that emit events: the building blocks of command handlers and of the flow.

``Tx`` collects the events of one decision and keeps the state folded as it goes, so each step sees the
result of the previous one.
"""

from __future__ import annotations

from events.base import Event
from events.shadow import events as ev
from services.rules.shadow.evolve import evolve
from services.rules.shadow.state import GameState, Knight, Tile


class Tx:
    """The events of one decision, and the state after them."""

    __slots__ = ("events", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        """Record an event and fold it into the working state."""
        self.events.append(event)
        self.state = evolve(self.state, event)

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
        ev.ThalersChanged(
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
        tx.emit(ev.ThalersChanged(seat=seat, delta=-amount, balance=balance, reason=reason, rulings=rulings))


def score(tx: Tx, seat: int, points: int, reason: str, rulings: tuple[str, ...]) -> None:
    """Award victory points [B6]."""
    if points:
        total = tx.state.vp[seat] + points
        tx.emit(ev.VictoryPointsScored(seat=seat, points=points, total=total, reason=reason, rulings=rulings))


def push_knight(tx: Tx, space: int, by: int, rulings: tuple[str, ...]) -> None:
    """Send the knight on ``space`` back to its owner's supply [D2]."""
    knight = tx.state.board[space]
    assert isinstance(knight, Knight)
    tx.emit(
        ev.KnightPushed(
            owner=knight.owner, space=tx.sid(space), by=by, rulings=rulings if "D2" in rulings else (*rulings, "D2")
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
        ev.AristocratPlaced(owner=owner, space=tx.sid(target), couple=couple, age=age, reason=reason, rulings=rulings)
    )


def move_tile(tx: Tx, source: int, target: int, push: int | None, reason: str, rulings: tuple[str, ...]) -> None:
    """Move a tile between spaces (pushing a knight from the target first if ``push``)."""
    tile = tx.state.board[source]
    assert isinstance(tile, Tile)
    if push is not None:
        push_knight(tx, push, tile.owner, rulings)
    tx.emit(
        ev.AristocratMoved(
            owner=tile.owner, from_space=tx.sid(source), to_space=tx.sid(target), reason=reason, rulings=rulings
        )
    )


def return_to_supply(tx: Tx, space: int, reason: str, rulings: tuple[str, ...]) -> None:
    """A tile back to its owner's supply without dying."""
    tile = tx.state.board[space]
    assert isinstance(tile, Tile)
    tx.emit(ev.AristocratReturned(owner=tile.owner, space=tx.sid(space), reason=reason, rulings=rulings))


def kill(tx: Tx, space: int, cause: str, rulings: tuple[str, ...]) -> None:
    """A tile dies and goes to its owner's supply."""
    tile = tx.state.board[space]
    assert isinstance(tile, Tile)
    tx.emit(
        ev.AristocratDied(
            owner=tile.owner,
            space=tx.sid(space),
            couple=tile.couple,
            cause=cause,  # type: ignore[arg-type]
            rulings=rulings,
        )
    )


# Requests repeat (the same decision for the same seats in the same context): events are immutable, so one
# validated instance per distinct request is shared. Bounded: cleared when full.
_requests: dict[tuple[object, ...], ev.DecisionRequested] = {}
_REQUESTS_KEPT = 4096


def request(tx: Tx, decision: str, seats: tuple[int, ...], rulings: tuple[str, ...] = (), **context: object) -> None:
    """Ask for a decision: the game now waits for ``seats``."""
    key = (decision, seats, rulings, *context.items())
    try:
        event = _requests.get(key)
    except TypeError:  # an unhashable context value: build it every time
        key, event = None, None  # type: ignore[assignment]
    if event is None:
        event = ev.DecisionRequested(
            prompt=ev.Prompt(decision=decision, seats=seats, **context),  # type: ignore[arg-type]
            rulings=rulings,
        )
        if key is not None:
            if len(_requests) >= _REQUESTS_KEPT:
                _requests.clear()
            _requests[key] = event
    tx.emit(event)

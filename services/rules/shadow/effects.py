"""Small named effects that emit events: the building blocks of command handlers and of the flow.

``Tx`` collects the events of one decision and keeps the state folded as it goes, so each step sees the
result of the previous one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from events.base import Event
from events.shadow import events as ev
from services.rules.shadow.evolve import HANDLERS
from services.rules.shadow.state import GameState, Knight, Tile

_new = object.__new__
_set = object.__setattr__


class _Missing:
    """The value of a required field a trusted constructor was not given: no JSON encoder takes it, so such an
    event can be neither stored nor sent (the command fails instead of recording a broken event)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing required field>"


MISSING: Any = _Missing()


def trusted(cls: type[Event]) -> Callable[..., Any]:
    """A constructor of the event model ``cls`` that skips validation, for the events the engine builds itself
    from values of the declared types: the same instance as ``cls(**kwargs)`` (same fields in the same order,
    same set of given fields) at about half the cost. An unknown field is a TypeError; a required field left
    out holds :data:`MISSING`, which nothing can encode. tests/rules/test_fast_paths.py checks that the
    engine's events equal validated ones, and plays games with :func:`validated_events` on."""
    fields = cls.model_fields
    # Every field in declaration order, with its default (a required one: MISSING until given).
    template = {name: MISSING if f.is_required() else f.default for name, f in fields.items()}
    count = len(template)
    assert all(isinstance(d, (_Missing, type(None), bool, int, str, tuple, frozenset)) for d in template.values()), cls

    def make(**values: Any) -> Any:
        data = {**template, **values}  # the template's order; a given value replaces its default in place
        if len(data) != count or "type" in values:
            raise TypeError(f"{cls.__name__} takes {', '.join(template)}; got {', '.join(values)}")
        event = _new(cls)
        _set(event, "__dict__", data)
        _set(event, "__pydantic_fields_set__", set(values))
        _set(event, "__pydantic_extra__", None)
        _set(event, "__pydantic_private__", None)
        return event

    make.__name__ = make.__qualname__ = cls.__name__
    return make


def _constructors(validated: bool) -> dict[str, Any]:
    return {name: cls if validated else trusted(cls) for name, cls in ev.EVENT_TYPES.items()}


# The engine's event constructors: ``E.ThalersChanged(seat=..., ...)`` builds an ``ev.ThalersChanged``.
E: Any = SimpleNamespace(**_constructors(validated=False))


@contextmanager
def validated_events() -> Iterator[None]:
    """Within the block, the engine builds every event with pydantic's full validation instead of the trusted
    constructors (for tests: a wrong type anywhere in the engine's events is then an error). Not thread-safe:
    it swaps the constructors of the whole process."""
    vars(E).update(_constructors(validated=True))
    try:
        yield
    finally:
        vars(E).update(_constructors(validated=False))


class Tx:
    """The events of one decision, and the state after them."""

    __slots__ = ("events", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        """Record an event and fold it into the working state."""
        self.events.append(event)
        self.state = HANDLERS[event.type](self.state, event)  # evolve(self.state, event), one call less

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
    knight = tx.state.board[space]
    assert isinstance(knight, Knight)
    tx.emit(
        E.KnightPushed(
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
        E.AristocratPlaced(owner=owner, space=tx.sid(target), couple=couple, age=age, reason=reason, rulings=rulings)
    )


def move_tile(tx: Tx, source: int, target: int, push: int | None, reason: str, rulings: tuple[str, ...]) -> None:
    """Move a tile between spaces (pushing a knight from the target first if ``push``)."""
    tile = tx.state.board[source]
    assert isinstance(tile, Tile)
    if push is not None:
        push_knight(tx, push, tile.owner, rulings)
    tx.emit(
        E.AristocratMoved(
            owner=tile.owner, from_space=tx.sid(source), to_space=tx.sid(target), reason=reason, rulings=rulings
        )
    )


def return_to_supply(tx: Tx, space: int, reason: str, rulings: tuple[str, ...]) -> None:
    """A tile back to its owner's supply without dying."""
    tile = tx.state.board[space]
    assert isinstance(tile, Tile)
    tx.emit(E.AristocratReturned(owner=tile.owner, space=tx.sid(space), reason=reason, rulings=rulings))


def kill(tx: Tx, space: int, cause: str, rulings: tuple[str, ...]) -> None:
    """A tile dies and goes to its owner's supply."""
    tile = tx.state.board[space]
    assert isinstance(tile, Tile)
    tx.emit(
        E.AristocratDied(
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
    key = (decision, seats, rulings, *context.items()) if context else (decision, seats, rulings)
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

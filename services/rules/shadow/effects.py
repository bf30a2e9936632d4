"""Small named effects that emit events: the building blocks of command handlers and of the flow.

``Tx`` collects the events of one decision and keeps the state folded as it goes, so each step sees the
result of the previous one.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from events.base import Event
from events.shadow import events as ev
from services.rules.shadow.evolve import HANDLERS
from services.rules.shadow.state import GameState, Knight, Tile

_UNSET: Any = object()


def trusted(cls: type[Event]) -> Any:
    """A constructor of the event model ``cls`` that skips validation, for the events the engine builds itself
    from values of the declared types: the same instance as ``cls(**kwargs)`` (same fields, field order, and
    set of given fields) at about half the cost. An unknown or missing field is a TypeError, as a call with
    wrong keywords. ``SHADOW_VALIDATE_EVENTS=1`` validates them all (tests/rules/test_fast_paths.py checks that
    the engine's events equal validated ones)."""
    if os.environ.get("SHADOW_VALIDATE_EVENTS"):
        return cls
    fields = cls.model_fields
    required = [name for name, f in fields.items() if f.is_required()]
    optional = [name for name, f in fields.items() if not f.is_required() and name != "type"]
    defaults = {name: f.default for name, f in fields.items() if not f.is_required()}
    assert all(isinstance(d, (type(None), bool, int, str, tuple, frozenset)) for d in defaults.values()), cls
    lines = [f"def make(*, {', '.join([*required, *(f'{name}=_UNSET' for name in optional)])}):"]
    lines.append(f"    given = {{{', '.join(map(repr, required))}}}" if required else "    given = set()")
    for name in optional:
        lines += [
            f"    if {name} is _UNSET:",
            f"        {name} = _D[{name!r}]",
            "    else:",
            f"        given.add({name!r})",
        ]
    values = ", ".join(f"{name!r}: _D['type']" if name == "type" else f"{name!r}: {name}" for name in fields)
    lines += [
        "    obj = _new(cls)",
        f"    _set(obj, '__dict__', {{{values}}})",
        "    _set(obj, '__pydantic_fields_set__', given)",
        "    _set(obj, '__pydantic_extra__', None)",
        "    _set(obj, '__pydantic_private__', None)",
        "    return obj",
    ]
    namespace = {"cls": cls, "_D": defaults, "_UNSET": _UNSET, "_new": object.__new__, "_set": object.__setattr__}
    exec("\n".join(lines), namespace)  # code built above from the model's own field names
    make = namespace["make"]
    make.__name__ = make.__qualname__ = cls.__name__
    return make


# The engine's event constructors: ``E.ThalersChanged(seat=..., ...)`` builds an ``ev.ThalersChanged``.
E: Any = SimpleNamespace(**{name: trusted(cls) for name, cls in ev.EVENT_TYPES.items()})


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

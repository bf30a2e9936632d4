"""Given/when/then helpers for rules scenarios.

Given: a list of events folded from nothing (a real game start plus arranged facts: evolve is mechanical, so
any position can be arranged with events such as AristocratPlaced, ThalersChanged, PhaseStarted and
DecisionRequested). When: one command. Then: the events it causes, or its rejection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from events.base import Command, Event, Rejection
from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.presentation.presenter import ShadowPresenter
from services.games.shadow.rules.decider import ShadowRules
from services.games.shadow.rules.state import GameState

RULES = ShadowRules()
PRESENTER = ShadowPresenter(RULES)
NAMES = ("Red", "Green", "Blue", "Yellow")


def start(players: int = 4, settings: dict[str, Any] | None = None, seed: int = 0) -> list[Event]:
    """The opening events of a new game."""
    return RULES.start(NAMES[:players], settings or {}, seed)


def given(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold events (from nothing, or on top of ``state``)."""
    return RULES.fold(list(events), state)


def when(state: GameState, command: Command) -> list[Event] | Rejection:
    """Decide one command."""
    return RULES.decide(state, command)


def accepted(state: GameState, command: Command) -> tuple[list[Event], GameState]:
    """Decide a command that must be accepted; return its events and the state after them."""
    result = RULES.decide(state, command)
    assert not isinstance(result, Rejection), f"{command} was rejected: {result}"
    return result, given(result, state)


def rejected(state: GameState, command: Command, code: str | None = None) -> Rejection:
    """Decide a command that must be rejected (with ``code`` if given)."""
    result = RULES.decide(state, command)
    assert isinstance(result, Rejection), f"{command} was accepted: {result}"
    if code is not None:
        assert result.code == code, f"expected {code}, got {result.code}: {result.message}"
    return result


def of_type(events: Sequence[Event], kind: type[Event]) -> list[Any]:
    """The events of one type."""
    return [e for e in events if isinstance(e, kind)]


def types(events: Sequence[Event]) -> list[str]:
    """The type names of events, in order."""
    return [e.type for e in events]  # type: ignore[attr-defined]


def prompt(state: GameState) -> ev.Prompt:
    """The decision the game waits for."""
    assert state.pending is not None
    return state.pending


def first_legal_setup(players: int = 4, settings: dict[str, Any] | None = None, seed: int = 0) -> GameState:
    """A started game whose setup was answered with each seat's first legal command: round 1, phase IV."""
    state = given(start(players, settings, seed))
    while state.phase == 0:
        seat = RULES.awaited(state)[0]
        _, state = accepted(state, RULES.legal_commands(state, seat)[0])
    return state


def request(decision: str, *seats: int, **context: Any) -> ev.DecisionRequested:
    """An arranged DecisionRequested event."""
    return ev.DecisionRequested(prompt=ev.Prompt(decision=decision, seats=seats, **context))


# --- arranged facts: events that put a position together (evolve applies them mechanically) ----------------------
def tile(owner: int, space: str, age: int = 25, couple: bool = False) -> ev.AristocratPlaced:
    """An aristocrat tile from ``owner``'s supply onto ``space``."""
    return ev.AristocratPlaced(owner=owner, space=space, couple=couple, age=age, reason="test")


def baron(owner: int, space: str, age: int = 25) -> ev.AristocratPlaced:
    """A Baron of ``owner`` onto ``space``."""
    return tile(owner, space, age)


def couple(owner: int, space: str, age: int = 35) -> ev.AristocratPlaced:
    """A Couple of ``owner`` onto ``space``."""
    return tile(owner, space, age, couple=True)


def knight(owner: int, space: str) -> ev.KnightPlaced:
    """A knight from ``owner``'s supply onto ``space``."""
    return ev.KnightPlaced(owner=owner, space=space)


def city(owner: int, space: str) -> ev.CityPlaced:
    """A city of ``owner`` onto ``space``."""
    return ev.CityPlaced(owner=owner, space=space)


def empire_city(space: str) -> ev.EmpireCityPlaced:
    """An empire city onto ``space``."""
    return ev.EmpireCityPlaced(seat=0, space=space)


def died(owner: int, space: str) -> ev.AristocratDied:
    """The Baron on ``space`` died (its seat, if any, is now empty)."""
    return ev.AristocratDied(owner=owner, space=space, couple=False, cause="old_age")


def thalers(seat: int, balance: int) -> ev.ThalersChanged:
    """Set a seat's thalers."""
    return ev.ThalersChanged(seat=seat, delta=0, balance=balance, reason="test")


def vp(seat: int, total: int) -> ev.VictoryPointsScored:
    """Set a seat's VP total."""
    return ev.VictoryPointsScored(seat=seat, points=total, total=total, reason="test")


def taken(seat: int, card: str, without_effect: bool = False) -> ev.CardTaken:
    """A card already in ``seat``'s play area this round."""
    return ev.CardTaken(seat=seat, card=card, cost=0, without_effect=without_effect)


def copied(seat: int, card: str) -> ev.CardEffectCopied:
    """A card's effect already copied by ``seat`` through Trier's privilege this round (no card taken)."""
    return ev.CardEffectCopied(seat=seat, card=card, cost=0)


def used(seat: int, electorate: str) -> ev.PrivilegeUsed:
    """A privilege already used this round."""
    return ev.PrivilegeUsed(seat=seat, electorate=electorate)


def passed(seat: int) -> ev.Passed:
    """A seat that has already passed this round."""
    return ev.Passed(seat=seat)


def at(state: GameState, space: str) -> Any:
    """The piece on ``space`` (None: empty)."""
    return state.board[state.layout.by_id[space]]


__all__ = ["cmd", "ev"]

"""Seeded random games of any game plug-in, recorded step by step, and the generic secrecy check.

Everything here knows a game only through the contract (services/rules/contract.py): its rules, its presenter,
its capabilities and its settings schema.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from events.base import Rejection
from services.rules.contract import JSON, Command, Event, GamePlugin, Secret

NAMES = ("Red", "Green", "Blue", "Yellow", "Purple", "Orange")
MAX_COMMANDS = 3000
"""A game longer than this is a rules bug (an endless game) for the suite."""


@dataclass(frozen=True)
class Step:
    """One accepted command: the state before it, the command, its events and the state after each of them."""

    before: Any
    command: Command
    events: list[Event]
    states: list[Any]
    """``states[i]``: the state right after ``events[i]``."""

    @property
    def after(self) -> Any:
        return self.states[-1] if self.states else self.before


@dataclass
class Played:
    """A whole seeded random game."""

    game: GamePlugin
    players: tuple[str, ...]
    settings: JSON
    seed: int
    opening: list[Event]
    opening_states: list[Any]
    steps: list[Step] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        return self.opening + [e for step in self.steps for e in step.events]

    @property
    def final(self) -> Any:
        return self.steps[-1].after if self.steps else self.opening_states[-1]

    def moments(self) -> Iterator[tuple[Event, Any]]:
        """Every event with the state right after it, in order."""
        yield from zip(self.opening, self.opening_states, strict=True)
        for step in self.steps:
            yield from zip(step.events, step.states, strict=True)


def player_counts(game: GamePlugin) -> list[int]:
    """The smallest and the largest table the game takes (at most the names we have)."""
    caps = game.rules.capabilities
    return sorted({caps.min_players, min(caps.max_players, len(NAMES))})


def settings_variants(game: GamePlugin) -> list[JSON]:
    """The default table, and one with every option of the settings schema switched away from its default
    (booleans flipped, enumerations on their last other value): options that hide things get exercised."""
    properties = (game.settings_schema or {}).get("properties") or {}
    switched: JSON = {}
    for name, prop in properties.items():
        default = prop.get("default")
        if prop.get("type") == "boolean":
            switched[name] = not default
        elif prop.get("enum"):
            others = [v for v in prop["enum"] if v != default]
            if others:
                switched[name] = others[-1]
    return [{}, switched] if switched else [{}]


def play(game: GamePlugin, players: int, seed: int, settings: JSON) -> Played:
    """A seeded random game to its end: the awaited seats (chosen at random when several are) send random legal
    commands; each is decided, folded, and checked against ``execute``."""
    rules = game.rules
    names = NAMES[:players]
    opening = rules.start(names, settings, seed)
    state = rules.initial_state()
    opening_states = []
    for event in opening:
        state = rules.evolve(state, event)
        opening_states.append(state)
    played = Played(game, names, settings, seed, opening, opening_states)
    rng = random.Random(f"conformance:{seed}")
    while not rules.is_over(state):
        assert len(played.steps) < MAX_COMMANDS, f"{game.name}: no end after {MAX_COMMANDS} commands"
        awaited = rules.awaited(state)
        assert awaited, f"{game.name}: the game is not over but awaits nobody"
        seat = rng.choice(awaited)
        command = rules.sample_legal(state, seat, rng)
        assert command is not None, f"{game.name}: seat {seat} is awaited but has no legal command"
        events = rules.decide(state, command)
        assert not isinstance(events, Rejection), f"{game.name}: a legal command was rejected: {events}"
        states = []
        after = state
        for event in events:
            after = rules.evolve(after, event)
            states.append(after)
        executed = rules.execute(state, command)
        assert not isinstance(executed, Rejection)
        assert executed[0] == events and executed[1] == after, f"{game.name}: execute differs from decide + evolve"
        played.steps.append(Step(state, command, events, states))
        state = after
    return played


# --- secrecy ------------------------------------------------------------------------------------------------
def json_shows(value: Any, secret: Secret) -> bool:
    """Whether JSON-ready ``value`` shows ``secret``: ``key`` holding ``value`` in an object of the owner's seat,
    or as the owner's item of a per-seat list under ``key`` (values compared with their types: 1 is not True);
    a secret without a key shows wherever its value appears."""
    if secret.key is None:
        return _anywhere(value, secret.value)
    if isinstance(value, dict):
        if secret.key in value:
            held = value[secret.key]
            if isinstance(held, list):
                if len(held) > secret.owner and _same(held[secret.owner], secret.value):
                    return True
            elif value.get("seat") == secret.owner and _same(held, secret.value):
                return True
        return any(json_shows(v, secret) for v in value.values())
    if isinstance(value, list | tuple):
        return any(json_shows(v, secret) for v in value)
    return False


def _anywhere(value: Any, secret: Any) -> bool:
    if isinstance(value, dict):
        return any(_anywhere(v, secret) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_anywhere(v, secret) for v in value)
    return _same(value, secret)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


_SCALARS = (str, int, float, bool, type(None))


class Shown:
    """What one JSON-ready output shows, indexed once, so that many secrets are checked against it cheaply:
    ``shows(secret)`` is ``json_shows(value, secret)``, by set lookups for scalar secrets (the walk for others)."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.leaves: set[tuple[type, Any]] = set()
        """Every scalar leaf, with its type (1 is not True)."""
        self.held: set[tuple[str, Any, tuple[type, Any]]] = set()
        """(key, seat, value): ``key`` holding ``value`` in an object of ``seat``, or as item ``seat`` of a list."""
        self._index(value)

    def _index(self, value: Any) -> None:
        if isinstance(value, dict):
            seat = value.get("seat")
            for key, held in value.items():
                if isinstance(held, list):
                    for i, item in enumerate(held):
                        if type(item) in _SCALARS:
                            self.held.add((key, i, (type(item), item)))
                elif "seat" in value and type(held) in _SCALARS and type(seat) in _SCALARS:
                    self.held.add((key, seat, (type(held), held)))
                self._index(held)
        elif isinstance(value, list | tuple):
            for item in value:
                self._index(item)
        else:
            self.leaves.add((type(value), value))

    def shows(self, secret: Secret) -> bool:
        """Whether the output shows ``secret`` (see :func:`json_shows`)."""
        if type(secret.value) not in _SCALARS:
            return json_shows(self.value, secret)
        typed = (type(secret.value), secret.value)
        if secret.key is None:
            return typed in self.leaves
        return (secret.key, secret.owner, typed) in self.held


def text_shows(text: str, secret: Secret) -> bool:
    """Whether ``text`` shows ``secret`` (only secrets with a distinctive ``text`` are searched)."""
    return secret.text is not None and secret.text in text


def as_json(value: Any) -> Any:
    """What a client receives: the value through JSON."""
    return orjson.loads(orjson.dumps(value))

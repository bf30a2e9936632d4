"""Deciders by game name: the only place the service learns which games exist."""

from __future__ import annotations

from collections.abc import Callable

from services.rules.decider import Decider

_FACTORIES: dict[str, Callable[[], Decider]] = {}
_CACHE: dict[str, Decider] = {}


def register(name: str, factory: Callable[[], Decider]) -> None:
    """Make a game available under ``name``."""
    _FACTORIES[name] = factory
    _CACHE.pop(name, None)


def get_decider(name: str) -> Decider:
    """The decider registered under ``name`` (KeyError if unknown)."""
    if name not in _CACHE:
        if name not in _FACTORIES:
            _register_builtins()
        _CACHE[name] = _FACTORIES[name]()
    return _CACHE[name]


def game_names() -> list[str]:
    """Names of every registered game."""
    _register_builtins()
    return sorted(_FACTORIES)


def _register_builtins() -> None:
    if "shadow" not in _FACTORIES:
        from services.rules.shadow.game import ShadowDecider

        _FACTORIES["shadow"] = ShadowDecider

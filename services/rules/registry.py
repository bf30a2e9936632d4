"""Games by name: the only place the service learns which games exist.

A game is a :class:`~services.rules.contract.GamePlugin`. Games are found through the Python entry-point group
``throne.games`` (each entry point names a zero-argument callable returning a GamePlugin, or a GamePlugin
itself), so an installed package adds a game without a line of generic code changing; tests and ``--plugin``
modules may also call :func:`register_game`. An entry point is loaded on the first :func:`get_game` of its name,
so a process imports only the games it serves.
"""

from __future__ import annotations

import threading
from importlib.metadata import EntryPoint, entry_points

from services.rules.contract import GamePlugin

GROUP = "throne.games"
DEFAULT_GROUP = "throne.default_game"
"""Names (as entry points) the game played when none is named; its value is the game's plug-in, like GROUP's."""

_registered: dict[str, GamePlugin] = {}
_loaded: dict[str, GamePlugin] = {}
_points: list[dict[str, EntryPoint]] = []  # the installed entry points, read once (clear_cache reads them again)
_lock = threading.Lock()


class UnknownGame(KeyError):
    """No game of that name is registered (nor installed under the ``throne.games`` entry points)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        known = ", ".join(game_names()) or "none"
        return f"no game {self.name!r} (known: {known})"


def register_game(plugin: GamePlugin) -> None:
    """Make ``plugin`` available under its name (it wins over an entry point of the same name)."""
    if not isinstance(plugin, GamePlugin):
        raise TypeError(f"register_game takes a GamePlugin, not {type(plugin).__name__}")
    with _lock:
        _registered[plugin.name] = plugin


def unregister_game(name: str) -> None:
    """Forget a game registered with :func:`register_game` (tests)."""
    with _lock:
        _registered.pop(name, None)


def clear_cache() -> None:
    """Forget the games loaded from entry points, so the next lookup reads the installed entry points again
    (after a package was installed, or a test put a distribution on ``sys.path``)."""
    with _lock:
        _loaded.clear()
        _points.clear()


def _entry_points() -> dict[str, EntryPoint]:
    if not _points:
        found = {ep.name: ep for ep in entry_points(group=GROUP)}
        with _lock:
            if not _points:
                _points.append(found)
    return _points[0]


def game_names() -> list[str]:
    """Names of every game available: registered or installed."""
    return sorted(set(_registered) | set(_entry_points()))


def default_game() -> str:
    """The game a command line plays when none is named: the installed game named under the entry-point group
    ``throne.default_game`` (pyproject.toml names Shadow), else the first installed game, else the first game
    registered; UnknownGame if there is none at all. (Installed entry points come sorted by name, not in the order
    pyproject.toml declares them, so the order of ``throne.games`` cannot say which game is the default.)"""
    installed = _entry_points()
    named = [ep.name for ep in entry_points(group=DEFAULT_GROUP) if ep.name in installed or ep.name in _registered]
    declared = [*named, *installed, *_registered]
    if not declared:
        raise UnknownGame("(any)")
    return declared[0]


def get_game(name: str) -> GamePlugin:
    """The game plug-in called ``name``; :class:`UnknownGame` when there is none."""
    found = _registered.get(name) or _loaded.get(name)
    if found is not None:
        return found
    point = _entry_points().get(name)
    if point is None:
        raise UnknownGame(name)
    plugin = _load(point)
    with _lock:
        found = _loaded.setdefault(name, plugin)
    return found


def _load(point: EntryPoint) -> GamePlugin:
    target = point.load()
    plugin = target if isinstance(target, GamePlugin) else target()
    if not isinstance(plugin, GamePlugin):
        raise TypeError(f"entry point {point.name} = {point.value} gave {type(plugin).__name__}, not a GamePlugin")
    if plugin.name != point.name:
        raise ValueError(f"entry point {point.name} = {point.value} is the game {plugin.name!r}")
    return plugin

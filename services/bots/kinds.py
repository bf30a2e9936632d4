"""Bot kinds by name: what a game's ``bots`` option may ask for (``{seat: kind}``).

``random`` plays any registered game (uniformly among its legal commands); ``heuristic`` knows In the Shadow
of the Emperor only. A bot is made per decision from a seed (see services/bots/runner.py), so it must be
cheap to build; it offers ``choose(decider, state, seat) -> command | None``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from events.base import Command
from services.rules.decider import Decider


class Bot(Protocol):
    """A player program for one seat."""

    def choose(self, decider: Decider, state: Any, seat: int) -> Command | None:
        """The bot's command for ``seat`` now (None: it has none)."""
        ...


@dataclass(frozen=True, slots=True)
class BotKind:
    """A named bot: how to make one from a seed, and the games it can play (None: every game)."""

    name: str
    make: Callable[[int], Bot]
    games: frozenset[str] | None = None


class UnknownBot(LookupError):
    """No bot of that kind, or none that plays that game."""


def _random(seed: int) -> Bot:
    from services.bots.random_bot import RandomBot

    return RandomBot(seed)


def _heuristic(seed: int) -> Bot:
    from services.bots.heuristic import HeuristicBot  # imports the Shadow engine: only when asked for

    return HeuristicBot(seed)


_KINDS: dict[str, BotKind] = {
    "random": BotKind("random", _random),
    "heuristic": BotKind("heuristic", _heuristic, frozenset({"shadow"})),
}


def register_bot(kind: BotKind) -> None:
    """Make another bot kind available (e.g. from a plugin that also registers its game)."""
    _KINDS[kind.name] = kind


def bot_kinds(game: str | None = None) -> list[str]:
    """Names of the bot kinds (that play ``game``, when given)."""
    return sorted(k.name for k in _KINDS.values() if game is None or k.games is None or game in k.games)


def make_bot(kind: str, game: str, seed: int) -> Bot:
    """A bot of ``kind`` for a game named ``game``; raises :class:`UnknownBot`."""
    found = _KINDS.get(kind)
    if found is None:
        raise UnknownBot(f"no bot kind {kind!r} (known: {', '.join(bot_kinds())})")
    if found.games is not None and game not in found.games:
        raise UnknownBot(f"bot kind {kind!r} does not play {game!r}")
    return found.make(seed)

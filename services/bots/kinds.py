"""Bot kinds by name: what a game's ``bots`` option may ask for (``{seat: kind}``).

A game brings its own bots (``GamePlugin.bots``); ``random`` plays every game (uniformly among its legal
commands, ``GameRules.sample_legal``) unless the game offers its own ``random``. A bot is made per decision from a
seed (see services/bots/runner.py), so it must be cheap to build; it offers ``choose(rules, state, seat) ->
command | None``.

``search`` (services/bots/search.py, Monte-Carlo tree search with the contract's defaults: random playouts, the
result as the score) plays every game whose secrets it can be kept from: one without hidden information, or one
that determinizes honestly (``Capabilities.determinizes``). A game may offer its own ``search`` instead, tuned
with its own knowledge (Shadow does).
"""

from __future__ import annotations

from services.bots.random_bot import RandomBot
from services.bots.search import SearchBot
from services.rules.contract import Bot, BotFactory
from services.rules.registry import get_game

RANDOM = "random"
SEARCH = "search"
_GENERIC: dict[str, BotFactory] = {RANDOM: RandomBot}

__all__ = ["RANDOM", "SEARCH", "Bot", "UnknownBot", "bot_kinds", "default_bot", "make_bot"]


class UnknownBot(LookupError):
    """No bot of that kind, or none that plays that game."""


def _kinds(game: str) -> dict[str, BotFactory]:
    """The game's own bots first (in its order), then the generic ones it does not replace."""
    plugin = get_game(game)
    own = dict(plugin.bots)
    generic = dict(_GENERIC)
    caps = plugin.rules.capabilities
    if not caps.hidden_information or caps.determinizes:  # else a search would read what its seat may not see
        generic[SEARCH] = SearchBot
    return {**own, **{k: v for k, v in generic.items() if k not in own}}


def bot_kinds(game: str) -> list[str]:
    """Names of the bot kinds that play ``game`` (UnknownGame if there is no such game)."""
    return sorted(_kinds(game))


def default_bot(game: str) -> str:
    """The bot a person plays against by default: the first the game lists, else ``random``."""
    return next(iter(get_game(game).bots), RANDOM)


def make_bot(kind: str, game: str, seed: int) -> Bot:
    """A bot of ``kind`` for the game named ``game``; raises :class:`UnknownBot`. Every bot plays the game alone
    (the table seats it: :meth:`services.rules.table.Table.choose`)."""
    try:
        factory = _kinds(game).get(kind)
    except KeyError as exc:  # UnknownGame
        raise UnknownBot(f"no game {game!r}") from exc
    if factory is None:
        raise UnknownBot(f"bot kind {kind!r} does not play {game!r} (known: {', '.join(bot_kinds(game))})")
    return factory(seed)

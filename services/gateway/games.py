"""What the gateway knows of a game: who may act for which seat, and its current position.

Game-agnostic: a game is its name in the registry and the :class:`~services.rules.contract.GamePlugin` found
there (its rules and its presenter).

* :class:`GameInfo` holds what never changes after creation (name, plug-in, players, the sha256 of each seat's
  token), cached per game: checking a token costs a hash and a compare, no Redis round trip.
* :class:`Directory` serves each game's latest position through the store repository's warm path
  (services/store/repository.py): the one loaded-game type, cached (LRU), brought up to date with the events
  after its cached version (one pipelined round trip when nothing happened), or with the events a command's
  reply carries (:meth:`Directory.advance_by`: no read at all); the event loop runs the same catch-up on its
  asyncio client (:meth:`Directory.refresh_reads`, :meth:`Directory.advance`). A game whose events were moved
  to its archive is folded from it.
* Seat filtering of events goes through the presenter's ``redact(event, seat, state)`` (:func:`seat_event`);
  labels of legal commands through its ``label(command, state)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from events.base import Command, Event
from services.bus.keys import Layout
from services.rules.contract import GamePlugin, GameRules, Presenter
from services.rules.registry import UnknownGame as UnknownGameName
from services.rules.registry import get_game
from services.store.cache import LruCache
from services.store.catchup import GameGone, Read, advance, catch_up_reads, caught_up
from services.store.loaded import LoadedGame, seat_of_token
from services.store.meta import GameMeta, GameStatus
from services.store.repository import GameRepository, UnknownGame


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The parts of a game that never change once it is created."""

    game_id: str
    name: str
    game: GamePlugin
    players: tuple[str, ...]
    token_hashes: tuple[str, ...]

    @property
    def rules(self) -> GameRules[Any]:
        """The game's rules."""
        return self.game.rules

    @property
    def presenter(self) -> Presenter[Any]:
        """The game's presenter."""
        return self.game.presenter

    def seat_of(self, token: str) -> int | None:
        """The seat whose secret ``token`` this is, or None (constant-time compare of the sha256)."""
        return seat_of_token(self.token_hashes, token)


Position = LoadedGame
"""A game's latest position as the gateway holds it: the store's one loaded-game type (its state at ``version``,
its status, and its last few events with the state after each, enough to render them for a seat)."""


History = list[tuple[int, Event, Any]]
"""Events as ``(version, event, state after it)``."""


class NoSuchGame(LookupError):
    """No game with that id, or one whose game name no rules are registered under."""


class Directory:
    """Game infos and latest positions, cached; thread-safe (the gateway calls it from a thread pool)."""

    def __init__(self, client: redis.Redis, layout: Layout, cache_size: int = 1000, recent: int = 32) -> None:
        self.r = client
        self.layout = layout
        self.repo = GameRepository(client, layout, cache_size=cache_size, keep_recent=recent)
        self.cache_size = cache_size
        self.recent = recent
        self._infos: LruCache[str, GameInfo] = LruCache(cache_size)

    # --- infos ----------------------------------------------------------------------------------------
    def cached_info(self, game_id: str) -> GameInfo | None:
        """The info of a game if cached (no IO: usable on the event loop)."""
        return self._infos.get(game_id)

    def info(self, game_id: str) -> GameInfo:
        """The info of a game (raises :class:`NoSuchGame`)."""
        known = self.cached_info(game_id)
        if known is not None:
            return known
        meta = self.repo.find_meta(game_id)
        if meta is None:
            raise NoSuchGame(game_id)
        return self._remember(self._info_from_meta(meta))

    def _info_from_meta(self, meta: GameMeta) -> GameInfo:
        try:
            game = get_game(meta.name)
        except UnknownGameName:
            raise NoSuchGame(meta.game_id) from None
        return GameInfo(meta.game_id, meta.name, game, meta.players, meta.token_digests)

    def _remember(self, info: GameInfo) -> GameInfo:
        self._infos.put(info.game_id, info)
        return info

    # --- positions ------------------------------------------------------------------------------------
    def position(self, game_id: str) -> Position:
        """The game's latest position (raises :class:`NoSuchGame`): the repository's warm path."""
        try:
            pos = self.repo.get(game_id)
        except UnknownGame:
            raise NoSuchGame(game_id) from None
        if self.cached_info(game_id) is None:
            self._remember(self._info_from_meta(pos.meta))
        return pos

    def history(self, game_id: str, after: int) -> tuple[Position, History]:
        """The latest position and every event after version ``after`` with the state after each.

        Served from the recent events of the cached position when they reach back far enough, else by
        folding the whole game again (a feed resumed from long ago).
        """
        pos = self.position(game_id)
        items = pos.recent_after(after)
        if items is not None:
            return pos, items
        full = self._fold_from_start(pos, pos.version)
        self.repo.keep(pos.at(pos.state, pos.version, recent=full[-self.recent :]))
        return pos, [item for item in full if item[0] > after]

    def history_page(self, game_id: str, after: int, upto: int) -> tuple[Position, History]:
        """The latest position and the events ``after < version <= upto`` with the state after each: from the
        cached recent events when they reach back that far, else by folding the game from its start up to
        ``upto`` only (a page costs what it covers, whatever the game's length beyond it)."""
        pos = self.position(game_id)
        upto = min(upto, pos.version)
        if upto <= after:
            return pos, []
        items = pos.recent_after(after)
        if items is not None:
            return pos, [item for item in items if item[0] <= upto]
        return pos, [item for item in self._fold_from_start(pos, upto) if after < item[0] <= upto]

    def _fold_from_start(self, pos: Position, upto: int) -> History:
        folded: History = []
        records = ((e.version, e.data) for e in self.repo.events(pos.game_id, 0, upto))
        rules = pos.rules
        self.repo.fold(rules, rules.initial_state(), 0, records, folded, game_id=pos.game_id)
        return folded

    def cached_position(self, game_id: str) -> Position | None:
        """The cached position of a game, however old (no IO)."""
        return self.repo.cached(game_id)

    def keep(self, pos: Position) -> Position:
        """Cache ``pos`` unless a position further on is cached already; returns ``pos``."""
        return self.repo.keep(pos)

    def refresh_reads(self, pos: Position) -> list[Read]:
        """The two reads that bring ``pos`` up to date, as (method, args) for a sync or an asyncio pipeline."""
        return catch_up_reads(self.layout, pos)

    def advance(self, pos: Position, meta: list[bytes | None], entries: list[Any]) -> Position | None:
        """``pos`` moved on by the results of :meth:`refresh_reads` (no IO); None: reload the game instead.

        Raises :class:`NoSuchGame` when the game's metadata is gone.
        """
        try:
            return caught_up(pos, meta, entries, keep_recent=self.recent)
        except GameGone:
            self.repo.forget(pos.game_id)
            raise NoSuchGame(pos.game_id) from None

    def advance_by(
        self, pos: Position, records: Sequence[tuple[int, bytes | dict[str, Any]]], status: GameStatus
    ) -> Position | None:
        """``pos`` moved on by recorded events ``(version, JSON)`` that follow it (no IO; e.g. the events a
        command's reply carries); None when they do not follow on (read the game instead)."""
        return advance(pos, records, status, keep_recent=self.recent)


# --- per-seat rendering -------------------------------------------------------------------------------------
def seat_event(game: GamePlugin, event: Event, seat: int | None, state: Any) -> dict[str, Any] | None:
    """``event`` as ``seat`` (None: a spectator) may see it, given ``state`` (the game as far as it is known):
    the presenter's redaction (None: withheld from that seat)."""
    return game.presenter.redact(event, seat, state)


def label_of(game: GamePlugin, command: Command, state: Any = None) -> str:
    """A readable one-line label of a legal command (the presenter's)."""
    return str(game.presenter.label(command, state))


def describe(game: GamePlugin, event: Event, players: Sequence[str]) -> str:
    """An event in plain words, with the players' names."""
    return game.presenter.describe(event, players)

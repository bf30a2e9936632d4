"""What the gateway knows of a game: who may act for which seat, and its current position.

Game-agnostic: a game is its name in the registry and the :class:`~services.rules.contract.GamePlugin` found
there (its rules and its presenter).

* :class:`GameInfo` holds what never changes after creation (name, plug-in, players, the sha256 of each seat's
  token), cached per game: checking a token costs a hash and a compare, no Redis round trip.
* :class:`Directory` also keeps the latest folded state of recently used games (LRU) and brings one up to date
  with the events after its cached version (one pipelined round trip when nothing happened), or with the events
  a command's reply carries (:meth:`Directory.advance_by`: no read at all). Games are loaded through the store's
  repository (services/store/repository.py); a game whose events were moved to its archive is folded from it.
* Seat filtering of events goes through the presenter's ``redact(event, seat, state)`` (:func:`seat_event`);
  labels of legal commands through its ``label(command, state)``.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from events.base import Command, Event
from services.bus.envelope import hash_token
from services.bus.keys import Layout
from services.rules.contract import GamePlugin, GameRules, Presenter
from services.rules.registry import UnknownGame as UnknownGameName
from services.rules.registry import get_game
from services.store import eventstore
from services.store.cache import LruCache
from services.store.meta import GameMeta, GameStatus
from services.store.repository import CorruptGame, GameRepository, UnknownGame


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
        digest = hash_token(token)
        found = None
        for seat, stored in enumerate(self.token_hashes):
            if hmac.compare_digest(digest, stored):
                found = seat
        return found


@dataclass(frozen=True, slots=True)
class Position:
    """A game's state at ``version`` with its status (``active``, ``over`` or ``archived``).

    ``recent`` holds the last few events as ``(version, event, state after it)``, oldest first: enough to
    render them for a seat (redaction may depend on the state) without folding the game again.
    """

    info: GameInfo
    state: Any
    version: int
    status: str
    recent: tuple[tuple[int, Event, Any], ...] = ()

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.info.rules.is_over(self.state)


History = list[tuple[int, Event, Any]]
"""Events as ``(version, event, state after it)``."""


class NoSuchGame(LookupError):
    """No game with that id, or one whose game name no rules are registered under."""


class Directory:
    """Game infos and latest positions, cached; thread-safe (the gateway calls it from a thread pool)."""

    def __init__(self, client: redis.Redis, layout: Layout, cache_size: int = 1000, recent: int = 32) -> None:
        self.r = client
        self.layout = layout
        self.repo = GameRepository(client, layout)
        self.cache_size = cache_size
        self.recent = recent
        self._infos: LruCache[str, GameInfo] = LruCache(cache_size)
        self._positions: LruCache[str, Position] = LruCache(cache_size)

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
        """The game's latest position (raises :class:`NoSuchGame`)."""
        cached = self._positions.get(game_id)
        pos = self._refresh(cached) if cached is not None else self._load(game_id)
        return self.keep(pos)

    def history(self, game_id: str, after: int) -> tuple[Position, History]:
        """The latest position and every event after version ``after`` with the state after each.

        Served from the recent events of the cached position when they reach back far enough, else by
        folding the whole game again (a feed resumed from long ago).
        """
        pos = self.position(game_id)
        items = self.recent_after(pos, after)
        if items is not None:
            return pos, items
        full = self._fold_all(pos.info, pos.status, keep_all=True)
        self.keep(Position(full.info, full.state, full.version, full.status, full.recent[-self.recent :]))
        return full, [item for item in full.recent if item[0] > after]

    def history_page(self, game_id: str, after: int, upto: int) -> tuple[Position, History]:
        """The latest position and the events ``after < version <= upto`` with the state after each: from the
        cached recent events when they reach back that far, else by folding the game from its start up to
        ``upto`` only (a page costs what it covers, whatever the game's length beyond it)."""
        pos = self.position(game_id)
        upto = min(upto, pos.version)
        if upto <= after:
            return pos, []
        items = self.recent_after(pos, after)
        if items is not None:
            return pos, [item for item in items if item[0] <= upto]
        folded: History = []
        records = ((e.version, e.data) for e in self.repo.events(game_id, 0, upto))
        rules = pos.info.rules
        self.repo.fold(rules, rules.initial_state(), 0, records, folded, game_id=game_id)
        return pos, [item for item in folded if after < item[0] <= upto]

    @staticmethod
    def recent_after(pos: Position, after: int) -> History | None:
        """The events of ``pos.recent`` after version ``after``, or None if they do not reach back that far."""
        if after >= pos.version:
            return []
        first = pos.recent[0][0] if pos.recent else pos.version + 1
        if first <= after + 1:
            return [item for item in pos.recent if item[0] > after]
        return None

    def cached_position(self, game_id: str) -> Position | None:
        """The cached position of a game, however old (no IO)."""
        return self._positions.get(game_id)

    def keep(self, pos: Position) -> Position:
        """Cache ``pos`` unless a position further on is cached already; returns ``pos``."""
        gid = pos.info.game_id
        # Two threads may refresh at once; keep whichever got further.
        self._positions.put_if(gid, pos, lambda current: current.version > pos.version)
        return pos

    def _load(self, game_id: str) -> Position:
        try:
            game = self.repo.load(game_id, keep_recent=self.recent)
        except UnknownGame:
            raise NoSuchGame(game_id) from None
        info = self.cached_info(game_id) or self._remember(self._info_from_meta(game.meta))
        return Position(info, game.state, game.version, game.status, game.recent)

    def _fold_all(self, info: GameInfo, status: str, keep_all: bool = False) -> Position:
        recent: History = []
        records = ((e.version, e.data) for e in self.repo.events(info.game_id))
        rules = info.rules
        state, version = self.repo.fold(rules, rules.initial_state(), 0, records, recent, game_id=info.game_id)
        return Position(info, state, version, status, tuple(recent if keep_all else recent[-self.recent :]))

    def _refresh(self, pos: Position) -> Position:
        gid = pos.info.game_id
        if pos.status == "archived":
            return pos  # nothing changes once archived
        pipe = self.r.pipeline(transaction=False)
        for name, args in self.refresh_reads(pos):
            getattr(pipe, name)(*args)
        moved = self.advance(pos, *pipe.execute())
        return moved if moved is not None else self._load(gid)

    def refresh_reads(self, pos: Position) -> list[tuple[str, tuple[Any, ...]]]:
        """The two reads that bring ``pos`` up to date, as (method, args) for a sync or an asyncio pipeline."""
        gid = pos.info.game_id
        shard = self.layout.shard_of(gid)
        return [
            ("hmget", (self.layout.meta(shard, gid), "version", "status")),
            ("xrange", (self.layout.events(shard, gid), eventstore.event_id(pos.version + 1), "+")),
        ]

    def advance(self, pos: Position, meta: list[bytes | None], entries: list[Any]) -> Position | None:
        """``pos`` moved on by the results of :meth:`refresh_reads` (no IO); None: reload the game instead.

        Raises :class:`NoSuchGame` when the game's metadata is gone.
        """
        raw_version, raw_status = meta
        if raw_version is None:
            raise NoSuchGame(pos.info.game_id)
        stored, status = int(raw_version), raw_status.decode() if raw_status else "active"
        if not entries and stored == pos.version:
            return pos if status == pos.status else Position(pos.info, pos.state, pos.version, status, pos.recent)
        moved = self.advance_by(pos, [(eventstore.version_of(eid), fields[b"e"]) for eid, fields in entries], status)
        if moved is None or (moved.version < stored and status == "archived"):
            return None  # a gap (the stream was trimmed meanwhile), or the stream went to the archive
        # Events committed after HMGET ran are simply picked up next time.
        return moved

    def advance_by(
        self, pos: Position, records: Sequence[tuple[int, bytes | dict[str, Any]]], status: GameStatus | str
    ) -> Position | None:
        """``pos`` moved on by recorded events ``(version, JSON)`` that follow it (no IO; e.g. the events a
        command's reply carries); None when they do not follow on (read the game instead)."""
        recent = list(pos.recent)
        try:
            state, version = self.repo.fold(
                pos.info.rules, pos.state, pos.version, records, recent, game_id=pos.info.game_id
            )
        except CorruptGame:
            return None
        # Keep at least the events just folded: the caller renders them.
        keep = max(self.recent, version - pos.version)
        return Position(pos.info, state, version, status, tuple(recent[-keep:]))


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

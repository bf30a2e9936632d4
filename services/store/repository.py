"""The one way to load a game: its typed metadata, its latest snapshot, and the events folded up to a version.

Every process that needs a game's state (the rules worker, the gateway, the bots, the projections and their
query API, the CLI through them) loads it here, generically: the game is found by the name in its metadata
(``games``: the registry's ``get_game`` by default) and rebuilt with its rules' ``initial_state``, ``restore``,
``parse_event`` and ``evolve`` only (services/rules/contract.py). Rules are never re-run.

* :meth:`GameRepository.meta` / :meth:`metas`: the typed :class:`~services.store.meta.GameMeta`.
* :meth:`GameRepository.load` / :meth:`load_many`: the state at the game's version (or at ``upto``), from the
  newest snapshot at or below it plus the events after it, in two pipelined round trips for any number of games.
  An archived game is folded from its archive (or, ``fold_archived=False``, returned without a state: the worker
  answers its commands ``game_over`` without one).
* :meth:`GameRepository.get`: the warm path. The game as of its stream's head (or a requested version), from
  the bounded LRU cache (``cache_size``) when it holds it, folding only the events after the cached version
  (services/store/catchup.py), else loaded cold as above; events a caller holds already (a commit's reply, the
  feed) can be handed in instead of being read back. :meth:`keep` caches a game moved on elsewhere (newer
  wins), :meth:`remember` whatever is cached (the rules worker, the one writer of its games), :meth:`forget`
  drops a copy that may be wrong.
* :meth:`GameRepository.fold`: the same contiguity-checked fold, for callers that hold events already.
* Every caller holds the one loaded-game type, :class:`~services.store.loaded.LoadedGame`.

Errors are typed: :class:`UnknownGame` (no such game), :class:`UnknownRules` (a game whose name this process has
no rules for), :class:`CorruptGame` (events that do not follow one another, or stop short of the metadata's
version), :class:`~services.store.meta.BadMeta` (an unreadable meta hash).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from services.bus.keys import Layout
from services.rules.contract import GamePlugin
from services.rules.registry import get_game
from services.store import eventstore
from services.store.cache import LruCache
from services.store.catchup import GameGone, advance, catch_up_reads, caught_up
from services.store.eventstore import StoredCommand, StoredEvent, event_id, version_of
from services.store.loaded import CorruptGame, FoldingRules, History, LoadedGame, Record, fold_records
from services.store.meta import BadMeta, GameMeta, GameStatus

__all__ = [
    "CorruptGame", "FoldingRules", "GameLookup", "GameRepository", "History", "LoadedGame", "UnknownGame",
    "UnknownRules", "registry_game",
]  # fmt: skip


GameLookup = Callable[[str], GamePlugin]
"""A game plug-in by its registry name; raises KeyError (the registry's UnknownGame) for a name it does not know."""


def registry_game(name: str) -> GamePlugin:
    """The game plug-in registered as ``name`` (services/rules/registry.py)."""
    return get_game(name)


class UnknownGame(LookupError):
    """No game with that id."""

    code = "unknown_game"

    def __init__(self, game_id: str, message: str | None = None) -> None:
        super().__init__(message or f"no game {game_id}")
        self.game_id = game_id
        self.message = message or f"no game {game_id}"


class UnknownRules(UnknownGame):
    """The game exists, but this process has no rules for its name."""

    def __init__(self, game_id: str, name: str) -> None:
        super().__init__(game_id, f"game {game_id} is a {name!r}, which this process does not know")
        self.name = name


@dataclass(frozen=True, slots=True)
class _Head:
    meta: GameMeta
    snapshot_version: int
    snapshot: bytes | None


class GameRepository:
    """Loads games of one Redis and key layout, and keeps them current; caches the last ``cache_size`` of them
    (thread-safe: the gateway calls it from a thread pool and its event loop)."""

    def __init__(
        self,
        client: redis.Redis,
        layout: Layout,
        *,
        games: GameLookup = registry_game,
        cache_size: int = 0,
        keep_recent: int = 0,
    ) -> None:
        self.r = client
        self.layout = layout
        self._games = games
        self.cache: LruCache[str, LoadedGame] = LruCache(cache_size)
        self.keep_recent = keep_recent
        """Events (with the state after each) each game of the warm path keeps in its ``recent``."""

    # --- metadata -------------------------------------------------------------------------------------
    def find_meta(self, game_id: str) -> GameMeta | None:
        """The game's metadata, or None if there is no such game."""
        raw = self.r.hgetall(self.layout.meta(self.layout.shard_of(game_id), game_id))
        return GameMeta.parse(game_id, raw) if raw else None

    def meta(self, game_id: str) -> GameMeta:
        """The game's metadata; :class:`UnknownGame` if there is none."""
        found = self.find_meta(game_id) if game_id else None
        if found is None:
            raise UnknownGame(game_id)
        return found

    def metas(self, game_ids: Sequence[str]) -> dict[str, GameMeta | None]:
        """Metadata of many games in one pipelined round trip (None: no such game)."""
        if not game_ids:
            return {}
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            pipe.hgetall(self.layout.meta(self.layout.shard_of(gid), gid))
        return {
            gid: GameMeta.parse(gid, raw) if raw else None for gid, raw in zip(game_ids, pipe.execute(), strict=True)
        }

    def versions(self, game_ids: Sequence[str]) -> dict[str, int | None]:
        """The version of many games in one pipelined round trip (None: no such game); cheaper than their meta."""
        if not game_ids:
            return {}
        pipe = self.r.pipeline(transaction=False)
        for gid in game_ids:
            pipe.hget(self.layout.meta(self.layout.shard_of(gid), gid), "version")
        return {gid: None if v is None else int(v) for gid, v in zip(game_ids, pipe.execute(), strict=True)}

    def game(self, meta: GameMeta) -> GamePlugin:
        """The game plug-in of a game's name; :class:`UnknownRules` if this process has none."""
        return self.game_named(meta.name, meta.game_id)

    def game_named(self, name: str, game_id: str = "") -> GamePlugin:
        """The game plug-in registered as ``name``; :class:`UnknownRules` if there is none."""
        try:
            return self._games(name)
        except (KeyError, ImportError):
            raise UnknownRules(game_id, name) from None

    # --- events and commands --------------------------------------------------------------------------
    def events(self, game_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        """Recorded events with ``after < version <= upto`` (hot stream, or the archive)."""
        return eventstore.read_events(self.r, self.layout, game_id, after, upto)

    def commands(self, game_id: str) -> list[StoredCommand]:
        """The game's command log (hot, or from its archive)."""
        return eventstore.read_commands(self.r, self.layout, game_id)

    # --- loading --------------------------------------------------------------------------------------
    def load(
        self, game_id: str, *, upto: int | None = None, fold_archived: bool = True, keep_recent: int = 0
    ) -> LoadedGame:
        """The game at its version (or at ``upto``); raises :class:`UnknownGame`, :class:`UnknownRules`,
        :class:`CorruptGame` or :class:`BadMeta`."""
        got = self.load_many([game_id], upto=upto, fold_archived=fold_archived, keep_recent=keep_recent)[game_id]
        if got is None:
            raise UnknownGame(game_id)
        if isinstance(got, Exception):
            raise got
        return got

    def load_many(
        self,
        game_ids: Iterable[str],
        *,
        upto: int | None = None,
        fold_archived: bool = True,
        keep_recent: int = 0,
    ) -> dict[str, LoadedGame | Exception | None]:
        """:meth:`load` for many games: metadata and snapshots in one round trip, the events after the
        snapshots in a second. Each game maps to its :class:`LoadedGame`, None (no such game) or the error that
        kept it from loading; one broken game does not stop the others."""
        gids = list(dict.fromkeys(game_ids))
        if not gids:
            return {}
        layout = self.layout
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            shard = layout.shard_of(gid)
            pipe.hgetall(layout.meta(shard, gid))
            pipe.hmget(layout.snap(shard, gid), "v", "d")
        heads_raw = pipe.execute()
        out: dict[str, LoadedGame | Exception | None] = {}
        heads: dict[str, _Head] = {}
        for i, gid in enumerate(gids):
            meta_raw, (snap_v, snap_d) = heads_raw[2 * i], heads_raw[2 * i + 1]
            if not meta_raw:
                out[gid] = None
                continue
            try:
                meta = GameMeta.parse(gid, meta_raw)
            except BadMeta as exc:
                out[gid] = exc
                continue
            heads[gid] = _Head(meta, int(snap_v) if snap_v is not None else 0, snap_d if snap_v is not None else None)
        # The events after each snapshot that the target needs (none for an archived game: its archive has them).
        reads = [(gid, self._start(head, upto)[1]) for gid, head in heads.items() if not head.meta.archived]
        tails: dict[str, list[tuple[int, bytes]]] = {}
        if reads:
            pipe = self.r.pipeline(transaction=False)
            for gid, first in reads:
                pipe.xrange(layout.events(layout.shard_of(gid), gid), min=event_id(first), max="+")
            for (gid, _), entries in zip(reads, pipe.execute(), strict=True):
                tails[gid] = [(version_of(eid), fields[b"e"]) for eid, fields in entries]
        for gid, head in heads.items():
            try:
                out[gid] = self._build(head, tails.get(gid, []), upto, fold_archived, keep_recent)
            except Exception as exc:  # no rules for its name, events that do not fold: this game only
                out[gid] = exc
        return out

    @staticmethod
    def _start(head: _Head, upto: int | None) -> tuple[bool, int]:
        """Whether to start from the snapshot, and the first event version to read."""
        target = head.meta.version if upto is None else upto
        use_snapshot = head.snapshot is not None and head.snapshot_version <= target
        return use_snapshot, (head.snapshot_version + 1 if use_snapshot else 1)

    def _build(
        self, head: _Head, tail: list[tuple[int, bytes]], upto: int | None, fold_archived: bool, keep_recent: int
    ) -> LoadedGame:
        meta = head.meta
        gid = meta.game_id
        plugin = self.game(meta)
        rules = plugin.rules
        target = meta.version if upto is None else upto
        if not 0 <= target <= meta.version:
            raise CorruptGame(f"game {gid}: version {target} asked, it has 0..{meta.version}")
        shard = self.layout.shard_of(gid)
        if meta.archived and not fold_archived:
            return LoadedGame(gid, shard, meta, plugin, None, meta.version, meta.status, meta.version)
        use_snapshot, _ = self._start(head, upto)
        if use_snapshot and not meta.archived:
            assert head.snapshot is not None
            state, version = rules.restore(head.snapshot), head.snapshot_version
        else:
            state, version = rules.initial_state(), 0
        recent: History = []
        records: Iterable[tuple[int, bytes | dict[str, Any]]] = (r for r in tail if r[0] <= target)
        if meta.archived:
            records = ((e.version, e.data) for e in self.events(gid, upto=target))
        elif tail and tail[0][0] != version + 1:
            records = ()  # the tail does not follow the start (the stream moved to the archive meanwhile)
        state, version = self.fold(rules, state, version, records, recent if keep_recent else None, game_id=gid)
        if version < target:
            # The stream went to the archive between the two reads (or was trimmed): the rest from the store.
            more = ((e.version, e.data) for e in self.events(gid, after=version, upto=target))
            state, version = self.fold(rules, state, version, more, recent if keep_recent else None, game_id=gid)
        if version != target:
            raise CorruptGame(f"game {gid}: events end at {version}, expected {target}")
        return LoadedGame(
            gid, shard, meta, plugin, state, version, meta.status, head.snapshot_version if use_snapshot else 0,
            tuple(recent[-keep_recent:]) if keep_recent else (),
        )  # fmt: skip

    @staticmethod
    def fold(
        rules: FoldingRules,
        state: Any,
        version: int,
        records: Iterable[Record],
        history: History | None = None,
        *,
        game_id: str = "",
    ) -> tuple[Any, int]:
        """Fold recorded events ``(version, JSON)`` onto ``state`` at ``version``; each must follow the last
        (:class:`CorruptGame` otherwise). ``history``: appended ``(version, event, state after it)``."""
        return fold_records(rules, state, version, records, history, game_id=game_id)

    # --- the warm path ---------------------------------------------------------------------------------
    def get(
        self, game_id: str, *, upto: int | None = None, handed: Sequence[Record] = (), status: GameStatus | None = None
    ) -> LoadedGame:
        """The game as of its stream's head (or at ``upto``), cached: from the cache when it holds the game,
        folding only the events after the cached version (one pipelined round trip); else loaded cold (newest
        snapshot plus the tail). Raises as :meth:`load`.

        ``handed``: recorded events ``(version, JSON)`` the caller holds already (a commit's reply, the feed),
        with the game's ``status`` after them: when they follow the cached game they are folded without reading
        anything (the game is then as of their last version); when they do not (a gap, a stale cache), the
        game is read as without them."""
        cached = self.cache.get(game_id)
        if cached is not None and handed and upto is None:
            moved = advance(cached, handed, status, keep_recent=self.keep_recent)
            if moved is not None and moved.version >= handed[-1][0]:
                return self.keep(moved)
        if cached is not None and (upto is None or cached.version <= upto):
            return self.keep(self.refresh(cached, upto=upto))
        return self.keep(self.load(game_id, upto=upto, keep_recent=self.keep_recent))

    def refresh(self, game: LoadedGame, *, upto: int | None = None) -> LoadedGame:
        """``game`` (held by the caller, cached or not) caught up to its stream's head (or to ``upto``, at or
        after its version): the events after its version only, in one pipelined round trip; loaded cold when
        they do not follow on (the stream was trimmed, or went to the archive). Raises as :meth:`load`; not
        cached (:meth:`get` caches)."""
        if game.version == upto or (upto is None and game.status == "archived"):
            return game  # nothing changes once archived
        pipe = self.r.pipeline(transaction=False)
        for name, args in catch_up_reads(self.layout, game, upto):
            getattr(pipe, name)(*args)
        try:
            moved = caught_up(game, *pipe.execute(), upto=upto, keep_recent=self.keep_recent)
        except GameGone:
            self.forget(game.game_id)
            raise UnknownGame(game.game_id) from None
        return moved if moved is not None else self.load(game.game_id, upto=upto, keep_recent=self.keep_recent)

    def keep(self, game: LoadedGame) -> LoadedGame:
        """Cache ``game`` unless a copy further on is cached already (two threads may refresh the same game at
        once: whichever got further stays); returns ``game``."""
        self.cache.put_if(game.game_id, game, lambda current: current.version > game.version)
        return game

    # --- cache ----------------------------------------------------------------------------------------
    def cached(self, game_id: str) -> LoadedGame | None:
        """The cached game (now the most recent), or None."""
        return self.cache.get(game_id)

    def remember(self, game: LoadedGame) -> None:
        """Cache ``game`` (as it stands now, whatever is cached)."""
        self.cache.put(game.game_id, game)

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (its copy may be wrong)."""
        self.cache.pop(game_id)

    def forget_shard(self, shard: int) -> None:
        """Drop every cached game of ``shard`` (its writer changed)."""
        self.cache.drop_where(lambda _gid, game: game.shard == shard)

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
* :meth:`GameRepository.fold`: the same contiguity-checked fold, for callers that hold events already.
* A bounded LRU cache of loaded games (``cache_size``), which callers fill (:meth:`remember`) as they move games
  on, and drop (:meth:`forget`) when their copy may be wrong.

Errors are typed: :class:`UnknownGame` (no such game), :class:`UnknownRules` (a game whose name this process has
no rules for), :class:`CorruptGame` (events that do not follow one another, or stop short of the metadata's
version), :class:`~services.store.meta.BadMeta` (an unreadable meta hash).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import redis

from services.bus.keys import Layout
from services.rules.contract import GamePlugin, GameRules, Presenter
from services.rules.registry import get_game
from services.store import eventstore
from services.store.cache import LruCache
from services.store.eventstore import StoredCommand, StoredEvent, event_id, version_of
from services.store.meta import BadMeta, GameMeta, GameStatus


class FoldingRules(Protocol):
    """What the repository needs of a game's rules (a part of the game contract, services/rules/contract.py)."""

    def initial_state(self) -> Any: ...
    def evolve(self, state: Any, event: Any) -> Any: ...
    def parse_event(self, raw: bytes | str | dict[str, Any]) -> Any: ...
    def restore(self, data: bytes) -> Any: ...


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


class CorruptGame(RuntimeError):
    """The stored events of a game do not fold: a gap, or fewer events than its metadata says."""


History = list[tuple[int, Any, Any]]
"""Events as ``(version, event, state after it)``."""


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game rebuilt to ``version``: its metadata as read, its rules, its state.

    ``version`` and ``status`` are the game's as far as it was folded (or, in the rules worker, committed since
    it was read); ``meta`` is what the store said at load time. ``state`` is None for an archived game loaded
    without folding. ``recent`` holds the last folded events with the state after each (when asked for).
    """

    game_id: str
    shard: int
    meta: GameMeta
    plugin: GamePlugin
    state: Any
    version: int
    status: GameStatus
    snapshot_version: int
    recent: tuple[tuple[int, Any, Any], ...] = ()

    @property
    def name(self) -> str:
        """The game's registry name."""
        return self.meta.name

    @property
    def rules(self) -> GameRules[Any]:
        """The game's rules."""
        return self.plugin.rules

    @property
    def presenter(self) -> Presenter[Any]:
        """How the game shows itself (views, redaction, words)."""
        return self.plugin.presenter

    @property
    def token_digests(self) -> tuple[str, ...]:
        """sha256 hex of each seat's token."""
        return self.meta.token_digests

    def moved(self, state: Any, version: int, status: GameStatus, snapshot_version: int) -> LoadedGame:
        """This game moved on to ``version`` (a commit of the rules worker)."""
        return replace(self, state=state, version=version, status=status, snapshot_version=snapshot_version)


@dataclass(frozen=True, slots=True)
class _Head:
    meta: GameMeta
    snapshot_version: int
    snapshot: bytes | None


class GameRepository:
    """Loads games of one Redis and key layout; optionally keeps the last ``cache_size`` of them."""

    def __init__(
        self,
        client: redis.Redis,
        layout: Layout,
        *,
        games: GameLookup = registry_game,
        cache_size: int = 0,
    ) -> None:
        self.r = client
        self.layout = layout
        self._games = games
        self.cache: LruCache[str, LoadedGame] = LruCache(cache_size)

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
        records: Iterable[tuple[int, bytes | str | dict[str, Any]]],
        history: History | None = None,
        *,
        game_id: str = "",
    ) -> tuple[Any, int]:
        """Fold recorded events ``(version, JSON)`` onto ``state`` at ``version``; each must follow the last
        (:class:`CorruptGame` otherwise). ``history``: appended ``(version, event, state after it)``."""
        evolve, parse = rules.evolve, rules.parse_event
        for v, data in records:
            if v <= version:
                continue
            if v != version + 1:
                raise CorruptGame(f"game {game_id}: event {v} follows {version}")
            event = parse(data)
            state = evolve(state, event)
            version = v
            if history is not None:
                history.append((v, event, state))
        return state, version

    # --- cache ----------------------------------------------------------------------------------------
    def cached(self, game_id: str) -> LoadedGame | None:
        """The cached game (now the most recent), or None."""
        return self.cache.get(game_id)

    def remember(self, game: LoadedGame) -> None:
        """Cache ``game`` (as it stands now)."""
        self.cache.put(game.game_id, game)

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (its copy may be wrong)."""
        self.cache.pop(game_id)

    def forget_shard(self, shard: int) -> None:
        """Drop every cached game of ``shard`` (its writer changed)."""
        self.cache.drop_where(lambda _gid, game: game.shard == shard)

"""What the read-model queries read of the event store: a game (through the store's repository), its recorded
events and command log (hot, or from its archive, decoded once and cached), and its state at any version.

A state at version v starts from the replay model's nearest snapshot at or below v (every N events), so a seek
folds fewer than N recorded events; rules are never re-run. A span of versions (a whole replay, the positions an
audit labels its commands in) is one read of its events and one fold forward: :meth:`History.fold_span`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from projections.base import GameCtx
from projections.store import RMKeys
from services.bus.keys import Layout
from services.rules.contract import Event, GamePlugin, GameRules, Presenter
from services.store import repository as repo_mod
from services.store.eventstore import (
    StoredCommand,
    StoredEvent,
    command_from_entry,
    read_archive,
    read_archive_commands,
)
from services.store.loaded import fold_records
from services.store.meta import GameMeta
from services.store.repository import GameRepository


class ReadModelError(Exception):
    """A query the read models can not answer; ``code`` is stable and machine-readable."""

    code = "read_model_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownGame(ReadModelError):
    """No game with that id (neither live nor archived), or one whose game this process does not know."""

    code = "unknown_game"


class BadVersion(ReadModelError):
    """A version outside 0..the game's last version."""

    code = "bad_version"


class BadSeat(ReadModelError):
    """A seat that is not in the game."""

    code = "bad_seat"


class BadPage(ReadModelError):
    """A page outside its bounds (an offset, a limit)."""

    code = "bad_page"


@dataclass(frozen=True, slots=True)
class Span:
    """A game over versions ``first..last`` by one fold: ``state`` after ``first``, then per event ``first + 1..
    last`` the recorded event, the event parsed, and the state after it."""

    first: int
    state: Any
    steps: list[tuple[StoredEvent, Event, Any]]

    def at(self, version: int) -> Any:
        """The state after ``version`` (``first <= version <= last``)."""
        return self.state if version == self.first else self.steps[version - self.first - 1][2]

    @property
    def last_state(self) -> Any:
        """The state after the span's last version."""
        return self.steps[-1][2] if self.steps else self.state


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the queries see it: its metadata and its plug-in (rules and presenter)."""

    meta: GameMeta
    shard: int
    plugin: GamePlugin

    @property
    def rules(self) -> GameRules[Any]:
        """The game's rules."""
        return self.plugin.rules

    @property
    def presenter(self) -> Presenter[Any]:
        """How the game shows itself."""
        return self.plugin.presenter

    @property
    def game_id(self) -> str:
        """The game's id."""
        return self.meta.game_id

    @property
    def players(self) -> tuple[str, ...]:
        """Player names, one per seat."""
        return self.meta.players

    @property
    def version(self) -> int:
        """Number of events recorded (when the metadata was read)."""
        return self.meta.version

    @property
    def archived(self) -> bool:
        """Whether the game's events moved to its archive."""
        return self.meta.archived

    @property
    def finished(self) -> bool:
        """Whether the game has ended."""
        return self.meta.finished

    def ctx(self, state: Any, version: int) -> GameCtx:
        """A projection context of this game at ``state`` (for the functions the projections share)."""
        return GameCtx(self.game_id, self.shard, self.meta, self.plugin, state, version, self.meta.status, 0)

    def check_version(self, version: int) -> None:
        """:class:`BadVersion` unless ``0 <= version <= last``."""
        if not isinstance(version, int) or not 0 <= version <= self.version:
            raise BadVersion(f"game {self.game_id} has versions 0..{self.version}, not {version}")

    def check_seat(self, seat: int | None) -> None:
        """:class:`BadSeat` unless ``seat`` is None (a spectator) or a seat of the game."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < len(self.players)):
            raise BadSeat(f"game {self.game_id} has seats 0..{len(self.players) - 1}, not {seat}")


class History:
    """Reads games of one Redis for the queries; thread-safe (its caches are locked)."""

    def __init__(self, client: redis.Redis, layout: Layout, keys: RMKeys, snapshot_every: int) -> None:
        self.r = client
        self.layout = layout
        self.keys = keys
        self.snapshot_every = snapshot_every
        self.repo = GameRepository(client, layout)
        self._lock = threading.Lock()
        # Decoded archives (an archived game's replay reads its whole blob once) and final states of ended games.
        self._archives: OrderedDict[str, tuple[list[StoredEvent], list[StoredCommand]]] = OrderedDict()
        self._finals: OrderedDict[tuple[str, int], Any] = OrderedDict()

    def game(self, game_id: str) -> Game:
        """The game (:class:`UnknownGame` if there is none, or its game is not known here)."""
        if not isinstance(game_id, str) or not game_id:
            raise UnknownGame(f"no game {game_id!r}")
        try:
            meta = self.repo.meta(game_id)
            return Game(meta, self.layout.shard_of(game_id), self.repo.game(meta))
        except repo_mod.UnknownGame as exc:
            raise UnknownGame(exc.message) from None

    def _archive(self, game: Game) -> tuple[list[StoredEvent], list[StoredCommand]]:
        with self._lock:
            hit = self._archives.get(game.game_id)
            if hit is not None:
                self._archives.move_to_end(game.game_id)
                return hit
        blob = self.r.get(self.layout.archive(game.shard, game.game_id))
        if blob is None:
            return [], []
        _, events = read_archive(blob)
        decoded = (events, read_archive_commands(blob))
        with self._lock:
            self._archives[game.game_id] = decoded
            while len(self._archives) > 32:
                self._archives.popitem(last=False)
        return decoded

    def events(self, game: Game, first: int, last: int) -> list[StoredEvent]:
        """Recorded events ``first..last`` (hot stream, or the archive)."""
        if last < first:
            return []
        if game.archived:
            return [e for e in self._archive(game)[0] if first <= e.version <= last]
        return self.repo.events(game.game_id, after=first - 1, upto=last)

    def commands(self, game: Game) -> list[StoredCommand]:
        """The game's command log: one read, the metadata having said whether it is archived (a hot log is never
        empty, it holds the creation: an empty one was archived since, and is read as the store reads it)."""
        if game.archived:
            return self._archive(game)[1]
        entries = self.r.xrange(self.layout.commands(game.shard, game.game_id))
        return [command_from_entry(eid, f) for eid, f in entries] if entries else self.repo.commands(game.game_id)

    def _base(self, game: Game, version: int) -> tuple[Any, int]:
        """The state at the replay model's nearest snapshot at or below ``version``, and its version (the
        initial state at 0 when there is none; no read below the first snapshot's version)."""
        rules = game.rules
        every = self.snapshot_every
        top = (version // every) * every
        # The nearest snapshot at or below, or a few below it (a replay model still catching up on a live game).
        bases = [b for b in range(top, max(0, top - 4 * every), -every) if b > 0]
        snaps = self.r.hmget(self.keys.replay_snaps(game.game_id), bases) if bases else []
        for base, snap in zip(bases, snaps, strict=True):
            if snap is not None:
                return rules.restore(snap), base
        return rules.initial_state(), 0

    def fold_span(self, game: Game, first: int, last: int, events: Sequence[StoredEvent] | None = None) -> Span:
        """The game over versions ``first..last`` (``0 <= first <= last``): one read of the events from the
        nearest snapshot at or below ``first`` to ``last`` (none when ``events``, the game's recorded events from
        version 1 on, are in hand already), folded forward once; rules are never re-run."""
        state, start = self._base(game, first)
        if events is None:
            events = self.events(game, start + 1, last)
        records = [e for e in events if start < e.version <= last]
        folded: list[tuple[int, Event, Any]] = []
        state_first = state
        # One fold keeps every state after ``first``: the states are values, each event makes a new one.
        fold_records(game.rules, state, start, ((e.version, e.data) for e in records), folded, game_id=game.game_id)
        if len(folded) != last - start:
            raise BadVersion(f"events {start + 1}..{last} of game {game.game_id} are not all in the store")
        if first > start:
            state_first = folded[first - start - 1][2]
        steps = [(stored, event, after) for stored, (_, event, after) in zip(records, folded, strict=True)]
        return Span(first, state_first, steps[first - start :])

    def state_at(self, game: Game, version: int) -> tuple[Any, list[StoredEvent]]:
        """The state after ``version`` and the events folded to reach it (the last one is event ``version``)."""
        rules = game.rules
        state, start = self._base(game, version)
        # Fetch from ``start`` (or the event itself when the snapshot sits on it) to show event ``version``.
        events = self.events(game, min(start + 1, max(version, 1)), version)
        state, _ = self.repo.fold(rules, state, start, ((e.version, e.data) for e in events), game_id=game.game_id)
        if version >= 1 and (not events or events[-1].version != version):
            raise BadVersion(f"event {version} of game {game.game_id} is not in the store")
        return state, events

    def final(self, game: Game) -> Any:
        """The last state of an ended game (None while it runs): after the end every secret is public."""
        if not game.finished:
            return None
        key = (game.game_id, game.version)
        with self._lock:
            if key in self._finals:
                return self._finals[key]
        state, _ = self.state_at(game, game.version)
        self.keep_final(game, state)
        return state

    def keep_final(self, game: Game, state: Any) -> None:
        """Remember ``state`` as the last state of the ended ``game`` (a fold that reached its end has it)."""
        with self._lock:
            self._finals[(game.game_id, game.version)] = state
            while len(self._finals) > 256:
                self._finals.popitem(last=False)

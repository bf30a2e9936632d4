"""The games a bots runner plays: which seats are bots, and each game's state as far as the runner has folded it.

A game's bot seats are in its ``bots`` key (JSON: each bot seat's kind, no secret); the game itself is the
store's loaded-game type, loaded and caught up through the store's repository (services/store/repository.py).
The seats' signing keys are the token digests of the game's metadata (see services/bots/runner.py for why that
grants nothing more).
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.envelope import CommandEnvelope
from services.bus.keys import Layout
from services.rules.contract import GameRules
from services.store.cache import LruCache
from services.store.catchup import advance
from services.store.repository import GameRepository, LoadedGame


@dataclass(frozen=True, slots=True)
class BotConfig:
    """Tuning of a bots runner. The defaults suit production; tests shorten the timings."""

    batch: int = 256
    """Feed entries read per shard and turn."""
    block_ms: int = 100
    """How long one read blocks when every feed is quiet."""
    sweep_every_ms: int = 2000
    """How often the ``botgames`` sets are walked (catch-up, clean-up)."""
    recheck_after_ms: int = 300
    """A submitted command whose game has not moved after this long: look at its outcome."""
    resend_after_ms: int = 30_000
    """A submitted command with no outcome at all after this long is submitted again (same command id)."""
    max_attempts: int = 3
    """Rejected commands of one seat at one version before the runner logs an error and backs off."""
    retry_first_ms: int = 1000
    retry_cap_ms: int = 60_000
    """Backoff of a bot whose commands keep being rejected (doubling from the first to the cap)."""
    cache_size: int = 10_000
    """Bot games kept in memory (LRU); an evicted one is reloaded by the next sweep."""
    orphan_after_ms: int = 600_000
    """A ``bots`` key whose game does not exist this long after it was written is deleted."""
    cluster_poll_ms: int = 10


@dataclass(slots=True)
class Sent:
    """The command a bot submitted for its game's current version, waiting for the game to move."""

    envelope: CommandEnvelope
    version: int
    at: float


@dataclass(slots=True)
class BotGame:
    """A game with bot seats: the game as far as the runner has folded it, and the runner's bookkeeping."""

    loaded: LoadedGame
    """The game (the store's loaded-game type), as far as the runner has folded it."""
    seats: dict[int, tuple[str, bytes]]
    """Bot seat -> (bot kind, the seat's signing key: the token digest stored in the game's metadata)."""
    keys: tuple[bytes, ...] = ()
    """Every seat's signing key: a seat the clock hands to a bot (``Table.table_bots``) is played with it."""
    behind: bool = False
    """The runner missed events of this game: read its event stream before acting."""
    sent: Sent | None = None
    attempt: int = 0
    """Rejected attempts at the current version."""
    retry_at: float = 0.0
    """After repeated rejections: the monotonic time before which the runner does not try again."""

    @property
    def game_id(self) -> str:
        """The game's id."""
        return self.loaded.game_id

    @property
    def shard(self) -> int:
        """The game's shard."""
        return self.loaded.shard

    @property
    def name(self) -> str:
        """The game's registry name."""
        return self.loaded.name

    @property
    def rules(self) -> GameRules[Any]:
        """The game's rules."""
        return self.loaded.rules

    @property
    def state(self) -> Any:
        """The game's state as far as folded."""
        return self.loaded.state

    @property
    def version(self) -> int:
        """The game's version as far as folded."""
        return self.loaded.version

    def move_to(self, loaded: LoadedGame) -> None:
        """The game as folded further; the bookkeeping of the version starts over once it moved."""
        moved = loaded.version != self.loaded.version
        self.loaded = loaded
        if moved:
            self.sent = None
            self.attempt = 0
            self.retry_at = 0.0


def bot_seed(game_id: str, seat: int, version: int, attempt: int) -> int:
    """The seed of a bot's decision: the same game, seat, version and attempt always choose alike."""
    return zlib.crc32(f"{game_id}:{seat}:{version}:{attempt}".encode())


class BotGames:
    """The bot games of one runner (LRU, at most ``cache_size``), and the games known to have no bots."""

    def __init__(self, client: redis.Redis, layout: Layout, repository: GameRepository, config: BotConfig, log: Any):
        self.r = client
        self.layout = layout
        self.repo = repository
        self.cfg = config
        self.log = log
        self.games: LruCache[str, BotGame] = LruCache(config.cache_size)
        self._no_bots: LruCache[str, bool] = LruCache(4 * config.cache_size)

    def has_no_bots(self, game_id: str) -> bool:
        """Whether the game is known to have no bot seats (left, or never had any)."""
        return game_id in self._no_bots

    def load(self, games: list[tuple[str, int]]) -> list[BotGame]:
        """Load games that may have bot seats (``(game id, shard)``): their ``bots`` key, then their state.
        Returns the games loaded; games without bots are remembered as such, ended ones forgotten."""
        pipe = self.r.pipeline(transaction=False)
        for gid, shard in games:
            pipe.get(self.layout.bots(shard, gid))
        docs = pipe.execute()
        with_bots = [(gid, shard, doc) for (gid, shard), doc in zip(games, docs, strict=True) if doc is not None]
        for (gid, shard), doc in zip(games, docs, strict=True):
            if doc is None:
                self._no_bots.put(gid, True)
                # A game listed in botgames without its key: its bots are done (another runner cleaned up).
                self.r.srem(self.layout.bot_games(shard), gid)
        if not with_bots:
            return []
        loaded = self.repo.load_many([gid for gid, _, _ in with_bots], fold_archived=False)
        out = []
        for gid, shard, doc in with_bots:
            game = self._make(gid, shard, doc, loaded.get(gid))
            if game is not None:
                self.games.put(gid, game)
                out.append(game)
        return out

    def _make(self, gid: str, shard: int, doc: bytes, got: Any) -> BotGame | None:
        try:
            spec = orjson.loads(doc)
            kinds = {int(s): str(v["kind"]) for s, v in spec["seats"].items()}
            created_ms = int(spec.get("created_ms", 0))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            self.log.error("bots.bad_bots_key", game=gid, shard=shard)
            self.forget(gid, shard)
            return None
        if got is None:
            if time.time() * 1000 - created_ms > self.cfg.orphan_after_ms:
                self.log.warning("bots.orphan_dropped", game=gid, shard=shard)
                self.forget(gid, shard)
            return None  # not created yet: its first feed entry (or the next sweep) brings it back
        if isinstance(got, Exception):
            self.log.error("bots.load_failed", game=gid, shard=shard, error=repr(got)[:300])
            return None
        if got.status != "active":
            self.forget(gid, shard)
            return None
        try:
            # The seats' signing keys: the token digests the game was created with (see services/bots/runner.py).
            digests = got.token_digests
            keys = tuple(bytes.fromhex(d) for d in digests)
            seats = {seat: (kind, keys[seat]) for seat, kind in kinds.items()}
        except (IndexError, TypeError, ValueError):
            self.log.error("bots.bad_bot_seats", game=gid, shard=shard, seats=sorted(kinds))
            self.forget(gid, shard)
            return None
        return BotGame(got, seats, keys=keys)

    @staticmethod
    def playing(game: BotGame) -> dict[int, tuple[str, bytes]]:
        """The seats the bots play now: the game's bot seats, and those the table gave to a bot (their players
        left, or the clock handed them over and their players have not taken them back: the recorded state
        says which)."""
        out = dict(game.seats)
        for seat, kind in game.rules.table_bots(game.state).items():
            if seat not in out and 0 <= seat < len(game.keys):
                out[seat] = (kind, game.keys[seat])
        return out

    def catch_up(self, game: BotGame) -> None:
        """Fold the events the runner missed: the store repository's warm path from the game as folded."""
        game.move_to(self.repo.refresh(game.loaded))
        game.behind = False

    def fold_announced(self, game: BotGame, records: list[tuple[int, bytes]]) -> bool:
        """Fold events the feed announced (no IO); False when they do not follow on (read the stream instead)."""
        moved = advance(game.loaded, records)
        if moved is None:
            return False
        game.move_to(moved)
        return True

    def forget(self, gid: str, shard: int) -> None:
        """The game needs its bots no more: drop its ``bots`` key and its botgames entry."""
        pipe = self.r.pipeline(transaction=False)
        pipe.delete(self.layout.bots(shard, gid))
        pipe.srem(self.layout.bot_games(shard), gid)
        pipe.execute()
        self.games.pop(gid)
        self._no_bots.put(gid, True)

"""The bots process: it plays the seats games hand to bots, through the streams, like any other client.

How a game gets bots: its creator passes ``bots={seat: kind}`` to ``ServiceClient.create_game``, which (before
submitting the creation) writes the game's ``bots`` key (JSON: each bot seat's kind) and adds the game to its
shard's ``botgames`` set. A clocked table with ``bot_after`` hands a seat to a bot after repeated timeouts: the
timer writes the same key and set before the timeout that does it, and the runner plays, besides the key's
seats, the seats the game's recorded state says its clock handed over (``Table.table_bots``) until their
players take them back. Nothing else in the service knows about bots: the rules worker sees ordinary commands
with ordinary proofs.

Secrets: a bot seat has a token like any seat, drawn by the creator, whose sha256 goes into the game's metadata;
the token itself is forgotten at once (never stored, never returned), so nobody can log in as a bot seat at the
gateway. What signs a command on the bus is the HMAC key, which *is* that sha256 digest (services/bus/envelope.py),
so the bots process reads it from the game's metadata and stores nothing secret of its own. Reading that digest
takes read access to Redis, and using it takes write access to the command streams: whoever has both can write
any game's keys anyway, so the digest grants nothing more. Neither the ``bots`` key, nor Redis's AOF, nor a log
ever holds a raw token.

What the runner does, for the shards it serves:

- it reads every shard's event feed with its own consumer group (``bots``, NOACK: a feed entry is only a hint
  that a game moved) and folds each bot game's events with the game's rules (loaded through the store's repository);
  a game it has not seen yet is loaded from its snapshot and the tail of its event stream;
- when the game awaits a bot seat, it asks that seat's bot for a command and submits it with the version it
  saw as expected version, under a fresh unguessable command id ``bot-<version>-<seat>-<random>`` (nobody can
  take a bot's id before it is used; and ids are scoped to their seat anyway). The bot is seeded from the game
  id, seat, version and attempt. The expected version is what makes a command count at most once: a restarted
  runner that sends a second command for a version already played is refused as stale. One command per game
  and version: during a simultaneous decision (a secret vote) the bot seats answer one after the other, each
  at the version the previous answer produced;
- a command that is rejected is retried with the next attempt number and a fresh id (a stale version after
  reloading the game; anything else is logged as an error); after ``max_attempts`` rejections at one version
  the runner never gives up silently: it logs ``bots.failing`` (an error) and tries again, with a fresh id and
  another seeded choice, after a backoff growing to ``retry_cap_ms``; a command with no outcome after
  ``resend_after_ms`` is submitted again under the same id (its first outcome is answered, never a second);
- transient Redis faults (out of memory, connection lost, ...) are waited out with a jittered backoff and
  logged once per episode;
- every ``sweep_every_ms`` it walks the ``botgames`` sets: games missed on the feed (trimmed, read by another
  runner, or played while this runner was down) are caught up, ended games have their ``bots`` key deleted
  (the tokens leave Redis with it), and bot keys whose game was never created are dropped after
  ``orphan_after_ms``.

Several runners may serve the same shards (each entry of the feed then reaches one of them, the others catch
up from the event streams); splitting the shards between runners (``--shards``) is cheaper.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson
import redis

from services.bots.games import BotConfig, BotGame, BotGames
from services.bots.moves import next_command
from services.bus import envelope as env_mod
from services.bus.client import BusClient
from services.bus.consumer import ConsumerLoop, GroupConsumer
from services.bus.envelope import CommandEnvelope, Outcome
from services.bus.keys import BOTS_GROUP, Layout
from services.log import get_logger
from services.store.cache import LruCache
from services.store.eventstore import Announced, parse_feed_entry, read_announced
from services.store.repository import GameLookup, GameRepository, registry_game

__all__ = ["BotConfig", "BotGame", "BotRunner"]


@dataclass(slots=True)
class _Turn:
    dirty: set[str] = field(default_factory=set)
    unknown: dict[str, int] = field(default_factory=dict)


class BotRunner:
    """Plays the bot seats of the games on ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: BotConfig | None = None,
        consumer: str | None = None,
        games: GameLookup = registry_game,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or BotConfig()
        self.shards = sorted(set(shards))
        self.consumer = consumer or f"bots-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.client = BusClient(client, self.layout)
        self.log = get_logger("bots", consumer=self.consumer)
        self.repo = GameRepository(client, self.layout, games=games)
        self.bot_games = BotGames(client, self.layout, self.repo, self.cfg, self.log)
        self.feeds = GroupConsumer(
            client, BOTS_GROUP, self.consumer, self.layout.feed, batch=self.cfg.batch,
            cluster_poll_ms=self.cfg.cluster_poll_ms,
        )  # fmt: skip
        self.loop = ConsumerLoop(self.log, "bots")
        self._next_sweep = 0.0
        self._ready = False
        self.stats: Counter[str] = Counter()

    @property
    def games(self) -> LruCache[str, BotGame]:
        """The bot games in memory, by id."""
        return self.bot_games.games

    # --- loop -----------------------------------------------------------------------------------------
    def setup(self) -> None:
        """Create the ``bots`` consumer group on every served feed (new entries only: the sweep covers the past)."""
        self.feeds.create_groups(self.shards, start="$")
        self._ready = True

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; a Redis or programming error is logged and the loop goes on."""
        self.log.info("bots.start", shards=self.shards)
        self.loop.run(self._serve_step, stop or threading.Event(), on_error=self._on_error)
        self.log.info("bots.stop", stats=dict(self.stats))

    def _serve_step(self) -> None:
        if not self._ready:
            self.setup()
        self.step()

    def _on_error(self, exc: Exception) -> None:
        self._ready = False  # a flushed or failed-over Redis may have lost the groups

    def step(self, block_ms: int | None = None) -> int:
        """One turn: sweep when due, read the feeds, look at late outcomes, submit what bots choose.

        Returns the number of commands submitted.
        """
        turn = _Turn()
        now = time.monotonic()
        if now >= self._next_sweep:
            self.sweep(turn)
            self._next_sweep = now + self.cfg.sweep_every_ms / 1000
        block = self.cfg.block_ms if block_ms is None else block_ms
        if any(g.sent is not None for g in self.games.values()):
            block = min(block, self.cfg.recheck_after_ms)
        for game in self.games.values():
            if game.retry_at:
                if game.retry_at <= now:
                    turn.dirty.add(game.game_id)
                else:
                    block = min(block, max(1, int((game.retry_at - now) * 1000)))
        if turn.dirty:
            block = 0
        # NOACK: a feed entry is only a hint that a game moved (the sweep catches up whatever is missed).
        moved: list[Announced] = []
        for shard, _eid, fields in self.feeds.read(self.shards, block, noack=True):
            if fields is not None:
                self._on_feed(shard, fields, turn, moved)
        if moved:
            self._fold_moved(moved)
        if turn.unknown:
            self._load(list(turn.unknown.items()), turn)
        self._check_sent(turn)
        return self._act(turn)

    # --- reading ----------------------------------------------------------------------------------------
    def _on_feed(self, shard: int, fields: dict[bytes, bytes], turn: _Turn, moved: list[Announced]) -> None:
        self.stats["feed"] += 1
        found = parse_feed_entry(fields)
        if found is None:
            self.log.warning("bots.bad_feed_entry", shard=shard)
            return
        gid = found.game_id
        game = self.games.get(gid)
        if game is None:
            if not self.bot_games.has_no_bots(gid) and gid not in turn.unknown:
                turn.unknown[gid] = shard
            return
        if found.last <= game.version:
            return
        turn.dirty.add(gid)
        if not game.behind:
            moved.append(found)

    def _fold_moved(self, moved: list[Announced]) -> None:
        """Fold the events the feed announced into the games that follow on (one pipelined read for all)."""
        try:
            bodies = read_announced(self.r, self.layout, moved)
        except redis.RedisError as exc:
            self.log.warning("bots.feed_read_failed", error=repr(exc)[:300])
            for a in moved:
                game = self.games.get(a.game_id)
                if game is not None:
                    game.behind = True  # read the stream when it is its turn
            return
        for gid, items in bodies.items():
            game = self.games.get(gid)
            if game is None or game.behind:
                continue
            try:
                if not self.bot_games.fold_announced(game, [(item.version, item.raw) for item in items]):
                    game.behind = True  # a gap: read the stream instead
            except Exception as exc:
                self.log.warning("bots.fold_failed", game=gid, shard=game.shard, error=repr(exc)[:300])
                game.behind = True

    def _load(self, games: list[tuple[str, int]], turn: _Turn) -> None:
        """Load games that may have bot seats; the ones loaded are looked at this turn."""
        for game in self.bot_games.load(games):
            self.stats["loaded"] += 1
            turn.dirty.add(game.game_id)

    def sweep(self, turn: _Turn | None = None) -> None:
        """Walk the ``botgames`` sets: load games not in memory, catch up games that moved, clean up."""
        turn = turn or _Turn()
        known: list[BotGame] = []
        missing: list[tuple[str, int]] = []
        for shard in self.shards:
            for raw_gid in self.r.sscan_iter(self.layout.bot_games(shard), count=1000):
                gid = raw_gid.decode()
                game = self.games.get(gid)
                if game is None:
                    missing.append((gid, shard))
                else:
                    known.append(game)
        known = self._reseated(known, missing)
        stored = self.repo.versions([game.game_id for game in known])
        for game in known:
            version = stored.get(game.game_id)
            if version is not None and version > game.version:
                game.behind = True
            turn.dirty.add(game.game_id)
        if missing:
            self._load(missing, turn)
        self.stats["sweeps"] += 1

    def _reseated(self, known: list[BotGame], missing: list[tuple[str, int]]) -> list[BotGame]:
        """``known`` without the games whose bot seats changed since they were loaded (a player left: the
        gateway handed the seat to a bot), which go to ``missing`` to be loaded again."""
        if not known:
            return known
        pipe = self.r.pipeline(transaction=False)
        for game in known:
            pipe.get(self.layout.bots(game.shard, game.game_id))
        kept = []
        for game, doc in zip(known, pipe.execute(), strict=True):
            try:
                seats = {int(seat) for seat in orjson.loads(doc)["seats"]} if doc else set(game.seats)
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                seats = set(game.seats)
            if seats == set(game.seats):
                kept.append(game)
            else:
                self.games.pop(game.game_id)
                missing.append((game.game_id, game.shard))
        return kept

    # --- outcomes ---------------------------------------------------------------------------------------
    def _check_sent(self, turn: _Turn) -> None:
        now = time.monotonic()
        wait = self.cfg.recheck_after_ms / 1000
        due = [
            g
            for g in self.games.values()
            if g.sent is not None and g.sent.version == g.version and now - g.sent.at >= wait
        ]
        if not due:
            return
        pipe = self.r.pipeline(transaction=False)
        for g in due:
            assert g.sent is not None
            env = g.sent.envelope
            pipe.get(self.layout.outcome(g.shard, g.game_id, env.scope, env.command_id))
        resend: list[CommandEnvelope] = []
        for g, raw in zip(due, pipe.execute(), strict=True):
            sent = g.sent
            assert sent is not None
            ctx = {"game": g.game_id, "shard": g.shard, "version": g.version, "cid": sent.envelope.command_id}
            if raw is None:
                if now - sent.at >= self.cfg.resend_after_ms / 1000:
                    self.log.warning("bots.resend", **ctx)
                    sent.at = now
                    resend.append(sent.envelope)
                continue
            outcome = Outcome.model_validate_json(raw)
            turn.dirty.add(g.game_id)
            if outcome.accepted:
                g.behind = True  # its events went past this runner's feed: read them from the stream
                continue
            code = outcome.rejection.code if outcome.rejection else outcome.status
            g.sent = None
            g.attempt += 1
            if code == env_mod.STALE_VERSION:
                g.behind = True
                self.log.info("bots.stale", **ctx)
            else:
                self.stats["rejected"] += 1
                message = outcome.rejection.message if outcome.rejection else ""
                self.log.error("bots.rejected", **ctx, code=code, message=message, attempt=g.attempt)
            if g.attempt >= self.cfg.max_attempts:
                # Never give up silently (the game would stall for good): tell the operator, wait, try again
                # with a fresh id and another choice.
                extra = g.attempt - self.cfg.max_attempts
                delay = min(self.cfg.retry_cap_ms, self.cfg.retry_first_ms * 2 ** min(extra, 20)) / 1000
                g.retry_at = now + delay
                self.stats["failing"] += 1
                self.log.error("bots.failing", **ctx, code=code, attempts=g.attempt, retry_in_s=round(delay, 2))
        if resend:
            self._submit(resend)

    # --- acting -----------------------------------------------------------------------------------------
    def _act(self, turn: _Turn) -> int:
        out: list[CommandEnvelope] = []
        for gid in sorted(turn.dirty):
            game = self.games.get(gid)
            if game is None:
                continue
            try:
                env = self._decide(game)
            except Exception as exc:
                # One game's trouble (its rules or its stream) must not stop the others.
                self.log.exception("bots.act_failed", game=gid, shard=game.shard, version=game.version, error=repr(exc))
                game.behind = True
                continue
            if env is not None:
                out.append(env)
        if out:
            self._submit(out)
            self.stats["sent"] += len(out)
        return len(out)

    def _submit(self, envelopes: list[CommandEnvelope]) -> None:
        try:
            self.client.submit_many(envelopes)
        except Exception:
            # Not submitted (or not all): those games decide again, under fresh ids, once Redis answers. The
            # expected version keeps a command that did get through from counting twice.
            for env in envelopes:
                game = self.games.get(env.game_id)
                if game is not None and game.sent is not None and game.sent.envelope is env:
                    game.sent = None
            raise

    def _decide(self, game: BotGame) -> CommandEnvelope | None:
        env = next_command(game, self.bot_games, self.cfg, self.log)
        if env is not None:
            self.games.get(game.game_id)  # the most recent now
        return env

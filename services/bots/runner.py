"""The bots process: it plays the seats games hand to bots, through the streams, like any other client.

How a game gets bots: its creator passes ``bots={seat: kind}`` to ``ServiceClient.create_game``, which (before
submitting the creation) writes the game's ``bots`` key (JSON: each bot seat's kind) and adds the game to its
shard's ``botgames`` set. Nothing else in the service knows about bots: the rules worker sees ordinary commands
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
  that a game moved) and folds each bot game's events with the game's decider (found by name in the registry);
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

import contextlib
import os
import secrets
import socket
import threading
import time
import uuid
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from services.bots.kinds import Bot, UnknownBot, make_bot
from services.bus import envelope as env_mod
from services.bus.client import ServiceClient
from services.bus.envelope import CommandEnvelope, Outcome
from services.bus.faults import Backoff, Outage, is_transient
from services.bus.keys import BOTS_GROUP, Layout
from services.bus.streams import GroupReader
from services.log import get_logger
from services.rules.decider import Decider
from services.rules.registry import get_decider
from services.store.eventstore import load_many, read_events


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
    """A game with bot seats, as far as the runner has folded it."""

    game_id: str
    shard: int
    name: str
    decider: Decider
    seats: dict[int, tuple[str, bytes]]
    """Bot seat -> (bot kind, the seat's signing key: the token digest stored in the game's metadata)."""
    state: Any
    version: int
    behind: bool = False
    """The runner missed events of this game: read its event stream before acting."""
    sent: Sent | None = None
    attempt: int = 0
    """Rejected attempts at the current version."""
    retry_at: float = 0.0
    """After repeated rejections: the monotonic time before which the runner does not try again."""

    def moved_to(self, version: int) -> None:
        """Bookkeeping once the game reached a new ``version``."""
        self.version = version
        self.sent = None
        self.attempt = 0
        self.retry_at = 0.0


def _seed(game_id: str, seat: int, version: int, attempt: int) -> int:
    return zlib.crc32(f"{game_id}:{seat}:{version}:{attempt}".encode())


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
        deciders: Callable[[str], Decider] = get_decider,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or BotConfig()
        self.shards = sorted(set(shards))
        self.consumer = consumer or f"bots-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.client = ServiceClient(client, self.layout)
        self._deciders = deciders
        self._reader = GroupReader(client, BOTS_GROUP, self.consumer, poll_ms=self.cfg.cluster_poll_ms)
        self.games: OrderedDict[str, BotGame] = OrderedDict()
        self._no_bots: OrderedDict[str, None] = OrderedDict()
        self._next_sweep = 0.0
        self._ready = False
        self.stats: Counter[str] = Counter()
        self.log = get_logger("bots", consumer=self.consumer)
        self._outage = Outage(self.log)

    # --- loop -----------------------------------------------------------------------------------------
    def setup(self) -> None:
        """Create the ``bots`` consumer group on every served feed (new entries only: the sweep covers the past)."""
        for shard in self.shards:
            with contextlib.suppress(redis.ResponseError):  # BUSYGROUP: it exists already
                self.r.xgroup_create(self.layout.feed(shard), BOTS_GROUP, id="$", mkstream=True)
        self._ready = True

    def run(self, stop: threading.Event | None = None) -> None:
        """Serve until ``stop`` is set; a Redis or programming error is logged and the loop goes on."""
        stop = stop or threading.Event()
        errors = Backoff(0.05, 2.0)
        faults = Backoff(0.01, 2.0)
        self.log.info("bots.start", shards=self.shards)
        while not stop.is_set():
            try:
                if not self._ready:
                    self.setup()
                self.step()
                errors.reset()
                faults.reset()
                self._outage.recovered()
            except Exception as exc:
                if is_transient(exc):
                    self._outage.failed(exc)  # logged once per episode, not once per attempt
                    delay = faults.next()
                else:
                    self.log.exception("bots.error", error=repr(exc))
                    delay = errors.next()
                self._ready = False  # a flushed or failed-over Redis may have lost the groups
                stop.wait(delay)
        self.log.info("bots.stop", stats=dict(self.stats))

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
        streams = {self.layout.feed(s): ">" for s in self.shards}
        by_key = {key.encode(): shard for shard, key in ((s, self.layout.feed(s)) for s in self.shards)}
        for key, entries in self._reader.read(streams, count=self.cfg.batch, block_ms=block, noack=True):
            shard = by_key[key]
            for _eid, fields in entries:
                if fields is not None:
                    self._on_feed(shard, fields, turn)
        if turn.unknown:
            self._load(list(turn.unknown.items()), turn)
        self._check_sent(turn)
        return self._act(turn)

    # --- reading ----------------------------------------------------------------------------------------
    def _on_feed(self, shard: int, fields: dict[bytes, bytes], turn: _Turn) -> None:
        self.stats["feed"] += 1
        try:
            gid = fields[b"g"].decode()
            version = int(fields[b"v"])
        except (KeyError, ValueError, UnicodeDecodeError):
            self.log.warning("bots.bad_feed_entry", shard=shard)
            return
        game = self.games.get(gid)
        if game is None:
            if gid not in self._no_bots and gid not in turn.unknown:
                turn.unknown[gid] = shard
            return
        if version <= game.version:
            return
        turn.dirty.add(gid)
        if version != game.version + 1 or game.behind:
            game.behind = True  # a gap: read the stream instead
            return
        try:
            game.state = game.decider.evolve(game.state, game.decider.parse_event(fields[b"e"]))
        except Exception as exc:
            self.log.warning("bots.fold_failed", game=gid, shard=shard, version=version, error=repr(exc)[:300])
            game.behind = True
            return
        game.moved_to(version)

    def _catch_up(self, game: BotGame) -> None:
        for stored in read_events(self.r, self.layout, game.game_id, after=game.version):
            if stored.version != game.version + 1:
                raise RuntimeError(f"game {game.game_id}: event {stored.version} follows {game.version}")
            game.state = game.decider.evolve(game.state, game.decider.parse_event(stored.data))
            game.moved_to(stored.version)
        game.behind = False

    def _load(self, games: list[tuple[str, int]], turn: _Turn) -> None:
        """Load games that may have bot seats: their ``bots`` key, then snapshot and tail."""
        pipe = self.r.pipeline(transaction=False)
        for gid, shard in games:
            pipe.get(self.layout.bots(shard, gid))
        docs = pipe.execute()
        with_bots = [(gid, shard, doc) for (gid, shard), doc in zip(games, docs, strict=True) if doc is not None]
        for (gid, shard), doc in zip(games, docs, strict=True):
            if doc is None:
                self._remember_no_bots(gid)
                # A game listed in botgames without its key: its bots are done (another runner cleaned up).
                self.r.srem(self.layout.bot_games(shard), gid)
        if not with_bots:
            return
        raws = load_many(self.r, self.layout, [(shard, gid) for gid, shard, _ in with_bots])
        for gid, shard, doc in with_bots:
            raw = raws.get(gid)
            try:
                spec = orjson.loads(doc)
                kinds = {int(s): str(v["kind"]) for s, v in spec["seats"].items()}
                created_ms = int(spec.get("created_ms", 0))
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
                self.log.error("bots.bad_bots_key", game=gid, shard=shard)
                self._forget(gid, shard)
                continue
            if raw is None:
                if time.time() * 1000 - created_ms > self.cfg.orphan_after_ms:
                    self.log.warning("bots.orphan_dropped", game=gid, shard=shard)
                    self._forget(gid, shard)
                continue  # not created yet: its first feed entry (or the next sweep) brings it back
            status = raw.meta.get("status", "active")
            if status != "active":
                self._forget(gid, shard)
                continue
            try:
                # The seats' signing keys: the token digests the game was created with (see the module doc).
                digests = orjson.loads(raw.meta.get("tokens", "[]"))
                seats = {seat: (kind, bytes.fromhex(digests[seat])) for seat, kind in kinds.items()}
            except (orjson.JSONDecodeError, IndexError, TypeError, ValueError):
                self.log.error("bots.bad_bot_seats", game=gid, shard=shard, seats=sorted(kinds))
                self._forget(gid, shard)
                continue
            name = raw.meta.get("name", "")
            try:
                decider = self._deciders(name)
                state = decider.restore(raw.snapshot) if raw.snapshot is not None else decider.initial_state()
                version = raw.snapshot_version
                for v, data in raw.tail:
                    if v != version + 1:
                        raise RuntimeError(f"event {v} follows {version}")
                    state = decider.evolve(state, decider.parse_event(data))
                    version = v
            except Exception as exc:
                self.log.error("bots.load_failed", game=gid, shard=shard, name=name, error=repr(exc)[:300])
                continue
            game = BotGame(gid, shard, name, decider, seats, state, version)
            self.games[gid] = game
            self._trim_cache()
            self.stats["loaded"] += 1
            turn.dirty.add(gid)

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
        if known:
            pipe = self.r.pipeline(transaction=False)
            for game in known:
                pipe.hget(self.layout.meta(game.shard, game.game_id), "version")
            for game, stored in zip(known, pipe.execute(), strict=True):
                if stored is not None and int(stored) > game.version:
                    game.behind = True
                turn.dirty.add(game.game_id)
        if missing:
            self._load(missing, turn)
        self.stats["sweeps"] += 1

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
                # One game's trouble (a decider or stream problem) must not stop the others.
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
        if game.behind:
            self._catch_up(game)
        decider = game.decider
        if decider.is_over(game.state):
            self.log.info("bots.game_over", game=game.game_id, shard=game.shard, version=game.version)
            self._forget(game.game_id, game.shard)
            return None
        if game.sent is not None and game.sent.version == game.version:
            return None
        if game.retry_at > time.monotonic():
            return None
        seats = [s for s in decider.awaited(game.state) if s in game.seats]
        if not seats:
            return None
        seat = seats[0]
        kind, key = game.seats[seat]
        seed = _seed(game.game_id, seat, game.version, game.attempt)
        ctx = {"game": game.game_id, "shard": game.shard, "version": game.version, "seat": seat, "kind": kind}
        command = None
        try:
            command = self._bot(kind, game.name, seed).choose(decider, game.state, seat)
        except Exception as exc:
            # A broken bot must not stall the game: its seat plays a random legal command this time.
            self.log.exception("bots.bot_failed", **ctx, error=repr(exc))
            command = make_bot("random", game.name, seed).choose(decider, game.state, seat)
        if command is None:
            # Try again later (another attempt, another seed) rather than leave the game waiting for good.
            game.attempt += 1
            game.retry_at = time.monotonic() + self.cfg.retry_cap_ms / 1000
            self.log.error("bots.no_command", **ctx, retry_in_s=self.cfg.retry_cap_ms / 1000)
            return None
        # Unguessable: the version and seat are there for people reading logs, the random part for safety.
        cid = f"bot-{game.version}-{seat}-{secrets.token_hex(8)}"
        env = CommandEnvelope.signed(
            key,
            command_id=cid,
            game_id=game.game_id,
            seat=seat,
            payload=command.to_dict(),
            expected_version=game.version,
        )
        game.sent = Sent(env, game.version, time.monotonic())
        game.retry_at = 0.0
        self.games.move_to_end(game.game_id)
        self.log.debug("bots.submit", **ctx, cid=cid, command=getattr(command, "type", ""))
        return env

    def _bot(self, kind: str, game: str, seed: int) -> Bot:
        try:
            return make_bot(kind, game, seed)
        except UnknownBot as exc:
            # Bot seats are written by the game's creator; an unknown kind still gets a player.
            self.log.error("bots.unknown_kind", kind=kind, game_name=game, error=str(exc))
            return make_bot("random", game, seed)

    # --- bookkeeping --------------------------------------------------------------------------------------
    def _forget(self, gid: str, shard: int) -> None:
        """The game needs its bots no more: drop its ``bots`` key and its botgames entry."""
        pipe = self.r.pipeline(transaction=False)
        pipe.delete(self.layout.bots(shard, gid))
        pipe.srem(self.layout.bot_games(shard), gid)
        pipe.execute()
        self.games.pop(gid, None)
        self._remember_no_bots(gid)

    def _remember_no_bots(self, gid: str) -> None:
        self._no_bots[gid] = None
        self._no_bots.move_to_end(gid)
        while len(self._no_bots) > 4 * self.cfg.cache_size:
            self._no_bots.popitem(last=False)

    def _trim_cache(self) -> None:
        while len(self.games) > self.cfg.cache_size:
            self.games.popitem(last=False)

"""Commit planning: from a command entry and the game's state to the store's :class:`CommitRequest`.

The checks run in this order, so that an unauthenticated sender learns nothing about a game and can never record
an outcome under a seat's command id: a readable envelope, the game on this shard, the game exists, the seat is
in it, the seat's proof matches its token digest (only then is the outcome recorded under the seat's id), the game
is still running, the expected version, the payload's seat; then the game's own rules decide.

States are immutable values: a command's plan moves the game on in the round (``Round.known``), so later
commands of the same game in a batch are decided on it before any commit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from events.base import Rejection
from services.bus import envelope as env_mod
from services.bus.consumer import Entry
from services.bus.entries import EnvelopeError, entry_scope
from services.bus.envelope import CommandEnvelope, CreateEnvelope, conflict_outcome
from services.bus.keys import NO_GAME, Layout
from services.store.commit import CommitRequest, LogRecord, Op
from services.store.meta import GameMeta
from services.store.repository import GameRepository, LoadedGame
from services.worker.config import WorkerConfig
from services.worker.deadletter import dead_letter_request

_HEX = frozenset("0123456789abcdef")
Envelope = CommandEnvelope | CreateEnvelope


def now_ms() -> int:
    """Wall-clock milliseconds (commit times, outcomes)."""
    return int(time.time() * 1000)


@dataclass(slots=True)
class Plan:
    """One commit request, with what to do once it succeeds."""

    entry: Entry
    request: CommitRequest
    after: LoadedGame | None = None
    """The game as this commit leaves it (cached once committed)."""
    reason: str = ""
    """Why a dead letter is one."""

    @property
    def game_id(self) -> str:
        """The game the commit writes to (``_`` for an entry naming no usable game)."""
        return self.request.game_id

    @property
    def op(self) -> Op:
        """What the commit does."""
        return self.request.op


@dataclass(slots=True)
class Round:
    """Scratch of one decide-and-commit round: the games as planned so far, the games held back (an earlier
    command of theirs failed in this round), those that cannot be loaded, and the shards to read again."""

    known: dict[str, LoadedGame | None] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    broken: dict[str, Exception] = field(default_factory=dict)
    reread: set[int] = field(default_factory=set)


class Planner:
    """Turns command entries into commit requests for the shards whose fencing tokens ``fence`` gives."""

    def __init__(
        self,
        layout: Layout,
        config: WorkerConfig,
        repository: GameRepository,
        fence: Callable[[int], str],
        worker_id: str,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.layout = layout
        self.cfg = config
        self.repo = repository
        self.fence = fence
        self.worker_id = worker_id
        self.clock = clock
        """The time stamped on each command (ms): read once per command, recorded, and the only time the rules see
        (tests inject a controlled clock)."""

    # --- commands -------------------------------------------------------------------------------------
    def plan(self, entry: Entry, env: Envelope | EnvelopeError, rnd: Round) -> Plan | None:
        """The commit of one entry; None: not now (an earlier command of its game is held back)."""
        shard = entry[0]
        if isinstance(env, EnvelopeError):
            if env.command_id is None:
                return self.dead(entry, f"{env.code}: {env.message}", 1)
            # Unreadable: nobody is proven to have sent it, so it may not record an outcome under any seat's id.
            return self.reject(entry, env.command_id, env.game_id or NO_GAME, env.code, env.message, record=False)
        gid, cid = env.game_id, env.command_id
        if gid in rnd.broken:
            raise rnd.broken[gid]
        if gid in rnd.held:
            # An earlier command of this game failed in this round: keep the game's order, retry later.
            rnd.reread.add(shard)
            return None
        if self.layout.shard_of(gid) != shard:
            message = f"game {gid} does not live on shard {shard}"
            return self.reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, env=env, record=False)
        game = rnd.known.get(gid)
        if isinstance(env, CreateEnvelope):
            return self._create(entry, env, game, rnd)
        if game is None:
            return self.reject(entry, cid, gid, env_mod.UNKNOWN_GAME, f"no game {gid}", env=env, record=False)
        # The seat's proof comes first: an unauthenticated sender learns nothing more about the game, and its
        # refusal is recorded under no seat's command id.
        digest = game.meta.seat_digest(env.seat)
        if digest is None:
            message = f"seat {env.seat} is not in this game"
            return self.reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, game, env=env, record=False)
        if not env.verify(digest):
            message = f"wrong token for seat {env.seat} (the command's proof does not match)"
            return self.reject(entry, cid, gid, env_mod.WRONG_TOKEN, message, game, env=env, record=False)
        if game.status != "active":
            return self.reject(entry, cid, gid, env_mod.GAME_OVER, "the game is over", game, env=env)
        if env.expected_version is not None and env.expected_version != game.version:
            message = f"expected version {env.expected_version}, the game is at {game.version}"
            return self.reject(entry, cid, gid, env_mod.STALE_VERSION, message, game, env=env)
        payload = env.payload
        if payload.get("seat", env.seat) != env.seat:
            message = f"payload seat {payload.get('seat')!r} is not the envelope seat {env.seat}"
            return self.reject(entry, cid, gid, env_mod.BAD_COMMAND, message, game, env=env)
        rules = game.rules
        try:
            command = rules.parse_command({**payload, "seat": env.seat})
        except ValidationError as exc:
            return self.reject(entry, cid, gid, env_mod.BAD_COMMAND, env_mod.summarize(exc), game, env=env)
        except (ValueError, TypeError, KeyError) as exc:
            return self.reject(entry, cid, gid, env_mod.BAD_COMMAND, str(exc)[:300], game, env=env)
        # The command's time: stamped once, recorded with its outcome (and, on a clocked table, in its events).
        now = self.clock()
        # Decide and fold in one pass (a game may do it faster than deciding, then folding the events).
        done = rules.execute(game.state, command, now)
        if isinstance(done, Rejection):
            return self.reject(entry, cid, gid, done.code, done.message, game, env=env, rulings=done.rulings, now=now)
        return self._accept(entry, env, "append", game, done[0], rnd, fields={}, folded=done[1], now=now)

    def _create(self, entry: Entry, env: CreateEnvelope, existing: LoadedGame | None, rnd: Round) -> Plan:
        cid, gid, shard = env.command_id, env.game_id, entry[0]
        if existing is not None:
            return self.reject(entry, cid, gid, env_mod.GAME_EXISTS, f"game {gid} exists already", existing, env=env)
        try:
            plugin = self.repo.game_named(env.game_name, gid)
        except LookupError:
            return self.reject(entry, cid, gid, env_mod.UNKNOWN_GAME, f"no game named {env.game_name!r}", env=env)
        hashes = env.token_hashes
        if len(hashes) != len(env.players) or any(len(h) != 64 or not set(h) <= _HEX for h in hashes):
            message = "need one sha256 hex token hash per player"
            return self.reject(entry, cid, gid, env_mod.BAD_ENVELOPE, message, env=env)
        rules = plugin.rules
        now = self.clock()
        try:
            events = rules.start(env.players, env.settings, env.seed, now, env.salt, env.practice)
        except ValidationError as exc:
            return self.reject(entry, cid, gid, env_mod.BAD_COMMAND, env_mod.summarize(exc), env=env)
        except (ValueError, TypeError, KeyError) as exc:
            return self.reject(entry, cid, gid, env_mod.BAD_COMMAND, str(exc)[:300], env=env)
        meta = GameMeta.new(
            gid, env.game_name, env.players, env.settings, env.seed, hashes,
            rules_version=rules.rules_version, created_ms=now, player_ids=env.player_ids,
        )  # fmt: skip
        fresh = LoadedGame(gid, shard, meta, plugin, rules.initial_state(), 0, "active", 0)
        state = fresh.state
        for event in events:
            state = rules.evolve(state, event)
        return self._accept(
            entry, env, "create", fresh, events, rnd, fields=meta.creation_fields(), folded=state, now=now
        )

    def _accept(
        self,
        entry: Entry,
        env: Envelope,
        op: Op,
        game: LoadedGame,
        events: list[Any],
        rnd: Round,
        fields: dict[str, str],
        folded: Any,
        now: int,
    ) -> Plan:
        rules = game.rules
        version = game.version + len(events)
        over = rules.is_over(folded)
        status = "over" if over else "active"
        snapshot = None
        snapshot_version = game.snapshot_version
        every = self.cfg.snapshot_every
        if events and (version // every > game.version // every or over):
            snapshot, snapshot_version = (version, rules.snapshot(folded)), version
        if over:
            fields = {**fields, "result": orjson.dumps(rules.result(folded), default=str).decode(), "ended": str(now)}
        after = game.moved(folded, version, status, snapshot_version)
        rnd.known[game.game_id] = after  # later commands of this game in the batch see this state
        digest = env.digest()
        outcome = {
            "command_id": env.command_id,
            "game_id": game.game_id,
            "shard": game.shard,
            "status": "accepted",
            "version": version,
            "first_version": game.version + 1,
            "events": len(events),
            "over": over,
            "digest": digest,
        }
        request = CommitRequest(
            shard=game.shard, entry_id=entry[1], fence=self.fence(game.shard), op=op, game_id=game.game_id,
            scope=env.scope, command_id=env.command_id, outcome=outcome, now_ms=now, base_version=game.version,
            game_name=game.name, status=status if (over or op == "create") else "", snapshot=snapshot,
            outcome_ttl_ms=self.cfg.outcome_ttl_ms, digest=digest, record=True, log=self._log_record(entry),
            fields=fields, events=[rules.encode_event_bytes(e) for e in events],
            reply_events=isinstance(env, CommandEnvelope) and env.reply_events,
            alarm=rules.next_alarm(folded, now) if rules.clock_of(folded) is not None else "keep",
            reply=not (isinstance(env, CommandEnvelope) and env.no_reply),
        )  # fmt: skip
        return Plan(entry, request, after)

    # --- refusals -------------------------------------------------------------------------------------
    def reject(
        self,
        entry: Entry,
        cid: str,
        gid: str,
        code: str,
        message: str,
        game: LoadedGame | None = None,
        *,
        env: Envelope | None = None,
        record: bool = True,
        rulings: Sequence[str] = (),
        now: int | None = None,
    ) -> Plan:
        """A rejection. ``record``: the sender is authenticated (or it is a creation), so the outcome is stored
        under its command id (for ``rejected_ttl_ms``); else it is only answered on the reply list. ``rulings``: the
        ids of the rules the command broke (a rules rejection's), kept in the outcome and the command log."""
        shard = entry[0]
        scope = env.scope if env is not None else entry_scope(entry[2] or {})
        digest = env.digest() if env is not None else ""
        outcome = {
            "command_id": cid,
            "game_id": gid,
            "shard": shard,
            "status": "rejected",
            "version": game.version if game is not None else None,
            "rejection": {"code": code, "message": message, "rulings": list(rulings)},
            "digest": digest or None,
        }
        request = CommitRequest(
            shard=shard, entry_id=entry[1], fence=self.fence(shard), op="reject", game_id=gid, scope=scope,
            command_id=cid, outcome=outcome, now_ms=self.clock() if now is None else now,
            # Judged against a state: the commit checks that state's version is still the stored one.
            base_version=game.version if game is not None and record else -1,
            outcome_ttl_ms=self.cfg.rejected_ttl_ms, digest=digest, record=record, log=self._log_record(entry),
            reply=not (isinstance(env, CommandEnvelope) and env.no_reply and record),
        )  # fmt: skip
        return Plan(entry, request)

    def conflict(self, plan: Plan) -> Plan:
        """The answer to a command whose id this seat used already for another command: only replied."""
        req = plan.request
        outcome = conflict_outcome(req.command_id, req.game_id, req.shard, req.digest or None).model_dump(mode="json")
        request = CommitRequest(
            shard=req.shard, entry_id=req.entry_id, fence=self.fence(req.shard), op="reject", game_id=req.game_id,
            scope=req.scope, command_id=req.command_id, outcome=outcome, now_ms=now_ms(),
            outcome_ttl_ms=self.cfg.rejected_ttl_ms, digest=req.digest, record=False, log=self._log_record(plan.entry),
        )  # fmt: skip
        return Plan(plan.entry, request)

    def dead(self, entry: Entry, reason: str, attempts: int) -> Plan:
        """The entry goes to the shard's dead letters (``reason``), and its submitter is told so."""
        request = dead_letter_request(
            entry, reason, attempts, fence=self.fence(entry[0]), worker_id=self.worker_id, config=self.cfg
        )
        return Plan(entry, request, reason=reason)

    def _log_record(self, entry: Entry) -> LogRecord:
        """Kind, seat and command JSON of an entry for the game's command log (never a secret).

        The command is logged as it was sent (verification re-parses it the way the worker does); one larger
        than the payload limit is replaced by a note of its size.
        """
        fields = entry[2] or {}
        if fields.get(b"kind") == b"create":
            create: dict[str, Any] = {"name": fields.get(b"name", b"").decode(errors="replace")}
            for key in ("players", "settings"):
                try:
                    create[key] = orjson.loads(fields.get(key.encode(), b"null"))
                except orjson.JSONDecodeError:
                    create[key] = None
            seed = fields.get(b"seed", b"")
            create["seed"] = int(seed) if seed.lstrip(b"-").isdigit() else None
            raw_ids = fields.get(b"player_ids")
            if raw_ids is not None:
                try:
                    create["player_ids"] = orjson.loads(raw_ids) if len(raw_ids) <= self.cfg.max_payload else None
                except orjson.JSONDecodeError:
                    create["player_ids"] = None
            return LogRecord("create", "", orjson.dumps(create))
        payload = fields.get(b"payload", b"null")
        if len(payload) > self.cfg.max_payload:
            payload = orjson.dumps(f"<{len(payload)} bytes, over the limit: not kept>")
        scope = entry_scope(fields)
        return LogRecord("cmd", scope if scope.isdigit() else "", payload)

"""The client library: create a game, submit commands, wait for their outcome, read events.

Example::

    client = ServiceClient(connect())
    game = client.create_game("shadow", ["Ann", "Bob", "Cid", "Dee"], seed=7)
    outcome = client.send(game.game_id, seat=0, token=game.tokens[0], payload={"type": "Pass"},
                          expected_version=12)
    if not outcome.accepted:
        print(outcome.rejection.code, outcome.rejection.message)

A command id is chosen by the client (a uuid4 hex unless given). Submitting the same command id again is
safe: the worker answers a retried command with its first outcome and writes nothing.

Bot seats: ``create_game(..., bots={1: "random", 3: "heuristic"})`` hands those seats to the bots process
(``python -m services.bots``). Their tokens go, before the game is created, into the game's ``bots`` key inside
the shard (see :meth:`ServiceClient.create_game`); the creator keeps the tokens of the other seats only.
"""

from __future__ import annotations

import re
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.connection import connect
from services.bus.envelope import (
    GAME_EXISTS,
    MAX_PAYLOAD,
    CommandEnvelope,
    CreateEnvelope,
    Outcome,
    RejectionInfo,
    hash_token,
)
from services.bus.keys import Layout
from services.store import eventstore
from services.store.eventstore import StoredEvent


@dataclass(frozen=True, slots=True)
class NewGame:
    """A created game: its id and one secret token per seat (only the creator ever sees them)."""

    game_id: str
    tokens: list[str]
    seed: int
    command_id: str
    outcome: Outcome | None


class GameNotCreated(Exception):
    """The worker refused to create the game (``outcome.rejection`` says why)."""

    def __init__(self, outcome: Outcome) -> None:
        rej = outcome.rejection
        super().__init__(f"{rej.code}: {rej.message}" if rej else outcome.status)
        self.outcome = outcome


BOT_KIND_RE = re.compile(r"^[a-z0-9_-]{1,32}$")
BOT_SEATS_TTL_MS = 30 * 24 * 3600 * 1000
"""Safety net: a game's bot seats (and their tokens) are dropped after this even if nobody cleans them up."""


def new_id() -> str:
    """A fresh id for a game or a command."""
    return uuid.uuid4().hex


class ServiceClient:
    """Talks to the rules workers through the shards' streams only."""

    def __init__(
        self, client: redis.Redis | None = None, layout: Layout | None = None, max_payload: int = MAX_PAYLOAD
    ) -> None:
        self.r = client if client is not None else connect()
        self.layout = layout or Layout.from_env()
        self.max_payload = max_payload

    # --- games ----------------------------------------------------------------------------------------
    def create_game(
        self,
        game_name: str,
        players: Sequence[str],
        settings: dict[str, Any] | None = None,
        seed: int | None = None,
        *,
        game_id: str | None = None,
        command_id: str | None = None,
        timeout: float | None = 10.0,
        bots: Mapping[int, str] | None = None,
    ) -> NewGame:
        """Open a game; waits for the worker's answer unless ``timeout`` is None.

        The seat tokens are generated here; only their sha256 travels and is stored. The seed is drawn here
        when not given, so that it is recorded (the game's first event names it).

        ``bots`` maps seats to a bot kind (``"random"``, ``"heuristic"``, see services/bots/kinds.py): those
        seats are played by the bots process. Their tokens are written to the game's ``bots`` key (SET NX,
        so an existing game's bot seats are never replaced) *before* the creation is submitted, so the bots
        process knows the game's bot seats from its very first event. Redis is the deployment's private
        store (whoever can write to it can do anything anyway); the tokens sit there only until the game
        ends, when the bots process deletes the key (and under a 30-day TTL as a safety net).
        Raises ValueError on a bad ``bots`` map, :class:`GameNotCreated` on a rejection, TimeoutError when no
        answer comes in time.
        """
        bot_seats = dict(bots or {})
        for seat, kind in bot_seats.items():
            if not (isinstance(seat, int) and 0 <= seat < len(players)):
                raise ValueError(f"bot seat {seat!r} is not a seat of this game (0..{len(players) - 1})")
            if not (isinstance(kind, str) and BOT_KIND_RE.match(kind)):
                raise ValueError(f"bot kind {kind!r} is not a valid name")
        tokens = [secrets.token_urlsafe(24) for _ in players]
        envelope = CreateEnvelope(
            command_id=command_id or new_id(),
            game_id=game_id or new_id(),
            game_name=game_name,
            players=list(players),
            settings=settings or {},
            seed=secrets.randbelow(2**31) if seed is None else seed,
            token_hashes=[hash_token(t) for t in tokens],
        )
        shard = self.layout.shard_of(envelope.game_id)
        if bot_seats:
            self._hand_to_bots(envelope, shard, {seat: (kind, tokens[seat]) for seat, kind in bot_seats.items()})
        self.r.xadd(self.layout.cmds(shard), envelope.to_fields())
        outcome = None
        if timeout is not None:
            outcome = self.wait(envelope.game_id, envelope.command_id, timeout)
            if not outcome.accepted:
                if bot_seats:
                    # The key is ours (SET NX succeeded above): a game that was never created has no bots.
                    self.r.delete(self.layout.bots(shard, envelope.game_id))
                raise GameNotCreated(outcome)
        return NewGame(envelope.game_id, tokens, envelope.seed, envelope.command_id, outcome)

    def _hand_to_bots(self, envelope: CreateEnvelope, shard: int, seats: dict[int, tuple[str, str]]) -> None:
        gid = envelope.game_id
        doc = {
            "created_ms": int(time.time() * 1000),
            "seats": {str(seat): {"kind": kind, "token": token} for seat, (kind, token) in sorted(seats.items())},
        }
        if not self.r.set(self.layout.bots(shard, gid), orjson.dumps(doc), nx=True, px=BOT_SEATS_TTL_MS):
            rej = RejectionInfo(code=GAME_EXISTS, message=f"game {gid} exists already (it has bot seats)")
            cid = envelope.command_id
            raise GameNotCreated(Outcome(command_id=cid, game_id=gid, shard=shard, status="rejected", rejection=rej))
        self.r.sadd(self.layout.bot_games(shard), gid)

    def bot_seats(self, game_id: str) -> dict[int, str]:
        """The seats of a game played by the bots process, with their bot kind (empty once the game ended)."""
        raw = self.r.get(self.layout.bots(self.layout.shard_of(game_id), game_id))
        if raw is None:
            return {}
        return {int(seat): spec["kind"] for seat, spec in orjson.loads(raw)["seats"].items()}

    def game_info(self, game_id: str) -> dict[str, Any] | None:
        """The game's name, players, settings, seed, status, version and result (None: no such game)."""
        meta = eventstore.read_meta(self.r, self.layout, game_id)
        if meta is None:
            return None
        meta.pop("tokens", None)
        info: dict[str, Any] = dict(meta)
        for key in ("players", "settings", "result"):
            if key in info:
                info[key] = orjson.loads(info[key])
        for key in ("version", "seed"):
            if key in info:
                info[key] = int(info[key])
        return info

    def read_events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        """The game's events after version ``after`` (also for a game already moved to its archive)."""
        return eventstore.read_events(self.r, self.layout, game_id, after)

    # --- commands -------------------------------------------------------------------------------------
    def envelope(
        self,
        game_id: str,
        seat: int,
        token: str,
        payload: dict[str, Any],
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
    ) -> CommandEnvelope:
        """Build (and validate) a command envelope."""
        return CommandEnvelope(
            command_id=command_id or new_id(),
            game_id=game_id,
            seat=seat,
            token=token,
            expected_version=expected_version,
            payload=payload,
        )

    def submit(
        self,
        game_id: str,
        seat: int,
        token: str,
        payload: dict[str, Any],
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
    ) -> str:
        """Put a command on its game's shard stream; returns its command id (then :meth:`wait` for it)."""
        env = self.envelope(game_id, seat, token, payload, expected_version=expected_version, command_id=command_id)
        return self.submit_many([env])[0]

    def submit_many(self, envelopes: Sequence[CommandEnvelope | CreateEnvelope]) -> list[str]:
        """Submit several commands (or creations) in one pipelined round trip, in order; returns their ids."""
        pipe = self.r.pipeline(transaction=False)
        for env in envelopes:
            fields = env.to_fields()
            size = max(len(fields.get("payload", b"")), len(fields.get("settings", b"")))
            if size > self.max_payload:
                raise ValueError(f"payload of {size} bytes exceeds {self.max_payload}")
            pipe.xadd(self.layout.cmds(self.layout.shard_of(env.game_id)), fields)
        pipe.execute()
        return [env.command_id for env in envelopes]

    def outcome(self, game_id: str, command_id: str) -> Outcome | None:
        """The recorded outcome of a command, if it has one yet (does not wait)."""
        raw = self.r.get(self.layout.outcome(self.layout.shard_of(game_id), game_id, command_id))
        return Outcome.model_validate_json(raw) if raw is not None else None

    def wait(self, game_id: str, command_id: str, timeout: float = 10.0) -> Outcome:
        """Block until the command's outcome arrives; raises TimeoutError after ``timeout`` seconds."""
        shard = self.layout.shard_of(game_id)
        reply_key = self.layout.reply(shard, game_id, command_id)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # BLPOP wakes as soon as the worker pushes the reply; short slices keep the outcome key as a
            # fallback (a reply list that expired, or was taken by another waiter on the same command).
            got = self.r.blpop([reply_key], timeout=max(0.01, min(left, 1.0)))
            if got is not None:
                return Outcome.model_validate_json(got[1])
            known = self.outcome(game_id, command_id)
            if known is not None:
                return known
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no outcome for command {command_id} of game {game_id} in {timeout}s")

    def send(
        self,
        game_id: str,
        seat: int,
        token: str,
        payload: dict[str, Any],
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
        timeout: float = 10.0,
    ) -> Outcome:
        """Submit a command and wait for its outcome."""
        cid = self.submit(game_id, seat, token, payload, expected_version=expected_version, command_id=command_id)
        return self.wait(game_id, cid, timeout)

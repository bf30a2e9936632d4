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
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.connection import connect
from services.bus.envelope import MAX_PAYLOAD, CommandEnvelope, CreateEnvelope, Outcome, hash_token
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
    ) -> NewGame:
        """Open a game; waits for the worker's answer unless ``timeout`` is None.

        The seat tokens are generated here; only their sha256 travels and is stored. The seed is drawn here
        when not given, so that it is recorded (the game's first event names it).
        Raises :class:`GameNotCreated` on a rejection, TimeoutError when no answer comes in time.
        """
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
        self.r.xadd(self.layout.cmds(self.layout.shard_of(envelope.game_id)), envelope.to_fields())
        outcome = None
        if timeout is not None:
            outcome = self.wait(envelope.game_id, envelope.command_id, timeout)
            if not outcome.accepted:
                raise GameNotCreated(outcome)
        return NewGame(envelope.game_id, tokens, envelope.seed, envelope.command_id, outcome)

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

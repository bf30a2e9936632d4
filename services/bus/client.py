"""The bus's client: create a game, submit commands, wait for their outcome (the command streams and the
replies only; reading a game's events and metadata is the store's: :class:`services.client.ServiceClient` is this
client plus those reads).

Example::

    client = BusClient(connect())
    game = client.create_game("shadow", ["Ann", "Bob", "Cid", "Dee"], seed=7)
    outcome = client.send(game.game_id, seat=0, token=game.tokens[0], payload={"type": "Pass"},
                          expected_version=12)
    if not outcome.accepted:
        print(outcome.rejection.code, outcome.rejection.message)

A command id is chosen by the client (128 random bits unless given) and belongs to the sending seat. Submitting
the same command again under its id is safe: the worker answers a retried command with its first outcome and
writes nothing; the same id with other content is refused (``command_id_conflict``).

The seat token never leaves this process: a command carries a proof (an HMAC of the command keyed with the
token's sha256, see services/bus/envelope.py) and a creation the tokens' digests only.

Bot seats: ``create_game(..., bots={1: "random", 3: "heuristic"})`` hands those seats to the bots process
(``python -m services.bots``): the game's ``bots`` key names their kinds, and their tokens are thrown away at
once (the bots process signs with the seat digests stored in the game's metadata; see services/bots/runner.py).
The creator gets the tokens of the other seats only.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.connection import connect, is_redirect, pipeline_by_slot, refresh_slots, slot_client
from services.bus.envelope import (
    GAME_EXISTS,
    MAX_PAYLOAD,
    CommandEnvelope,
    CreateEnvelope,
    Outcome,
    RejectionInfo,
    conflict_outcome,
    hash_token,
    new_id,
    seat_key,
)
from services.bus.keys import CREATE_SCOPE, Layout
from services.rules.fair import commitment

__all__ = ["BOT_KIND_RE", "BusClient", "GameNotCreated", "NewGame", "new_id"]


@dataclass(frozen=True, slots=True)
class NewGame:
    """A created game: its id and one secret token per seat (only the creator ever sees them; a bot seat's is
    ``""``: nobody keeps it)."""

    game_id: str
    tokens: list[str]
    seed: int | None
    """The seed the creator chose (a practice table); None: the referee drew it, and keeps it secret until the end."""
    command_id: str
    outcome: Outcome | None
    commitment: str
    """The sha256 commitment to the seed the game publishes (services/rules/fair.py), for a game whose seed decides
    something hidden or left to chance."""


class GameNotCreated(Exception):
    """The worker refused to create the game (``outcome.rejection`` says why)."""

    def __init__(self, outcome: Outcome) -> None:
        rej = outcome.rejection
        super().__init__(f"{rej.code}: {rej.message}" if rej else outcome.status)
        self.outcome = outcome


BOT_KIND_RE = re.compile(r"^[a-z0-9_-]{1,32}$")
BOT_SEATS_TTL_MS = 30 * 24 * 3600 * 1000
"""Safety net: a game's bot seats are dropped after this even if nobody cleans them up."""


class BusClient:
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
        player_ids: Sequence[str | None] | None = None,
        tokens: Mapping[int, str] | None = None,
    ) -> NewGame:
        """Open a game; waits for the worker's answer unless ``timeout`` is None.

        The seat tokens are generated here; only their sha256 travels and is stored. The seed is drawn here from
        a CSPRNG when not given (63 bits: no seat can search the seeds that deal the hand it holds), with the salt
        of its commitment (256 bits); the game records both, sealed until its end, and publishes the commitment
        (services/rules/fair.py). A ``seed`` given here marks the table as a practice table: the caller (the
        gateway) allows it only where nobody can gain from it. The answer names the seed only when it was given.

        ``player_ids``: one stable player id per seat (None for a seat without one), stored in the game's
        metadata: the leaderboard counts a player's games under it (a name is only shown). Checked here (ValueError:
        1 to 64 characters of ``[A-Za-z0-9_.:-]``, unique, one per player).

        ``bots`` maps seats to a bot kind (``"random"``, ``"heuristic"``, see services/bots/kinds.py): those
        seats are played by the bots process. Their kinds are written to the game's ``bots`` key (SET NX,
        so an existing game's bot seats are never replaced) *before* the creation is submitted, so the bots
        process knows the game's bot seats from its very first event; the key holds no secret (the bots sign
        with the seat digests of the game's metadata), and their tokens are forgotten here at once.
        ``tokens``: seats whose token the caller chose (the gateway's open seats, see services/gateway/lobby.py);
        the others are drawn here.
        Raises ValueError on a bad ``bots`` map, bad names or player ids (pydantic's ValidationError is one),
        :class:`GameNotCreated` on a rejection, TimeoutError when no answer comes in time.
        """
        bot_seats = dict(bots or {})
        for seat, kind in bot_seats.items():
            if not (isinstance(seat, int) and 0 <= seat < len(players)):
                raise ValueError(f"bot seat {seat!r} is not a seat of this game (0..{len(players) - 1})")
            if not (isinstance(kind, str) and BOT_KIND_RE.match(kind)):
                raise ValueError(f"bot kind {kind!r} is not a valid name")
        chosen = dict(tokens or {})
        seat_tokens = [chosen.get(seat) or secrets.token_urlsafe(32) for seat in range(len(players))]
        envelope = CreateEnvelope(
            command_id=command_id or new_id(),
            game_id=game_id or new_id(),
            game_name=game_name,
            players=list(players),
            settings=settings or {},
            seed=draw_seed() if seed is None else seed,
            salt=secrets.token_hex(32),
            practice=seed is not None,
            token_hashes=[hash_token(t) for t in seat_tokens],
            player_ids=None if player_ids is None else list(player_ids),
        )
        seat_tokens = ["" if seat in bot_seats else token for seat, token in enumerate(seat_tokens)]
        shard = self.layout.shard_of(envelope.game_id)
        if bot_seats:
            self._hand_to_bots(envelope, shard, bot_seats)
        self.r.xadd(self.layout.cmds(shard), envelope.to_fields())
        outcome = None
        if timeout is not None:
            outcome = self.wait_on(envelope, timeout)
            if not outcome.accepted:
                if bot_seats:
                    # The key is ours (SET NX succeeded above): a game that was never created has no bots.
                    self.r.delete(self.layout.bots(shard, envelope.game_id))
                raise GameNotCreated(outcome)
        assert envelope.salt is not None
        proof = commitment(envelope.seed, envelope.salt)
        return NewGame(envelope.game_id, seat_tokens, seed, envelope.command_id, outcome, proof)

    def _hand_to_bots(self, envelope: CreateEnvelope, shard: int, seats: Mapping[int, str]) -> None:
        gid = envelope.game_id
        doc = {
            "created_ms": int(time.time() * 1000),
            "seats": {str(seat): {"kind": kind} for seat, kind in sorted(seats.items())},
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
        """Build (and validate) a command envelope, signed with the seat's ``token`` (which is not sent)."""
        return CommandEnvelope.signed(
            seat_key(token),
            command_id=command_id or new_id(),
            game_id=game_id,
            seat=seat,
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
        commands: list[tuple[str, tuple[Any, ...]]] = []
        for env in envelopes:
            fields = env.to_fields()
            size = max(len(fields.get("payload", b"")), len(fields.get("settings", b"")))
            if size > self.max_payload:
                raise ValueError(f"payload of {size} bytes exceeds {self.max_payload}")
            key = self.layout.cmds(self.layout.shard_of(env.game_id))
            commands.append((key, ("XADD", key, "*", *(item for pair in fields.items() for item in pair))))
        for res in pipeline_by_slot(self.r, commands):
            if isinstance(res, Exception):
                raise res
        return [env.command_id for env in envelopes]

    def outcome(self, game_id: str, seat: int | None, command_id: str) -> Outcome | None:
        """The recorded outcome of ``seat``'s command (None: of a game creation), if it has one (does not wait).

        A refusal of a sender that proved no seat (wrong token, unknown game) is not recorded: only replied.
        """
        raw = self.r.get(self.layout.outcome(self.layout.shard_of(game_id), game_id, _scope(seat), command_id))
        return Outcome.model_validate_json(raw) if raw is not None else None

    def outcome_of(self, env: CommandEnvelope | CreateEnvelope) -> Outcome | None:
        """:meth:`outcome` of a submitted envelope."""
        return self.outcome(env.game_id, _seat_of(env), env.command_id)

    def wait(
        self, game_id: str, seat: int | None, command_id: str, timeout: float = 10.0, digest: str | None = None
    ) -> Outcome:
        """Block until the outcome of ``seat``'s command (None: a creation) arrives; TimeoutError after ``timeout``.

        ``digest``: the content digest of the command waited for; a stored outcome of another command under
        the same id is then answered as the worker will answer it, ``command_id_conflict``.
        """
        shard = self.layout.shard_of(game_id)
        reply_key = self.layout.reply(shard, game_id, _scope(seat), command_id)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # BLPOP wakes as soon as the worker pushes the reply; short slices keep the outcome key as a
            # fallback (a reply list that expired, or was taken by another waiter on the same command).
            try:
                got = slot_client(self.r, reply_key).blpop([reply_key], timeout=max(0.01, min(left, 1.0)))
            except redis.ResponseError as err:
                if not is_redirect(err):
                    raise
                refresh_slots(self.r)
                continue
            if got is not None:
                return Outcome.model_validate_json(got[1])
            known = self.outcome(game_id, seat, command_id)
            if known is not None:
                if digest is not None and not known.answers(digest):
                    return conflict_outcome(command_id, game_id, shard, digest)
                return known
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no outcome for command {command_id} of game {game_id} in {timeout}s")

    def wait_on(self, env: CommandEnvelope | CreateEnvelope, timeout: float = 10.0) -> Outcome:
        """:meth:`wait` for a submitted envelope."""
        return self.wait(env.game_id, _seat_of(env), env.command_id, timeout, digest=env.digest())

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
        env = self.envelope(game_id, seat, token, payload, expected_version=expected_version, command_id=command_id)
        self.submit_many([env])
        return self.wait_on(env, timeout)


def draw_seed() -> int:
    """A game's seed, from the operating system's CSPRNG: 63 bits, too many for a seat to search the seeds that
    would deal what it sees."""
    return secrets.randbelow(2**63)


def _scope(seat: int | None) -> str:
    return CREATE_SCOPE if seat is None else str(seat)


def _seat_of(env: CommandEnvelope | CreateEnvelope) -> int | None:
    return env.seat if isinstance(env, CommandEnvelope) else None

"""What travels on a shard's command stream, and the reply a submitter gets back.

A stream entry is a flat map of string fields (Redis stream entries are field/value maps; keeping the ids
outside the JSON payload means a command id can still be read, and answered, when the payload is garbage).

A **command** (``kind`` absent or ``"cmd"``)::

    id       command id chosen by the client, [A-Za-z0-9_.:-]{1,128}; scoped to the sending seat (the same id
             sent by two seats names two commands); clients pick unguessable ids (:func:`new_id`)
    game     game id, [A-Za-z0-9_.-]{1,64}
    seat     the sending seat, decimal int (0-based)
    proof    HMAC-SHA256 (hex) of this one command, keyed with the sha256 digest of the seat's token (the
             digest stored with the game): see :func:`command_proof`. It proves the seat without being a
             secret anyone could reuse: it is bound to (game, seat, command id, expected version, payload),
             so a copy read from Redis or its AOF can neither be replayed for another command nor be used
             as a token at the gateway. The raw token never travels on the bus.
    ver      optional expected version: the number of events the client believes the game has
    reply    optional ``events``: the reply of an accepted command carries its events; ``none``: no reply at
             all (a submitter that never waits, e.g. the bots, which read outcomes; it saves Redis a reply
             list per command). Not part of the command's content, nor of its proof
    payload  the command as a JSON object (at most MAX_PAYLOAD bytes); the worker sets ``payload["seat"]``
             from ``seat`` and rejects a payload that names another seat

A **game creation** (``kind = "create"``)::

    id, game     as above (the client picks the game id)
    name         the game's name in the registry (e.g. ``"shadow"``)
    players      JSON list of player names, one per seat
    settings     JSON object
    seed         decimal int; recorded by the game's first event (a secret of the referee until the game ends)
    salt         optional, 64 hex digits: the salt of the seed's commitment (``SeedCommitted``), drawn with the seed
    practice     optional, ``1``: the creator chose the seed (a practice table)
    tokens       JSON list of sha256 hex digests of the seats' secret tokens (the secrets never travel)
    player_ids   optional JSON list, one per seat: a stable player id (:data:`services.bus.names.PLAYER_ID_RE`,
                 unique) or null; who sits there across games (the leaderboard ranks by it). Not a secret

The **outcome** (:class:`Outcome`) is stored under (game, scope, command id), the scope being the seat (or
``new`` for a creation), and pushed to the submitter's reply list; it is ``accepted`` (with the version range of
the new events), ``rejected`` (with a typed ``{code, message}``) or ``dead_letter`` (processing failed on the
command's own content; the reason is in ``rejection``). It carries ``digest``, the sha256 of the command's
content (:func:`content_digest`): the same id sent again with other content is refused as
``command_id_conflict`` instead of being answered with the first outcome.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.base import summarize_validation_error
from services.bus.keys import COMMAND_ID_RE, CREATE_SCOPE, GAME_ID_RE
from services.bus.names import PlayerIds, PlayerNames

MAX_PAYLOAD = 64 * 1024
"""Upper bound of a command payload (and of create settings), in bytes."""
MAX_PLAYERS = 16
HEX64 = r"^[0-9a-f]{64}$"

# Rejection codes the service adds to those a game's ``decide`` returns.
BAD_ENVELOPE = "bad_envelope"
UNKNOWN_GAME = "unknown_game"
WRONG_TOKEN = "wrong_token"
STALE_VERSION = "stale_version"
PAYLOAD_TOO_LARGE = "payload_too_large"
NOT_JSON = "not_json"
BAD_COMMAND = "bad_command"
GAME_OVER = "game_over"
GAME_EXISTS = "game_exists"
DEAD_LETTER = "dead_letter"
COMMAND_ID_CONFLICT = "command_id_conflict"


_ID_BYTES = 16
_POOL_BYTES = 4096
_pool = bytearray()
_pool_lock = threading.Lock()


def _drop_pool() -> None:
    # A forked child must not hand out the ids its parent will hand out too.
    global _pool
    _pool = bytearray()


os.register_at_fork(after_in_child=_drop_pool)


def new_id() -> str:
    """A fresh, unguessable id for a game or a command (128 random bits of the OS's CSPRNG, as
    ``secrets.token_hex(16)``).

    Drawn from a pool of ``os.urandom`` bytes filled 256 ids at a time: one system call per id released the GIL
    on the gateway's event loop, and taking it back behind a busy thread cost more than the id."""
    global _pool
    with _pool_lock:
        if len(_pool) < _ID_BYTES:
            _pool = bytearray(os.urandom(_POOL_BYTES))
        chunk = bytes(_pool[-_ID_BYTES:])
        del _pool[-_ID_BYTES:]
    return chunk.hex()


def hash_token(token: str) -> str:
    """The sha256 hex digest a seat token is stored as."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_key(token: str) -> bytes:
    """The key a seat signs its commands with: the sha256 of its token (raw bytes of what is stored as hex)."""
    return hashlib.sha256(token.encode()).digest()


def _canonical(value: Any) -> bytes:
    # Sorted keys: the same command serialized in another key order (a client's retry, JSON re-parsed by the
    # worker) gives the same bytes. The worker re-parses the payload from the stream, so whatever the client
    # signs must survive a JSON round trip unchanged, which orjson's own output does.
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def command_proof(
    key: bytes, game_id: str, seat: int, command_id: str, expected_version: int | None, payload: dict[str, Any]
) -> str:
    """HMAC-SHA256 (hex) of one command under a seat's key (:func:`seat_key`)."""
    message = _canonical([game_id, seat, command_id, expected_version, payload])
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def content_digest(seat: int | None, expected_version: int | None, payload: Any) -> str:
    """The sha256 (hex) of a command's content, stored with its outcome: a command id sent again with other
    content (another payload or expected version) is a ``command_id_conflict``, not a duplicate."""
    return hashlib.sha256(_canonical([seat, expected_version, payload])).hexdigest()


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CommandEnvelope(_Strict):
    """A seat's command as submitted, with the proof that the seat sent it."""

    command_id: str = Field(pattern=COMMAND_ID_RE.pattern)
    game_id: str = Field(pattern=GAME_ID_RE.pattern)
    seat: int = Field(ge=0, lt=MAX_PLAYERS)
    proof: str = Field(pattern=HEX64)
    expected_version: int | None = Field(default=None, ge=0)
    payload: dict[str, Any]
    reply_events: bool = False
    """Ask for the command's events in the reply (the gateway does, to answer without reading them back); not
    part of the command's content: a retry with or without it is the same command."""
    no_reply: bool = False
    """Push no reply (the submitter never waits on it; it reads the stored outcome if it cares). Not part of
    the command's content either."""

    @model_validator(mode="after")
    def _one_reply_mode(self) -> CommandEnvelope:
        if self.no_reply and self.reply_events:
            raise ValueError("reply_events and no_reply exclude each other")
        return self

    @classmethod
    def signed(
        cls,
        key: bytes,
        *,
        command_id: str,
        game_id: str,
        seat: int,
        payload: dict[str, Any],
        expected_version: int | None = None,
        reply_events: bool = False,
        no_reply: bool = False,
    ) -> CommandEnvelope:
        """An envelope whose proof is computed with the seat's ``key`` (:func:`seat_key` of its token)."""
        proof = command_proof(key, game_id, seat, command_id, expected_version, payload)
        return cls(
            command_id=command_id,
            game_id=game_id,
            seat=seat,
            proof=proof,
            expected_version=expected_version,
            payload=payload,
            reply_events=reply_events,
            no_reply=no_reply,
        )

    @property
    def scope(self) -> str:
        """Where this command's outcome and reply live: its seat's scope of command ids."""
        return str(self.seat)

    def digest(self) -> str:
        """The sha256 of this command's content (see :func:`content_digest`)."""
        return content_digest(self.seat, self.expected_version, self.payload)

    def verify(self, stored_digest: str) -> bool:
        """Whether the proof was made with the key of the token whose sha256 hex is ``stored_digest``."""
        try:
            key = bytes.fromhex(stored_digest)
        except ValueError:
            return False
        expected = command_proof(key, self.game_id, self.seat, self.command_id, self.expected_version, self.payload)
        return hmac.compare_digest(expected, self.proof)

    def to_fields(self) -> dict[str, bytes]:
        """The stream entry for this command."""
        fields = {
            "id": self.command_id.encode(),
            "game": self.game_id.encode(),
            "seat": str(self.seat).encode(),
            "proof": self.proof.encode(),
            "payload": orjson.dumps(self.payload),
        }
        if self.expected_version is not None:
            fields["ver"] = str(self.expected_version).encode()
        if self.reply_events:
            fields["reply"] = b"events"
        elif self.no_reply:
            fields["reply"] = b"none"
        return fields


class CreateEnvelope(_Strict):
    """A request to open a new game."""

    command_id: str = Field(pattern=COMMAND_ID_RE.pattern)
    game_id: str = Field(pattern=GAME_ID_RE.pattern)
    game_name: str = Field(min_length=1, max_length=64)
    players: PlayerNames = Field(min_length=1, max_length=MAX_PLAYERS)
    """One name per seat, checked by :func:`services.bus.names.check_player_names` (trimmed, unique...)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    seed: int = Field(ge=0, lt=2**64)
    token_hashes: list[str]
    player_ids: PlayerIds | None = None
    salt: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """The salt of the seed's commitment (the client draws it with the seed); None: no commitment is recorded."""
    practice: bool = False
    """The creator chose the seed: a practice table (recorded by the commitment)."""
    """One stable player id per seat (or None for a seat without one), checked by
    :func:`services.bus.names.check_player_ids`; None: no seat has one. Stored in the game's metadata."""

    @model_validator(mode="after")
    def _one_player_id_per_seat(self) -> CreateEnvelope:
        if self.player_ids is not None and len(self.player_ids) != len(self.players):
            raise ValueError(f"player_ids has {len(self.player_ids)} entries for {len(self.players)} players")
        return self

    @property
    def scope(self) -> str:
        """Where a creation's outcome and reply live (no seat sends it)."""
        return CREATE_SCOPE

    def digest(self) -> str:
        """The sha256 of this creation's content (a creation id sent again with other content conflicts)."""
        content: list[Any] = [self.game_name, self.players, self.settings, self.seed, self.token_hashes]
        if self.player_ids is not None:
            # Only when given: a creation without player ids keeps the digest it always had.
            content.append(self.player_ids)
        if self.salt is not None:  # likewise: a creation without a commitment keeps its digest
            content.append([self.salt, self.practice])
        return content_digest(None, None, content)

    def to_fields(self) -> dict[str, bytes]:
        """The stream entry for this creation."""
        fields = {
            "kind": b"create",
            "id": self.command_id.encode(),
            "game": self.game_id.encode(),
            "name": self.game_name.encode(),
            "players": orjson.dumps(self.players),
            "settings": orjson.dumps(self.settings),
            "seed": str(self.seed).encode(),
            "tokens": orjson.dumps(self.token_hashes),
        }
        if self.player_ids is not None:
            fields["player_ids"] = orjson.dumps(self.player_ids)
        if self.salt is not None:
            fields["salt"] = self.salt.encode()
        if self.practice:
            fields["practice"] = b"1"
        return fields


class RejectionInfo(_Strict):
    """A typed refusal: stable machine-readable ``code``, a plain sentence and the ids of the rulings the command
    broke (a rules rejection's; empty for the service's own refusals)."""

    code: str
    message: str
    rulings: tuple[str, ...] = ()


class Outcome(_Strict):
    """The one outcome of a command, correlated by (game, scope, ``command_id``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    command_id: str
    game_id: str
    shard: int
    status: Literal["accepted", "rejected", "dead_letter"]
    version: int | None = None
    """Accepted: the game's version after the command. Rejected: the version it was judged at (if known)."""
    first_version: int | None = None
    """Accepted: the version of the first new event (``version - events + 1``)."""
    events: int = 0
    over: bool = False
    """Whether the game is over after this command."""
    rejection: RejectionInfo | None = None
    digest: str | None = None
    """The sha256 of the content of the command this outcome answers (None: unknown, e.g. an unreadable entry)."""
    event_data: list[Any] | None = None
    """Accepted, in the reply the submitter pops only: the events' JSON, ``first_version`` first (the stored
    outcome, read by a retry or a late waiter, does not carry them)."""

    def __eq__(self, other: object) -> bool:
        # The same outcome whether or not it carries its events (the reply does, the stored outcome does not).
        if not isinstance(other, Outcome):
            return NotImplemented
        return self.model_dump(exclude={"event_data"}) == other.model_dump(exclude={"event_data"})

    def __hash__(self) -> int:
        return hash((self.command_id, self.game_id, self.status, self.version, self.digest))

    @property
    def accepted(self) -> bool:
        """Whether the command was accepted."""
        return self.status == "accepted"

    def answers(self, digest: str) -> bool:
        """Whether this outcome may answer a command with content ``digest`` (same content, or unknown)."""
        return self.digest is None or hmac.compare_digest(self.digest, digest)


def conflict_outcome(command_id: str, game_id: str, shard: int, digest: str | None) -> Outcome:
    """The answer to a command id that already names a command with other content."""
    return Outcome(
        command_id=command_id,
        game_id=game_id,
        shard=shard,
        status="rejected",
        digest=digest,
        rejection=RejectionInfo(
            code=COMMAND_ID_CONFLICT,
            message=f"command id {command_id!r} was used already for another command of this seat; use a new id",
        ),
    )


summarize = summarize_validation_error

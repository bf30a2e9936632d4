"""What travels on a shard's command stream, and the reply a submitter gets back.

A stream entry is a flat map of string fields (Redis stream entries are field/value maps; keeping the ids
outside the JSON payload means a command id can still be read, and answered, when the payload is garbage).

A **command** (``kind`` absent or ``"cmd"``)::

    id       command id chosen by the client, [A-Za-z0-9_.:-]{1,128}; unique per game (a uuid4 hex is fine)
    game     game id, [A-Za-z0-9_.-]{1,64}
    seat     the sending seat, decimal int (0-based)
    token    the seat's secret token (from create_game)
    token_sha256  instead of ``token``, only in an entry an operator put back from the dead letters
             (``throne dead-letters retry``): a dead letter keeps the token's digest, never the token, and
             whoever can write the stream can already write the game's keys, so the digest grants no more
    ver      optional expected version: the number of events the client believes the game has
    payload  the command as a JSON object (at most MAX_PAYLOAD bytes); the worker sets ``payload["seat"]``
             from ``seat`` and rejects a payload that names another seat

A **game creation** (``kind = "create"``)::

    id, game     as above (the client picks the game id)
    name         the game's name in the registry (e.g. ``"shadow"``)
    players      JSON list of player names, one per seat
    settings     JSON object
    seed         decimal int; recorded by the game's first event
    tokens       JSON list of sha256 hex digests of the seats' secret tokens (the secrets never travel)

The **outcome** (:class:`Outcome`) is stored under the command id (duplicate check) and pushed to the
submitter's reply list; it is ``accepted`` (with the version range of the new events), ``rejected`` (with a
typed ``{code, message}``) or ``dead_letter`` (processing failed too often; the reason is in ``rejection``).
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from events.base import summarize_validation_error
from services.bus.keys import COMMAND_ID_RE, GAME_ID_RE
from services.bus.names import PlayerNames

MAX_PAYLOAD = 64 * 1024
"""Upper bound of a command payload (and of create settings), in bytes."""
MAX_TOKEN = 256
MAX_PLAYERS = 16

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


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CommandEnvelope(_Strict):
    """A seat's command as submitted."""

    command_id: str = Field(pattern=COMMAND_ID_RE.pattern)
    game_id: str = Field(pattern=GAME_ID_RE.pattern)
    seat: int = Field(ge=0, lt=MAX_PLAYERS)
    token: str = Field(max_length=MAX_TOKEN)
    expected_version: int | None = Field(default=None, ge=0)
    payload: dict[str, Any]
    token_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """Set (and ``token`` empty) only for a command put back from the dead letters: see ``token_sha256``."""

    def presented_digest(self) -> str:
        """The sha256 of the token the sender presented, to compare with the seat's stored digest."""
        return self.token_digest if self.token_digest is not None else hash_token(self.token)

    def to_fields(self) -> dict[str, bytes]:
        """The stream entry for this command."""
        fields = {
            "id": self.command_id.encode(),
            "game": self.game_id.encode(),
            "seat": str(self.seat).encode(),
            "token": self.token.encode(),
            "payload": orjson.dumps(self.payload),
        }
        if self.token_digest is not None:
            del fields["token"]
            fields["token_sha256"] = self.token_digest.encode()
        if self.expected_version is not None:
            fields["ver"] = str(self.expected_version).encode()
        return fields


class CreateEnvelope(_Strict):
    """A request to open a new game."""

    command_id: str = Field(pattern=COMMAND_ID_RE.pattern)
    game_id: str = Field(pattern=GAME_ID_RE.pattern)
    game_name: str = Field(min_length=1, max_length=64)
    players: PlayerNames = Field(min_length=1, max_length=MAX_PLAYERS)
    """One name per seat, checked by :func:`services.bus.names.check_player_names` (trimmed, unique...)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    seed: int
    token_hashes: list[str]

    def to_fields(self) -> dict[str, bytes]:
        """The stream entry for this creation."""
        return {
            "kind": b"create",
            "id": self.command_id.encode(),
            "game": self.game_id.encode(),
            "name": self.game_name.encode(),
            "players": orjson.dumps(self.players),
            "settings": orjson.dumps(self.settings),
            "seed": str(self.seed).encode(),
            "tokens": orjson.dumps(self.token_hashes),
        }


class RejectionInfo(_Strict):
    """A typed refusal: stable machine-readable ``code`` and a plain sentence."""

    code: str
    message: str


class Outcome(_Strict):
    """The one outcome of a command, correlated by ``command_id``."""

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

    @property
    def accepted(self) -> bool:
        """Whether the command was accepted."""
        return self.status == "accepted"


class EnvelopeError(Exception):
    """A stream entry that cannot be turned into an envelope.

    ``command_id``/``game_id`` hold whatever could be recovered, so the worker can still answer; with no
    usable command id the entry can only go to the dead-letter stream.
    """

    def __init__(self, code: str, message: str, command_id: str | None, game_id: str | None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.command_id = command_id
        self.game_id = game_id


def hash_token(token: str) -> str:
    """The sha256 hex digest a seat token is stored as."""
    return hashlib.sha256(token.encode()).hexdigest()


summarize = summarize_validation_error


def _text(fields: dict[bytes, bytes], name: bytes) -> str | None:
    raw = fields.get(name)
    if raw is None:
        return None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return None


def _json(fields: dict[bytes, bytes], name: bytes, ids: tuple[str, str | None], limit: int) -> Any:
    raw = fields.get(name)
    if raw is None:
        raise EnvelopeError(BAD_ENVELOPE, f"missing field {name.decode()!r}", *ids)
    if len(raw) > limit:
        raise EnvelopeError(PAYLOAD_TOO_LARGE, f"field {name.decode()!r} is {len(raw)} bytes (limit {limit})", *ids)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise EnvelopeError(NOT_JSON, f"field {name.decode()!r} is not JSON: {exc}", *ids) from None


def _int(fields: dict[bytes, bytes], name: bytes, ids: tuple[str, str | None]) -> int | None:
    raw = fields.get(name)
    if raw is None or raw == b"":
        return None
    try:
        return int(raw)
    except ValueError:
        raise EnvelopeError(BAD_ENVELOPE, f"field {name.decode()!r} is not an integer", *ids) from None


def parse_entry(fields: dict[bytes, bytes], max_payload: int = MAX_PAYLOAD) -> CommandEnvelope | CreateEnvelope:
    """Turn a raw stream entry into an envelope, or raise :class:`EnvelopeError` saying why not.

    Sizes are checked before any JSON is parsed, so a huge entry costs a length check, not a parse.
    """
    cid = _text(fields, b"id")
    if cid is None or not COMMAND_ID_RE.match(cid):
        raise EnvelopeError(BAD_ENVELOPE, "missing or invalid command id (field 'id')", None, None)
    gid = _text(fields, b"game")
    if gid is None or not GAME_ID_RE.match(gid):
        raise EnvelopeError(BAD_ENVELOPE, "missing or invalid game id (field 'game')", cid, None)
    ids = (cid, gid)
    kind = fields.get(b"kind", b"cmd")
    try:
        if kind == b"cmd":
            seat = _int(fields, b"seat", ids)
            if seat is None:
                raise EnvelopeError(BAD_ENVELOPE, "missing field 'seat'", *ids)
            token = _text(fields, b"token")
            digest = _text(fields, b"token_sha256") if token is None else None
            if token is None and digest is None:
                raise EnvelopeError(BAD_ENVELOPE, "missing or undecodable field 'token'", *ids)
            return CommandEnvelope(
                command_id=cid,
                game_id=gid,
                seat=seat,
                token=token or "",
                token_digest=digest,
                expected_version=_int(fields, b"ver", ids),
                payload=_json(fields, b"payload", ids, max_payload),
            )
        if kind == b"create":
            name = _text(fields, b"name")
            seed = _int(fields, b"seed", ids)
            if name is None or seed is None:
                raise EnvelopeError(BAD_ENVELOPE, "a create needs fields 'name' and 'seed'", *ids)
            return CreateEnvelope(
                command_id=cid,
                game_id=gid,
                game_name=name,
                players=_json(fields, b"players", ids, max_payload),
                settings=_json(fields, b"settings", ids, max_payload),
                seed=seed,
                token_hashes=_json(fields, b"tokens", ids, max_payload),
            )
    except ValidationError as exc:
        raise EnvelopeError(BAD_ENVELOPE, summarize(exc), *ids) from None
    raise EnvelopeError(BAD_ENVELOPE, f"unknown kind {kind[:32]!r}", *ids)

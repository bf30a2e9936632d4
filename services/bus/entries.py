"""Reading a raw stream entry (a flat map of byte fields, see services/bus/envelope.py) into an envelope.

Sizes are checked before any JSON is parsed; an entry that cannot be read raises :class:`EnvelopeError` with
whatever ids could be recovered, so the worker can still answer it (or dead-letter it).
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from services.bus.envelope import (
    BAD_ENVELOPE,
    MAX_PAYLOAD,
    MAX_PLAYERS,
    NOT_JSON,
    PAYLOAD_TOO_LARGE,
    CommandEnvelope,
    CreateEnvelope,
    summarize,
)  # fmt: skip
from services.bus.keys import COMMAND_ID_RE, CREATE_SCOPE, GAME_ID_RE, NO_SCOPE


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


def entry_scope(fields: dict[bytes, bytes]) -> str:
    """The scope of a raw entry's outcome: its seat, ``new`` for a creation, ``_`` when it names no usable seat."""
    if fields.get(b"kind") == b"create":
        return CREATE_SCOPE
    seat = fields.get(b"seat", b"")
    if seat.isdigit() and len(seat) <= 2 and int(seat) < MAX_PLAYERS:
        return str(int(seat))
    return NO_SCOPE


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
            proof = _text(fields, b"proof")
            if proof is None:
                # (An entry with a raw 'token' field comes from an old client: tokens are not accepted on the bus.)
                raise EnvelopeError(BAD_ENVELOPE, "missing field 'proof' (the seat's HMAC of the command)", *ids)
            return CommandEnvelope(
                command_id=cid,
                game_id=gid,
                seat=seat,
                proof=proof,
                expected_version=_int(fields, b"ver", ids),
                payload=_json(fields, b"payload", ids, max_payload),
                reply_events=fields.get(b"reply") == b"events",
                no_reply=fields.get(b"reply") == b"none",
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
                player_ids=_json(fields, b"player_ids", ids, max_payload) if b"player_ids" in fields else None,
                salt=_text(fields, b"salt"),
                practice=fields.get(b"practice") == b"1",
            )
    except ValidationError as exc:
        raise EnvelopeError(BAD_ENVELOPE, summarize(exc), *ids) from None
    raise EnvelopeError(BAD_ENVELOPE, f"unknown kind {kind[:32]!r}", *ids)

"""The lobby: list games, open seats a player can claim, and leaving a seat (handed to a bot).

Open seats
    A game may be created with seats left open (``open`` in ``POST /games``). An open seat's token is not drawn
    at random but derived: ``HMAC-SHA256(seat key, game id / seat / nonce)``, the nonce public and random. The
    game's metadata holds the token's sha256 as for every seat, so the rules worker, the bots and the token
    checks need nothing new; the seat key lives only in the gateways' environment (``THRONE_SEAT_KEY``, the same
    for every gateway of a deployment), never in Redis. So Redis holds no token and no way to make one: the
    game's ``seats`` hash keeps only the nonce of each open seat, and a claim removes it atomically (one Lua
    script), so exactly one claimer receives the token. A game with open seats is listed in its shard's
    ``lobby`` zset until the last one is claimed.

Listing
    ``GET /games`` walks the shards' zsets newest first (live games by creation time, ended ones by end time,
    the lobby for ``status=open``), merges them, reads the metadata of at most :data:`MAX_SCAN` candidates in
    one pipelined round trip, and filters them by game name and player. The answer is bounded whatever the
    filters: a page may hold fewer than ``limit`` games and still have a ``next`` cursor (the scan budget ran
    out). Archived games are not listed (their ids stay valid for every read).

Leaving
    A seat's player may leave (resign) a running game: the seat is handed to the game's default bot, which plays
    it to the end (the referee's ruling is in each game's RULES.md), and the seat's token may no longer send
    commands (403 ``seat_left``); it still reads what the seat may read.

What anonymous requests make the service keep is bounded: the lobby zsets are trimmed to the newest
:data:`LOBBY_MAX` games and to :data:`OPEN_TTL_MS`, and a ``seats`` hash expires :data:`OPEN_TTL_MS` after its
last write (the rate limits of :mod:`services.gateway.limits` bound how fast they grow).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.client import BOT_SEATS_TTL_MS
from services.bus.keys import GAME_ID_RE, Layout
from services.log import get_logger
from services.store.meta import GameMeta

SEAT_KEY_ENV = "THRONE_SEAT_KEY"
MAX_LIMIT = 50
"""Most games one page lists."""
MAX_SCAN = 100
"""Most candidates one request reads the metadata of."""
LOBBY_MAX = 10_000
"""Most games a shard's lobby zset keeps (the newest)."""
OPEN_TTL_MS = 7 * 24 * 3600 * 1000
"""An open seat not claimed within this time is no longer offered."""
STATUSES = ("open", "running", "over")

_CLAIM = """
local field = 'open.' .. ARGV[1]
local nonce = redis.call('HGET', KEYS[1], field)
if not nonce then return false end
redis.call('HDEL', KEYS[1], field)
for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(name, 1, 5) == 'open.' then return nonce end
end
redis.call('ZREM', KEYS[2], ARGV[2])
return nonce
"""


class LobbyError(Exception):
    """A refusal of the lobby: an HTTP status, a stable code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def seat_key_from_env() -> bytes:
    """The key open seats' tokens are derived with: ``THRONE_SEAT_KEY`` (any text, the same for every gateway of
    a deployment), else a random key of this process (open seats then can be claimed only through it, until it
    stops: :func:`services.serve` sets one for its gateway)."""
    text = os.environ.get(SEAT_KEY_ENV)
    if text:
        return hashlib.sha256(text.encode()).digest()
    get_logger("gateway").warning("gateway.seat_key_random", hint=f"set {SEAT_KEY_ENV} for claims across restarts")
    return secrets.token_bytes(32)


def open_seat_token(key: bytes, game_id: str, seat: int, nonce: str) -> str:
    """The token of an open seat: derived from the gateways' key, the game, the seat and the seat's nonce."""
    digest = hmac.new(key, f"throne-open-seat/{game_id}/{seat}/{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


CURSOR_PATTERN = r"^[0-9]{1,16}\." + GAME_ID_RE.pattern.removeprefix("^")
"""A cursor's shape: ``<score>.<game id>`` (the OpenAPI document publishes it)."""
CURSOR_RE = re.compile(CURSOR_PATTERN)


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a listing goes on: before ``(score, game_id)`` in newest-first order (any cursor of the published
    shape :data:`CURSOR_PATTERN` is a place in that order)."""

    score: int
    game_id: str

    def encode(self) -> str:
        """The cursor as the opaque text the client sends back."""
        return f"{self.score}.{self.game_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor:
        """A cursor from its text (:class:`LobbyError` 422 ``bad_cursor``)."""
        if CURSOR_RE.fullmatch(text) is None:
            raise LobbyError(422, "bad_cursor", "the cursor is not one this lobby gave out")
        score, _, gid = text.partition(".")
        return cls(int(score), gid)

    def after(self, score: int, game_id: str) -> bool:
        """Whether ``(score, game_id)`` comes after this cursor in newest-first order."""
        return (score, game_id) < (self.score, self.game_id)


@dataclass(frozen=True, slots=True)
class OpenSeats:
    """The seats of a new game left open for claims, with their nonces."""

    nonces: Mapping[int, str]

    def tokens(self, key: bytes, game_id: str) -> dict[int, str]:
        """Each open seat's token."""
        return {seat: open_seat_token(key, game_id, seat, nonce) for seat, nonce in self.nonces.items()}


class Lobby:
    """The lobby's reads and writes on one Redis and key layout (blocking: call it from the thread pool)."""

    def __init__(self, client: redis.Redis, layout: Layout, seat_key: bytes) -> None:
        self.r = client
        self.layout = layout
        self.key = seat_key
        self._claim = client.register_script(_CLAIM)

    # --- open seats -----------------------------------------------------------------------------------
    def new_open_seats(self, seats: Sequence[int]) -> OpenSeats:
        """Fresh nonces for the seats a game leaves open."""
        return OpenSeats({seat: secrets.token_hex(8) for seat in seats})

    def offer(self, game_id: str, open_seats: OpenSeats, now_ms: int | None = None) -> None:
        """Record a created game's open seats and list it in the lobby (trimming the lobby to its bounds)."""
        if not open_seats.nonces:
            return
        now = int(time.time() * 1000) if now_ms is None else now_ms
        shard = self.layout.shard_of(game_id)
        key, lobby = self.layout.seats(shard, game_id), self.layout.lobby(shard)
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(key, mapping={f"open.{seat}": nonce for seat, nonce in open_seats.nonces.items()})
        pipe.pexpire(key, OPEN_TTL_MS)
        pipe.zadd(lobby, {game_id: now})
        pipe.zremrangebyscore(lobby, "-inf", now - OPEN_TTL_MS)
        pipe.zremrangebyrank(lobby, 0, -LOBBY_MAX - 1)
        pipe.execute()

    def claim(self, game_id: str, seat: int) -> str:
        """Take an open seat: its token (once; :class:`LobbyError` 409 ``seat_taken`` when it is not open)."""
        shard = self.layout.shard_of(game_id)
        nonce = self._claim(keys=[self.layout.seats(shard, game_id), self.layout.lobby(shard)], args=[seat, game_id])
        if nonce is None:
            raise LobbyError(409, "seat_taken", f"seat {seat} of game {game_id} is not open (claimed, or never was)")
        return open_seat_token(self.key, game_id, seat, nonce.decode() if isinstance(nonce, bytes) else nonce)

    def open_seats(self, game_id: str) -> list[int]:
        """The seats of a game still open."""
        raw = self.r.hkeys(self.layout.seats(self.layout.shard_of(game_id), game_id))
        return _seats_of(raw, "open.")

    # --- leaving --------------------------------------------------------------------------------------
    def leave(self, game_id: str, seat: int, bot_kind: str) -> None:
        """Hand ``seat`` to a bot of ``bot_kind`` and record that its player left (one transaction; the bots
        process takes the seat over at its next sweep)."""
        shard = self.layout.shard_of(game_id)
        bots_key, seats_key = self.layout.bots(shard, game_id), self.layout.seats(shard, game_id)
        now = int(time.time() * 1000)
        with self.r.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(bots_key)
                    raw = pipe.get(bots_key)
                    doc = orjson.loads(raw) if raw else {"created_ms": now, "seats": {}}
                    if str(seat) in doc["seats"]:
                        pipe.unwatch()
                        raise LobbyError(409, "seat_is_bot", f"seat {seat} is played by a bot already")
                    doc["seats"][str(seat)] = {"kind": bot_kind}
                    pipe.multi()
                    pipe.set(bots_key, orjson.dumps(doc), px=BOT_SEATS_TTL_MS)
                    pipe.sadd(self.layout.bot_games(shard), game_id)
                    pipe.hset(seats_key, f"left.{seat}", now)
                    pipe.pexpire(seats_key, BOT_SEATS_TTL_MS)
                    pipe.execute()
                    return
                except redis.WatchError:
                    continue

    def bot_seats(self, game_id: str) -> dict[int, str]:
        """The seats of a game played by bots, with their kinds."""
        raw = self.r.get(self.layout.bots(self.layout.shard_of(game_id), game_id))
        return _bot_kinds(raw)

    # --- listing --------------------------------------------------------------------------------------
    def list(
        self,
        *,
        status: str | None = None,
        game: str | None = None,
        player: str | None = None,
        limit: int = 20,
        cursor: Cursor | None = None,
    ) -> tuple[list[dict[str, Any]], Cursor | None]:
        """One page of games, newest first, and the cursor of the next page (None: no more)."""
        limit = max(1, min(limit, MAX_LIMIT))
        scan = min(MAX_SCAN, 2 * limit)
        candidates, exhausted = self._candidates(status, scan, cursor)
        page = candidates[:scan]
        wanted_player = player.casefold() if player else None
        pipe = self.r.pipeline(transaction=False)
        for _, gid in page:
            shard = self.layout.shard_of(gid)
            pipe.hgetall(self.layout.meta(shard, gid))
            pipe.hkeys(self.layout.seats(shard, gid))
            pipe.get(self.layout.bots(shard, gid))
        replies = pipe.execute() if page else []
        games: list[dict[str, Any]] = []
        seen = 0
        for i, (_score, gid) in enumerate(page):
            seen = i + 1
            raw_meta, seat_fields, bots = replies[3 * i : 3 * i + 3]
            if not raw_meta:
                continue
            meta = GameMeta.parse(gid, raw_meta)
            open_now = _seats_of(seat_fields, "open.")
            listed = "over" if meta.status != "active" else "open" if open_now else "running"
            if status is not None and listed != status:
                continue
            if game is not None and meta.name != game:
                continue
            if wanted_player is not None and not _plays(meta, wanted_player):
                continue
            games.append(_entry(meta, listed, open_now, _bot_kinds(bots), _seats_of(seat_fields, "left.")))
            if len(games) == limit:
                break
        more = seen < len(candidates) or not exhausted
        last = Cursor(*page[seen - 1]) if seen else None
        return games, (last if more else None)

    def _candidates(self, status: str | None, scan: int, cursor: Cursor | None) -> tuple[list[tuple[int, str]], bool]:
        """Up to ``scan`` (score, game id) pairs after ``cursor``, newest first, merged over the shards' zsets;
        and whether those zsets hold nothing further."""
        lay = self.layout
        keys: list[str] = []
        for shard in range(lay.shards):
            if status == "open":
                keys.append(lay.lobby(shard))
            if status in (None, "running"):
                keys.append(lay.games(shard))
            if status in (None, "over"):
                keys.append(lay.ended(shard))
        top = "+inf" if cursor is None else cursor.score
        # One more than the budget per key: then a key that returns fewer is known to be exhausted.
        pipe = self.r.pipeline(transaction=False)
        for key in keys:
            pipe.zrevrangebyscore(key, top, "-inf", start=0, num=scan + 1, withscores=True)
        found: dict[str, int] = {}
        exhausted = True
        for rows in pipe.execute():
            if len(rows) > scan:
                exhausted = False
            for member, score in rows:
                gid = member.decode() if isinstance(member, bytes) else member
                if cursor is None or cursor.after(int(score), gid):
                    found[gid] = max(found.get(gid, 0), int(score))
        ordered = sorted(((score, gid) for gid, score in found.items()), reverse=True)
        return ordered, exhausted


def _seats_of(fields: Sequence[Any] | None, prefix: str) -> list[int]:
    out = []
    for raw in fields or ():
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            out.append(int(name[len(prefix) :]))
    return sorted(out)


def _bot_kinds(raw: bytes | None) -> dict[int, str]:
    if not raw:
        return {}
    try:
        return {int(seat): str(spec["kind"]) for seat, spec in orjson.loads(raw)["seats"].items()}
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return {}


def _plays(meta: GameMeta, wanted: str) -> bool:
    """Whether ``wanted`` (casefolded) is one of the game's player names or player ids."""
    names = [p.casefold() for p in meta.players]
    ids = [p.casefold() for p in (meta.player_ids or ()) if p]
    return wanted in names or wanted in ids


def _entry(meta: GameMeta, status: str, open_seats: list[int], bots: dict[int, str], left: list[int]) -> dict[str, Any]:
    """One game of a listing: what anyone may know of it (no token, no digest)."""
    ids = meta.player_ids or (None,) * len(meta.players)
    seats = [
        {
            "seat": i,
            "player": name,
            "player_id": ids[i] if i < len(ids) else None,
            "open": i in open_seats,
            "bot": bots.get(i),
            "left": i in left,
        }
        for i, name in enumerate(meta.players)
    ]
    return {
        "game_id": meta.game_id,
        "game": meta.name,
        "status": status,
        "version": meta.version,
        "created_ms": meta.created_ms,
        "ended_ms": meta.ended_ms,
        "players": list(meta.players),
        "open_seats": open_seats,
        "seats": seats,
        "result": meta.result,
    }

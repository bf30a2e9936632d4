"""The webhooks of a game: registered per seat through the gateway, read by the webhooks process.

A game's webhooks are one hash (``<tag>:game:<gid>:hooks``): field ``<seat>:<hook id>``, value the hook as
JSON (seat, URL, kinds, the signing key, creation time). Fields are named by seat so that a seat can count,
list and delete only its own hooks; nothing one seat does touches another seat's fields.

The signing key (the secret shown once at registration) is kept: HMAC signing needs the key itself, so it
cannot be stored as a digest the way seat tokens are. It is written only into this hash (never into a log, an
outbox entry or an answer after the first), and is worth only forging notices to that one receiver: whoever can
read Redis can already act for every seat (docs/pages/security.md). Deleting the hook deletes its key.

Registration is one script, so the per-seat cap holds however many requests race: it refuses a game that does
not exist or has ended, counts the seat's hooks, adds the new one, adds the game to its shard's ``hookgames``
set, and, when the game had no webhook, sets the game's checkpoint (``hooked``) to the game's current version,
so the webhooks process notifies from the next commit on (what came before is at the seat's events route). A
game that already has webhooks keeps its checkpoint: their notices still owed are not skipped.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from services.bus.keys import Layout
from services.webhooks.signing import new_secret

MAX_PER_SEAT = 4
"""Webhooks one seat of one game may have at once (default of the gateway's limit)."""

_REGISTER = """
local status = redis.call('HGET', KEYS[3], 'status')
local version = redis.call('HGET', KEYS[3], 'version')
if not version then return {'NOGAME'} end
if status and status ~= 'active' then return {'OVER'} end
local prefix = ARGV[1] .. ':'
local n = 0
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, #prefix) == prefix then n = n + 1 end
end
if n >= tonumber(ARGV[4]) then return {'FULL', tostring(n)} end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SET', KEYS[2], version)  -- no hook was listening: nothing before now is owed to anyone
else
  redis.call('SET', KEYS[2], version, 'NX')
end
redis.call('HSET', KEYS[1], prefix .. ARGV[2], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[5])
return {'OK', version}
"""


class HookRefused(Exception):
    """Registration refused: ``code`` ``unknown_game``, ``game_over`` or ``too_many_webhooks``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Hook:
    """One webhook of one seat of one game."""

    id: str
    game_id: str
    seat: int
    url: str
    kinds: tuple[str, ...]
    key: str
    """The signing key (the secret shown once): never logged, never answered again."""
    created_ms: int

    @property
    def field(self) -> str:
        """Its field in the game's hooks hash."""
        return f"{self.seat}:{self.id}"

    def to_json(self) -> bytes:
        """As stored."""
        return orjson.dumps(
            {"id": self.id, "seat": self.seat, "url": self.url, "kinds": list(self.kinds), "key": self.key,
             "created_ms": self.created_ms}
        )  # fmt: skip

    @classmethod
    def parse(cls, game_id: str, raw: bytes | str) -> Hook:
        """From its stored JSON."""
        d = orjson.loads(raw)
        return cls(d["id"], game_id, int(d["seat"]), d["url"], tuple(d["kinds"]), d["key"], int(d["created_ms"]))

    def __repr__(self) -> str:  # never the key, wherever a hook ends up printed
        return f"Hook(id={self.id!r}, game_id={self.game_id!r}, seat={self.seat}, url={self.url!r})"


class HookStore:
    """Reads and writes the webhooks of games (synchronous Redis; the gateway calls it from its thread pool)."""

    def __init__(self, client: redis.Redis, layout: Layout) -> None:
        self.r = client
        self.layout = layout
        self._register = client.register_script(_REGISTER)

    def _keys(self, game_id: str) -> tuple[int, str]:
        shard = self.layout.shard_of(game_id)
        return shard, self.layout.hooks(shard, game_id)

    def register(
        self, game_id: str, seat: int, url: str, kinds: tuple[str, ...], *, max_per_seat: int = MAX_PER_SEAT
    ) -> Hook:
        """Add a webhook for ``seat`` (URL and kinds already checked); returns it with its new key. Raises
        :class:`HookRefused`."""
        shard, key = self._keys(game_id)
        hook = Hook("wh_" + secrets.token_hex(8), game_id, seat, url, kinds, new_secret(), int(time.time() * 1000))
        layout = self.layout
        keys = [key, layout.hooked(shard, game_id), layout.meta(shard, game_id), layout.hook_games(shard)]
        res = self._register(keys=keys, args=[seat, hook.id, hook.to_json(), max_per_seat, game_id])
        tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
        if tag == "NOGAME":
            raise HookRefused("unknown_game", f"no game {game_id}")
        if tag == "OVER":
            raise HookRefused("game_over", "the game is over: there is nothing left to notify")
        if tag == "FULL":
            raise HookRefused("too_many_webhooks", f"a seat has at most {max_per_seat} webhooks; delete one first")
        return hook

    def of_game(self, game_id: str) -> dict[str, Hook]:
        """Every webhook of a game, by field."""
        _, key = self._keys(game_id)
        return {f.decode(): Hook.parse(game_id, raw) for f, raw in self.r.hgetall(key).items()}

    def of_seat(self, game_id: str, seat: int) -> list[Hook]:
        """The webhooks of one seat, oldest first."""
        hooks = [h for h in self.of_game(game_id).values() if h.seat == seat]
        return sorted(hooks, key=lambda h: (h.created_ms, h.id))

    def get(self, game_id: str, field: str) -> Hook | None:
        """One webhook by its field (None: deleted, or gone with its ended game)."""
        _, key = self._keys(game_id)
        raw = self.r.hget(key, field)
        return None if raw is None else Hook.parse(game_id, raw)

    def delete(self, game_id: str, seat: int, hook_id: str) -> bool:
        """Delete one of ``seat``'s webhooks (and its counters); False if it has none of that id."""
        shard, key = self._keys(game_id)
        field = f"{seat}:{hook_id}"
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(key, field)
        pipe.hdel(self.layout.hook_status(shard, game_id), *(f"{field}:{c}" for c in STATUS_FIELDS))
        return bool(pipe.execute()[0])

    def status(self, game_id: str, hooks: list[Hook]) -> dict[str, dict[str, Any]]:
        """Delivery counters of ``hooks`` by hook id: ``delivered``, ``failed``, ``last_error``."""
        if not hooks:
            return {}
        shard = self.layout.shard_of(game_id)
        fields = [f"{h.field}:{c}" for h in hooks for c in STATUS_FIELDS]
        values = self.r.hmget(self.layout.hook_status(shard, game_id), fields)
        out: dict[str, dict[str, Any]] = {}
        for i, hook in enumerate(hooks):
            delivered, failed, error = values[3 * i : 3 * i + 3]
            out[hook.id] = {
                "delivered": int(delivered or 0),
                "failed": int(failed or 0),
                "last_error": error.decode() if error else None,
            }
        return out


STATUS_FIELDS = ("delivered", "failed", "error")
"""Counters kept per hook in the game's ``hookstat`` hash (``<seat>:<hook id>:<name>``)."""

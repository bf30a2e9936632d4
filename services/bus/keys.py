"""The Redis key layout, made for Redis Cluster from the start.

Games are spread over ``shards`` by a stable hash of the game id. Every key of a shard carries the hash tag
``{s<N>}``, so the whole shard (its command stream, its feed, the streams and snapshots of its games, its
lease) lives in one cluster slot, hence on one node, and one Lua script may touch all of those keys
atomically.

Keys of shard 17 (prefix ``throne``)::

    throne:{s17}:cmds                     stream   commands in (consumer group ``rules``)
    throne:{s17}:lease                    string   "<fencing token>:<worker id>", with a TTL
    throne:{s17}:fence                    counter  the last fencing token handed out
    throne:{s17}:feed                     stream   one entry per commit of the shard (game, versions), for followers
    throne:{s17}:dead                     stream   dead letters: unprocessable entries, with the reason
    throne:{s17}:games                    zset     live games by creation time (ms)
    throne:{s17}:ended                    zset     ended games by end time (ms), waiting to be archived
    throne:{s17}:game:<gid>:meta          hash     name, players, settings, seed, token hashes, version...
    throne:{s17}:game:<gid>:events        stream   the game's events; entry id ``0-<version>``
    throne:{s17}:game:<gid>:snap          hash     ``v`` (version) and ``d`` (decider snapshot bytes)
    throne:{s17}:game:<gid>:commands      stream   every accepted or rejected command; id ``<version>-<n>``
    throne:{s17}:game:<gid>:archive       string   zlib(JSON) of meta + every event, once off the hot path
    throne:{s17}:out:<gid>:<scope>:<cid>  string   the outcome of a command (duplicate check), with a TTL
    throne:{s17}:reply:<gid>:<scope>:<cid> list    the reply to the submitter (BLPOP), with a short TTL
    throne:{s17}:botgames                 set      games with seats played by the bots process
    throne:{s17}:game:<gid>:bots          string   JSON: the bot seats of a game (their kinds), until it ends
    throne:{s17}:game:<gid>:chat:<seat>   hash     a seat's chat cursor (version seen, menu shown), with a TTL
    throne:{s17}:game:<gid>:hooks         hash     the game's webhooks: hook id -> JSON (seat, url, kinds, key)
    throne:{s17}:game:<gid>:hookstat      hash     delivery counters of its webhooks (``<hook>:delivered`` ...)
    throne:{s17}:game:<gid>:hooked        string   the last version whose notices were queued (webhooks)
    throne:{s17}:hookgames                set      games with webhooks (the webhooks process sweeps it)
    throne:{s17}:webhooks                 stream   notices to deliver (consumer group ``deliver``)
    throne:{s17}:webhooks:failed          stream   notices given up on, with the reason (trimmed)
    throne:{s17}:clocks                   zset     clocked games by their next clock alarm (ms): the timer's work
    throne:{s17}:notices                  stream   clock notices (a seat's time runs low), for feeds and webhooks

The read models (projections/) have keys of their own, named by :class:`RMKeys` below; scratch keys of the
benchmarks by :func:`scratch`. No other module spells a key: tests/service/test_key_boundary.py keeps it so.

``<scope>`` is the sending seat (a command id is scoped to its seat: the same id sent by two seats names two
commands, and one seat's ids can never decide another seat's command), ``new`` for a game creation, ``_`` for
an entry that names no usable seat.
"""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import dataclass

GROUP = "rules"
"""The consumer group of the rules workers on every command stream."""
BOTS_GROUP = "bots"
"""The consumer group of the bots processes on every shard's event feed."""
WEBHOOKS_GROUP = "webhooks"
"""The consumer group of the webhooks processes on every shard's event feed."""
DELIVER_GROUP = "deliver"
"""The consumer group of the webhooks processes on every shard's outbox of notices."""
CLOCK_HOOKS_GROUP = "webhooks:clocks"
"""The consumer group of the webhooks processes on every shard's clock notices (a seat's time runs low)."""

DEFAULT_SHARDS = 16
DEFAULT_PREFIX = "throne"

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
COMMAND_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
NO_GAME = "_"
"""Stands for the game id in outcome/reply keys of an entry whose game id is unusable."""
CREATE_SCOPE = "new"
"""The scope of a game creation's command id (no seat sends it)."""
NO_SCOPE = "_"
"""The scope of an entry that names no usable seat."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Key names for a prefix and a number of shards. Clients and workers must agree on both."""

    prefix: str = DEFAULT_PREFIX
    shards: int = DEFAULT_SHARDS

    @classmethod
    def from_env(cls) -> Layout:
        """The layout named by THRONE_PREFIX / THRONE_SHARDS, else the defaults."""
        return cls(
            prefix=os.environ.get("THRONE_PREFIX", DEFAULT_PREFIX),
            shards=int(os.environ.get("THRONE_SHARDS", str(DEFAULT_SHARDS))),
        )

    def shard_of(self, game_id: str) -> int:
        """The shard of a game: crc32 of its id, stable across processes and Python versions."""
        return zlib.crc32(game_id.encode()) % self.shards

    def tag(self, shard: int) -> str:
        """The key prefix (with hash tag) that every key of ``shard`` starts with."""
        return f"{self.prefix}:{{s{shard}}}"

    # --- per shard ------------------------------------------------------------------------------------
    def cmds(self, shard: int) -> str:
        """The shard's command stream."""
        return f"{self.tag(shard)}:cmds"

    def lease(self, shard: int) -> str:
        """The shard's writer lease."""
        return f"{self.tag(shard)}:lease"

    def fence(self, shard: int) -> str:
        """The shard's fencing-token counter."""
        return f"{self.tag(shard)}:fence"

    def feed(self, shard: int) -> str:
        """The shard's feed: one entry per commit (game, first and last version; no event bodies)."""
        return f"{self.tag(shard)}:feed"

    def dead(self, shard: int) -> str:
        """The shard's dead-letter stream."""
        return f"{self.tag(shard)}:dead"

    def suspects(self, shard: int) -> str:
        """The shard's suspect commands being decided alone (hash: stream entry id -> worker id)."""
        return f"{self.tag(shard)}:suspects"

    def bot_games(self, shard: int) -> str:
        """The shard's games that have bot seats (set of game ids)."""
        return f"{self.tag(shard)}:botgames"

    def games(self, shard: int) -> str:
        """The shard's live games (zset by creation time)."""
        return f"{self.tag(shard)}:games"

    def clocks(self, shard: int) -> str:
        """The shard's clocked games by their next alarm (zset, ms): written with each commit, read by the timer."""
        return f"{self.tag(shard)}:clocks"

    def notices(self, shard: int) -> str:
        """The shard's clock notices (stream): a seat's time runs low."""
        return f"{self.tag(shard)}:notices"

    def ended(self, shard: int) -> str:
        """The shard's ended, not yet archived games (zset by end time)."""
        return f"{self.tag(shard)}:ended"

    def lobby(self, shard: int) -> str:
        """The shard's games with an open seat (zset by creation time; the gateway's lobby, see
        services/gateway/lobby.py)."""
        return f"{self.tag(shard)}:lobby"

    # --- per game -------------------------------------------------------------------------------------
    def meta(self, shard: int, game_id: str) -> str:
        """A game's metadata hash."""
        return f"{self.tag(shard)}:game:{game_id}:meta"

    def events(self, shard: int, game_id: str) -> str:
        """A game's event stream."""
        return f"{self.tag(shard)}:game:{game_id}:events"

    def snap(self, shard: int, game_id: str) -> str:
        """A game's latest snapshot."""
        return f"{self.tag(shard)}:game:{game_id}:snap"

    def commands(self, shard: int, game_id: str) -> str:
        """A game's command log: every accepted or rejected command, written with its events."""
        return f"{self.tag(shard)}:game:{game_id}:commands"

    def bots(self, shard: int, game_id: str) -> str:
        """A game's bot seats: JSON ``{"created_ms", "seats": {seat: {"kind"}}}`` (no secret: see services/bots)."""
        return f"{self.tag(shard)}:game:{game_id}:bots"

    def seats(self, shard: int, game_id: str) -> str:
        """A game's lobby record: ``open.<seat>`` (a public nonce) per open seat, ``left.<seat>`` (ms) per seat
        its player left (handed to a bot). No secret."""
        return f"{self.tag(shard)}:game:{game_id}:seats"

    def archive(self, shard: int, game_id: str) -> str:
        """A trimmed game's archive blob."""
        return f"{self.tag(shard)}:game:{game_id}:archive"

    def chat(self, shard: int, game_id: str, seat: int) -> str:
        """A seat's chat cursor (what its chat last showed it: version, menu, listing), with a TTL."""
        return f"{self.tag(shard)}:game:{game_id}:chat:{seat}"

    def hooks(self, shard: int, game_id: str) -> str:
        """A game's webhooks (hash: hook id -> JSON with the seat, URL, kinds and signing key)."""
        return f"{self.tag(shard)}:game:{game_id}:hooks"

    def hook_status(self, shard: int, game_id: str) -> str:
        """Delivery counters of a game's webhooks (hash: ``<hook>:delivered``, ``<hook>:failed``, ...)."""
        return f"{self.tag(shard)}:game:{game_id}:hookstat"

    def hooked(self, shard: int, game_id: str) -> str:
        """The last version of a game whose webhook notices were queued (the webhooks process's checkpoint)."""
        return f"{self.tag(shard)}:game:{game_id}:hooked"

    def hook_games(self, shard: int) -> str:
        """The shard's games that have webhooks (set of game ids)."""
        return f"{self.tag(shard)}:hookgames"

    def webhooks(self, shard: int) -> str:
        """The shard's outbox: notices waiting to be delivered to webhooks."""
        return f"{self.tag(shard)}:webhooks"

    def webhook_failures(self, shard: int) -> str:
        """The shard's notices the webhooks process gave up on, with the reason (trimmed)."""
        return f"{self.tag(shard)}:webhooks:failed"

    def outcome(self, shard: int, game_id: str, scope: str, command_id: str) -> str:
        """The recorded outcome of one command of ``scope`` (a seat, ``new``, ``_``); also the duplicate check."""
        return f"{self.tag(shard)}:out:{game_id}:{scope}:{command_id}"

    def reply(self, shard: int, game_id: str, scope: str, command_id: str) -> str:
        """The list the submitter of one command of ``scope`` waits on."""
        return f"{self.tag(shard)}:reply:{game_id}:{scope}:{command_id}"

    # --- patterns (SCAN) and names read back ----------------------------------------------------------
    def glob(self) -> str:
        """The prefix escaped for a SCAN pattern (``*``, ``?``, ``[`` and ``\\`` stand for themselves)."""
        return self.prefix.replace("\\", "\\\\").replace("[", "\\[").replace("?", "\\?").replace("*", "\\*")

    def everything(self) -> str:
        """A SCAN pattern of every key of this prefix (the benchmarks' clean-up)."""
        return f"{self.glob()}:*"

    def game_keys(self, part: str, shard: int | None = None) -> str:
        """A SCAN pattern of one kind of per-game key (``meta``, ``events`` ...) of ``shard`` (None: every
        shard)."""
        tag = f"{self.glob()}:{{s*}}" if shard is None else f"{self.glob()}:{{s{shard}}}"
        return f"{tag}:game:*:{part}"

    def game_of(self, key: bytes | str, part: str) -> tuple[int, str] | None:
        """The shard and game id of a per-game key of kind ``part`` of this layout (None: it is none, or its
        game belongs to another shard under this shard count)."""
        text = key.decode() if isinstance(key, bytes) else key
        if not text.startswith(f"{self.prefix}:") or not text.endswith(f":{part}"):
            return None
        head, sep, rest = text[len(self.prefix) + 1 : -len(part) - 1].partition(":game:")
        if not sep or not head.startswith("{s") or not head.endswith("}") or not head[2:-1].isdigit():
            return None
        shard = int(head[2:-1])
        if self.tag(shard) != f"{self.prefix}:{head}" or self.shard_of(rest) != shard:
            return None
        return shard, rest

    def family(self, key: bytes | str) -> str:
        """The kind of a key of this layout, for memory accounting: ``events``, ``out``, ``feed``, ``meta``..."""
        parts = (key.decode() if isinstance(key, bytes) else key).split(":")
        if len(parts) >= 5 and parts[2] == "game":
            return parts[-1]
        return parts[2] if len(parts) > 2 else "?"


LEADERBOARD_PARTS = (
    "counted", "games", "wins", "shared", "score", "scored", "name", "last", "rank", "member",
)  # fmt: skip
"""The keys of one game's leaderboard (projections/count_game.lua documents each)."""


@dataclass(frozen=True, slots=True)
class RMKeys:
    """Key names of the read models (projections/) for one layout; projections/store.py shows the layout.

    Per-game keys carry the game's shard hash tag, so a game's slice of a model and the model's checkpoint are
    in one cluster slot; each game name's leaderboard has a tag of its own (``{lb:<game>}``).
    """

    layout: Layout

    def tag(self, game_id: str) -> str:
        """The shard tag prefix of a game's read-model keys."""
        return f"{self.layout.tag(self.layout.shard_of(game_id))}:rm"

    def applied(self, shard: int, model: str) -> str:
        """A model's checkpoint hash on a shard: game id -> last applied version."""
        return f"{self.layout.tag(shard)}:rm:{model}:applied"

    def owed(self, shard: int) -> str:
        """The shard's results owed to the leaderboards (hash: game id -> JSON of the count's arguments),
        written with the scoreboard's checkpoint, removed once counted (see projections/tally.py)."""
        return f"{self.layout.tag(shard)}:rm:scoreboard:owed:leaderboard"

    def model_pattern(self, shard: int, model: str) -> str:
        """A SCAN pattern matching every key of ``model`` on ``shard`` (for a rebuild)."""
        # Redis glob treats [ and ] specially, braces not; the prefix is ours and holds neither.
        return f"{self.layout.tag(shard)}:rm:{model}:*"

    def scoreboard(self, game_id: str) -> str:
        """A game's scoreboard JSON."""
        return f"{self.tag(game_id)}:scoreboard:{game_id}"

    def replay_snaps(self, game_id: str) -> str:
        """A game's replay snapshots (hash version -> snapshot)."""
        return f"{self.tag(game_id)}:replay:{game_id}:snaps"

    def audit(self, game_id: str) -> str:
        """A game's audit stream (one entry per event, id 0-<version>)."""
        return f"{self.tag(game_id)}:audit:{game_id}"

    def audit_commands(self, game_id: str) -> str:
        """A game's audited commands (hash command id -> document)."""
        return f"{self.tag(game_id)}:audit:{game_id}:cmds"

    def feed(self, game_id: str) -> str:
        """A game's filtered event feed: one entry per version, with what differs per seat."""
        return f"{self.tag(game_id)}:feed:{game_id}"

    def feed_now(self, game_id: str) -> str:
        """A game's current views and legal commands per seat."""
        return f"{self.tag(game_id)}:feed:{game_id}:now"

    def leaderboard(self, game: str, part: str) -> str:
        """A key of the leaderboard of the game called ``game`` (registry name): one of
        :data:`LEADERBOARD_PARTS`."""
        return f"{self.layout.prefix}:{{lb:{game}}}:rm:leaderboard:{part}"

    def leaderboard_keys(self, game: str) -> list[str]:
        """Every key of one game's leaderboard, in :data:`LEADERBOARD_PARTS` order (count_game.lua's KEYS)."""
        return [self.leaderboard(game, part) for part in LEADERBOARD_PARTS]

    def leaderboard_pattern(self) -> str:
        """A SCAN pattern of every leaderboard key of every game (and of the single cross-game leaderboard of
        earlier versions, tagged ``{lb}``, so a rebuild clears it too)."""
        return f"{self.layout.prefix}:{{lb*}}:rm:leaderboard:*"


KEY_NAMERS = (RMKeys,)
"""Key namers besides :class:`Layout`, each built from a layout (the boundary test reads their key segments)."""


def scratch(family: str, name: str) -> str:
    """A benchmark's scratch key outside every layout, in a slot of its own: ``bench:{<family>}:<name>``."""
    return f"bench:{{{family}}}:{name}"


def parse_shards(spec: str, total: int) -> list[int]:
    """Shards named by ``"all"``, ``"3"``, ``"0-7"`` (inclusive) or a comma list of those."""
    if spec.strip() in ("", "all"):
        return list(range(total))
    out: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        first, last = int(lo), int(hi or lo)
        if not 0 <= first <= last < total:
            raise ValueError(f"shard range {part!r} outside 0..{total - 1}")
        out.update(range(first, last + 1))
    return sorted(out)

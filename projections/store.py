"""Where the read models live in Redis, and how a projection writes them (once per game and version).

Per-game keys carry the game's shard hash tag, so one game's slice of a model, and its checkpoint, are written
by one atomic script in one cluster slot. Keys of shard 17 (prefix ``throne``)::

    throne:{s17}:rm:<model>:applied            hash    game id -> last version applied (the model's checkpoint)
    throne:{s17}:rm:scoreboard:<gid>           string  the game's scoreboard (JSON)
    throne:{s17}:rm:replay:<gid>:snaps         hash    version -> rules snapshot, every N versions and the end
    throne:{s17}:rm:audit:<gid>                stream  id 0-<version>: ``e`` event JSON, ``t`` commit ms, ``c``
                                                       command id, ``x`` the presenter's explanation
    throne:{s17}:rm:audit:<gid>:cmds           hash    command id -> the command's audit document (JSON)
    throne:{s17}:rm:feed:<gid>                 stream  id 0-<version>: ``e``/``x`` the event and its text as the
                                                       spectators see it; ``e<seat>``/``x<seat>`` where a seat sees
                                                       it otherwise (``e<seat>`` empty: withheld from that seat)
    throne:{s17}:rm:feed:<gid>:now             hash    ``version``, ``over``, ``awaiting``, ``state`` (rules
                                                       snapshot), ``view:spec`` (the spectators'), per seat
                                                       ``view:<seat>`` (what differs from it)

The leaderboards span games, so each game name's has a tag of its own (``shadow``'s)::

    throne:{lb:shadow}:rm:leaderboard:counted                   set     game ids counted (each once)
    throne:{lb:shadow}:rm:leaderboard:games|wins|shared|score|scored|name|last|member
                                                                hashes  by player id: games, wins (in
                                                                        :data:`WIN_UNITS`), shared victories,
                                                                        score sum, games with a known score,
                                                                        display name last used and the end of
                                                                        the game it is from, rank member
    throne:{lb:shadow}:rm:leaderboard:rank                      zset    every player, ordered by member (see
                                                                        count_game.lua): best first

Each model reads the shards' feeds with its own consumer group ``proj:<model>``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import redis

from services.bus.faults import is_transient
from services.bus.keys import Layout

MODELS = ("scoreboard", "replay", "audit", "feed")
"""Every read model, in the order ``run`` starts them."""

LEADERBOARD_PARTS = ("counted", "games", "wins", "shared", "score", "scored", "name", "last", "rank", "member")
"""The keys of one game's leaderboard (projections/count_game.lua documents each)."""
WIN_UNITS = 720_720
"""A win counts this many units (the least common multiple of 1..16, so every split of a shared victory between
up to 16 winners is a whole number of units: wins stay exact integers, whatever order games are counted in)."""


def group_of(model: str) -> str:
    """The consumer group of a model on every shard's feed."""
    return f"proj:{model}"


@dataclass(frozen=True, slots=True)
class RMKeys:
    """Key names of the read models for one layout (prefix and shard count)."""

    layout: Layout

    def tag(self, game_id: str) -> str:
        """The shard tag prefix of a game's read-model keys."""
        return f"{self.layout.tag(self.layout.shard_of(game_id))}:rm"

    def applied(self, shard: int, model: str) -> str:
        """A model's checkpoint hash on a shard: game id -> last applied version."""
        return f"{self.layout.tag(shard)}:rm:{model}:applied"

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


@cache
def _source(name: str) -> str:
    return resources.files("projections").joinpath(f"{name}.lua").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class ProjectionScripts:
    """SHA1s of the projections' Lua scripts (loaded with SCRIPT LOAD; reload after NOSCRIPT)."""

    apply: str
    count_game: str

    @classmethod
    def load(cls, client: redis.Redis) -> ProjectionScripts:
        """Load both scripts and check the server's SHA1s are ours."""
        shas: dict[str, str] = {}
        for name in ("apply", "count_game"):
            sha = client.script_load(_source(name))
            text = sha.decode() if isinstance(sha, bytes) else sha
            assert text == hashlib.sha1(_source(name).encode()).hexdigest(), name
            shas[name] = text
        return cls(**shas)

    @classmethod
    def load_or_expect(cls, client: redis.Redis) -> ProjectionScripts:
        """:meth:`load`; while Redis is away or loading (a transient fault), the SHA1s they will have: the first
        EVALSHA then meets NOSCRIPT and the worker loads them (a worker started before Redis does not exit)."""
        try:
            return cls.load(client)
        except redis.RedisError as exc:
            if not is_transient(exc):
                raise
            return cls(**{name: hashlib.sha1(_source(name).encode()).hexdigest() for name in ("apply", "count_game")})


@dataclass(slots=True)
class Ops:
    """The writes of one game's slice of a model, for the apply script: ``(command, key, *args)`` in order."""

    keys: list[str] = field(default_factory=list)
    ops: list[tuple[str, int, tuple[Any, ...]]] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)

    def add(self, command: str, key: str, *args: Any) -> None:
        """Queue one write (``HSET``, ``XADD``, ``SET``, ``DEL`` ...) of ``key``."""
        idx = self._index.get(key)
        if idx is None:
            self.keys.append(key)
            idx = self._index[key] = len(self.keys) + 1  # KEYS[1] is the checkpoint
        self.ops.append((command, idx, args))

    def __len__(self) -> int:
        return len(self.ops)

    def script_args(self, checkpoint: str, game_id: str, expected: int, new: int) -> list[Any]:
        """``EVALSHA apply`` arguments after the SHA: numkeys, keys, then argv."""
        argv: list[Any] = [game_id, expected, new, len(self.ops)]
        for command, idx, args in self.ops:
            argv += [len(args) + 2, command, idx, *args]
        return [1 + len(self.keys), checkpoint, *self.keys, *argv]

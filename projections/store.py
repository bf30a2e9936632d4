"""Where the read models live in Redis, and how a projection writes them (once per game and version).

Per-game keys carry the game's shard hash tag, so one game's slice of a model, and its checkpoint, are written
by one atomic script in one cluster slot. Keys of shard 17 (prefix ``throne``)::

    throne:{s17}:rm:<model>:applied            hash    game id -> last version applied (the model's checkpoint)
    throne:{s17}:rm:scoreboard:<gid>           string  the game's scoreboard (JSON)
    throne:{s17}:rm:scoreboard:owed:leaderboard hash   game id -> its leaderboard count, owed with the checkpoint
                                                       until counted (projections/tally.py)
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

The names come from :class:`services.bus.keys.RMKeys` (re-exported here with :data:`LEADERBOARD_PARTS`): only
the key module and the store name keys.

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
from services.bus.keys import LEADERBOARD_PARTS, RMKeys

__all__ = ["LEADERBOARD_PARTS", "MODELS", "WIN_UNITS", "Ops", "ProjectionScripts", "RMKeys", "group_of"]

MODELS = ("scoreboard", "replay", "audit", "feed")
"""Every read model, in the order ``run`` starts them."""

WIN_UNITS = 720_720
"""A win counts this many units (the least common multiple of 1..16, so every split of a shared victory between
up to 16 winners is a whole number of units: wins stay exact integers, whatever order games are counted in)."""


def group_of(model: str) -> str:
    """The consumer group of a model on every shard's feed."""
    return f"proj:{model}"


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

"""Counting ended games into the leaderboards exactly once, across a crash at any point.

The difficulty: a game's scoreboard and its checkpoint live in the game's shard slot (``{s<N>}``), a game name's
leaderboard in a slot of its own (``{lb:<game>}``), and on Redis Cluster one script or MULTI may only touch
keys of one slot. So the count can not be in the checkpoint's script. Instead it is made of two steps, each
atomic in its own slot, joined by an owed record:

1. **Owe** (the game's slot, in the apply script that moves the scoreboard's checkpoint): the batch that ends a
   game also writes ``owed[<gid>] = {"game": <name>, "args": <count_game.lua's ARGV>}`` into the shard's owed
   hash (:meth:`services.bus.keys.RMKeys.owed`). The checkpoint and the debt move together or not at all: a
   crash before leaves neither (the batch is applied again), a crash after leaves both.
2. **Count** (the leaderboard's slot, count_game.lua): ``SADD counted <gid>`` and the totals in one script; a
   game already in ``counted`` changes nothing. Then the owed record is deleted.

A crash between 1 and 2 leaves the debt: :meth:`LeaderboardTally.settle_shards` pays it when a worker starts
and every recovery period. A crash between counting and deleting the record pays it again, and the counted set
makes that a no-op. A count that fails (Redis away, NOSCRIPT) likewise stays owed and is retried. So every
ended game is counted once, never twice and never not at all, and, because count_game.lua gives the same bytes
in any order, the leaderboard equals a rebuild from the events. A rebuild deletes the owed hashes with the
scoreboards and the leaderboards with them, then owes and counts every ended game again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis

from projections.base import GameCtx
from projections.store import Ops, ProjectionScripts, RMKeys


@dataclass(frozen=True, slots=True)
class Owed:
    """One ended game's count, owed to its game name's leaderboard."""

    shard: int
    game_id: str
    game: str
    args: list[Any]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class LeaderboardTally:
    """Owes an ended game's count with its checkpoint, then counts it (see the module docstring)."""

    def owe(self, ops: Ops, keys: RMKeys, ctx: GameCtx, args: list[Any]) -> None:
        """Queue, with the batch that ends the game, the record that its count is owed (step 1)."""
        record = orjson.dumps({"game": ctx.name, "args": args})
        ops.add("HSET", keys.owed(ctx.shard), ctx.game_id, record)

    def settle_games(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, games: Iterable[GameCtx]) -> int:
        """Count what ``games`` (just applied) owe, if anything; returns the games counted now."""
        by_shard: dict[int, list[str]] = {}
        for ctx in games:
            by_shard.setdefault(ctx.shard, []).append(ctx.game_id)
        if not by_shard:
            return 0
        pipe = r.pipeline(transaction=False)
        for shard, gids in by_shard.items():
            pipe.hmget(keys.owed(shard), gids)
        owed: list[Owed] = []
        for (shard, gids), values in zip(by_shard.items(), pipe.execute(), strict=True):
            owed += [self._parse(shard, gid, raw) for gid, raw in zip(gids, values, strict=True) if raw is not None]
        return self.pay(r, keys, scripts, owed)

    def settle_shards(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, shards: Iterable[int]) -> int:
        """Count every debt left on ``shards`` (by a worker that died, or a count that failed); returns the games
        counted now."""
        owed = [
            self._parse(shard, _text(gid), raw)
            for shard in shards
            for gid, raw in r.hscan_iter(keys.owed(shard), count=1000)
        ]
        return self.pay(r, keys, scripts, owed)

    def pay(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, owed: Sequence[Owed]) -> int:
        """Count ``owed`` into the leaderboards, then delete the records (step 2); returns the games counted now
        (the others were counted before)."""
        if not owed:
            return 0
        counted = self.count(r, keys, scripts, owed)
        self.forget(r, keys, owed)
        return counted

    def count(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, owed: Sequence[Owed]) -> int:
        """Run count_game.lua for each debt (a game counted before is skipped by the script)."""
        pipe = r.pipeline(transaction=False)
        for debt in owed:
            names = keys.leaderboard_keys(debt.game)
            # execute_command, not pipe.evalsha: redis-py refuses the latter in cluster pipelines.
            pipe.execute_command("EVALSHA", scripts.count_game, len(names), *names, *debt.args)
        return sum(int(n) for n in pipe.execute())

    def forget(self, r: redis.Redis, keys: RMKeys, owed: Sequence[Owed]) -> None:
        """Delete the owed records of counted games."""
        pipe = r.pipeline(transaction=False)
        for debt in owed:
            pipe.hdel(keys.owed(debt.shard), debt.game_id)
        pipe.execute()

    @staticmethod
    def _parse(shard: int, game_id: str, raw: bytes | str) -> Owed:
        doc = orjson.loads(raw)
        return Owed(shard, game_id, str(doc["game"]), list(doc["args"]))

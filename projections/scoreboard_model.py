"""The scoreboard read model, with each game's leaderboard (counted once per ended game, in the same
atomic step as the checkpoint)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import orjson
import redis

from projections.base import Applied, GameCtx, Projection
from projections.store import WIN_UNITS, Ops, ProjectionScripts, RMKeys
from projections.tally import LeaderboardTally
from services.rules.contract import Presenter, SharedWin, Standing


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=str)


# --- scoreboard and leaderboard ------------------------------------------------------------------------------
class ScoreboardModel(Projection):
    """Per game: live score, Emperor, round, phase and who is awaited. Per game name, its leaderboard: per player
    id, games, wins, shared victories, average score and the display name last used."""

    name = "scoreboard"

    def __init__(self, tally: LeaderboardTally | None = None) -> None:
        self.tally = tally or LeaderboardTally()

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """The scoreboard after the batch's last event; when the batch ends the game, its leaderboard count is
        owed with the checkpoint (projections/tally.py: counted exactly once, even across a crash)."""
        last = batch[-1]
        ops.add("SET", keys.scoreboard(ctx.game_id), _dumps(scoreboard_doc(ctx, last.state, last.version, last.at)))
        if ctx.rules.is_over(last.state):
            argv = leaderboard_count_args(ctx.presenter, last.state, ctx.game_id, ctx.players, ctx.player_ids, last.at)
            if argv is not None:
                self.tally.owe(ops, keys, ctx, argv)

    def after_apply(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, games: Sequence[GameCtx]) -> None:
        """Count the games that just ended into their leaderboards (what their apply owed)."""
        ended = [ctx for ctx in games if ctx.rules.is_over(ctx.state)]
        if ended:
            self.tally.settle_games(r, keys, scripts, ended)

    def settle(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, shards: Sequence[int]) -> None:
        """Count what a worker that died (or a count that failed) left owed on ``shards``."""
        self.tally.settle_shards(r, keys, scripts, shards)

    def clear_extra(self, r: redis.Redis, keys: RMKeys) -> None:
        """The leaderboards are rebuilt with the scoreboards."""
        for key in r.scan_iter(match=keys.leaderboard_pattern(), count=1000):
            r.delete(key)


def leaderboard_count_args(
    presenter: Presenter[Any],
    state: Any,
    game_id: str,
    players: Sequence[str],
    player_ids: Sequence[str | None] | None,
    ended_ms: int,
) -> list[Any] | None:
    """The arguments of count_game.lua for an ended game (None: it is not over).

    A practice table is not counted (None). Only seats with a player id are counted: a display name says nothing
    about who played (two people named "Red" are two people), so a seat without an id is on no leaderboard. A win
    counts as the game's :class:`~services.rules.contract.LeaderboardSpec` says (``shared_win``), in :data:`WIN_UNITS`.
    """
    standings = presenter.final_standings(state)
    if standings is None:
        return None
    if (presenter.rules.fairness(state) or {}).get("practice"):
        return None  # a practice table (its creator chose the seed) proves nothing: no leaderboard counts it
    spec = presenter.leaderboard
    winners = sum(1 for s in standings if s.won)
    argv: list[Any] = [game_id, f"{max(0, ended_ms):015d}:{game_id}"]
    for seat, name in enumerate(players):
        pid = player_ids[seat] if player_ids is not None and seat < len(player_ids) else None
        if pid is None:
            continue
        standing = standings[seat] if seat < len(standings) else Standing(score=None, won=False)
        units = win_units(spec.shared_win, winners) if standing.won else 0
        score = standing.score
        known = isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score)
        argv += [pid, name, units, "1" if standing.won and winners > 1 else "0", repr(score) if known else ""]
    return argv


def win_units(shared_win: SharedWin, winners: int) -> int:
    """What one winner among ``winners`` counts, in :data:`WIN_UNITS`, by the game's rule for a shared win."""
    if winners <= 1 or shared_win == "each":
        return WIN_UNITS
    if shared_win == "split":
        return WIN_UNITS // winners
    return 0  # "none": only a victory alone is a win


def scoreboard_doc(ctx: GameCtx, state: Any, version: int, at: int) -> dict[str, Any]:
    """The stored scoreboard of a game at ``version``: the presenter's public standing plus who is awaited."""
    board = dict(ctx.presenter.scoreboard(state))
    awaiting = list(ctx.rules.awaited(state))
    over = ctx.rules.is_over(state)
    board.update(
        {
            "game_id": ctx.game_id,
            "name": ctx.name,
            "version": version,
            "status": "over" if over else "active",
            "players": list(ctx.players),
            "awaiting": awaiting,
            "awaiting_names": [ctx.players[s] for s in awaiting if 0 <= s < len(ctx.players)],
            "updated_ms": at,
        }
    )
    fairness = ctx.rules.fairness(state)
    if fairness is not None:  # the commitment, a practice table's mark, and after the end the revealed seed
        board.update(practice=fairness["practice"], fairness=fairness)
    return board

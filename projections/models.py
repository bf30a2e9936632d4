"""The four read models: scoreboard (with each game's leaderboard, projections/scoreboard_model.py), replay (here),
audit (projections/audit_model.py) and seat feed (projections/feed_model.py).

Each turns a game's next events into writes; :mod:`projections.runner` applies them once per (game, version).
Every value written derives from the recorded events (their commit times included) and the event store, never
from the clock, so a rebuild from zero writes byte for byte what the live projection wrote.
"""

from __future__ import annotations

from typing import Any

from projections.audit_model import AuditModel
from projections.base import Applied, GameCtx, Projection
from projections.feed_model import FeedModel
from projections.scoreboard_model import ScoreboardModel
from projections.store import Ops, RMKeys

__all__ = ["ALL_MODELS", "REPLAY_SNAPSHOT_EVERY", "AuditModel", "FeedModel", "ReplayModel", "ScoreboardModel"]

REPLAY_SNAPSHOT_EVERY = 25
"""The replay model keeps a snapshot every this many versions: a seek folds at most this many events."""


# --- replay ----------------------------------------------------------------------------------------------------
class ReplayModel(Projection):
    """Snapshots of each game every :data:`REPLAY_SNAPSHOT_EVERY` versions and at its end, so that the board
    at any version is a restore plus a short fold of recorded events (never a rule re-run)."""

    name = "replay"

    def __init__(self, every: int = REPLAY_SNAPSHOT_EVERY) -> None:
        self.every = every

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """A snapshot at each multiple of ``every`` in the batch, and at the end of the game."""
        for a in batch:
            if a.version % self.every == 0 or (a is batch[-1] and ctx.rules.is_over(a.state)):
                ops.add("HSET", keys.replay_snaps(ctx.game_id), a.version, ctx.rules.snapshot(a.state))


ALL_MODELS: dict[str, type[Projection]] = {
    "scoreboard": ScoreboardModel,
    "replay": ReplayModel,
    "audit": AuditModel,
    "feed": FeedModel,
}

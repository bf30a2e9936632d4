"""What every projection shares: a game's context (rules, presenter, players, state at the applied version),
the events of one batch with the state after each, and the base class of a read model.

Game-agnostic: a game is its plug-in found by name in the registry (its ``rules`` and its ``presenter``, see
services/rules/contract.py); nothing here knows a rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import redis

from projections.store import Ops, ProjectionScripts, RMKeys
from services.rules.contract import Event, Presenter
from services.store.loaded import LoadedGame

GameCtx = LoadedGame
"""A game as one projection knows it: the store's one loaded-game type, at the last version the model applied."""


@dataclass(frozen=True, slots=True)
class Applied:
    """One event of a batch: its version, the parsed event and its JSON (as a dict), commit ms, command id, the
    state after it, and its JSON bytes as recorded."""

    version: int
    event: Event
    data: dict[str, Any]
    at: int
    command_id: str
    state: Any
    raw: bytes = b""


class Projection:
    """A read model: turns a game's new events into writes (``Ops``), applied once per (game, version).

    ``write`` must depend only on the events, the states and what ``prefetch`` read from the event store, so a
    rebuild from zero writes exactly what the live projection wrote.
    """

    name = "projection"

    def prefetch(self, r: redis.Redis, keys: RMKeys, games: Sequence[tuple[GameCtx, list[Applied]]]) -> dict[str, Any]:
        """Read what ``write`` needs beyond the events (e.g. the command log), for many games at once."""
        return {}

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """Queue the writes for ``batch`` (the game's next events, in order; ``before`` the state before it)."""
        raise NotImplementedError

    def after_apply(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, games: Sequence[GameCtx]) -> None:
        """Writes outside the games' slots, owed by what the apply of ``games`` just wrote (idempotent by
        themselves: a crash before them is made good by :meth:`settle`)."""

    def settle(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, shards: Sequence[int]) -> None:
        """Make good what earlier applies on ``shards`` left owed (at start and every recovery period)."""

    def clear_extra(self, r: redis.Redis, keys: RMKeys) -> None:
        """Delete the model's keys outside the shards (a rebuild clears the per-shard ones itself)."""


def shown_text(presenter: Presenter[Any], event: Event, shown: dict[str, Any], players: Sequence[str]) -> str:
    """The text of an event as a seat sees it: the presenter's safe ``summary`` of a redacted event."""
    if shown.get("redacted"):
        return str(shown.get("summary") or f"{shown.get('type', 'event')} (details hidden)")
    return str(presenter.describe(event, players))


@lru_cache(maxsize=4096)
def iso_ms(ms: int | None) -> str | None:
    """A ms timestamp as ISO 8601 UTC (None stays None)."""
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

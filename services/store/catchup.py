"""Catching a loaded game up on new events, without IO: what to read, and the game moved on by what was read
(or by events a caller holds already).

The repository (services/store/repository.py) runs these reads on its own client
(:meth:`~services.store.repository.GameRepository.get`); the gateway's event loop runs the same reads on its
asyncio client and hands the results back here, so both fold alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.bus.keys import Layout
from services.store.eventstore import event_id, version_of
from services.store.loaded import CorruptGame, LoadedGame, Record, fold_records
from services.store.meta import GameStatus

Read = tuple[str, tuple[Any, ...]]
"""One Redis read as ``(method, args)``, for a sync or an asyncio pipeline."""


class GameGone(LookupError):
    """The game's metadata is gone (deleted, or expired after its end)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


def catch_up_reads(layout: Layout, game: LoadedGame, upto: int | None = None) -> list[Read]:
    """The two reads that bring ``game`` up to its head (or to ``upto``): its version and status, and the
    events after its version."""
    gid, shard = game.game_id, game.shard
    last = "+" if upto is None else event_id(upto)
    return [
        ("hmget", (layout.meta(shard, gid), "version", "status")),
        ("xrange", (layout.events(shard, gid), event_id(game.version + 1), last)),
    ]


def caught_up(
    game: LoadedGame,
    meta: Sequence[bytes | None],
    entries: Sequence[Any],
    *,
    upto: int | None = None,
    keep_recent: int = 0,
) -> LoadedGame | None:
    """``game`` moved on by the results of :func:`catch_up_reads` (no IO); None: load the game instead (a gap:
    the stream was trimmed meanwhile, or it went to the archive). Raises :class:`GameGone` when the game's
    metadata is gone."""
    raw_version, raw_status = meta
    if raw_version is None:
        raise GameGone(game.game_id)
    stored = int(raw_version)
    status: GameStatus = raw_status.decode() if raw_status else "active"  # type: ignore[assignment]
    target = stored if upto is None else upto
    if target > stored:
        return None  # a version the game does not have: the cold load says so
    if not entries and game.version == target:
        return game if status == game.status else game.at(game.state, game.version, status)
    records = [(version_of(eid), fields[b"e"]) for eid, fields in entries]
    moved = advance(game, records, status, keep_recent=keep_recent)
    if moved is None or (moved.version < stored and status == "archived"):
        return None
    if upto is not None and moved.version != upto:
        return None
    # Events committed after HMGET ran are simply picked up next time.
    return moved


def advance(
    game: LoadedGame, records: Sequence[Record], status: GameStatus | None = None, *, keep_recent: int = 0
) -> LoadedGame | None:
    """``game`` moved on by recorded events ``(version, JSON)`` that follow it (no IO; e.g. the events a
    command's reply carries, or the feed's); None when they do not follow on (read the game instead).

    With ``keep_recent``, the moved game's ``recent`` holds at least that many events, and at least every event
    just folded (the caller renders them)."""
    recent = list(game.recent) if keep_recent else None
    try:
        state, version = fold_records(game.rules, game.state, game.version, records, recent, game_id=game.game_id)
    except CorruptGame:
        return None
    if recent is None:
        return game.at(state, version, status)
    keep = max(keep_recent, version - game.version)
    return game.at(state, version, status, recent[-keep:])

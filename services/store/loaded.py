"""The one loaded-game type every process holds, and the one fold that moves it on.

A :class:`LoadedGame` is a game rebuilt to a version: its typed metadata as read, its plug-in (rules and
presenter), its state, its version and status, and optionally the last few events folded with the state after
each. The repository (services/store/repository.py) builds them, keeps them current and caches them; the
gateway, the projections, the bots, the webhooks, the timer and the rules worker all hold this type.

:func:`fold_records` is the one contiguity-checked fold of recorded events onto a state; :class:`CorruptGame`
is what it raises when the events do not follow one another.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from services.bus.envelope import hash_token
from services.rules.contract import GamePlugin
from services.rules.table import Table, TablePresenter
from services.store.meta import GameMeta, GameStatus

History = list[tuple[int, Any, Any]]
"""Events as ``(version, event, state after it)``."""

Record = tuple[int, bytes | str | dict[str, Any]]
"""A recorded event as ``(version, its JSON)``."""


class CorruptGame(RuntimeError):
    """The stored events of a game do not fold: a gap, or fewer events than its metadata says."""


class FoldingRules(Protocol):
    """What folding needs of a game's rules (a part of the game contract, services/rules/contract.py)."""

    def initial_state(self) -> Any: ...
    def evolve(self, state: Any, event: Any) -> Any: ...
    def parse_event(self, raw: bytes | str | dict[str, Any]) -> Any: ...
    def restore(self, data: bytes) -> Any: ...


def fold_records(
    rules: FoldingRules,
    state: Any,
    version: int,
    records: Iterable[Record],
    history: History | None = None,
    *,
    game_id: str = "",
) -> tuple[Any, int]:
    """Fold recorded events ``(version, JSON)`` onto ``state`` at ``version``; those at or below ``version`` are
    skipped, each other must follow the last (:class:`CorruptGame` otherwise). ``history``: appended
    ``(version, event, state after it)``."""
    evolve, parse = rules.evolve, rules.parse_event
    for v, data in records:
        if v <= version:
            continue
        if v != version + 1:
            raise CorruptGame(f"game {game_id}: event {v} follows {version}")
        event = parse(data)
        state = evolve(state, event)
        version = v
        if history is not None:
            history.append((v, event, state))
    return state, version


def seat_of_token(digests: Iterable[str], token: str) -> int | None:
    """The seat whose token digest (sha256 hex) is ``token``'s, or None; every seat is compared, in constant
    time, so the answer's timing tells nothing of which seat matched."""
    digest = hash_token(token)
    found = None
    for seat, stored in enumerate(digests):
        if hmac.compare_digest(digest, stored):
            found = seat
    return found


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game rebuilt to ``version``: its metadata as read, its plug-in, its state.

    ``version`` and ``status`` are the game's as far as it was folded (or, in the rules worker, committed since
    it was read); ``meta`` is what the store said at load time (its players, seats and token digests never
    change). ``state`` is None for an archived game loaded without folding. ``recent`` holds the last folded
    events with the state after each, oldest first (when the repository keeps them): enough to render them for
    a seat without folding the game again.
    """

    game_id: str
    shard: int
    meta: GameMeta
    plugin: GamePlugin
    state: Any
    version: int
    status: GameStatus
    snapshot_version: int
    recent: tuple[tuple[int, Any, Any], ...] = ()

    @property
    def name(self) -> str:
        """The game's registry name."""
        return self.meta.name

    @property
    def rules(self) -> Table:
        """The game's rules, with the table around them."""
        return self.plugin.rules

    @property
    def presenter(self) -> TablePresenter:
        """How the game shows itself (views, redaction, words)."""
        return self.plugin.presenter

    @property
    def players(self) -> tuple[str, ...]:
        """Player names, one per seat."""
        return self.meta.players

    @property
    def player_ids(self) -> tuple[str | None, ...] | None:
        """The seats' stable player ids as given at creation (None: none given), for the leaderboards."""
        return self.meta.player_ids

    @property
    def token_digests(self) -> tuple[str, ...]:
        """sha256 hex of each seat's token."""
        return self.meta.token_digests

    @property
    def over(self) -> bool:
        """Whether the game has ended (by its rules, at this state)."""
        return self.rules.is_over(self.state)

    def seat_of(self, token: str) -> int | None:
        """The seat whose secret ``token`` this is, or None (constant-time compare of the sha256)."""
        return seat_of_token(self.meta.token_digests, token)

    def moved(self, state: Any, version: int, status: GameStatus, snapshot_version: int) -> LoadedGame:
        """This game moved on to ``version`` (a commit of the rules worker)."""
        return replace(self, state=state, version=version, status=status, snapshot_version=snapshot_version)

    def at(self, state: Any, version: int, status: GameStatus | None = None, recent: Any = None) -> LoadedGame:
        """This game at another ``state`` and ``version`` (its status and recent events kept unless given)."""
        # Built directly, not with dataclasses.replace: this is on every command's path in the gateway.
        return LoadedGame(
            self.game_id, self.shard, self.meta, self.plugin, state, version,
            self.status if status is None else status, self.snapshot_version,
            self.recent if recent is None else tuple(recent),
        )  # fmt: skip

    def recent_after(self, after: int) -> History | None:
        """The recent events after version ``after``, or None if they do not reach back that far."""
        if after >= self.version:
            return []
        first = self.recent[0][0] if self.recent else self.version + 1
        if first <= after + 1:
            return [item for item in self.recent if item[0] > after]
        return None

"""A game's metadata, typed: parsed once from the meta hash, written once at creation.

The meta hash (``throne:{sN}:game:<gid>:meta``) is written by the commit script only: the creation writes
:meth:`GameMeta.creation_fields`; every commit moves ``version`` and ``updated``; the end adds ``status``,
``result`` and ``ended``; the archive ``archived``; refusals count ``rejected.<scope>``. Everything that reads a
game (the rules worker, the gateway, the bots, the projections, the CLI) gets this one typed object instead of
a dict of strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

GameStatus = Literal["active", "over", "archived"]
STATUSES: frozenset[str] = frozenset({"active", "over", "archived"})


class BadMeta(ValueError):
    """A meta hash that cannot be read (a field that is not the JSON or number it must be)."""


def _text(raw: Mapping[Any, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is None:
        value = raw.get(name.encode())
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def _json(raw: Mapping[Any, Any], name: str, default: Any) -> Any:
    text = _text(raw, name)
    if text is None:
        return default
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise BadMeta(f"meta field {name!r} is not JSON") from None


def _int(raw: Mapping[Any, Any], name: str) -> int | None:
    text = _text(raw, name)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise BadMeta(f"meta field {name!r} is not an integer") from None


@dataclass(frozen=True, slots=True)
class GameMeta:
    """What the store knows of one game besides its events."""

    game_id: str
    name: str
    """The game's registry name."""
    players: tuple[str, ...]
    settings: Mapping[str, Any]
    seed: int
    token_digests: tuple[str, ...]
    """sha256 hex of each seat's token (the key the seat signs its commands with); never a token."""
    version: int = 0
    """Number of events recorded."""
    status: GameStatus = "active"
    rules_version: str = ""
    result: Mapping[str, Any] | None = None
    created_ms: int | None = None
    updated_ms: int | None = None
    ended_ms: int | None = None
    archived_ms: int | None = None
    rejections: Mapping[str, int] = field(default_factory=dict)
    """Refusals by scope (a seat, ``new``, ``_``): every one, logged in the command log or not."""
    player_ids: tuple[str | None, ...] | None = None
    """One stable player id per seat (None for a seat without one), as given at creation; None: none given.
    Who sits there across games (the leaderboards count by it); not a secret."""

    @classmethod
    def parse(cls, game_id: str, raw: Mapping[Any, Any]) -> GameMeta:
        """The meta of ``game_id`` from its hash (bytes or str keys and values); raises :class:`BadMeta`."""
        status = _text(raw, "status") or "active"
        if status not in STATUSES:
            raise BadMeta(f"meta field 'status' is {status!r}")
        players = _json(raw, "players", [])
        tokens = _json(raw, "tokens", [])
        settings = _json(raw, "settings", {})
        if not isinstance(players, list) or not isinstance(tokens, list) or not isinstance(settings, dict):
            raise BadMeta("meta fields 'players', 'tokens' and 'settings' must be a list, a list and an object")
        player_ids = _json(raw, "player_ids", None)
        if player_ids is not None and not (
            isinstance(player_ids, list) and all(p is None or isinstance(p, str) for p in player_ids)
        ):
            raise BadMeta("meta field 'player_ids' must be a list of strings and nulls")
        rejections: dict[str, int] = {}
        for key in raw:
            text = key.decode() if isinstance(key, bytes) else str(key)
            if text.startswith("rejected."):
                rejections[text.partition(".")[2]] = _int(raw, text) or 0
        return cls(
            game_id=game_id,
            name=_text(raw, "name") or "",
            players=tuple(str(p) for p in players),
            settings=settings,
            seed=_int(raw, "seed") or 0,
            token_digests=tuple(str(t) for t in tokens),
            version=_int(raw, "version") or 0,
            status=status,  # type: ignore[arg-type]
            rules_version=_text(raw, "rules_version") or "",
            result=_json(raw, "result", None),
            created_ms=_int(raw, "created"),
            updated_ms=_int(raw, "updated"),
            ended_ms=_int(raw, "ended"),
            archived_ms=_int(raw, "archived"),
            rejections=rejections,
            player_ids=None if player_ids is None else tuple(player_ids),
        )

    @classmethod
    def new(
        cls,
        game_id: str,
        name: str,
        players: Sequence[str],
        settings: Mapping[str, Any],
        seed: int,
        token_digests: Sequence[str],
        *,
        rules_version: str,
        created_ms: int,
        player_ids: Sequence[str | None] | None = None,
    ) -> GameMeta:
        """The meta of a game being created (version 0, active)."""
        return cls(
            game_id=game_id,
            name=name,
            players=tuple(players),
            settings=dict(settings),
            seed=seed,
            token_digests=tuple(token_digests),
            rules_version=rules_version,
            created_ms=created_ms,
            player_ids=None if player_ids is None else tuple(player_ids),
        )

    def creation_fields(self) -> dict[str, str]:
        """The fields the creation writes (the commit script adds ``version`` and ``updated``)."""
        fields = {
            "name": self.name,
            "rules_version": self.rules_version,
            "players": orjson.dumps(list(self.players)).decode(),
            "settings": orjson.dumps(self.settings).decode(),
            "seed": str(self.seed),
            "tokens": orjson.dumps(list(self.token_digests)).decode(),
            "created": str(self.created_ms or 0),
            "status": self.status,
        }
        if self.player_ids is not None:
            fields["player_ids"] = orjson.dumps(list(self.player_ids)).decode()
        return fields

    @property
    def finished(self) -> bool:
        """Whether the game has ended (over, or over and archived)."""
        return self.status != "active"

    @property
    def archived(self) -> bool:
        """Whether the game's events moved to its archive."""
        return self.status == "archived"

    def seat_digest(self, seat: int) -> str | None:
        """The token digest of ``seat``, or None when the game has no such seat."""
        return self.token_digests[seat] if 0 <= seat < len(self.token_digests) else None

    def info(self) -> dict[str, Any]:
        """The public summary (no token digests), JSON-ready: name, players, settings, seed (null until the game has
        ended: a secret of the referee), status, version, result, rules version, player ids (when given), times and
        refusal counts."""
        out: dict[str, Any] = {
            "name": self.name,
            "rules_version": self.rules_version,
            "players": list(self.players),
            "settings": dict(self.settings),
            "seed": self.seed if self.finished else None,
            "status": self.status,
            "version": self.version,
            "result": None if self.result is None else dict(self.result),
        }
        if self.player_ids is not None:
            out["player_ids"] = list(self.player_ids)
        for key, value in (
            ("created", self.created_ms),
            ("updated", self.updated_ms),
            ("ended", self.ended_ms),
            ("archived", self.archived_ms),
        ):
            if value is not None:
                out[key] = value
        out.update({f"rejected.{scope}": n for scope, n in self.rejections.items()})
        return out

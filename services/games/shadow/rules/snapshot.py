"""State snapshots as JSON (for the event store): restore(snapshot(s)) == s."""

from __future__ import annotations

from typing import Any

import orjson

from services.games.shadow.messages.events import Prompt
from services.games.shadow.messages.settings import ShadowSettings
from services.games.shadow.rules.board import layout_from_record
from services.games.shadow.rules.state import City, GameState, Knight, Piece, Tile


def _piece(p: Piece | None) -> list[Any] | None:
    if p is None:
        return None
    if isinstance(p, Tile):
        return ["T", p.owner, p.couple, p.age]
    return ["K" if isinstance(p, Knight) else "C", p.owner]


def _unpiece(raw: list[Any] | None) -> Piece | None:
    if raw is None:
        return None
    if raw[0] == "T":
        return Tile(raw[1], raw[2], raw[3])
    return Knight(raw[1]) if raw[0] == "K" else City(raw[1])


def snapshot(s: GameState) -> bytes:
    """Serialize a state (a table without a committed seed: the bytes it always had)."""
    data = {
        "layout": s.layout.to_record(),
        "players": s.players,
        "settings": s.settings.model_dump(),
        "seed": s.seed,
        "board": [_piece(p) for p in s.board],
        "thalers": s.thalers,
        "vp": s.vp,
        "tiles_in_supply": s.tiles_in_supply,
        "knights_in_supply": s.knights_in_supply,
        "cities_in_supply": s.cities_in_supply,
        "empire_cities_in_supply": s.empire_cities_in_supply,
        "emperor": s.emperor,
        "closed": sorted(s.closed),
        "round": s.round,
        "phase": s.phase,
        "privilege_used": s.privilege_used,
        "play_areas": s.play_areas,
        "passed": sorted(s.passed),
        "rival": s.rival,
        "aims": s.aims,
        "votes": s.votes,
        "pending": None if s.pending is None else s.pending.model_dump(),
        "turn": s.turn,
        "winners": s.winners,
        "version": s.version,
    }
    return orjson.dumps(data)


def restore(data: bytes) -> GameState:
    """The state a snapshot was taken of."""
    d = orjson.loads(data)
    return GameState(
        layout=layout_from_record(d["layout"]),
        players=tuple(d["players"]),
        settings=ShadowSettings.model_validate(d["settings"]),
        seed=d["seed"],
        board=tuple(_unpiece(p) for p in d["board"]),
        thalers=tuple(d["thalers"]),
        vp=tuple(d["vp"]),
        tiles_in_supply=tuple(d["tiles_in_supply"]),
        knights_in_supply=tuple(d["knights_in_supply"]),
        cities_in_supply=tuple(d["cities_in_supply"]),
        empire_cities_in_supply=d["empire_cities_in_supply"],
        emperor=d["emperor"],
        closed=frozenset(d["closed"]),
        round=d["round"],
        phase=d["phase"],
        privilege_used=tuple(d["privilege_used"]),
        play_areas=tuple(tuple(a) for a in d["play_areas"]),
        passed=frozenset(d["passed"]),
        rival=d["rival"],
        aims=tuple((a[0], a[1]) for a in d["aims"]),
        votes=tuple(d["votes"]),
        pending=None if d["pending"] is None else Prompt(**d["pending"]),
        turn=d["turn"],
        winners=None if d["winners"] is None else tuple(d["winners"]),
        version=d["version"],
    )

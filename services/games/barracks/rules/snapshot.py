"""State snapshots as JSON bytes: ``restore(snapshot(g)) == g``."""

from __future__ import annotations

import orjson

from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.rules.board import tables_for
from services.games.barracks.rules.state import (
    _FIXED,
    _LISTS,
    _NESTED,
    _NESTED_TUPLES,
    _SCALARS,
    _TUPLES,
    Game,
    actor_masks,
)


def snapshot(g: Game) -> bytes:
    """Every field of the state; the seating and the tables are stored as what they derive from."""
    data = g.record()
    data["seating"] = [
        list(g.actor_seat),
        [list(f) for f in g.actor_factions],
        list(g.faction_actor),
        list(g.seat_actor),
    ]
    data["solo"] = g.solo
    return orjson.dumps(data)


def restore(raw: bytes) -> Game:
    """The state a snapshot was taken of."""
    d = orjson.loads(raw)
    g = Game.__new__(Game)
    g.T = tables_for(d["data"])
    g.players = tuple(d["players"])
    g.settings = BarracksSettings.model_validate(d["settings"])
    g.seed = d["seed"]
    actor_seat, actor_factions, faction_actor, seat_actor = d["seating"]
    g.actor_seat = tuple(actor_seat)
    g.actor_factions = tuple(tuple(f) for f in actor_factions)
    g.faction_actor = tuple(faction_actor)
    g.seat_actor = tuple(seat_actor)
    g.solo = d["solo"]
    g.actor_mask = actor_masks(g.T, g.actor_factions)
    for name in _LISTS:
        setattr(g, name, list(d[name]))
    for name in _TUPLES:
        setattr(g, name, tuple(d[name]))
    for name in _NESTED:
        setattr(g, name, [list(x) for x in d[name]])
    for name in _NESTED_TUPLES:
        setattr(g, name, tuple(tuple(x) for x in d[name]))
    for name in _SCALARS:
        setattr(g, name, d[name])
    g.final = d["final"]
    assert len(_FIXED) == 10
    return g

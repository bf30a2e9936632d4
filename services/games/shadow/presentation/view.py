"""What one seat (or a spectator) may see of a game. Secret: other seats' sealed votes [E2]; with the
option B6, other seats' victory points until the end."""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.actions import awaited
from services.games.shadow.rules.queries import elector_owner, power_in
from services.games.shadow.rules.state import EMPIRE, City, GameState, Knight, Piece, Tile

PHASE_NAMES = {
    0: "setup",
    1: "income",
    2: "aging",
    3: "descendants",
    4: "actions",
    5: "new electors",
    6: "emperor election",
    7: "emperor action",
    8: "round marker",
}


def piece_view(p: Piece | None) -> dict[str, Any] | None:
    """A piece as JSON."""
    if p is None:
        return None
    if isinstance(p, Tile):
        return {"piece": "couple" if p.couple else "baron", "owner": p.owner, "age": p.age}
    if isinstance(p, Knight):
        return {"piece": "knight", "owner": p.owner}
    assert isinstance(p, City)
    return {"piece": "empire_city"} if p.owner == EMPIRE else {"piece": "city", "owner": p.owner}


def view(s: GameState, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` sees it (None: a spectator)."""
    over = s.over
    show_vp = over or not s.settings.hidden_victory_points
    spaces = s.layout.spaces
    electorates = []
    for e, info in enumerate(s.layout.electorates):
        electorates.append(
            {
                "key": info.key,
                "name": info.name,
                "spiritual": info.spiritual,
                "closed": e in s.closed,
                "elector_owner": elector_owner(s, e),
                "privilege_used": s.privilege_used[e],
                "power": list(power_in(s, e)),
            }
        )
    votes: list[Any] = []
    # Sealed votes stay secret while the vote is still open; once all are in they were revealed together.
    voting = s.pending is not None and s.pending.decision == "vote"
    for i, v in enumerate(s.votes):
        if v is None:
            votes.append(None)
        elif over or i == seat or not voting:
            votes.append(v)
        else:
            votes.append("sealed")
    pending = s.pending
    return {
        "seat": seat,
        "players": list(s.players),
        "round": s.round,
        "phase": s.phase,
        "phase_name": PHASE_NAMES[s.phase],
        "emperor": s.emperor,
        "thalers": list(s.thalers),
        "victory_points": [v if (show_vp or i == seat) else None for i, v in enumerate(s.vp)],
        "supply": [
            {"aristocrats": s.tiles_in_supply[i], "knights": s.knights_in_supply[i], "cities": s.cities_in_supply[i]}
            for i in range(s.n)
        ],
        "empire_cities_in_supply": s.empire_cities_in_supply,
        "play_areas": [list(a) for a in s.play_areas],
        "passed": sorted(s.passed),
        "rival": s.rival,
        "aims": [{"card": c, "electorate": s.layout.electorates[e].key} for c, e in s.aims],
        "votes": votes,
        "electorates": electorates,
        "board": {spaces[i].id: piece_view(p) for i, p in enumerate(s.board) if p is not None},
        "awaiting": list(awaited(s)),
        "decision": None if pending is None else pending.model_dump(mode="json"),
        "over": over,
        "winners": None if s.winners is None else list(s.winners),
        "version": s.version,
    }

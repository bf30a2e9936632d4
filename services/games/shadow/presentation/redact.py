"""What of an event, or of a past position, one seat may see: the game's secrets are the sealed votes until
they are revealed [E2] and, with the option B6 (``hidden_victory_points``), other seats' victory points until
the end, down to the very events that scored them [X14]. Once the game is over everything is public."""

from __future__ import annotations

from typing import Any

from events.base import Event
from services.games.shadow.messages import events as ev
from services.games.shadow.presentation.view import view
from services.games.shadow.rules.state import GameState

_SECRET = (ev.VoteSealed, ev.VictoryPointsScored)
"""The only events with something to hide."""


def vote_open(s: GameState) -> bool:
    """Whether the votes are being sealed now (each is secret until the last is in) [E2]."""
    return s.pending is not None and s.pending.decision == "vote"


_last: list[tuple[Any, dict[str, Any]]] = [(None, {})]  # (event, its dict): a feed asks seat after seat


def _as_dict(event: Event) -> dict[str, Any]:
    # Events are frozen: the dict of the event asked for just before is still right, and is shared (callers
    # must not mutate it). The pair is swapped in one assignment (thread-safe), and holds the event itself,
    # not its id, so the identity check cannot be fooled by a recycled id.
    seen, data = _last[0]
    if seen is not event:
        data = event.to_dict()
        _last[0] = (event, data)
    return data


def redact(event: Event, seat: int | None, s: GameState | None) -> dict[str, Any] | None:
    """``event`` as ``seat`` (None: a spectator) may see it while the game is at ``s`` (at or after the event).

    A sealed vote of another seat keeps its type and seat, drops the candidate, and carries ``redacted: true``
    and a ``summary`` that gives nothing away [E2]. Another seat's ``VictoryPointsScored`` is withheld (None)
    while victory points are hidden: its reason alone would tell the points [B6, X14]. An event shown whole is
    returned as one shared dict (do not mutate).
    """
    data = _as_dict(event)
    if s is None or s.over or not isinstance(event, _SECRET):
        return data
    if isinstance(event, ev.VoteSealed) and event.seat != seat and vote_open(s):
        # Who has voted is public (the game waits for the others); for whom is not, until the reveal [E2].
        hidden = {k: v for k, v in data.items() if k != "candidate"}
        return {**hidden, "redacted": True, "summary": f"{_name(s, event.seat)} seals a vote."}
    if isinstance(event, ev.VictoryPointsScored) and event.seat != seat and s.settings.hidden_victory_points:
        return None
    return data


def replay_view(s: GameState | None, seat: int | None, final: GameState | None) -> dict[str, Any]:
    """``view(s, seat)``, except that once the game is over (``final``) the past is public: every vote and every
    victory point total shows. Before the first event (``s`` None) there is no table yet."""
    if s is None:
        return {"seat": seat, "version": 0, "started": False, "over": False}
    shown = view(s, seat)
    if final is not None and final.over and not s.over:
        shown["votes"] = list(s.votes)
        shown["victory_points"] = list(s.vp)
    return shown


def _name(s: GameState, seat: int) -> str:
    return s.players[seat] if 0 <= seat < len(s.players) else f"seat {seat}"


def views(s: GameState, seats: list[int | None]) -> list[dict[str, Any]]:
    """``[view(s, seat) for seat in seats]``, faster: the spectator's view is built once and each seat's is that
    plus what only it may see (its own vote and victory points). The views share their nested parts: do not
    mutate them (they are for JSON)."""
    base = view(s, None)
    out: list[dict[str, Any]] = []
    for seat in seats:
        if seat is None:
            out.append(base)
            continue
        own = dict(base)
        own["seat"] = seat
        votes = list(base["votes"])
        if s.votes[seat] is not None:
            votes[seat] = s.votes[seat]
        own["votes"] = votes
        points = list(base["victory_points"])
        points[seat] = s.vp[seat]
        own["victory_points"] = points
        out.append(own)
    return out

"""A position one seat cannot tell from the real one, its secrets re-drawn: what a search bot plays on
(``GameRules.determinize``, services/bots/search.py).

Shadow's secrets are few (presenter.py): other seats' sealed votes while the vote is open [E2] and, with the
option B6 (``hidden_victory_points``), other seats' victory points until the end [X14]. Everything else (the
board, thalers, supplies, cards in play areas, the seed) is public, and no rule draws at random after the
two-player draw at the start [T1, G4], so re-drawing those two secrets is all it takes.

Honesty: the hidden values are never read. Whether a seat has voted is public (the game waits for the others),
so the number of draws from ``rng`` depends only on what ``seat`` sees; a sealed vote is replaced by a coin toss,
and a hidden total by ``seat``'s own total give or take two (it knows nothing better: a symmetric guess)."""

from __future__ import annotations

import random

from services.games.shadow.rules.state import GameState

CANDIDATES = ("emperor", "rival")
VP_SPREAD = 2


def determinize(s: GameState | None, seat: int, rng: random.Random) -> GameState | None:
    """``s`` with what ``seat`` cannot see re-drawn from ``rng`` (see the module docstring)."""
    if s is None or s.over:
        return s
    changes: dict[str, object] = {}
    if s.pending is not None and s.pending.decision == "vote" and s.votes:
        # Same rule as the view: while the vote is open, another seat's vote shows only as "sealed".
        changes["votes"] = tuple(
            vote if vote is None or other == seat else rng.choice(CANDIDATES) for other, vote in enumerate(s.votes)
        )
    if s.settings.hidden_victory_points:
        own = s.vp[seat]
        changes["vp"] = tuple(
            own if other == seat else max(0, own + rng.randint(-VP_SPREAD, VP_SPREAD)) for other in range(s.n)
        )
    return s._replace(**changes) if changes else s

"""The referee's default move for each decision, played when a seat's clock runs out [KX17-KX20].

A seat awaited for its action must play when it can [KX5], so the default plays as plainly as the listing allows:
the first influence play offered (the hand's first playable card, on the first free space in board order) that
uses no optional ability, else the first action listed. A Forum take takes the leftmost card allowed; every other
decision (the order of surrounded Emperors, the cards Frumentarii keeps, a rival claimant's space) takes the first
option in the order the listing gives it, which is board order. Pure: a function of the state and the seat.
"""

from __future__ import annotations

from typing import Any

from services.games.barracks.rules import listing
from services.games.barracks.rules.state import ACTION, PICK, Game, awaited


def default_key(g: Game, seat: int) -> tuple[tuple[Any, ...], str] | None:
    """The legal key of ``seat``'s default move and its ruling id; None: the game does not await ``seat``."""
    if seat not in awaited(g):
        return None
    keys = listing.legal_keys(g, seat)
    if not keys:
        return None
    if g.phase == ACTION:
        plain = next((k for k in keys if k[0] == "I" and not k[4]), None)
        return (plain if plain is not None else keys[0]), "KX18"
    if g.phase == PICK:
        return keys[0], "KX19"
    return keys[0], "KX20"


def default_command(g: Game, seat: int) -> tuple[Any, str] | None:
    """``seat``'s default move as a core command, with its ruling id (see :func:`default_key`)."""
    found = default_key(g, seat)
    if found is None:
        return None
    key, ruling = found
    return listing.command_of(g, seat, key), ruling

"""The referee's default move for each decision, played when a seat's clock runs out [X16-X20].

A default changes as little as a referee can: the seat passes, declines, keeps the status quo, and only where a
piece must be placed takes the first option in board order (the order of the legal listing). Pure: a function of
the state and the seat.
"""

from __future__ import annotations

from events.base import Command
from services.games.shadow.rules import actions
from services.games.shadow.rules.state import GameState

_DECLINES: dict[str, tuple[str, ...]] = {
    # decision -> the command key that declines it [X18]
    "marriage_answer": ("AnswerMarriage", False),
    "daughter": ("SendDaughterToConvent",),
    "gray_eminence": ("Decline",),
}


def default_key(state: GameState, seat: int) -> tuple[tuple[object, ...], str] | None:
    """The legal key of ``seat``'s default move and its ruling id; None: the game does not await ``seat``."""
    prompt = state.pending
    if prompt is None or seat not in actions.awaited(state):
        return None
    keys = list(actions.legal_keys(state, seat))
    if not keys:
        return None
    wanted: tuple[object, ...] | None = None
    ruling = "X20"
    if prompt.decision == "actions":
        wanted, ruling = ("Pass",), "X17"
    elif prompt.decision in _DECLINES:
        wanted, ruling = _DECLINES[prompt.decision], "X18"
    elif prompt.decision == "vote":
        # A claimant keeps its own candidacy; everyone else keeps the status quo, the sitting Emperor [X19].
        wanted, ruling = ("CastVote", "rival" if seat == state.rival else "emperor"), "X19"
    if wanted is not None and wanted in keys:
        return wanted, ruling
    return keys[0], "X20"


def default_command(state: GameState, seat: int) -> tuple[Command, str] | None:
    """``seat``'s default move as a command, with its ruling id (see :func:`default_key`)."""
    found = default_key(state, seat)
    if found is None:
        return None
    key, ruling = found
    return actions.command_of(seat, key), ruling

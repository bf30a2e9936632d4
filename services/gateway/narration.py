"""Plain words for chat-bots and notifications: each event narrated as one seat may know it, and the "your turn"
message of a seat the game waits for.

Everything goes through the game's contract (``Presenter.narrate``, ``prompt``, ``label``, ``menu_groups``),
found by the game's name in the registry: nothing here knows a game. A narration never tells what ``redact``
masks or withholds for that reader: ``narrate`` is asked with the same reader and the same state as the
event's redaction (the state right after the event while the game runs, the final state once it is over).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.gateway.games import History, Position
from services.menus.menu import groups_of
from services.rules.contract import GamePlugin


def plugin_of(pos: Position) -> GamePlugin:
    """The game plug-in of a position."""
    return pos.plugin


@dataclass(frozen=True, slots=True)
class Narrated:
    """One event as a reader may know it: ``event`` None when withheld, ``text`` its narration (None then too),
    ``quiet`` when the game says a move-by-move narration may leave it out."""

    version: int
    event: dict[str, Any] | None
    text: str | None
    quiet: bool


def narrate(
    plugin: GamePlugin, pos: Position, items: History, seat: int | None, shown: Sequence[dict[str, Any] | None]
) -> list[Narrated]:
    """``items`` (``(version, event, state after it)``) with their redacted forms ``shown`` (in the same order),
    narrated for ``seat``: redacted with the state right after each event while the game runs, with the final
    state once it is over (as :meth:`~services.gateway.service.Gateway.seat_events` does)."""
    presenter = plugin.presenter
    players = pos.players
    quiet = presenter.quiet_events
    over = pos.over
    out = []
    for (version, event, state), data in zip(items, shown, strict=True):
        text = None if data is None else presenter.narrate(event, seat, pos.state if over else state, players)
        out.append(Narrated(version, data, text, bool(event.type in quiet)))
    return out


def lines(plugin: GamePlugin, pos: Position, items: History, seat: int | None) -> list[str]:
    """The narration of ``items`` for ``seat`` as lines, leaving out withheld events and the quiet ones."""
    presenter = plugin.presenter
    players = pos.players
    quiet = presenter.quiet_events
    over = pos.over
    out = []
    for _, event, state in items:
        if event.type in quiet:
            continue
        text = presenter.narrate(event, seat, pos.state if over else state, players)
        if text:
            out.append(text)
    return out


def turn(plugin: GamePlugin, state: Any, version: int, seat: int) -> dict[str, Any] | None:
    """The "your turn" message of ``seat`` at ``state`` (at ``version``), or None when the game does not wait for
    it: the prompt (what is asked, and where), every legal command with its label, and the menu groups."""
    rules, presenter = plugin.rules, plugin.presenter
    if rules.is_over(state) or seat not in rules.awaited(state):
        return None
    commands = rules.legal_commands(state, seat)
    labels = [presenter.label(c, state) for c in commands]
    prompt = presenter.prompt(state, seat) or "Your turn."
    return {
        "kind": "turn",
        "version": version,
        "seat": seat,
        "prompt": prompt,
        "text": prompt,
        "legal": [
            {"index": i, "label": label, "command": rules.encode_command(c)}
            for i, (c, label) in enumerate(zip(commands, labels, strict=True))
        ],
        "groups": [{"title": title, "indexes": list(part)} for title, part in groups_of(plugin, commands, state)],
        **({"clocks": clocks} if (clocks := rules.clock_status(state, int(time.time() * 1000))) is not None else {}),
    }

"""The engine-only demo: a complete seeded game between random bots, played on the rules alone (no Redis).

Each command is printed as ``Red: BuyPermit couple=False electorate=mainz`` followed by the events it caused, in
plain words (the game presenter's ``describe``); the event types the presenter calls quiet (``quiet_events``,
e.g. a request for the next decision) are left out. The same seed always gives the same game.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

import orjson

from events.base import Rejection
from services.bots.random_bot import RandomBot
from services.rules.contract import Command, Event, GamePlugin
from services.rules.registry import default_game, get_game

NAMES = ("Red", "Green", "Blue", "Yellow", "Purple", "Orange")


def format_command(plugin: GamePlugin, command: Command, players: Sequence[str]) -> str:
    """``Red: BuyPermit couple=False electorate=mainz`` (fields left unset are not shown)."""
    data = dict(plugin.rules.encode_command(command))
    seat = data.pop("seat")
    kind = data.pop("type", type(command).__name__)
    args = " ".join(f"{k}={v}" for k, v in data.items() if v is not None)
    who = players[seat] if 0 <= seat < len(players) else f"seat {seat}"
    return f"{who}: {kind}" + (f" {args}" if args else "")


def narrated(plugin: GamePlugin, event: Event, players: Sequence[str]) -> str | None:
    """An event in plain words for a move-by-move narration, or None for an event the presenter calls quiet."""
    if event.type in plugin.presenter.quiet_events:
        return None
    return plugin.presenter.describe(event, players)


def player_names(plugin: GamePlugin, players: int | None) -> list[str]:
    """``players`` names for the game (None: as many as the game takes, at most the names we have)."""
    caps = plugin.rules.capabilities
    count = min(caps.max_players, len(NAMES)) if players is None else players
    if not caps.min_players <= count <= min(caps.max_players, len(NAMES)):
        raise ValueError(f"{plugin.name} is played by {caps.min_players} to {caps.max_players} players")
    return list(NAMES[:count])


def play(
    seed: int = 1,
    players: int | None = None,
    game: str | None = None,
    out: TextIO | None = None,
    max_commands: int = 100_000,
) -> dict[str, Any]:
    """Play one seeded random game of ``game`` (None: the default game), printing it to ``out`` (None: silent).
    Returns the game's result and the number of commands."""
    plugin = get_game(game or default_game())
    rules = plugin.rules
    names = player_names(plugin, players)

    def say(line: str) -> None:
        if out is not None:
            print(line, file=out)

    def tell(event: Event) -> None:
        line = narrated(plugin, event, names)
        if line is not None:
            say(f"  {line}")

    say(f"# {plugin.name} (rules {rules.rules_version}), {len(names)} random bots, seed {seed}")
    state = rules.initial_state()
    for event in rules.start(names, {}, seed):
        state = rules.evolve(state, event)
        tell(event)
    bot = RandomBot(seed)
    commands = 0
    while not rules.is_over(state):
        if commands >= max_commands:
            raise RuntimeError(f"the game did not end within {max_commands} commands")
        seat = rules.awaited(state)[0]
        command = bot.choose(rules, state, seat)
        if command is None:
            raise RuntimeError(f"seat {seat} is awaited but has no legal command")
        events = rules.decide(state, command)
        if isinstance(events, Rejection):  # a legal command is always accepted
            raise RuntimeError(f"{command} was rejected: {events.code}: {events.message}")
        commands += 1
        say(format_command(plugin, command, names))
        for event in events:
            state = rules.evolve(state, event)
            tell(event)
    result = rules.result(state) or {}
    say("")
    say(f"Game over after {commands} commands.")
    for line in result_lines(names, result):
        say(line)
    say(result_json(plugin.name, None, seed, result, commands))
    return {**result, "commands": commands}


def result_lines(names: Sequence[str], result: dict[str, Any] | None) -> list[str]:
    """The result in words: ``Scores: Red 12, Green 9``, then ``Winner: Red`` (or ``Shared victory: ...``)."""
    result = result or {}
    lines = []
    scores = result.get("scores", [])
    if scores:
        lines.append("Scores: " + ", ".join(f"{names[i]} {v}" for i, v in enumerate(scores)))
    winners = [names[w] for w in result.get("winners", [])]
    if winners:
        lines.append(("Shared victory: " if len(winners) > 1 else "Winner: ") + ", ".join(winners))
    return lines


def result_json(
    game: str, game_id: str | None, seed: int, result: dict[str, Any] | None, commands: int, events: int | None = None
) -> str:
    """A demo's last line: one JSON object with the game, its id (None: played on the engine alone, no store),
    the seed, the result, and how many commands (and events) it took."""
    record: dict[str, Any] = {"game": game, "game_id": game_id, "seed": seed, "result": result, "commands": commands}
    if events is not None:
        record["events"] = events
    return orjson.dumps(record).decode()


def run_engine_demo(
    seed: int = 1, players: int | None = None, out: TextIO | None = None, game: str | None = None
) -> dict[str, Any]:
    """The demo on stdout (or ``out``)."""
    return play(seed=seed, players=players, game=game, out=sys.stdout if out is None else out)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m services.engine_demo [seed]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    run_engine_demo(seed=int(args[0]) if args else 1)


if __name__ == "__main__":
    main()

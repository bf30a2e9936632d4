"""The engine-only demo: a complete seeded game between random bots, played on the decider alone (no Redis).

Each command is printed as ``Red: BuyPermit couple=False electorate=mainz`` followed by the events it caused, in
plain words (``decider.describe``). ``DecisionRequested`` events are left out: the next command line shows who
answered. The same seed always gives the same game.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from events.base import Command, Event, Rejection
from services.bots.random_bot import RandomBot
from services.rules.decider import Decider
from services.rules.registry import get_decider

NAMES = ("Red", "Green", "Blue", "Yellow")
QUIET = frozenset({"DecisionRequested"})


def format_command(command: Command, players: Sequence[str]) -> str:
    """``Red: BuyPermit couple=False electorate=mainz`` (fields left unset are not shown)."""
    data = command.to_dict()
    seat = data.pop("seat")
    kind = data.pop("type", type(command).__name__)
    args = " ".join(f"{k}={v}" for k, v in data.items() if v is not None)
    who = players[seat] if 0 <= seat < len(players) else f"seat {seat}"
    return f"{who}: {kind}" + (f" {args}" if args else "")


def describe(decider: Decider, event: Event, players: Sequence[str]) -> str:
    """An event in plain words (with player names when the decider accepts them)."""
    try:
        return decider.describe(event, players)  # type: ignore[call-arg]
    except TypeError:
        return decider.describe(event)


def play(
    seed: int = 1, players: int = 4, game: str = "shadow", out: TextIO | None = None, max_commands: int = 100_000
) -> dict[str, Any]:
    """Play one seeded random game, printing it to ``out`` (None: silent). Returns the decider's result."""
    if not 2 <= players <= len(NAMES):
        raise ValueError(f"players must be between 2 and {len(NAMES)}")
    decider = get_decider(game)
    names = NAMES[:players]

    def say(line: str) -> None:
        if out is not None:
            print(line, file=out)

    say(f"# {game} (rules {decider.rules_version}), {players} random bots, seed {seed}")
    state = decider.initial_state()
    for event in decider.start(names, {}, seed):
        state = decider.evolve(state, event)
        if event.type not in QUIET:  # type: ignore[attr-defined]
            say(f"  {describe(decider, event, names)}")
    bot = RandomBot(seed)
    commands = 0
    while not decider.is_over(state):
        if commands >= max_commands:
            raise RuntimeError(f"the game did not end within {max_commands} commands")
        seat = decider.awaited(state)[0]
        command = bot.choose(decider, state, seat)
        if command is None:
            raise RuntimeError(f"seat {seat} is awaited but has no legal command")
        events = decider.decide(state, command)
        if isinstance(events, Rejection):  # a legal command is always accepted
            raise RuntimeError(f"{command} was rejected: {events.code}: {events.message}")
        commands += 1
        say(format_command(command, names))
        for event in events:
            state = decider.evolve(state, event)
            if event.type not in QUIET:  # type: ignore[attr-defined]
                say(f"  {describe(decider, event, names)}")
    result = decider.result(state) or {}
    say("")
    say(f"Game over after {commands} commands.")
    scores = result.get("scores", [])
    say("Scores: " + ", ".join(f"{names[i]} {v} VP" for i, v in enumerate(scores)))
    winners = [names[w] for w in result.get("winners", [])]
    say(("Shared victory: " if len(winners) > 1 else "Winner: ") + ", ".join(winners))
    return {**result, "commands": commands}


def run_engine_demo(seed: int = 1, players: int = 4, out: TextIO | None = None) -> dict[str, Any]:
    """The demo on stdout (or ``out``)."""
    return play(seed=seed, players=players, out=sys.stdout if out is None else out)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m services.engine_demo [seed]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    run_engine_demo(seed=int(args[0]) if args else 1)


if __name__ == "__main__":
    main()

"""``throne play``: a person plays in the terminal against bots, through the streams like any client.

The person's seat gets the board (the game presenter's ``render_text`` as that seat may see it) and a numbered
menu of its legal commands (the presenter's ``label`` for each); typing a number sends that command with the
version the board showed. The other seats are bot seats
of the game (``create_game(..., bots=...)``), played by the bots process.

Where it runs: without REDIS_URL everything is in this process on the embedded fakeredis (a rules worker and a
bots runner in threads). With REDIS_URL the game goes to that deployment, whose rules workers and bots
process must be running (``throne serve``); ``--local`` starts both in this process instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

import orjson

from services.bots.kinds import default_bot
from services.bots.runner import BotConfig, BotRunner
from services.bus.connection import connect, is_embedded
from services.bus.envelope import STALE_VERSION
from services.bus.keys import Layout
from services.client import ServiceClient
from services.engine_demo import NAMES, narrated, player_names
from services.rules.contract import Command, Event, GamePlugin
from services.rules.registry import default_game, get_game
from services.worker.rules_worker import RulesWorker, WorkerConfig


def command_label(plugin: GamePlugin, command: Command, state: Any) -> str:
    """The presenter's label of a command, else its JSON without the seat."""
    try:
        return plugin.presenter.label(command, state)
    except Exception:  # a label is a nicety: never lose the menu over it
        data = dict(plugin.rules.encode_command(command))
        data.pop("seat", None)
        return orjson.dumps(data).decode()


def board_text(plugin: GamePlugin, state: Any, seat: int) -> str:
    """The board as ``seat`` may see it (the presenter's ``render_text``)."""
    return plugin.presenter.render_text(state, seat)


def event_line(plugin: GamePlugin, event: Event, seat: int, state: Any, names: Sequence[str]) -> str | None:
    """An event in plain words as ``seat`` may see it (None: not shown). A secret is never printed."""
    if event.type in plugin.presenter.quiet_events:
        return None
    shown = plugin.presenter.redact(event, seat, state)
    if shown is None:
        return None
    if shown.get("redacted"):
        return str(shown.get("summary") or f"{shown.get('type', 'event')} (hidden)")
    return narrated(plugin, event, names)


class _Local:
    """A rules worker and a bots runner in threads of this process."""

    def __init__(self, layout: Layout) -> None:
        self.stop = threading.Event()
        worker = RulesWorker(connect(), range(layout.shards), layout=layout, config=WorkerConfig(block_ms=20))
        bots = BotRunner(connect(), range(layout.shards), layout=layout, config=BotConfig(block_ms=20))
        self.threads = [
            threading.Thread(target=worker.run, args=(self.stop,), name="rules-worker", daemon=True),
            threading.Thread(target=bots.run, args=(self.stop,), name="bots", daemon=True),
        ]
        for t in self.threads:
            t.start()

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(10)


def play(
    *,
    game: str | None = None,
    players: int | None = None,
    seat: int = 0,
    seed: int | None = None,
    bots: str | None = None,
    local: bool | None = None,
    inp: TextIO,
    out: TextIO,
    timeout: float = 10.0,
) -> dict[str, Any] | None:
    """Play one game of ``game`` (None: the default game) at ``seat`` against bots of kind ``bots`` (None: the
    game's default bot), reading choices from ``inp``; ``players`` None: as many as the game takes.

    Returns the result once the game is over; None when the person quits (``q`` or end of input), when no
    rules worker answers the creation within ``timeout`` seconds, or when the game stops moving while a bot
    is awaited for three times that long (no bots process?).
    """
    stall_timeout = 3 * timeout
    plugin = get_game(game or default_game())
    rules, game = plugin.rules, plugin.name
    players = len(player_names(plugin, players))
    if not 0 <= seat < players:
        raise ValueError(f"seat must be between 0 and {players - 1}")
    bots = bots or default_bot(game)
    names = [("You" if s == seat else NAMES[s]) for s in range(players)]
    layout = Layout.from_env()
    redis_client = connect()
    runner = _Local(layout) if (local if local is not None else is_embedded(redis_client)) else None
    client = ServiceClient(redis_client, layout)
    try:
        try:
            bot_seats = {s: bots for s in range(players) if s != seat}
            new = client.create_game(game, names, seed=seed, bots=bot_seats, timeout=timeout)
        except TimeoutError:
            print("# no rules worker answered: is the service running (throne serve), or try --local", file=out)
            return None
        print(
            f"# {game}: you are seat {seat} ({NAMES[seat]}) against {players - 1} {bots} bots; "
            f"game {new.game_id}, seed {new.seed}",
            file=out,
        )
        state = rules.initial_state()
        version = 0
        moved_at = time.monotonic()
        while True:
            for stored in client.read_events(new.game_id, after=version):
                event = rules.parse_event(stored.data)
                state = rules.evolve(state, event)
                version = stored.version
                moved_at = time.monotonic()
                line = event_line(plugin, event, seat, state, names)
                if line:
                    print(f"  {line}", file=out)
            if rules.is_over(state):
                result = rules.result(state)
                print(f"# game over: {orjson.dumps(result).decode()}", file=out)
                return result
            if seat not in rules.awaited(state):
                if time.monotonic() - moved_at > stall_timeout:
                    print(f"# the game has not moved for {stall_timeout:.0f} s: are the rules worker and the bots "
                          "process running (throne serve)?", file=out)  # fmt: skip
                    return None
                time.sleep(0.02)
                continue
            choice = _ask(plugin, state, seat, version, inp, out)
            if choice is None:
                print(f"# you left game {new.game_id} at version {version}", file=out)
                return None
            token, payload = new.tokens[seat], rules.encode_command(choice)
            outcome = client.send(new.game_id, seat, token, payload, expected_version=version, timeout=timeout)
            if not outcome.accepted and outcome.rejection is not None:
                if outcome.rejection.code == STALE_VERSION:
                    print("# the game moved on before your command arrived: here it is again", file=out)
                else:
                    rulings = f" [{', '.join(outcome.rejection.rulings)}]" if outcome.rejection.rulings else ""
                    print(f"# refused: {outcome.rejection.code}: {outcome.rejection.message}{rulings}", file=out)
            moved_at = time.monotonic()
    finally:
        if runner is not None:
            runner.close()


def _ask(plugin: GamePlugin, state: Any, seat: int, version: int, inp: TextIO, out: TextIO) -> Command | None:
    options = plugin.rules.legal_commands(state, seat)
    print("", file=out)
    print(board_text(plugin, state, seat), file=out)
    print(f"-- your move (version {version}) --", file=out)
    for i, command in enumerate(options, start=1):
        print(f"{i:3d}. {command_label(plugin, command, state)}", file=out)
    while True:
        print(f"choose 1-{len(options)} (q quits): ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            return None
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            return None
        if text.isdigit() and 1 <= int(text) <= len(options):
            return options[int(text) - 1]
        print(f"# not a choice: {line.strip()!r}", file=out)

"""The demo through the service: random bots play a whole game over the Redis streams.

One random bot per seat submits its commands with the client library (each with the version it saw); a rules
worker in the same process decides them; the bots read the game back from its event stream. Without REDIS_URL
everything runs in this process on the embedded fakeredis; with REDIS_URL, on that Redis.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from services.bots.random_bot import choose
from services.bus.connection import connect, is_embedded
from services.bus.keys import Layout
from services.client import ServiceClient
from services.engine_demo import format_command, narrated, player_names, result_json, result_lines
from services.log import configure
from services.rules.contract import Command, Event
from services.rules.registry import default_game, get_game
from services.worker.rules_worker import RulesWorker, WorkerConfig


@dataclass(frozen=True)
class PlayedGame:
    """What a game through the streams came to."""

    game_id: str
    result: dict[str, Any] | None
    commands: int
    version: int
    final_state: Any


def play_through_streams(
    client: ServiceClient,
    game: str,
    names: Sequence[str],
    seed: int,
    on_command: Callable[[Command], None] = lambda c: None,
    on_event: Callable[[Event], None] = lambda e: None,
    timeout: float = 30.0,
) -> PlayedGame:
    """Create a game and let one seeded random bot per seat play it to its end through the service.

    Each bot sees the game only through its event stream (folded with the game's rules) and sends each command
    with the version it saw. A refused command is an error: random bots only pick legal commands.
    """
    rules = get_game(game).rules
    new = client.create_game(game, names, seed=seed, timeout=timeout)
    rngs = [random.Random(f"bot:{seed}:{seat}") for seat in range(len(names))]  # one bot per seat
    state = rules.initial_state()
    version = 0
    commands = 0

    def catch_up() -> None:
        nonlocal state, version
        for stored in client.read_events(new.game_id, after=version):
            event = rules.parse_event(stored.data)
            state = rules.evolve(state, event)
            version = stored.version
            on_event(event)

    catch_up()
    while not rules.is_over(state):
        seat = rules.awaited(state)[0]
        command = choose(rules, state, seat, rngs[seat])
        if command is None:
            raise RuntimeError(f"seat {seat} is awaited but has no legal command")
        on_command(command)
        payload = rules.encode_command(command)
        outcome = client.send(new.game_id, seat, new.tokens[seat], payload, expected_version=version, timeout=timeout)
        if not outcome.accepted:
            raise RuntimeError(f"the service refused a legal command: {outcome}")
        commands += 1
        catch_up()
    return PlayedGame(new.game_id, rules.result(state), commands, version, state)


def run_demo(
    seed: int = 1, out: TextIO | None = None, players: int | None = None, game: str | None = None
) -> dict[str, Any] | None:
    """Play one seeded game of ``game`` (None: the default game) between random bots through the streams,
    printing it move by move to ``out``.

    A rules worker runs in this process (on the embedded fakeredis unless REDIS_URL is set). Returns the
    game's result. The same seed gives the same game.
    """
    out = out or sys.stdout
    configure("warning")  # the game goes to ``out``; the service's JSON logs only for trouble (stderr)
    plugin = get_game(game or default_game())
    game = plugin.name
    names = player_names(plugin, players)
    players = len(names)
    layout = Layout.from_env()
    redis_client = connect()
    worker = RulesWorker(redis_client, range(layout.shards), layout=layout, config=WorkerConfig(block_ms=20))
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), name="rules-worker", daemon=True)
    thread.start()
    started = time.monotonic()
    where = "embedded fakeredis" if is_embedded(redis_client) else "Redis at REDIS_URL"
    print(
        f"# {game} (rules {plugin.rules.rules_version}), {players} random bots, seed {seed}, through {where}", file=out
    )
    try:
        played = play_through_streams(
            ServiceClient(connect(), layout),
            game,
            names,
            seed,
            on_command=lambda c: print(format_command(plugin, c, names), file=out),
            on_event=lambda e: _tell(narrated(plugin, e, names), out),
        )
    finally:
        stop.set()
        thread.join(10)
    elapsed = time.monotonic() - started
    print("", file=out)
    print(f"Game over after {played.commands} commands.", file=out)
    for line in result_lines(names, played.result):
        print(line, file=out)
    print(f"# game {played.game_id}: {played.commands} commands, {played.version} events, {elapsed:.1f}s through the "
          "streams", file=out)  # fmt: skip
    print(result_json(game, played.game_id, seed, played.result, played.commands, played.version), file=out)
    return played.result


def _tell(line: str | None, out: TextIO) -> None:
    if line is not None:
        print(f"  {line}", file=out)

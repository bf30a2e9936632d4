"""Recorded games for the benchmarks: seeded random games kept as the commands that replay them on the service.

Measures replay a :class:`GameScript` through the bus (``envelopes``) so that the service's figures do not pay
for a bot's choice; ``run_threads`` times a few clients at once.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from services.bots.random_bot import choose
from services.bus.envelope import CommandEnvelope, CreateEnvelope, hash_token, seat_key
from services.rules.registry import get_game


@dataclass(frozen=True)
class GameScript:
    """A whole game as the commands that play it: each with its seat and the version it expects."""

    game_name: str
    players: tuple[str, ...]
    seed: int
    moves: tuple[tuple[int, dict[str, Any], int], ...]
    """(seat, command JSON, expected version) in order."""

    @staticmethod
    def token(game_id: str, seat: int) -> str:
        """The secret token of ``seat`` in the game :meth:`envelopes` makes (a benchmark's, not a secret)."""
        return f"{game_id}-t{seat}"

    def envelopes(self, game_id: str, replies: bool = True) -> tuple[CreateEnvelope, list[CommandEnvelope]]:
        """The creation and the commands of this script for a game called ``game_id`` (``replies`` False: the
        commands ask for no reply, as a submitter that never waits does)."""
        tokens = [self.token(game_id, i) for i in range(len(self.players))]
        create = CreateEnvelope(
            command_id=f"{game_id}-create",
            game_id=game_id,
            game_name=self.game_name,
            players=list(self.players),
            seed=self.seed,
            token_hashes=[hash_token(t) for t in tokens],
        )
        commands = [
            CommandEnvelope.signed(
                seat_key(tokens[seat]),
                command_id=f"{game_id}-{i}",
                game_id=game_id,
                seat=seat,
                expected_version=version,
                payload=payload,
                no_reply=not replies,
            )
            for i, (seat, payload, version) in enumerate(self.moves)
        ]
        return create, commands

    def with_refusals(self, game_id: str, upto: int | None = None) -> list[CreateEnvelope | CommandEnvelope]:
        """The creation and the commands of this script (the first ``upto`` commands; None: all, to its end) for
        a game called ``game_id``, with commands the referee refuses among them: before every 7th command, the
        same move from a seat the game does not wait for (the rules refuse it); before every 11th, the command
        sent with a version one behind (the service refuses it: stale). The refusals change nothing, so the
        game goes as the script says (a referee's audit then has refused commands to tell)."""
        rules = get_game(self.game_name).rules
        state = rules.fold(rules.start(self.players, {}, self.seed))
        create, commands = self.envelopes(game_id)
        out: list[CreateEnvelope | CommandEnvelope] = [create]
        for i, command in enumerate(commands[:upto]):
            expected = command.expected_version or 0
            idle = [seat for seat in range(len(self.players)) if seat not in rules.awaited(state)]
            if i % 7 == 3 and idle:
                other = idle[i % len(idle)]
                out.append(
                    CommandEnvelope.signed(
                        seat_key(self.token(game_id, other)), command_id=f"{game_id}-turn{i}", game_id=game_id,
                        seat=other, expected_version=expected, payload={**command.payload, "seat": other},
                    )
                )  # fmt: skip
            if i % 11 == 5 and expected > 0:
                out.append(
                    CommandEnvelope.signed(
                        seat_key(self.token(game_id, command.seat)), command_id=f"{game_id}-stale{i}",
                        game_id=game_id, seat=command.seat, expected_version=expected - 1, payload=command.payload,
                    )
                )  # fmt: skip
            out.append(command)
            # (the script's own command, decided here only to know who the game waits for next)
            decided = rules.decide(state, rules.parse_command({**command.payload, "seat": command.seat}))
            if not isinstance(decided, list):
                raise RuntimeError(f"the script's command {i} is refused: {decided}")
            state = rules.fold(decided, state)
        return out


def record_games(game_name: str, count: int, seed: int = 1, players: int = 4) -> list[GameScript]:
    """Play ``count`` seeded games between random bots on the rules alone and keep their commands."""
    rules = get_game(game_name).rules
    names = tuple(f"P{i}" for i in range(players))
    scripts = []
    for g in range(count):
        game_seed = seed + g
        rng = random.Random(game_seed)
        state = rules.initial_state()
        version = 0
        for event in rules.start(names, {}, game_seed):
            state = rules.evolve(state, event)
            version += 1
        moves = []
        while not rules.is_over(state):
            seat = rules.awaited(state)[0]
            command = choose(rules, state, seat, rng)
            if command is None:
                raise RuntimeError("awaited seat without a legal command")
            events = rules.decide(state, command)
            if not isinstance(events, list):
                raise RuntimeError(f"legal command rejected: {events}")
            moves.append((seat, rules.encode_command(command), version))
            for event in events:
                state = rules.evolve(state, event)
            version += len(events)
        scripts.append(GameScript(game_name, names, game_seed, tuple(moves)))
    return scripts


def run_threads(targets: Sequence[Callable[[], None]]) -> float:
    """Run each target in its own thread; the seconds until all ended. The first error of any is raised."""
    errors: list[BaseException] = []

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - t0

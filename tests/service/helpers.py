"""Helpers of the service tests: scripted toy21 games and waiting for outcomes."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from services.bus.envelope import CommandEnvelope, CreateEnvelope, Outcome, hash_token, seat_key
from services.client import NewGame, ServiceClient, new_id
from tests.service.toy_game import TARGET
from tests.waiting import wait_for  # noqa: F401 - the suite's one way to wait, imported from here by older tests


@dataclass(frozen=True)
class ScriptedGame:
    """A toy21 game and the commands that play it to its end (legal in this order, with versions)."""

    game: NewGame
    commands: list[CommandEnvelope]


def toy_amounts(seed: int) -> list[int]:
    """Amounts that take a toy21 total from 0 to TARGET or more, drawn from ``seed``."""
    rng = random.Random(seed)
    total, out = 0, []
    while total < TARGET:
        out.append(rng.choice((1, 2, 3)))
        total += out[-1]
    return out


def script_game(client: ServiceClient, seed: int, game_id: str | None = None) -> ScriptedGame:
    """Create a toy21 game (waiting for it) and build its whole command list without sending it."""
    game = client.create_game("toy21", ["ann", "bob"], seed=seed, game_id=game_id)
    commands = []
    for i, amount in enumerate(toy_amounts(seed)):
        seat = i % 2
        commands.append(
            client.envelope(
                game.game_id,
                seat,
                game.tokens[seat],
                {"type": "Add", "amount": amount},
                expected_version=1 + i,  # the create wrote one event; every Add one more
                command_id=f"{game.game_id[:8]}-{i}-{new_id()[:8]}",
            )
        )
    return ScriptedGame(game, commands)


def outcomes(client: ServiceClient, commands: list[CommandEnvelope]) -> list[Outcome | None]:
    """The recorded outcome of each command (None where there is none yet)."""
    return [client.outcome_of(c) for c in commands]


def scripted_batch(
    games: int, seed: int, *, player_ids: bool = False
) -> tuple[list[CreateEnvelope], list[CommandEnvelope]]:
    """``games`` toy21 games fully scripted without any Redis: their creations and every command, the
    commands interleaved round-robin across games (each game's own commands stay in order).

    ``player_ids``: game g seats the players ``toy-<g % 3>`` and ``toy-<(g + 1) % 3>`` (so three players meet
    again and again, under the names "ann" and "bob" by turns)."""
    creates: list[CreateEnvelope] = []
    per_game: list[list[CommandEnvelope]] = []
    for g in range(games):
        gid = f"g{seed}-{g}"
        tokens = [f"tok-{gid}-0", f"tok-{gid}-1"]
        creates.append(
            CreateEnvelope(
                command_id=f"create-{gid}",
                game_id=gid,
                game_name="toy21",
                players=["ann", "bob"],
                seed=seed * 1000 + g,
                token_hashes=[hash_token(t) for t in tokens],
                player_ids=[f"toy-{g % 3}", f"toy-{(g + 1) % 3}"] if player_ids else None,
            )
        )
        per_game.append(
            [
                CommandEnvelope.signed(
                    seat_key(tokens[i % 2]),
                    command_id=f"{gid}-c{i}",
                    game_id=gid,
                    seat=i % 2,
                    expected_version=1 + i,
                    payload={"type": "Add", "amount": amount},
                )
                for i, amount in enumerate(toy_amounts(seed * 1000 + g))
            ]
        )
    commands = [c for row in itertools.zip_longest(*per_game) for c in row if c is not None]
    return creates, commands

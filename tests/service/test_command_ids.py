"""Command ids belong to the seat that sends them: one seat's ids never decide another seat's commands, an id
reused for another command is refused, a sender that proves no seat records nothing, bots use unguessable ids
and never give up silently."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest

from events.base import Command, Event, Rejection
from services.bots.runner import BotConfig, BotRunner
from services.bus.entries import parse_entry
from services.bus.envelope import CommandEnvelope, hash_token, seat_key
from services.client import ServiceClient
from services.rules.registry import register_game
from tests.service.conftest import Backend
from tests.service.helpers import wait_for
from tests.service.toy_game import ToyRules, plugin

pytestmark = pytest.mark.redis

ADD_1 = {"type": "Add", "amount": 1}
ADD_2 = {"type": "Add", "amount": 2}
BOT_ID = re.compile(r"^bot-\d+-\d+-[0-9a-f]{16}$")


def start_bots(backend: Backend, config: BotConfig) -> BotRunner:
    """A bots runner in a thread until the test ends."""
    runner = BotRunner(backend.make(), range(backend.layout.shards), layout=backend.layout, config=config)
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    backend.workers.append((runner, stop, thread))  # type: ignore[arg-type] - stop_all only needs (_, event, thread)
    return runner


def over(client: ServiceClient, game_id: str) -> bool:
    info = client.game_info(game_id)
    return info is not None and info["status"] == "over"


def test_given_two_seats_using_one_command_id_then_each_seat_gets_its_own_outcome(backend: Backend) -> None:
    # Given a toy game, seat 0 to play
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid = game.game_id

    # When seat 1 sends a command out of turn under the id "same", then seat 0 its own move under "same"
    theirs = client.send(gid, 1, game.tokens[1], ADD_1, command_id="same")
    mine = client.send(gid, 0, game.tokens[0], ADD_2, command_id="same")

    # Then seat 0's command is decided on its own (accepted), not answered with seat 1's rejection
    assert theirs.rejection is not None and theirs.rejection.code == "not_your_turn"
    assert mine.accepted and mine.version == 2
    # and each seat's outcome lives under its own id
    assert client.outcome(gid, 0, "same") == mine and client.outcome(gid, 1, "same") == theirs


def test_given_a_used_command_id_when_it_comes_with_other_content_then_it_is_a_conflict(backend: Backend) -> None:
    # Given seat 0's accepted command "c1" (an Add of 1 expecting version 1)
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid, token = game.game_id, game.tokens[0]
    first = client.send(gid, 0, token, ADD_1, command_id="c1", expected_version=1)
    assert first.accepted
    events = client.read_events(gid)

    # When seat 0 sends "c1" again with another payload, or another expected version, or as it was
    other_payload = client.send(gid, 0, token, ADD_2, command_id="c1", expected_version=1)
    other_version = client.send(gid, 0, token, ADD_1, command_id="c1", expected_version=2)
    same = client.send(gid, 0, token, ADD_1, command_id="c1", expected_version=1)

    # Then the other commands are refused as command id conflicts, the same one gets its first outcome
    for refused in (other_payload, other_version):
        assert refused.status == "rejected"
        assert refused.rejection is not None and refused.rejection.code == "command_id_conflict"
    assert same == first
    # and nothing changed: the same events, the first outcome still stored
    assert client.read_events(gid) == events
    assert client.outcome(gid, 0, "c1") == first


def test_given_a_sender_that_proves_no_seat_then_its_refusal_decides_no_command_id(backend: Backend) -> None:
    # Given a toy game, seat 0 to play
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid = game.game_id

    # When someone without seat 0's token sends a command as seat 0 under the id "mine"
    forged = client.send(gid, 0, "a-guess", ADD_1, command_id="mine")

    # Then it is refused to its sender, and nothing is recorded under seat 0's id "mine"
    assert forged.rejection is not None and forged.rejection.code == "wrong_token"
    assert client.outcome(gid, 0, "mine") is None
    # and seat 0's own command "mine" is then decided on its own
    genuine = client.send(gid, 0, game.tokens[0], ADD_1, command_id="mine")
    assert genuine.accepted


def test_given_a_player_who_took_ids_the_bots_once_used_then_the_bots_still_play(backend: Backend) -> None:
    # Given a toy game of a person (seat 0) against a bot (seat 1), a rules worker and the bots
    backend.start(backend.worker())
    start_bots(backend, BotConfig(block_ms=20, sweep_every_ms=200, recheck_after_ms=50))
    client = backend.client()
    game = client.create_game("toy21", ["ann", "robot"], seed=3, bots={1: "random"})
    gid, token = game.game_id, game.tokens[0]

    # When the person first sends harmless (stale) commands under every id the bots used to take
    # (bot-<version>-<seat>-<attempt>), then plays his turns
    for version in range(1, 25):
        for attempt in range(3):
            cid = f"bot-{version}-1-{attempt}"
            refused = client.send(gid, 0, token, ADD_1, command_id=cid, expected_version=999)
            assert refused.rejection is not None and refused.rejection.code == "stale_version"
    while not over(client, gid):
        version = int(client.game_info(gid)["version"])  # type: ignore[index]
        if version % 2 == 1:  # the person's turn (the creation wrote 1 event; each Add one more, bar the win)
            client.send(gid, 0, token, ADD_1, expected_version=version)
        else:
            wait_for(lambda v=version: over(client, gid) or client.game_info(gid)["version"] > v)  # type: ignore[index]

    # Then the game ended with the bot's moves in it, each under an unguessable id
    bot_ids = {e.command_id for e in client.read_events(gid) if e.command_id.startswith("bot-")}
    assert len(bot_ids) >= 3 and all(BOT_ID.match(cid) for cid in bot_ids), bot_ids


class GrumpyToy(ToyRules):
    """toy21 whose referee refuses seat 1's first ``refusals`` commands (a stand-in for a rules bug that a bot
    keeps running into)."""

    name = "toy21_grumpy"
    refusals = 0

    def decide(self, state: Any, command: Command) -> list[Event] | Rejection:
        if getattr(command, "seat", None) == 1 and GrumpyToy.refusals > 0:
            GrumpyToy.refusals -= 1
            return Rejection(code="grumpy", message="not now")
        return super().decide(state, command)


register_game(plugin(GrumpyToy()))


def test_given_a_bot_whose_commands_keep_being_refused_then_it_reports_it_and_never_gives_up(
    backend: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a game of two bots whose referee refuses seat 1's first 7 commands, more than the 2 attempts a
    # version gets before the runner backs off
    GrumpyToy.refusals = 7
    backend.start(backend.worker())
    config = BotConfig(block_ms=20, sweep_every_ms=200, recheck_after_ms=20, max_attempts=2, retry_first_ms=50)
    runner = start_bots(backend, config)
    client = backend.client()

    # When the game is played
    game = client.create_game(GrumpyToy.name, ["a", "b"], seed=4, bots={0: "random", 1: "random"})

    # Then it still ends: seat 1's bot tried again, each time under a fresh id
    wait_for(lambda: over(client, game.game_id), seconds=300, every=0.05)
    assert GrumpyToy.refusals == 0 and runner.stats["failing"] >= 2
    # and an operator saw it as errors
    logged = capsys.readouterr().err
    assert logged.count('"bots.failing"') == runner.stats["failing"]
    assert '"level":"error"' in next(line for line in logged.splitlines() if '"bots.failing"' in line)


def test_a_proof_is_bound_to_its_one_command_and_the_digest_to_its_content() -> None:
    # Given seat 0's signed command, and the digest of its token as the game stores it
    key, stored = seat_key("secret-token"), hash_token("secret-token")
    fields = {"command_id": "c1", "game_id": "g1", "seat": 0, "payload": {"type": "Add", "amount": 1}}
    env = CommandEnvelope.signed(key, expected_version=4, **fields)

    # Then the stored digest verifies it, whatever the key order of the payload it is read back with
    assert env.verify(stored)
    reread = parse_entry({k.encode(): v for k, v in env.to_fields().items()})
    assert isinstance(reread, CommandEnvelope) and reverse_keys(reread).verify(stored)
    # and the token itself is in no field of the stream entry
    assert not any(b"secret-token" in v for v in env.to_fields().values())
    # and the same proof on any other command (id, game, seat, version, payload) does not verify
    others = [
        {"command_id": "c2"},
        {"game_id": "g2"},
        {"seat": 1},
        {"expected_version": 5},
        {"payload": {"type": "Add", "amount": 2}},
    ]
    for change in others:
        forged = env.model_copy(update=change)
        assert not forged.verify(stored), change
        # and its content digest differs exactly when the content does (seat, version, payload)
        assert (forged.digest() == env.digest()) == (set(change) <= {"command_id", "game_id"})
    # and a key from another token does not verify either
    assert not CommandEnvelope.signed(seat_key("other"), expected_version=4, **fields).verify(stored)


def reverse_keys(env: CommandEnvelope) -> CommandEnvelope:
    """The same envelope with its payload's keys in reverse order."""
    return env.model_copy(update={"payload": dict(reversed(list(env.payload.items())))})

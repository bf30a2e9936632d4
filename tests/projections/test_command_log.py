"""The event store's command log: every accepted or rejected command, committed with its events."""

from __future__ import annotations

from dataclasses import replace

from services.store.eventstore import command_of_event, read_archive_commands, read_commands, read_events
from tests.service.conftest import FAST, Backend
from tests.service.helpers import toy_amounts, wait_for


def test_every_command_is_logged_with_sender_time_outcome_and_version(backend: Backend) -> None:
    # Given a toy21 game on a running worker
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=3)
    gid = game.game_id

    # When seats send a good command, one out of turn, one with a wrong token, and one that is not valid
    ok = client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 2}, command_id="c-ok")
    turn = client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 1}, command_id="c-turn")
    token = client.send(gid, 1, "guess", {"type": "Add", "amount": 1}, command_id="c-token")
    bad = client.send(gid, 1, game.tokens[1], {"type": "Add", "amount": 9}, command_id="c-bad")
    ok2 = client.send(gid, 1, game.tokens[1], {"type": "Add", "amount": 3}, command_id="c-ok2")
    assert ok.accepted and ok2.accepted and not turn.accepted and not token.accepted and not bad.accepted

    # Then the log has the creation and all five, in order, ids <version after>-<n>, each with its outcome
    log = read_commands(backend.make(), backend.layout, gid)
    assert [c.command_id for c in log] == [game.command_id, "c-ok", "c-turn", "c-token", "c-bad", "c-ok2"]
    assert [c.log_id for c in log] == ["1-0", "2-0", "2-1", "2-2", "2-3", "3-0"]
    assert log[0].kind == "create" and log[0].payload == {
        "name": "toy21", "players": ["ann", "bob"], "settings": {}, "seed": 3,
    }  # fmt: skip
    assert log[1].seat == 0 and log[1].payload == {"type": "Add", "amount": 2} and log[1].accepted
    assert log[2].outcome["rejection"]["code"] == "not_your_turn"
    assert log[3].outcome["rejection"]["code"] == "wrong_token" and "guess" not in str(log[3])
    assert log[4].outcome["rejection"]["code"] == "bad_command"
    for c in log:
        assert c.received_ms is not None and c.committed_ms >= c.received_ms > 0

    # and every event names its command and commit time; the command of an event is found by its version
    r = backend.make()
    events = read_events(r, backend.layout, gid)
    assert [e.command_id for e in events] == [game.command_id, "c-ok", "c-ok2"]
    assert all(e.at == log_entry.committed_ms for e, log_entry in zip(events, [log[0], log[1], log[5]], strict=True))
    assert command_of_event(r, backend.layout, gid, 2).command_id == "c-ok"  # type: ignore[union-attr]
    assert command_of_event(r, backend.layout, gid, 3).command_id == "c-ok2"  # type: ignore[union-attr]
    assert command_of_event(r, backend.layout, gid, 4) is None


def test_an_unknown_game_gets_no_log_and_a_duplicate_is_logged_once(backend: Backend) -> None:
    # Given a running worker and a game
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=4)

    # When a command goes to a game that does not exist, and another is sent twice with one id
    client.send("no-such-game", 0, "x", {"type": "Add", "amount": 1})
    client.send(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 1}, command_id="twice")
    client.send(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 1}, command_id="twice")

    # Then the unknown game has no log key, and the duplicate appears once
    r = backend.make()
    assert not r.exists(backend.layout.commands(backend.layout.shard_of("no-such-game"), "no-such-game"))
    assert [c.command_id for c in read_commands(r, backend.layout, game.game_id)] == [game.command_id, "twice"]


def test_the_archive_keeps_the_command_log(backend: Backend) -> None:
    # Given a worker that archives ended games at once, and a game played to its end
    backend.start(backend.worker(config=replace(FAST, archive_after_ms=0, maintenance_every_ms=100)))
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=5)
    for i, amount in enumerate(toy_amounts(5)):
        assert client.send(game.game_id, i % 2, game.tokens[i % 2], {"type": "Add", "amount": amount}).accepted
    r = backend.make()
    hot = read_commands(r, backend.layout, game.game_id)

    # When the game is archived
    wait_for(lambda: (client.game_info(game.game_id) or {}).get("status") == "archived")

    # Then the hot log is gone, and the archive holds the same log
    shard = backend.layout.shard_of(game.game_id)
    assert not r.exists(backend.layout.commands(shard, game.game_id))
    assert read_commands(r, backend.layout, game.game_id) == hot
    blob = r.get(backend.layout.archive(shard, game.game_id))
    assert read_archive_commands(blob) == hot and len(hot) == 1 + len(toy_amounts(5))

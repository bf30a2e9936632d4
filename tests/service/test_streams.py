"""The service through its streams: whole games, duplicates, versions, lifecycle, snapshots, recovery."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from services.bus.envelope import hash_token
from services.bus.keys import GROUP
from services.client import GameNotCreated, new_id
from services.store.eventstore import parse_feed_entry, read_announced, read_events
from tests.service.conftest import FAST, Backend
from tests.service.helpers import script_game, scripted_batch, toy_amounts, wait_for
from tests.service.toy_game import ToyDecider, plugin

pytestmark = pytest.mark.redis


def test_a_whole_game_through_the_streams(backend: Backend) -> None:
    # Given a running worker and a new toy21 game
    backend.start(backend.worker())
    client = backend.client()
    scripted = script_game(client, seed=3)
    gid = scripted.game.game_id

    # When both seats play it to the end, each command waiting for its outcome
    results = [client.submit_many([c]) and client.wait_on(c) for c in scripted.commands]

    # Then every command is accepted, the versions follow each other and the last one ends the game
    assert all(o.accepted for o in results)
    assert [o.first_version for o in results] == list(range(2, len(results) + 2))
    assert results[-1].over and not any(o.over for o in results[:-1])
    # and the stored events are those the decider makes from the same commands
    decider = ToyDecider()
    state = decider.initial_state()
    expected = decider.start(["ann", "bob"], {}, 3)
    for event in expected:
        state = decider.evolve(state, event)
    for c in scripted.commands:
        new = decider.decide(state, decider.parse_command({**c.payload, "seat": c.seat}))
        assert isinstance(new, list)
        for event in new:
            state = decider.evolve(state, event)
        expected += new
    assert [e.data for e in client.read_events(gid)] == [e.to_dict() for e in expected]
    # and the game is recorded as over, with its result
    info = client.game_info(gid)
    assert info is not None
    assert info["status"] == "over" and info["result"] == decider.result(state)
    assert info["version"] == len(expected)
    # and the shard's feed announced every version once, one entry per commit and no event bodies (one copy of
    # each event is kept), and what it announces reads back as the stored events, in order
    r = backend.make()
    feed = r.xrange(backend.layout.feed(backend.layout.shard_of(gid)))
    mine = [parse_feed_entry(f) for _, f in feed if f[b"g"] == gid.encode()]
    assert all(a is not None and a.body is None for a in mine) and all(b"e" not in f for _, f in feed)
    assert [v for a in mine if a for v in range(a.first, a.last + 1)] == list(range(1, len(expected) + 1))
    assert len(mine) == 1 + len(scripted.commands)
    items = read_announced(r, backend.layout, [a for a in mine if a])[gid]
    assert [orjson.loads(i.raw) for i in items] == [e.to_dict() for e in expected]


def test_a_duplicate_command_gets_its_first_outcome_and_writes_nothing(backend: Backend) -> None:
    # Given a game where seat 0 sent a command that was accepted, and seat 1 one that was rejected
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid = game.game_id
    early = client.send(gid, 1, game.tokens[1], {"type": "Add", "amount": 2}, command_id="early-bob")
    first = client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 2}, command_id="ann-1")
    assert first.accepted and early.rejection is not None and early.rejection.code == "not_your_turn"
    events_before = client.read_events(gid)

    # When both commands are sent again with the same ids (bob's would now be his turn)
    again = client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 2}, command_id="ann-1")
    early_again = client.send(gid, 1, game.tokens[1], {"type": "Add", "amount": 2}, command_id="early-bob")

    # Then each gets its first outcome back, and the game has not changed
    assert again == first
    assert early_again == early
    assert client.read_events(gid) == events_before
    info = client.game_info(gid)
    assert info is not None and info["version"] == first.version


def test_a_stale_expected_version_is_rejected(backend: Backend) -> None:
    # Given a game at version 2
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    assert client.send(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 1}, expected_version=1).accepted

    # When seat 1 sends a command believing the game is still at version 1
    stale = client.send(game.game_id, 1, game.tokens[1], {"type": "Add", "amount": 1}, expected_version=1)

    # Then it is rejected as stale, nothing is written, and the same command at version 2 goes through
    assert stale.rejection is not None and stale.rejection.code == "stale_version"
    assert stale.version == 2
    assert len(client.read_events(game.game_id)) == 2
    fresh = client.send(game.game_id, 1, game.tokens[1], {"type": "Add", "amount": 1}, expected_version=2)
    assert fresh.accepted and fresh.version == 3


def test_game_lifecycle_tokens_end_and_archive(backend: Backend) -> None:
    # Given a worker that archives ended games at once
    config = replace(FAST, archive_after_ms=0, maintenance_every_ms=100)
    backend.start(backend.worker(config=config))
    client = backend.client()

    # When games are created with bad requests, they are refused with a reason
    with pytest.raises(GameNotCreated) as unknown:
        client.create_game("no-such-game", ["a", "b"], seed=1)
    assert unknown.value.outcome.rejection.code == "unknown_game"
    with pytest.raises(GameNotCreated) as bad_players:
        client.create_game("toy21", ["a", "b", "c"], seed=1)
    assert bad_players.value.outcome.rejection.code == "bad_command"
    game = client.create_game("toy21", ["ann", "bob"], seed=5)
    with pytest.raises(GameNotCreated) as exists:
        client.create_game("toy21", ["ann", "bob"], seed=5, game_id=game.game_id)
    assert exists.value.outcome.rejection.code == "game_exists"

    # and a seat sends with another seat's token, or a made-up one
    gid = game.game_id
    other = client.send(gid, 0, game.tokens[1], {"type": "Add", "amount": 1})
    made_up = client.send(gid, 0, "guess", {"type": "Add", "amount": 1})
    assert other.rejection is not None and other.rejection.code == "wrong_token"
    assert made_up.rejection is not None and made_up.rejection.code == "wrong_token"
    # (the secrets themselves are never stored, only their hashes)
    meta = backend.make().hgetall(backend.layout.meta(backend.layout.shard_of(gid), gid))
    assert game.tokens[0].encode() not in meta[b"tokens"] and hash_token(game.tokens[0]).encode() in meta[b"tokens"]

    # When the game is played to its end
    for i, amount in enumerate(toy_amounts(5)):
        assert client.send(gid, i % 2, game.tokens[i % 2], {"type": "Add", "amount": amount}).accepted
    final_events = client.read_events(gid)

    # Then a later command is refused: the game is over
    late = client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 1})
    assert late.rejection is not None and late.rejection.code == "game_over"

    # and once archived, the game is off the hot path yet its events replay the same
    wait_for(lambda: (client.game_info(gid) or {}).get("status") == "archived")
    r = backend.make()
    shard = backend.layout.shard_of(gid)
    assert not r.exists(backend.layout.events(shard, gid), backend.layout.snap(shard, gid))
    assert r.zscore(backend.layout.ended(shard), gid) is None
    assert client.read_events(gid) == final_events
    assert client.read_events(gid, after=3) == final_events[3:]
    after = client.send(gid, 1, game.tokens[1], {"type": "Add", "amount": 1})
    assert after.rejection is not None and after.rejection.code == "game_over"


def test_states_reload_from_snapshot_and_tail_with_a_tiny_cache(backend: Backend) -> None:
    # Given a worker that keeps one state in memory and snapshots every 3 events
    config = replace(FAST, cache_size=1, snapshot_every=3)
    worker = backend.start(backend.worker(config=config))
    client = backend.client()
    games = [script_game(client, seed=s) for s in (11, 12, 13)]

    # When the three games are played turn by turn, interleaved (so each command finds its state evicted)
    for step in range(max(len(g.commands) for g in games)):
        for g in games:
            if step < len(g.commands):
                c = g.commands[step]
                client.submit_many([c])
                assert client.wait_on(c).accepted

    # Then every game ended correctly, states were reloaded, and snapshots sit at multiples of 3
    r = backend.make()
    for g in games:
        info = client.game_info(g.game.game_id)
        assert info is not None and info["status"] == "over"
        shard = backend.layout.shard_of(g.game.game_id)
        snap_v = int(r.hget(backend.layout.snap(shard, g.game.game_id), "v"))
        assert snap_v % 3 == 0 or snap_v == info["version"]
        decider = plugin().rules  # the toy with the table around it: its snapshots are the table's
        restored = decider.restore(r.hget(backend.layout.snap(shard, g.game.game_id), "d"))
        state = decider.initial_state()
        for e in client.read_events(g.game.game_id)[:snap_v]:
            state = decider.evolve(state, decider.parse_event(e.data))
        assert restored == state
    assert worker.stats["loads"] > 3
    assert len(worker.cache) <= 1


def test_commands_before_any_worker_are_served_when_one_starts(backend: Backend) -> None:
    # Given commands already on the streams while no worker runs
    client = backend.client()
    cid = new_id()
    gid = new_id()
    client.r.xadd(
        backend.layout.cmds(backend.layout.shard_of(gid)),
        {"kind": "create", "id": cid, "game": gid, "name": "toy21", "players": '["a","b"]', "settings": "{}",
         "seed": "9", "tokens": orjson.dumps([hash_token("x"), hash_token("y")])},
    )  # fmt: skip

    # When a worker starts
    backend.start(backend.worker())

    # Then it creates the game (the consumer group starts from the beginning of the stream)
    outcome = client.wait(gid, None, cid)
    assert outcome.accepted
    assert client.send(gid, 0, "x", {"type": "Add", "amount": 3}).accepted


def test_events_of_a_game_are_stored_at_ids_equal_to_versions(backend: Backend) -> None:
    # Given a played game
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=2)
    client.send(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 3})

    # When the raw stream is read
    r = backend.make()
    shard = backend.layout.shard_of(game.game_id)
    ids = [eid for eid, _ in r.xrange(backend.layout.events(shard, game.game_id))]

    # Then entry ids are 0-1, 0-2, ... (appending at an expected version is appending at a fixed id)
    assert ids == [b"0-1", b"0-2"]
    assert [e.version for e in read_events(r, backend.layout, game.game_id)] == [1, 2]
    # and the command stream is empty: a committed command is acked and deleted in the same script
    assert r.xlen(backend.layout.cmds(shard)) == 0
    assert r.xpending(backend.layout.cmds(shard), GROUP)["pending"] == 0


def test_many_games_at_once_with_a_small_state_cache(backend: Backend) -> None:
    # Given 300 games, each with its first three commands queued, and room for 30 states in memory (ten times
    # more games than states: every game is evicted and reloaded)
    games, room = 300, 30
    client = backend.client()
    creates, commands = scripted_batch(games, seed=77)
    firsts = [c for c in commands if c.command_id.endswith(("-c0", "-c1", "-c2"))]
    client.submit_many(creates)
    client.submit_many(firsts)
    # a lease longer than the test (this test is not about fail-over: a loaded host may take minutes)
    # batches of 64: a batch never holds two commands of one game, as a batch of 256 among 1000 games would not
    worker = backend.worker(config=replace(FAST, cache_size=room, batch=64, snapshot_every=2, lease_ttl_ms=600_000))

    # When one worker serves them
    worker.run_until_idle()

    # Then every command was accepted, states were reloaded from snapshot + tail, memory stayed bounded
    assert all(client.outcome_of(c).accepted for c in firsts)  # type: ignore[union-attr]
    assert worker.stats["append"] == len(firsts) and worker.stats["create"] == games
    assert worker.stats["loads"] >= games
    assert len(worker.cache) <= room
    assert all(len(client.read_events(c.game_id)) == 4 for c in creates[:50])

"""The store's one way to load a game (typed metadata, snapshot plus tail, archives) and its commit protocol."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.bus.consumer import GroupConsumer
from services.bus.envelope import Outcome
from services.store.meta import BadMeta, GameMeta
from services.store.repository import CorruptGame, GameRepository, UnknownGame, UnknownRules
from tests.service.conftest import FAST, Backend
from tests.service.helpers import script_game
from tests.service.toy_game import NAME


def _played(backend: Backend, seed: int, moves: int) -> tuple[str, GameRepository]:
    client = backend.client()
    worker = backend.start(backend.worker())
    scripted = script_game(client, seed)
    for env in scripted.commands[:moves]:
        assert client.send(env.game_id, env.seat, scripted.game.tokens[env.seat], env.payload).accepted
    assert worker.leases
    return scripted.game.game_id, GameRepository(backend.make(), backend.layout)


def test_a_game_loads_at_its_version_and_at_any_earlier_one_equal_to_folding_its_events(backend: Backend) -> None:
    # Given a toy game of 1 + 8 events (snapshots every 5)
    gid, repo = _played(backend, seed=3, moves=8)

    # When it is loaded at its version, and at every version before
    latest = repo.load(gid)
    events = repo.events(gid)

    # Then the metadata is typed, and every state equals the fold of the recorded events up to it
    assert latest.meta.name == NAME and latest.meta.players == ("ann", "bob") and latest.version == 9
    assert latest.status == "active" and len(latest.token_digests) == 2 and latest.snapshot_version == 5
    for upto in range(0, 10):
        rules = latest.rules
        expected, _ = repo.fold(rules, rules.initial_state(), 0, ((e.version, e.data) for e in events[:upto]))
        assert repo.load(gid, upto=upto).state == expected


def test_many_games_load_in_two_round_trips_and_each_failure_stays_with_its_game(backend: Backend) -> None:
    # Given a game, a game whose name has no rules here, and an id with no game
    gid, repo = _played(backend, seed=4, moves=2)
    r = backend.make()
    meta_key = backend.layout.meta(backend.layout.shard_of(gid), gid)
    r.copy(meta_key, backend.layout.meta(backend.layout.shard_of("alien"), "alien"))
    r.hset(backend.layout.meta(backend.layout.shard_of("alien"), "alien"), "name", "nosuchgame")

    # When they are loaded together
    got = repo.load_many([gid, "alien", "nobody"])

    # Then the good one loads, the unknown game name is a typed error, and the missing game is None
    assert not isinstance(got[gid], Exception) and got[gid] is not None and got[gid].version == 3
    assert isinstance(got["alien"], UnknownRules) and got["nobody"] is None
    with pytest.raises(UnknownGame):
        repo.load("nobody")
    with pytest.raises(UnknownGame):
        repo.meta("nobody")


def test_a_gap_in_the_events_is_a_corrupt_game_not_a_wrong_state(backend: Backend) -> None:
    # Given a game whose stream lost an event in the middle (and no snapshot to hide it)
    gid, repo = _played(backend, seed=5, moves=3)
    backend.stop_all()
    r = backend.make()
    shard = backend.layout.shard_of(gid)
    r.delete(backend.layout.snap(shard, gid))
    r.xdel(backend.layout.events(shard, gid), "0-2")

    # When it is loaded, then the repository says so
    with pytest.raises(CorruptGame):
        repo.load(gid)


def test_the_typed_meta_reads_every_field_and_shows_no_token_digest() -> None:
    # Given the typed meta of an archived game, then its summary has no token digests
    meta = GameMeta.parse("g", {b"name": b"toy21", b"players": b'["a","b"]', b"tokens": b'["x","y"]',
                                b"status": b"archived", b"version": b"7", b"rejected.0": b"3"})  # fmt: skip
    assert meta.archived and meta.finished and meta.rejections == {"0": 3}
    assert "tokens" not in meta.info() and meta.info()["players"] == ["a", "b"]
    # and a meta field that is not what it must be is a typed error
    with pytest.raises(BadMeta):
        GameMeta.parse("g", {b"players": b"not json"})


def test_an_archived_game_folds_from_its_archive(backend: Backend) -> None:
    # Given a finished toy game, archived by the next worker of its shard
    client = backend.client()
    backend.start(backend.worker())
    scripted = script_game(client, seed=6)
    client.submit_many(scripted.commands)
    assert client.wait_on(scripted.commands[-1]).accepted
    gid = scripted.game.game_id
    repo = GameRepository(backend.make(), backend.layout)
    before = repo.load(gid)
    backend.stop_all()
    heir = backend.worker(config=replace(FAST, archive_after_ms=0))
    heir.refresh_leases()
    assert heir.maintain() == 1 and repo.meta(gid).archived

    # When it is loaded again, folded or not
    folded = repo.load(gid)
    bare = repo.load(gid, fold_archived=False)

    # Then the archive gives the same final state, and the bare load has none
    assert folded.state == before.state and folded.version == before.version and folded.status == "archived"
    assert bare.state is None and bare.version == before.version


def test_an_accepted_reply_carries_its_events_when_asked_and_the_stored_outcome_never(backend: Backend) -> None:
    # Given a toy game, and two commands accepted by the worker: one asking for its events in the reply
    client = backend.client()
    backend.start(backend.worker())
    scripted = script_game(client, seed=7)
    asking = scripted.commands[0].model_copy(update={"reply_events": True})
    plain = scripted.commands[1]

    # When their submitter pops the replies
    client.submit_many([asking])
    reply = client.wait_on(asking)
    client.submit_many([plain])
    plain_reply = client.wait_on(plain)

    # Then the asking reply holds the command's events exactly as recorded, the other reply none
    recorded = [e.data for e in client.read_events(asking.game_id, after=1, upto=reply.version)]
    assert reply.accepted and reply.event_data == recorded and len(recorded) == reply.events
    assert plain_reply.accepted and plain_reply.event_data is None
    # and the stored outcome (kept 24 h) carries none, though it is the same outcome
    stored = client.outcome_of(asking)
    assert isinstance(stored, Outcome) and stored.event_data is None and stored == reply


def test_a_consumer_rereads_its_pending_entries_without_counting_a_delivery(backend: Backend) -> None:
    # Given a stream with three entries read once by consumer "a", and a consumer "b" of the same group
    r = backend.make()
    stream = lambda shard: f"{backend.layout.prefix}:test:{shard}"  # noqa: E731
    a = GroupConsumer(r, "g", "a", stream, batch=10)
    b = GroupConsumer(backend.make(), "g", "b", stream, batch=10)
    assert a.create_groups([0]) == [0] and a.create_groups([0]) == []
    ids = [r.xadd(stream(0), {"n": str(i)}) for i in range(3)]
    assert [e[1] for e in a.read([0], block_ms=0)] == ids

    # When "a" rereads its pending entries twice, and then "b" claims them
    assert [e[1] for e in a.pending(0)] == ids and [e[1] for e in a.pending(0)] == ids
    claimed = b.claim_idle(0, min_idle_ms=0)

    # Then the rereads counted no delivery: each was delivered once by the read, once by the claim
    assert [c.entry[1] for c in claimed] == ids and [c.delivered for c in claimed] == [2, 2, 2]
    # and once acked, nothing is pending
    b.ack((0, eid) for eid in ids)
    assert b.pending(0) == [] and a.pending(0) == []

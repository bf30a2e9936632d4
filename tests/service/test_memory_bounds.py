"""What refused requests make Redis keep is bounded: a refused creation or command leaves nothing but a short-lived
outcome, and a game's command log keeps a capped number of refusals per seat (with the count of all of them)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from services.bus.envelope import CommandEnvelope, CreateEnvelope, hash_token, new_id, seat_key
from services.store.eventstore import read_commands
from tests.service.conftest import FAST, Backend
from tests.service.helpers import wait_for

pytestmark = pytest.mark.redis

N = 150
CAP = 10
SHORT_MS = 1500


def _keys(backend: Backend) -> set[bytes]:
    return set(backend.make().scan_iter(match=f"{backend.layout.prefix}:*", count=1000))


def _refused_commands(gid: str, tokens: list[str]) -> list[CommandEnvelope]:
    """N commands of each kind a game refuses: out of turn (seat 1), a stale version (seat 0), a wrong token
    (as seat 0), and for a game that does not exist."""
    out = []
    for i in range(N):
        add = {"type": "Add", "amount": 1}
        out += [
            CommandEnvelope.signed(seat_key(tokens[1]), command_id=f"turn-{i}", game_id=gid, seat=1, payload=add),
            CommandEnvelope.signed(
                seat_key(tokens[0]), command_id=f"stale-{i}", game_id=gid, seat=0, payload=add, expected_version=99
            ),
            CommandEnvelope.signed(seat_key(f"guess-{i}"), command_id=f"forged-{i}", game_id=gid, seat=0, payload=add),
            CommandEnvelope.signed(
                seat_key(tokens[0]), command_id=f"nogame-{i}", game_id=new_id(), seat=0, payload=add
            ),
        ]
    return out


def _refused_creations() -> list[CreateEnvelope]:
    """N creations refused: a game name nobody registered, and players the game does not take."""
    out = []
    for i in range(N):
        for name, players in (("no-such-game", ["a", "b"]), ("toy21", ["a", "b", "c"])):
            out.append(
                CreateEnvelope(
                    command_id=f"create-{name}-{i}",
                    game_id=new_id(),
                    game_name=name,
                    players=players,
                    seed=i,
                    token_hashes=[hash_token(new_id()) for _ in players],
                )
            )
    return out


def test_given_floods_of_refused_commands_and_creations_then_what_redis_keeps_is_bounded(backend: Backend) -> None:
    # Given a worker whose refused outcomes and unread replies live 1.5 s, and whose command log keeps 10
    # refusals per seat; and a game
    config = replace(FAST, rejected_ttl_ms=SHORT_MS, reply_ttl_ms=SHORT_MS, max_logged_rejections=CAP)
    backend.start(backend.worker(config=config))
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid = game.game_id
    keys_before = _keys(backend)
    r = backend.make()
    memory_before = int(r.info("memory")["used_memory"]) if backend.kind == "redis" else 0

    # When 4 x 150 refused commands and 2 x 150 refused creations arrive (nobody waits for their answers)
    commands, creations = _refused_commands(gid, game.tokens), _refused_creations()
    client.submit_many([*commands, *creations])
    last = commands[-4]  # seat 1 out of turn: authenticated, so its outcome is stored for a while
    wait_for(lambda: client.outcome_of(last) is not None and client.outcome_of(creations[-1]) is not None)
    wait_for(lambda: sum(r.xlen(backend.layout.cmds(s)) for s in range(backend.layout.shards)) == 0)

    # Then each was refused with its reason, and the refusals a referee needs are in the game's command log,
    # at most 10 per seat, with the count of every refusal in the game's metadata
    assert client.outcome_of(last).rejection.code == "not_your_turn"  # type: ignore[union-attr]
    logged = [c for c in read_commands(r, backend.layout, gid) if not c.accepted]
    by_seat = {seat: sum(1 for c in logged if c.seat == seat) for seat in (0, 1)}
    assert by_seat == {0: CAP, 1: CAP}
    meta = r.hgetall(backend.layout.meta(backend.layout.shard_of(gid), gid))
    assert int(meta[b"rejected.0"]) == 2 * N and int(meta[b"rejected.1"]) == N
    # and every other key they made expires within the short TTL: the keyspace is the same as before
    time.sleep(SHORT_MS / 1000)
    wait_for(lambda: _keys(backend) == keys_before, seconds=60, every=0.2)
    # and the memory kept is the capped log and counters only (on a real Redis: a few tens of kB)
    if backend.kind == "redis":
        assert int(r.info("memory")["used_memory"]) - memory_before < 100_000
    # while the game itself goes on
    assert client.send(gid, 0, game.tokens[0], {"type": "Add", "amount": 1}).accepted

"""Malformed stream entries end as typed rejections or dead letters with a reason; the worker keeps serving."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from events.base import Command, Event, Rejection
from services.bus.entries import entry_scope
from services.bus.envelope import Outcome, command_proof, seat_key
from services.rules.registry import register_game
from tests.service.conftest import Backend
from tests.service.helpers import wait_for
from tests.service.toy_game import Add, ToyRules, plugin

pytestmark = pytest.mark.redis
TEN_MB = 10 * 1024 * 1024


class FaultyToy(ToyRules):
    """toy21 with a bug: deciding an Add of 2 by seat 1 raises."""

    name = "toy21_faulty"

    def decide(self, state: Any, command: Command) -> list[Event] | Rejection:
        if isinstance(command, Add) and command.seat == 1 and command.amount == 2:
            raise RuntimeError("rules bug: seat 1 adding 2")
        return super().decide(state, command)

    def start(self, players: Sequence[str], settings: dict[str, Any], seed: int) -> list[Event]:
        return super().start(players, settings, seed)


register_game(plugin(FaultyToy()))


def test_malformed_entries_are_rejected_or_dead_lettered_and_the_worker_keeps_serving(backend: Backend) -> None:
    # Given a running worker and a game
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game("toy21", ["ann", "bob"], seed=1)
    gid, tok = game.game_id, game.tokens[0]
    shard = backend.layout.shard_of(gid)
    stream = backend.layout.cmds(shard)
    r = backend.make()
    good = {"id": "", "game": gid, "seat": "0", "payload": b'{"type":"Add","amount":1}'}

    def entry(cid: str, key: bytes = seat_key(tok), **changes: Any) -> dict[str, Any]:
        """The entry, its proof made with ``key`` over what it says (where that can be read at all)."""
        fields = {k: v for k, v in {**good, "id": cid, **changes}.items() if v is not None}
        if "proof" in changes:
            return fields
        try:
            payload = orjson.loads(fields["payload"])
            ver = int(fields["ver"]) if "ver" in fields else None
            fields["proof"] = command_proof(key, fields["game"], int(fields["seat"]), cid, ver, payload)
        except (KeyError, ValueError, TypeError, orjson.JSONDecodeError):
            fields["proof"] = "0" * 64
        return fields

    def reply(fields: dict[str, Any], cid: str) -> Outcome:
        """The reply to an entry (a refusal before any seat is proven is only replied, never recorded)."""
        raw = {k.encode(): v if isinstance(v, bytes) else str(v).encode() for k, v in fields.items()}
        key = backend.layout.reply(backend.layout.shard_of(fields["game"]), fields["game"], entry_scope(raw), cid)
        got = r.blpop([key], timeout=10)
        assert got is not None, cid
        return Outcome.model_validate_json(got[1])

    cases: dict[str, tuple[dict[str, Any], str]] = {
        "not-json": (entry("not-json", payload=b"{oops"), "not_json"),
        "no-seat": (entry("no-seat", seat=None), "bad_envelope"),
        "no-payload": (entry("no-payload", payload=None), "bad_envelope"),
        "seat-word": (entry("seat-word", seat="two"), "bad_envelope"),
        "huge": (entry("huge", payload=b'{"type":"Add","pad":"' + b"x" * TEN_MB + b'"}'), "payload_too_large"),
        "wrong-token": (entry("wrong-token", key=seat_key("nope")), "wrong_token"),
        "raw-token": ({**entry("raw-token", proof=None), "token": tok}, "bad_envelope"),
        "other-seat": (entry("other-seat", payload=b'{"type":"Add","amount":1,"seat":1}'), "bad_command"),
        "bad-amount": (entry("bad-amount", payload=b'{"type":"Add","amount":9}'), "bad_command"),
        "no-type": (entry("no-type", payload=b'{"amount":1}'), "bad_command"),
        "list-payload": (entry("list-payload", payload=b"[1,2]"), "bad_envelope"),
        "no-game": (entry("no-game", game="nosuchgame"), "unknown_game"),
        "weird-kind": (entry("weird-kind", kind="frobnicate"), "bad_envelope"),
        "binary-proof": (entry("binary-proof", proof=b"\xff\xfe"), "bad_envelope"),
        "bad-ver": (entry("bad-ver", ver="x"), "bad_envelope"),
        "bad-create": (entry("bad-create", kind="create", name="toy21", seed="1", players=b"[]",
                             settings=b"{}", tokens=b"[]"), "bad_envelope"),
    }  # fmt: skip
    # ("no-game" is sent to the shard its id hashes to, as a client would)
    dead_entries = [{"garbage": "1"}, {"id": "has spaces", "game": gid}, {"id": "x" * 500}]

    # When they are put on the stream, mixed with a valid command
    for fields, _ in cases.values():
        target = stream if fields["game"] == gid else backend.layout.cmds(backend.layout.shard_of(fields["game"]))
        r.xadd(target, fields)
    for fields in dead_entries:
        r.xadd(stream, fields)
    valid = client.submit(gid, 0, tok, {"type": "Add", "amount": 3}, expected_version=1)

    # Then each answerable one is rejected with its typed code
    for cid, (fields, code) in cases.items():
        outcome = reply(fields, cid)
        assert outcome.status == "rejected", cid
        assert outcome.rejection is not None and outcome.rejection.code == code, (cid, outcome.rejection)
        assert outcome.rejection.message
    # and the ones without a usable command id are dead letters with a reason
    wait_for(lambda: r.xlen(backend.layout.dead(shard)) == len(dead_entries))
    reasons = [f[b"reason"].decode() for _, f in r.xrange(backend.layout.dead(shard))]
    assert all("command id" in reason for reason in reasons), reasons
    # and the valid command was served, the huge entry is gone from Redis, nothing is left pending
    assert client.wait(gid, 0, valid).accepted
    wait_for(lambda: r.xlen(stream) == 0)
    assert r.xpending(stream, "rules")["pending"] == 0
    assert len(client.read_events(gid)) == 2


def test_a_command_that_keeps_failing_is_dead_lettered_without_blocking_its_shard(backend: Backend) -> None:
    # Given two games of the faulty toy on one shard
    worker = backend.start(backend.worker([0, 1, 2, 3]))
    client = backend.client()
    faulty = client.create_game("toy21_faulty", ["ann", "bob"], seed=1, game_id="faulty-a")
    other_id = next(
        f"other-{i}"
        for i in range(1000)
        if backend.layout.shard_of(f"other-{i}") == backend.layout.shard_of("faulty-a")
    )
    other = client.create_game("toy21_faulty", ["cid", "dee"], seed=1, game_id=other_id)

    # When a command that crashes the rules is sent for the first game, then commands for both games
    assert client.send("faulty-a", 0, faulty.tokens[0], {"type": "Add", "amount": 1}).accepted
    poison = client.submit("faulty-a", 1, faulty.tokens[1], {"type": "Add", "amount": 2})
    after_poison = client.submit("faulty-a", 1, faulty.tokens[1], {"type": "Add", "amount": 3})
    others = [client.submit(other_id, i % 2, other.tokens[i % 2], {"type": "Add", "amount": 1}) for i in range(4)]

    # Then the other game is served meanwhile
    assert all(client.wait(other_id, i % 2, cid).accepted for i, cid in enumerate(others))
    # and the poison ends as a dead letter with the reason, after max_attempts tries, and its sender is told
    outcome: Outcome = client.wait("faulty-a", 1, poison, timeout=20)
    assert outcome.status == "dead_letter"
    assert outcome.rejection is not None and "rules bug" in outcome.rejection.message
    dead = backend.make().xrange(backend.layout.dead(backend.layout.shard_of("faulty-a")))
    assert len(dead) == 1
    assert dead[0][1][b"attempts"] == str(worker.cfg.max_attempts).encode()
    assert orjson.loads(dead[0][1][b"fields"])["id"] == poison
    # and the game's next command, held back behind the poison to keep its order, is then served
    assert client.wait("faulty-a", 1, after_poison).accepted

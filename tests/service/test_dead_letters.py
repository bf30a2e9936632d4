"""Dead letters for operators: a command that failed because of a bug is put back once the bug is fixed, and
takes effect once; what cannot be put back faithfully is refused with the reason; no seat token is kept (the
command's proof is, and still proves the seat on a retry)."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from events.base import Command, Event, Rejection
from services import cli
from services.bus import connection
from services.bus.envelope import command_proof, seat_key
from services.client import ServiceClient
from services.rules.registry import register_game
from services.store import deadletters
from tests.service.conftest import Backend
from tests.service.helpers import wait_for
from tests.service.toy_game import Add, ToyRules, plugin

pytestmark = pytest.mark.redis


class FlakyToy(ToyRules):
    """toy21 with a bug that can be fixed: while ``broken``, deciding an Add of 2 raises."""

    name = "toy21_flaky"
    broken = True

    def decide(self, state: Any, command: Command) -> list[Event] | Rejection:
        if FlakyToy.broken and isinstance(command, Add) and command.amount == 2:
            raise RuntimeError("rules bug: adding 2")
        return super().decide(state, command)


register_game(plugin(FlakyToy()))


@pytest.fixture(autouse=True)
def _broken_again() -> Any:
    FlakyToy.broken = True
    yield
    FlakyToy.broken = True


def _dead_lettered(backend: Backend, game_id: str, **extra_fields: str) -> tuple[ServiceClient, Any, str, int]:
    """Given a flaky-toy game whose seat 0 sent an Add of 2 that the bug turned into a dead letter."""
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game(FlakyToy.name, ["ann", "bob"], seed=1, game_id=game_id)
    shard = backend.layout.shard_of(game_id)
    if extra_fields:
        payload = {"type": "Add", "amount": 2}
        proof = command_proof(seat_key(game.tokens[0]), game_id, 0, "poison", None, payload)
        fields = {"id": "poison", "game": game_id, "seat": "0", "proof": proof, **extra_fields}
        fields["payload"] = orjson.dumps(payload).decode()
        backend.make().xadd(backend.layout.cmds(shard), fields)  # type: ignore[arg-type]
        cid = "poison"
    else:
        cid = client.submit(game_id, 0, game.tokens[0], {"type": "Add", "amount": 2})
    assert client.wait(game_id, 0, cid, timeout=20).status == "dead_letter"
    return client, game, cid, shard


def test_given_a_fixed_bug_when_its_dead_letter_is_retried_then_the_command_takes_effect_once(
    backend: Backend,
) -> None:
    # Given a command dead-lettered by a rules bug
    client, game, cid, shard = _dead_lettered(backend, "flaky-a")
    r = backend.make()
    [letter] = deadletters.list_dead_letters(r, backend.layout)
    assert (letter.shard, letter.command_id, letter.game_id) == (shard, cid, "flaky-a")
    assert "rules bug" in letter.reason and letter.complete and letter.retryable is None
    # and the dead letter keeps no seat token, only the proof bound to this one command
    assert game.tokens[0] not in str(r.xrange(backend.layout.dead(shard)))
    assert "token" not in letter.fields and len(letter.fields["proof"]) == 64

    # When the bug is fixed and the operator retries the dead letter
    FlakyToy.broken = False
    result = deadletters.retry_dead_letter(r, backend.layout, shard, letter.id)

    # Then it is queued again and accepted, as the seat's own command
    assert result.status == "requeued", result
    outcome = client.wait("flaky-a", 0, cid, timeout=20)
    assert outcome.status == "accepted"
    assert [s.data["amount"] for s in client.read_events("flaky-a") if s.data["type"] == "Added"] == [2]
    # and the dead letter is gone: a second retry changes nothing
    assert deadletters.list_dead_letters(r, backend.layout) == []
    assert deadletters.retry_dead_letter(r, backend.layout, shard, letter.id).status == "gone"
    # and sending the same command id again still gets the first outcome (exactly once)
    client.submit("flaky-a", 0, game.tokens[0], {"type": "Add", "amount": 2}, command_id=cid)
    assert client.wait("flaky-a", 0, cid).version == outcome.version
    assert len([s for s in client.read_events("flaky-a") if s.data["type"] == "Added"]) == 1


def test_given_a_dead_letter_with_only_an_excerpt_when_retried_then_it_is_refused(backend: Backend) -> None:
    # Given a dead letter of an entry with a field longer than the excerpt keeps
    _, _, _, shard = _dead_lettered(backend, "flaky-b", trace="x" * 600)
    r = backend.make()
    [letter] = deadletters.list_dead_letters(r, backend.layout)
    assert not letter.complete

    # When it is retried, even with the bug fixed
    FlakyToy.broken = False
    result = deadletters.retry_dead_letter(r, backend.layout, shard, letter.id)

    # Then it is refused with the reason, and stays
    assert result.status == "not_retryable" and "excerpt" in result.message
    assert len(deadletters.list_dead_letters(r, backend.layout)) == 1


def test_given_a_command_answered_since_when_its_dead_letter_is_retried_then_nothing_changes(
    backend: Backend,
) -> None:
    # Given a dead letter whose command id has meanwhile an outcome that is not a dead letter
    _, _, cid, shard = _dead_lettered(backend, "flaky-c")
    r = backend.make()
    [letter] = deadletters.list_dead_letters(r, backend.layout)
    answered = {"command_id": cid, "game_id": "flaky-c", "shard": shard, "status": "rejected"}
    r.set(backend.layout.outcome(shard, "flaky-c", "0", cid), orjson.dumps(answered))

    # When the operator retries it
    result = deadletters.retry_dead_letter(r, backend.layout, shard, letter.id)

    # Then it is refused and nothing is queued
    assert result.status == "answered"
    assert r.xlen(backend.layout.cmds(shard)) == 0
    assert len(deadletters.list_dead_letters(r, backend.layout)) == 1


def test_given_entries_without_usable_ids_when_listed_then_they_are_not_retryable(backend: Backend) -> None:
    # Given garbage entries that became dead letters
    backend.start(backend.worker())
    r = backend.make()
    r.xadd(backend.layout.cmds(0), {"garbage": "1"})
    wait_for(lambda: r.xlen(backend.layout.dead(0)) == 1)

    # When they are listed and retried
    [letter] = deadletters.list_dead_letters(r, backend.layout, [0])
    result = deadletters.retry_dead_letter(r, backend.layout, 0, letter.id)

    # Then they say why they cannot be retried
    assert letter.retryable is not None and "no usable command id" in letter.retryable
    assert result.status == "not_retryable"


def test_the_cli_lists_retries_and_discards_dead_letters(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two dead letters and the CLI pointed at this deployment
    client, _, cid, shard = _dead_lettered(backend, "flaky-d")
    backend.make().xadd(backend.layout.cmds(0), {"garbage": "1"})
    wait_for(lambda: len(deadletters.list_dead_letters(backend.make(), backend.layout)) == 2)
    monkeypatch.setattr(connection, "connect", lambda url=None: backend.make())
    monkeypatch.setenv("THRONE_PREFIX", backend.layout.prefix)
    monkeypatch.setenv("THRONE_SHARDS", str(backend.layout.shards))

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        return cli.main(["dead-letters", *argv]), out.getvalue()

    # When the operator lists them
    code, text = run()
    _, as_json = run("list", "--json")

    # Then each shows its ids, reason and whether it can be retried
    assert code == 0 and "rules bug" in text and "[retryable]" in text and "not retryable" in text
    letters = [orjson.loads(line) for line in as_json.splitlines()]
    flaky = next(d for d in letters if d["command_id"] == cid)
    garbage = next(d for d in letters if d["command_id"] != cid)

    # and when the fixed command is retried and the garbage discarded
    FlakyToy.broken = False
    assert run("retry", str(shard), flaky["id"])[0] == 0
    assert run("discard", str(garbage["shard"]), garbage["id"]) == (0, "discarded\n")

    # Then the command is accepted and no dead letter is left
    assert client.wait("flaky-d", 0, cid, timeout=20).accepted
    assert run() == (0, "no dead letters\n")
    assert run("retry", str(shard), flaky["id"])[0] == 1
    # and ids or shards that cannot exist are answered, not a traceback
    assert run("retry", str(shard), "not-an-id")[1].startswith("gone: ")
    assert run("discard", "99", flaky["id"])[1].startswith("gone: ")


def test_given_a_put_back_entry_whose_proof_was_made_for_another_command_then_it_is_rejected_as_a_wrong_token(
    backend: Backend,
) -> None:
    # Given a game, and a genuine proof of seat 0 for an Add of 1 (as a dead letter or the AOF would keep it)
    backend.start(backend.worker())
    client = backend.client()
    game = client.create_game(FlakyToy.name, ["ann", "bob"], seed=1, game_id="flaky-e")
    shard = backend.layout.shard_of("flaky-e")
    proof = command_proof(seat_key(game.tokens[0]), "flaky-e", 0, "forged", None, {"type": "Add", "amount": 1})

    # When an entry replays that proof for another command (an Add of 3)
    fields = {"id": "forged", "game": "flaky-e", "seat": "0", "proof": proof}
    fields["payload"] = orjson.dumps({"type": "Add", "amount": 3}).decode()
    r = backend.make()
    r.xadd(backend.layout.cmds(shard), fields)  # type: ignore[arg-type]

    # Then it is rejected as a wrong token (replied only: it decides no command id of seat 0), nothing happens
    got = r.blpop([backend.layout.reply(shard, "flaky-e", "0", "forged")], timeout=20)
    assert got is not None
    outcome = orjson.loads(got[1])
    assert outcome["rejection"]["code"] == "wrong_token"
    assert client.outcome("flaky-e", 0, "forged") is None
    assert [s.data["type"] for s in client.read_events("flaky-e")] == ["Started"]

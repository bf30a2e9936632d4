"""Stable player ids at game creation: checked at every edge (envelope, client library, worker), carried by the
creation, stored in the game's metadata and command log (never a secret), one per seat or none."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from services.bus.entries import parse_entry
from services.bus.envelope import CreateEnvelope, Outcome, content_digest, hash_token
from services.bus.names import check_player_ids
from services.store.eventstore import read_commands, read_meta
from services.store.meta import BadMeta, GameMeta
from tests.service.conftest import Backend

BAD_IDS: dict[str, list[Any]] = {
    "a space": ["red player", "blue"],
    "65 characters": ["x" * 65, "blue"],
    "empty": ["", "blue"],
    "an accent": ["josé", "blue"],
    "a trailing newline": ["red\n", "blue"],
    "taken twice": ["same", "same"],
    "not a string": [7, "blue"],
}


def _create(**changes: Any) -> CreateEnvelope:
    fields: dict[str, Any] = {
        "command_id": "c1", "game_id": "g1", "game_name": "toy21", "players": ["Red", "Blue"], "seed": 3,
        "token_hashes": [hash_token("a"), hash_token("b")], **changes,
    }  # fmt: skip
    return CreateEnvelope(**fields)


def test_player_ids_are_checked_where_a_creation_is_built() -> None:
    # Given ids of the allowed characters, up to 64 long, unique, and null for a seat without one
    assert check_player_ids(["acct:ann-1", None, "x" * 64, "a.b_c"]) == ["acct:ann-1", None, "x" * 64, "a.b_c"]
    assert _create(player_ids=["discord:42", None]).player_ids == ["discord:42", None]
    # When an id breaks a rule, or there is not one per seat, Then the envelope is refused naming player_ids
    for ids in [*BAD_IDS.values(), ["red"], ["a", "b", "c"]]:
        with pytest.raises(ValidationError, match="player_ids"):
            _create(player_ids=ids)


def test_a_creation_without_player_ids_keeps_its_digest_and_entry_and_one_with_them_round_trips() -> None:
    # Given a creation without player ids, Then its content digest and stream entry are those it always had
    plain = _create()
    assert plain.digest() == content_digest(None, None, ["toy21", ["Red", "Blue"], {}, 3, plain.token_hashes])
    assert b"player_ids" not in orjson.dumps(list(plain.to_fields()))
    # And with player ids they travel in the entry, count in the digest, and parse back the same
    with_ids = _create(player_ids=["ann", None])
    assert with_ids.digest() != plain.digest()
    fields = {k.encode(): v for k, v in with_ids.to_fields().items()}
    assert parse_entry(fields) == with_ids


def test_the_client_refuses_bad_ids_before_sending_anything(backend: Backend) -> None:
    # Given a client (no worker needed: nothing must reach the streams)
    client = backend.client()
    r = backend.make()
    # When it is asked to create games with bad player ids, Then it raises and no stream holds anything
    for ids in BAD_IDS.values():
        with pytest.raises(ValueError, match="player_ids"):
            client.create_game("toy21", ["Red", "Blue"], seed=1, player_ids=ids, timeout=None)
    assert not any(r.scan_iter(match=f"{backend.layout.prefix}:*"))


def test_the_worker_stores_player_ids_in_the_meta_and_refuses_a_raw_entry_with_bad_ones(backend: Backend) -> None:
    # Given a running worker
    backend.start(backend.worker())
    client = backend.client()
    r = backend.make()

    # When a game is created with a player id for seat 0 and none for seat 1
    game = client.create_game("toy21", ["Red", "Blue"], seed=2, player_ids=["acct:red", None])

    # Then the game's metadata and its creation in the command log hold them; the summary shows them
    meta = read_meta(r, backend.layout, game.game_id)
    assert meta is not None and orjson.loads(meta["player_ids"]) == ["acct:red", None]
    assert read_commands(r, backend.layout, game.game_id)[0].payload["player_ids"] == ["acct:red", None]
    assert client.game_info(game.game_id)["player_ids"] == ["acct:red", None]  # type: ignore[index]

    # When a raw creation entry (not built by the client) carries duplicate ids
    bad = {k.encode(): v for k, v in _create(game_id="g-bad", command_id="c-bad").to_fields().items()}
    bad[b"player_ids"] = b'["same", "same"]'
    r.xadd(backend.layout.cmds(backend.layout.shard_of("g-bad")), bad)

    # Then it is refused as a bad envelope, and no game exists
    got = r.blpop([backend.layout.reply(backend.layout.shard_of("g-bad"), "g-bad", "new", "c-bad")], timeout=10)
    assert got is not None
    outcome = Outcome.model_validate_json(got[1])
    assert outcome.status == "rejected" and outcome.rejection is not None
    assert outcome.rejection.code == "bad_envelope" and "player_ids" in outcome.rejection.message
    assert read_meta(r, backend.layout, "g-bad") is None


def test_the_typed_meta_writes_and_reads_player_ids_and_refuses_a_broken_field() -> None:
    # Given the meta of a game created with player ids, and one without
    made = GameMeta.new("g1", "toy21", ["Red", "Blue"], {}, 3, ["a" * 64, "b" * 64], rules_version="1",
                        created_ms=5, player_ids=["acct:red", None])  # fmt: skip
    plain = GameMeta.new("g2", "toy21", ["Red", "Blue"], {}, 3, ["a" * 64, "b" * 64], rules_version="1", created_ms=5)
    # When their creation fields are read back, Then the ids are there (and only there), also in the summary
    assert GameMeta.parse("g1", made.creation_fields()).player_ids == ("acct:red", None)
    assert made.info()["player_ids"] == ["acct:red", None]
    assert (
        "player_ids" not in plain.creation_fields() and GameMeta.parse("g2", plain.creation_fields()).player_ids is None
    )
    assert "player_ids" not in plain.info()
    # And a field that is not a list of ids and nulls is refused
    with pytest.raises(BadMeta):
        GameMeta.parse("g1", {**made.creation_fields(), "player_ids": '{"a": 1}'})

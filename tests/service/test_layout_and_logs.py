"""Key layout (one cluster slot per shard), the embedded default, game-agnosticism and the JSON logs."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import fakeredis
import orjson
import pytest
import redis
from redis.crc import key_slot

from services.bus.connection import connect, is_embedded
from services.bus.keys import Layout, parse_shards
from services.log import configure
from tests.service.conftest import Backend

ROOT = Path(__file__).resolve().parents[2]


def test_every_key_of_a_shard_hashes_to_one_cluster_slot() -> None:
    # Given the keys of shard 17 for a few games
    layout = Layout(shards=64)
    keys = [
        layout.cmds(17), layout.lease(17), layout.fence(17), layout.feed(17), layout.dead(17), layout.games(17),
        layout.ended(17),
    ]  # fmt: skip
    for gid in ("a", "b" * 64, "game-42"):
        keys += [
            layout.meta(17, gid), layout.events(17, gid), layout.snap(17, gid), layout.archive(17, gid),
            layout.outcome(17, gid, "0", "c1"), layout.reply(17, gid, "new", "c1"),
        ]  # fmt: skip

    # Then they all share the slot of the hash tag {s17}, and other shards land elsewhere
    assert {key_slot(k.encode()) for k in keys} == {key_slot(b"{s17}")}
    assert len({key_slot(layout.cmds(s).encode()) for s in range(64)}) == 64


def test_games_spread_over_shards_stably() -> None:
    # Given many game ids
    layout = Layout(shards=16)
    ids = [f"game-{i}" for i in range(4000)]

    # Then each shard gets a fair share, and the shard of an id never changes
    counts = [0] * 16
    for gid in ids:
        counts[layout.shard_of(gid)] += 1
    assert min(counts) > 4000 / 16 * 0.7
    assert layout.shard_of("game-1") == Layout(shards=16).shard_of("game-1")
    assert parse_shards("0-3,7", 16) == [0, 1, 2, 3, 7]
    assert parse_shards("all", 4) == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        parse_shards("3-20", 16)


def test_connect_is_fakeredis_without_redis_url_and_redis_with_it(
    monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    # Given no REDIS_URL, connect() gives the in-process fakeredis, shared by every connection
    monkeypatch.delenv("REDIS_URL", raising=False)
    a, b = connect(), connect()
    assert isinstance(a, fakeredis.FakeRedis) and is_embedded(a)
    a.set("embedded-probe", "1")
    assert b.get("embedded-probe") == b"1"
    # and it runs Lua (fakeredis[lua])
    assert a.eval("return 1 + 1", 0) == 2

    # Given REDIS_URL, connect() talks to that Redis
    monkeypatch.setenv("REDIS_URL", redis_url)
    real = connect()
    assert not is_embedded(real) and isinstance(real, redis.Redis) and real.ping()


def test_the_service_never_imports_a_game() -> None:
    # Given the service's modules (bus, store, worker)
    sources = [p for d in ("bus", "store", "worker") for p in (ROOT / "services" / d).rglob("*.py")]
    assert sources

    # Then none imports a game's rules or events: games come only through the registry by name
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                for name in names:
                    assert "shadow" not in name and not name.startswith("services.games.shadow.messages"), (path, name)


def test_log_lines_are_json_and_name_game_command_shard_and_version(backend: Backend) -> None:
    # Given JSON logs at info level captured in memory
    sink = io.StringIO()
    configure("info", stream=sink)
    try:
        worker = backend.worker()
        client = backend.client()
        game = client.create_game("toy21", ["ann", "bob"], seed=1, timeout=None)
        client.submit(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 1})
        client.submit(game.game_id, 0, game.tokens[0], {"type": "Add", "amount": 1})

        # When the worker serves an accepted, a created and a rejected command
        worker.run_until_idle()
    finally:
        configure("warning")

    # Then every line is one JSON object, and each command line names game, command id, shard and version
    lines = [orjson.loads(line) for line in sink.getvalue().splitlines()]
    commands = [line for line in lines if line["event"].startswith("command.")]
    assert {c["event"] for c in commands} == {"command.accepted", "command.rejected"}
    for line in commands:
        assert line["game"] == game.game_id and line["cid"] and line["version"] >= 1
        assert line["shard"] == backend.layout.shard_of(game.game_id)
        assert line["level"] and line["timestamp"]

"""No raw seat token is ever written to Redis: not in a key, not in a value, not in the append-only file (which
keeps what was deleted), nor in a log line; whether the game is played through the gateway, the client library
or the bots."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from services.bus import client as client_module
from services.bus.envelope import hash_token
from services.client import ServiceClient
from services.log import configure
from tests.gateway.conftest import Served, serve
from tests.service.conftest import redis_server
from tests.service.helpers import toy_amounts, wait_for

pytestmark = pytest.mark.redis


def _recording(record: list[str], make: Callable[[int], str]) -> Callable[[int], str]:
    def token_urlsafe(nbytes: int) -> str:
        token = make(nbytes)
        record.append(token)
        return token

    return token_urlsafe


def _everything_stored(r: redis.Redis) -> bytes:
    """Every key and every value in the keyspace, read type by type (DUMP would compress long strings)."""
    out: list[bytes] = []
    for key in r.scan_iter(count=1000):
        out.append(key)
        kind = r.type(key)
        if kind == b"string":
            out.append(r.get(key) or b"")
        elif kind == b"hash":
            out.extend(b"%s=%s" % kv for kv in r.hgetall(key).items())
        elif kind == b"list":
            out.extend(r.lrange(key, 0, -1))
        elif kind == b"set":
            out.extend(r.smembers(key))
        elif kind == b"zset":
            out.extend(r.zrange(key, 0, -1))
        elif kind == b"stream":
            for _, fields in r.xrange(key):
                out.extend(b"%s=%s" % kv for kv in fields.items())
    return b"\n".join(out)


def _play_toy_through_the_gateway(served: Served) -> None:
    """A person (seat 0) against a bot (seat 1), through HTTP, with a retried and a refused command."""
    with served.http() as http:
        created = http.post(
            "/games", json={"game": "toy21", "players": ["Ann", "Robot"], "seed": 3, "bots": {"1": "random"}}
        )
    assert created.status_code == 201, created.text
    gid, token = created.json()["game_id"], created.json()["seats"][0]["token"]
    with served.http(token) as http:
        url = f"/games/{gid}/commands"
        refused = http.post(url, json={"command": {"type": "Add", "amount": 1}, "expected_version": 999})
        assert refused.status_code == 409
        n = 0
        while not (summary := http.get(f"/games/{gid}").json())["over"]:
            if 0 not in summary["awaiting"]:
                time.sleep(0.01)
                continue
            body = {
                "command": {"type": "Add", "amount": 1},
                "command_id": f"ann-{n}",
                "expected_version": summary["version"],
            }
            first = http.post(url, json=body)
            assert first.status_code in (200, 409), first.text
            assert http.post(url, json=body).json() == first.json()  # a retry: its first outcome
            assert http.get(f"{url}/ann-{n}").status_code in (200, 404)
            n += 1


def test_given_games_played_every_way_then_no_raw_token_is_in_redis_its_aof_or_the_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given every seat token the service draws recorded here (bot seats' too, which nobody is ever shown)
    tokens: list[str] = []
    monkeypatch.setattr(client_module.secrets, "token_urlsafe", _recording(tokens, secrets.token_urlsafe))
    # and a Redis writing every command to its append-only file at once, the AOF as plain commands
    options = ("--appendonly", "yes", "--appendfsync", "always", "--aof-use-rdb-preamble", "no")
    with redis_server(tmp_path, *options) as server:
        configure("debug")  # every log line the service writes, debug included, goes to the captured stderr
        served = serve(server.url, bots=True, projections=True)
        try:
            # When a game of four bots is created through the gateway
            with served.http() as http:
                bots_only = http.post(
                    "/games",
                    json={
                        "game": "shadow",
                        "players": ["R", "G", "B", "Y"],
                        "seed": 5,
                        "bots": {str(s): "random" for s in range(4)},
                    },
                )
            assert bots_only.status_code == 201, bots_only.text
            # and a person plays a bot through the gateway
            _play_toy_through_the_gateway(served)
            # and two people play through the client library (one of them also tries another seat's token)
            client = ServiceClient(redis.Redis.from_url(server.url), served.layout)
            game = client.create_game("toy21", ["Cid", "Dee"], seed=4)
            assert client.send(game.game_id, 1, game.tokens[0], {"type": "Add", "amount": 1}).rejection is not None
            for i, amount in enumerate(toy_amounts(4)):
                assert client.send(game.game_id, i % 2, game.tokens[i % 2], {"type": "Add", "amount": amount}).accepted
            # and the bots finish their game
            shadow = bots_only.json()["game_id"]
            wait_for(lambda: (client.game_info(shadow) or {}).get("status") == "over", seconds=300, every=0.2)
        finally:
            served.close()
            configure("warning")
        keyspace = _everything_stored(server.client())
        aof = b"".join(p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file() and ".aof" in p.name)
    logs = capsys.readouterr()

    # Then every token was drawn (4 bot seats, 1 + 1 of the toy games, 2 of the library's game) and was in use
    assert len(tokens) == 8
    assert b"XADD" in aof and b"proof" in aof and len(aof) > 100_000
    # (their digests are stored, as they should be: the search does see what was written)
    assert all(hash_token(t).encode() in aof and hash_token(t).encode() in keyspace for t in tokens[:4])
    # and not one of them is anywhere in Redis, in its AOF, or in a log line
    for token in tokens:
        assert token.encode() not in keyspace
        assert token.encode() not in aof
        assert token not in logs.err and token not in logs.out

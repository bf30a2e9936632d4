"""Whole games of In the Shadow of the Emperor between random bots, through the streams."""

from __future__ import annotations

import io
import uuid

import orjson
import pytest

from services.demo import play_through_streams, run_demo
from services.rules.registry import get_game
from tests.service.conftest import Backend

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("players", [2, 4])
def test_a_shadow_game_between_random_bots_through_the_streams(backend: Backend, players: int) -> None:
    # Given a running worker
    backend.start(backend.worker())
    client = backend.client()
    names = ["Ann", "Bob", "Cid", "Dee"][:players]

    # When one random bot per seat plays a whole game through the client library
    played = play_through_streams(client, "shadow", names, seed=41 + players)

    # Then the game ended with a result, recorded by the service too
    rules = get_game("shadow").rules
    assert rules.is_over(played.final_state) and played.result is not None
    info = client.game_info(played.game_id)
    assert info is not None
    assert info["status"] == "over" and info["result"] == played.result and info["version"] == played.version
    # and folding the stored events rebuilds the very same state
    events = [rules.parse_event(e.data) for e in client.read_events(played.game_id)]
    assert len(events) == played.version
    assert rules.fold(events) == played.final_state
    # and the last snapshot is the state at its version
    r = backend.make()
    shard = backend.layout.shard_of(played.game_id)
    snap_v, snap_d = r.hmget(backend.layout.snap(shard, played.game_id), "v", "d")
    assert rules.restore(snap_d) == rules.fold(events[: int(snap_v)])


def test_the_demo_plays_a_seeded_game_on_the_embedded_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given no REDIS_URL (the embedded default) and a key prefix of this test's own
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("THRONE_PREFIX", f"demo{uuid.uuid4().hex[:6]}")

    # When the demo runs twice with one seed
    outs = [io.StringIO(), io.StringIO()]
    results = [run_demo(seed=5, out=out) for out in outs]

    # Then it prints the game move by move and its result, the same both times
    text = outs[0].getvalue()
    assert "through embedded fakeredis" in text
    assert "A game starts" in text and "Game over after" in text
    assert results[0] == results[1] is not None
    # And its last line is one JSON object: the game's id (of the store) and its result
    last = orjson.loads(text.splitlines()[-1])
    assert last["game"] == "shadow" and last["seed"] == 5 and last["result"] == results[0]
    assert last["game_id"] in text.splitlines()[-2] and last["events"] > last["commands"] > 0

    def body(t: str) -> list[str]:
        return [line for line in t.splitlines()[:-1] if not line.startswith("# ")]

    assert body(outs[0].getvalue()) == body(outs[1].getvalue())


def test_the_demo_runs_on_redis_when_redis_url_is_set(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given REDIS_URL naming the suite's redis-server
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("THRONE_PREFIX", f"demo{uuid.uuid4().hex[:6]}")

    # When the demo runs
    out = io.StringIO()
    result = run_demo(seed=2, out=out, players=3)

    # Then it played the game on that Redis
    assert "through Redis at REDIS_URL" in out.getvalue()
    assert result is not None and len(result["scores"]) == 3

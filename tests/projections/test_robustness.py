"""Bad feed entries and broken games are logged and skipped; no projection worker crashes, others go on."""

from __future__ import annotations

from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import ProjectionWorker
from projections.store import MODELS, RMKeys, group_of
from tests.projections.helpers import FAST_PROJECTION, STEADY, caught_up, dump_model, play
from tests.service.conftest import Backend
from tests.service.helpers import script_game


def test_garbage_on_the_feed_is_skipped_and_the_game_goes_on(backend: Backend) -> None:
    # Given toy games recorded, one of them still running, all projected by every model
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    games = play(backend, client, toy=2, tag="rob")
    running = script_game(client, seed=5, game_id="rob-running")
    for c in running.commands[:2]:
        client.submit_many([c])
        assert client.wait_on(c).accepted
    games.append("rob-running")
    workers = [
        ProjectionWorker(backend.make(), ALL_MODELS[m](), layout=backend.layout, config=FAST_PROJECTION) for m in MODELS
    ]
    for w in workers:
        w.run_until_idle()
    assert caught_up(r, backend.layout, games)
    gid = "rob-running"
    shard = backend.layout.shard_of(gid)
    version = int(r.hget(backend.layout.meta(shard, gid), "version"))

    # When the feed carries an entry without the fields it needs, one for a game nobody knows, one for a game
    # with no decider here, and a garbled event at the running game's next version
    feed = backend.layout.feed(shard)
    r.xadd(feed, {"x": "1"})
    r.xadd(feed, {"g": "ghost", "v": "1", "n": "toy21", "e": b'{"type":"Started"}', "t": "0", "c": "c"})
    r.hset(backend.layout.meta(shard, "alien"), mapping={"name": "no-such-game", "version": "1", "players": "[]"})
    r.xadd(feed, {"g": "alien", "v": "1", "n": "no-such-game", "e": b"{}", "t": "0", "c": "c"})
    r.xadd(feed, {"g": gid, "v": str(version + 1), "n": "toy21", "e": b"{not json", "t": "0", "c": "c"})
    for w in workers:
        w.run_until_idle()

    # Then nothing crashed: all was acked, the failures counted, the game's checkpoint did not move
    keys = RMKeys(backend.layout)
    for w in workers:
        assert w.stats["failed"] >= 1, w.model.name
        assert r.hget(keys.applied(shard, w.model.name), gid) == str(version).encode()
        assert r.xpending(feed, group_of(w.model.name))["pending"] == 0

    # When the game goes on (its real event at that version is recorded) and other games are played
    for c in running.commands[2:]:
        client.submit_many([c])
        assert client.wait_on(c).accepted
    games += play(backend, client, toy=2, tag="rob2")
    for w in workers:
        w.run_until_idle()

    # Then every model has every game, exactly as a rebuild from zero makes them
    assert caught_up(r, backend.layout, games)
    live = {m: dump_model(r, backend.layout, m) for m in MODELS}
    r.delete(backend.layout.meta(shard, "alien"))
    rebuild(r, backend.layout)
    assert {m: dump_model(r, backend.layout, m) for m in MODELS} == live

"""The closed store boundary: only services/bus/keys.py and services/store/ name Redis keys, byte for byte as before."""

from __future__ import annotations

from redis.crc import key_slot

from services.bus import keys
from services.bus.keys import RMKeys, scratch
from tests.service.key_boundary import ROOT, boundary_findings, findings_of_source, key_segments


def _segments() -> set[str]:
    return key_segments(keys.Layout(), *(namer(keys.Layout()) for namer in keys.KEY_NAMERS))


def test_no_product_module_outside_the_key_module_and_the_store_builds_a_key() -> None:
    # Given every module of the product outside services/bus/keys.py and services/store/
    # When their syntax trees are searched for key building
    found = boundary_findings(ROOT, _segments())

    # Then there is none: they ask the key module
    assert [f"{f.path}:{f.line}: {f.why}" for f in found] == []


def test_the_check_finds_each_way_of_building_a_key() -> None:
    # Given small modules that each build a key in one of the ways the check knows
    sources = {
        "prefix": 'pattern = f"{layout.prefix}:*"\n',
        "tag": 'key = f"{layout.tag(3)}:game:{gid}:meta"\n',
        "hash tag": 'key = "bench:{rtt}:" + name\n',
        "segment": 'def is_notice(name):\n    return name.endswith(":notices")\n',
        "read model": 'key = f"{shard_tag}:rm:{model}:applied"\n',
    }
    segments = _segments()

    # When each is checked
    found = {name: findings_of_source(f"{name}.py", text, segments) for name, text in sources.items()}

    # Then each is found, while a URL template and a docstring that names a key are not
    assert all(found.values()), found
    innocent = '"""Keys: ``throne:{s17}:game:<gid>:meta``."""\nURL = "/games/{id}/events"\n'
    assert findings_of_source("docs.py", innocent, segments) == []


def test_the_segments_come_from_the_key_module() -> None:
    # When the segments are read from the key namers
    segments = _segments()

    # Then they hold the store's and the read models' words
    assert {"game", "meta", "events", "notices", "rm", "applied", "leaderboard", "feed", "cmds"} <= segments


def test_read_model_keys_are_byte_identical_and_in_their_slots() -> None:
    # Given the read-model keys of one game of shard 17 (found by id) and a leaderboard
    layout = keys.Layout(shards=64)
    rm = RMKeys(layout)
    gid = next(f"g{i}" for i in range(10_000) if layout.shard_of(f"g{i}") == 17)

    # Then they read as they always did (stored data is still found)
    assert rm.applied(17, "scoreboard") == "throne:{s17}:rm:scoreboard:applied"
    assert rm.scoreboard(gid) == f"throne:{{s17}}:rm:scoreboard:{gid}"
    assert rm.replay_snaps(gid) == f"throne:{{s17}}:rm:replay:{gid}:snaps"
    assert rm.audit(gid) == f"throne:{{s17}}:rm:audit:{gid}"
    assert rm.audit_commands(gid) == f"throne:{{s17}}:rm:audit:{gid}:cmds"
    assert rm.feed(gid) == f"throne:{{s17}}:rm:feed:{gid}"
    assert rm.feed_now(gid) == f"throne:{{s17}}:rm:feed:{gid}:now"
    assert rm.model_pattern(17, "audit") == "throne:{s17}:rm:audit:*"
    assert rm.leaderboard("shadow", "rank") == "throne:{lb:shadow}:rm:leaderboard:rank"
    assert rm.leaderboard_pattern() == "throne:{lb*}:rm:leaderboard:*"
    assert scratch("rtt", "x1") == "bench:{rtt}:x1"

    # And a game's model keys, its checkpoint and the owed results share the shard's slot
    slot = key_slot(b"{s17}")
    per_game = [rm.scoreboard(gid), rm.feed_now(gid), rm.applied(17, "scoreboard"), rm.owed(17)]
    assert {key_slot(k.encode()) for k in per_game} == {slot}
    # A game id has no colon, so the owed results can never be a game's scoreboard, and a rebuild clears them
    assert rm.owed(17).startswith(rm.model_pattern(17, "scoreboard")[:-1])
    assert ":" not in gid and rm.owed(17) != rm.scoreboard(gid)


def test_scan_patterns_and_names_read_back() -> None:
    # Given a layout whose prefix holds glob characters
    layout = keys.Layout(prefix="a*b", shards=8)
    gid = "game-42"
    shard = layout.shard_of(gid)

    # Then the patterns escape them and a per-game key reads back as its shard and game
    assert layout.everything() == "a\\*b:*"
    assert layout.game_keys("meta") == "a\\*b:{s*}:game:*:meta"
    assert layout.game_keys("events", 3) == "a\\*b:{s3}:game:*:events"
    assert layout.game_of(layout.meta(shard, gid), "meta") == (shard, gid)
    assert layout.game_of(layout.meta(shard, gid).encode(), "meta") == (shard, gid)
    # a key of another kind, another prefix, or a game filed under a shard it does not hash to, is none
    assert layout.game_of(layout.events(shard, gid), "meta") is None
    assert layout.game_of(keys.Layout(prefix="other", shards=8).meta(shard, gid), "meta") is None
    assert layout.game_of(layout.meta((shard + 1) % 8, gid), "meta") is None
    assert layout.family(layout.events(shard, gid)) == "events"
    assert layout.family(layout.cmds(shard)) == "cmds"

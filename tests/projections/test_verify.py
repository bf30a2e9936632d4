"""Verification: the recorded commands re-run through the current rules, every differing event named."""

from __future__ import annotations

import orjson
import pytest

from projections.api import ReadModels, UnknownGame
from projections.verify import verify_game
from services.bus.keys import Layout
from services.rules.registry import get_game
from tests.projections.helpers import STEADY, play
from tests.service.conftest import Backend
from tests.service.toy_game import ToyRules, plugin


def copy_game(r: object, layout: Layout, source: str, target: str, alter: dict[int, dict] | None = None) -> None:
    """A test copy of a recorded game under another id (meta, events, command log), some events altered."""
    src, dst = layout.shard_of(source), layout.shard_of(target)
    r.hset(layout.meta(dst, target), mapping=r.hgetall(layout.meta(src, source)))  # type: ignore[attr-defined]
    for eid, fields in r.xrange(layout.events(src, source)):  # type: ignore[attr-defined]
        version = int(eid.decode().partition("-")[2])
        if alter and version in alter:
            fields = {**fields, b"e": orjson.dumps(alter[version])}
        r.xadd(layout.events(dst, target), fields, id=eid)  # type: ignore[attr-defined]
    for eid, fields in r.xrange(layout.commands(src, source)):  # type: ignore[attr-defined]
        r.xadd(layout.commands(dst, target), fields, id=eid)  # type: ignore[attr-defined]


def test_a_recorded_game_verifies_and_a_planted_difference_is_named(backend: Backend) -> None:
    # Given a Shadow game played through the service (with a refused command in its log)
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    (gid,) = play(backend, client, shadow=[(51, 3)], tag="ver")
    models = ReadModels(r, backend.layout)

    # When it is verified, it re-runs clean
    clean = models.verify(gid)
    assert clean["ok"], clean["differences"][:2]
    assert clean["events_recorded"] == clean["events_recomputed"] == int(client.game_info(gid)["version"])
    assert clean["commands"] == clean["commands_replayed"] + 1  # the wrong-token command is not the rules'

    # When a test copy of it has one recorded event altered (a thaler balance, deep in the game)
    events = client.read_events(gid)
    target = next(e for e in events[200:] if e.data["type"] == "ThalersChanged")
    planted = {**target.data, "balance": target.data["balance"] + 3}
    copy_game(r, backend.layout, gid, "ver-copy", {target.version: planted})
    report = models.verify("ver-copy")

    # Then verification fails and names exactly that event: version, both sides, the command behind it
    assert not report["ok"] and len(report["differences"]) == 1 and report["outcome_changes"] == []
    diff = report["differences"][0]
    assert diff["version"] == target.version
    assert diff["recorded"] == planted and diff["recomputed"] == target.data
    assert diff["reason"] == "ThalersChanged differs in balance"
    assert diff["command"]["id"] == target.command_id == diff["recomputed_command"]["id"]
    with pytest.raises(UnknownGame):
        models.verify("no-such-game")


class _Toy22(ToyRules):
    """toy21 after a "rules change": 22 wins, so a game that reached exactly 21 goes on."""

    def decide(self, state, command):  # type: ignore[no-untyped-def]
        result = super().decide(state, command)
        if isinstance(result, list) and len(result) == 2 and result[0].total < 22:
            return result[:1]
        return result


def test_a_change_of_the_rules_shows_which_games_would_have_gone_differently(backend: Backend) -> None:
    # Given toy21 games played to their end
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    games = play(backend, client, toy=10, tag="rules-change")

    # When they are verified against changed rules (22 instead of 21 wins)
    reports = {gid: verify_game(r, backend.layout, gid, lambda name: plugin(_Toy22())) for gid in games}

    # Then exactly the games that ended on 21 differ, at their winning event
    finals = {}
    for gid, report in reports.items():
        events = client.read_events(gid)
        final_total = finals[gid] = max(e.data.get("total", 0) for e in events)
        assert report["ok"] == (final_total >= 22), gid
        if final_total < 22:
            won = next(e for e in events if e.data["type"] == "Won")
            assert [d["version"] for d in report["differences"]] == [won.version]
            assert report["differences"][0]["recomputed"] is None
    assert 21 in finals.values() and max(finals.values()) >= 22, "both kinds of game must be there"
    # (and the real rules still verify them all)
    assert all(verify_game(r, backend.layout, gid, get_game)["ok"] for gid in games)

"""The read-model query API (projections/api.py) over games played through the service."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
import redis

from projections.api import BadSeat, BadVersion, ReadModels, UnknownGame
from projections.rebuild import clear_model, rebuild
from projections.store import MODELS
from services.store.eventstore import read_events
from tests.games.shadow.support import PRESENTER, RULES
from tests.projections.helpers import STEADY, play, shadow_envelopes, shadow_player_ids
from tests.service.conftest import Backend
from tests.service.helpers import wait_for


@pytest.fixture
def shadow_game(backend: Backend) -> tuple[Backend, redis.Redis, str]:
    """A finished 3-player Shadow game (with a refused command) and every read model rebuilt."""
    backend.start(backend.worker(config=STEADY))
    r = backend.make()
    (gid,) = play(backend, backend.client(), shadow=[(61, 3)], tag="api")
    rebuild(r, backend.layout)
    return backend, r, gid


def test_scoreboard_and_leaderboard(shadow_game: tuple[Backend, redis.Redis, str]) -> None:
    backend, r, gid = shadow_game
    models = ReadModels(r, backend.layout)
    # Given a finished game, its scoreboard has every seat's VP, thalers and electorates, and the winners
    board = models.scoreboard(gid)
    final = RULES.fold([RULES.parse_event(e.data) for e in read_events(r, backend.layout, gid)])
    assert board["status"] == "over" and board["awaiting"] == [] and board["winners"] == list(final.winners)
    assert [s["victory_points"] for s in board["seats"]] == list(final.vp)
    assert [s["thalers"] for s in board["seats"]] == list(final.thalers)
    assert board["emperor"] == final.emperor and board["round"] == final.round
    # and the game's leaderboard (the default game's) counts it once per player id, with the wins and average VP
    board = models.leaderboard()
    ids = shadow_player_ids(61, 3)
    assert board["game"] == "shadow" and board["score_label"] == "victory points" and board["total"] == 3
    rows = {row["player_id"]: row for row in board["rows"]}
    assert set(rows) == set(ids)
    for seat, pid in enumerate(ids):
        assert {k: v for k, v in rows[pid].items() if k != "rank"} == {
            "player_id": pid, "name": f"P{seat}", "games": 1, "wins": int(seat in final.winners),
            "shared_wins": int(seat in final.winners and len(final.winners) > 1),
            "average_score": float(final.vp[seat]),
        }  # fmt: skip
    assert [row["rank"] for row in board["rows"]] == [1, 2, 3]
    assert models.leaderboard("shadow", offset=1, limit=1)["rows"] == [board["rows"][1]]
    with pytest.raises(UnknownGame):
        models.scoreboard("nope")


def test_replay_seeks_any_version_forward_and_back_without_rerunning_rules(
    shadow_game: tuple[Backend, redis.Redis, str],
) -> None:
    backend, r, gid = shadow_game
    models = ReadModels(r, backend.layout)
    events = [RULES.parse_event(e.data) for e in read_events(r, backend.layout, gid)]
    last = len(events)
    # Given any version (snapshots every 25 versions: on one, between two, the ends)
    rng = random.Random(3)
    for version in {0, 1, 24, 25, 26, last - 1, last, *rng.sample(range(1, last), 10)}:
        step = models.replay(gid, version, seat=1)
        # Then the board is the fold of the recorded events up to it, and the event is the one at it
        assert step["view"] == PRESENTER.replay_view(RULES.fold(events[:version]), 1, RULES.fold(events))
        assert step["previous"] == (version - 1 if version else None)
        assert step["next"] == (version + 1 if version < last else None)
        if version:
            assert step["event"]["type"] == events[version - 1].type  # type: ignore[attr-defined]
            assert step["event_text"] == PRESENTER.describe(events[version - 1], ("P0", "P1", "P2"))
        else:
            assert step["event"] is None
        assert step["board_text"] == PRESENTER.render_text(RULES.fold(events[:version]), 1, RULES.fold(events))
    # and bad requests are typed errors
    for bad in (-1, last + 1):
        with pytest.raises(BadVersion):
            models.replay(gid, bad)
    with pytest.raises(BadSeat):
        models.replay(gid, 3, seat=3)
    with pytest.raises(UnknownGame):
        models.replay("nope", 1)


def test_audit_tells_command_sender_time_rulings_and_inputs(shadow_game: tuple[Backend, redis.Redis, str]) -> None:
    backend, r, gid = shadow_game
    models = ReadModels(r, backend.layout)
    everything = models.audit(gid)["entries"]
    entries = [e for e in everything if e["kind"] == "event"]
    # Given every event of the game, each has an audit entry at its version
    assert [e["version"] for e in entries] == list(range(1, len(entries) + 1))
    # and the refused command the rules judged is there too, after the event of the version it was judged at
    refused = [(i, e) for i, e in enumerate(everything) if e["kind"] == "refusal"]
    assert refused and all(everything[i - 1]["version"] == e["version"] for i, e in refused)
    assert all(e["command"]["sender"] and e["code"] and e["message"] in e["sentence"] for _, e in refused)
    assert entries[0]["command"]["kind"] == "create" and "opened the game" in entries[0]["sentence"]
    # Then an elector decision is told with its power tally, its rulings, and the command that caused it
    elector = next(e for e in entries if e["event_type"] in ("ElectorChanged", "ElectorRetained"))
    assert elector["inputs"]["power"] == elector["event"]["power"] and elector["rulings"]
    assert "power in" in elector["sentence"] and "Rulings: " + ", ".join(elector["rulings"]) in elector["sentence"]
    cmd = elector["command"]
    assert cmd["sender"] == f"P{cmd['seat']}" and cmd["committed_ms"] >= cmd["received_ms"] > 0
    assert cmd["label"] and cmd["outcome"]["status"] == "accepted"
    assert f"command of P{cmd['seat']} (seat {cmd['seat']})" in elector["sentence"]
    # and one version alone is the same entry
    assert models.audit(gid, elector["version"])["entries"] == [elector]
    # and without the audit model (not projected yet) the same entries come from the store
    clear_model(r, backend.layout, "audit", range(backend.layout.shards))
    assert models.audit(gid)["entries"] == everything
    assert models.audit(gid, elector["version"])["entries"] == [elector]
    with pytest.raises(BadVersion):
        models.audit(gid, len(entries) + 1)
    # and the command log has the refused command too
    assert any(c["outcome"]["status"] == "rejected" for c in models.commands(gid))


def test_seat_feed_resumes_from_any_version_and_offers_labelled_legal_commands(backend: Backend) -> None:
    # Given a Shadow game stopped half-way, projected
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    creates, commands = shadow_envelopes([(71, 4)], "feed")
    client.submit_many([*creates, *commands[:60]])
    for c in [*creates, *commands[:60]]:
        assert client.wait_on(c).accepted
    gid = creates[0].game_id
    rebuild(r, backend.layout)
    models = ReadModels(r, backend.layout)
    version = int(client.game_info(gid)["version"])  # type: ignore[index]

    # When a seat reads its feed whole, and in pieces resuming from the last version it saw
    whole = models.seat_feed(gid, 2)
    pieces, after = [], 0
    while after < version:
        part = models.seat_feed(gid, 2, after_version=after)
        pieces += part["events"][:37]
        after = pieces[-1]["version"]

    # Then the pieces add up to the whole, with no gap and no repeat
    assert whole["version"] == version and [e["version"] for e in whole["events"]] == list(range(1, version + 1))
    assert pieces == whole["events"]
    assert models.seat_feed(gid, 2, after_version=version)["events"] == []
    # and the awaited seat gets its legal commands with labels, each accepted by the rules
    state = RULES.fold([RULES.parse_event(e.data) for e in client.read_events(gid)])
    seat = RULES.awaited(state)[0]
    feed = models.seat_feed(gid, seat)
    assert feed["legal"] and all(item["label"] for item in feed["legal"])
    for item in feed["legal"]:
        assert isinstance(RULES.decide(state, RULES.parse_command(item["command"])), list)
    assert feed["view"] == PRESENTER.view(state, seat)
    assert models.seat_feed(gid, (seat + 1) % 4)["legal"] == []
    # and without the feed model the same answer comes from the store
    clear_model(r, backend.layout, "feed", range(backend.layout.shards))
    assert models.seat_feed(gid, seat) == feed
    tail = models.seat_feed(gid, None, after_version=version - 3)["events"]
    assert [e["version"] for e in tail] == [version - 2, version - 1, version]
    with pytest.raises(BadSeat):
        models.seat_feed(gid, 4)
    with pytest.raises(BadVersion):
        models.seat_feed(gid, 0, after_version=-1)


def test_board_text_and_svg_at_any_version(shadow_game: tuple[Backend, redis.Redis, str]) -> None:
    backend, r, gid = shadow_game
    models = ReadModels(r, backend.layout)
    # Given the board at version 40, as seat 0 and as a spectator
    text = models.board_text(gid, 40, 0)
    svg = models.board_svg(gid, 40)
    # Then the text names the phase, the players and the electorates; the SVG is a well-formed picture
    assert "Round" in text and "(you)" in text and "Mainz" in text and "Bohemia" in text
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    groups = [g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g")]
    assert groups == ["mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia"]
    # and the latest board is the default
    assert models.board_text(gid) == models.board_text(gid, models.scoreboard(gid)["version"])
    with pytest.raises(BadVersion):
        models.board_svg(gid, 10_000)


def test_an_archived_game_replays_and_audits_from_its_archive(backend: Backend) -> None:
    # Given a game played to its end and moved to its archive
    backend.start(backend.worker(config=replace(STEADY, archive_after_ms=0, maintenance_every_ms=100)))
    client = backend.client()
    r = backend.make()
    (gid,) = play(backend, client, toy=1, tag="arch")
    wait_for(lambda: (client.game_info(gid) or {}).get("status") == "archived")
    rebuild(r, backend.layout)
    models = ReadModels(r, backend.layout)

    # Then its scoreboard says archived, it replays at any version, its audit and verification still work
    assert models.scoreboard(gid)["status"] == "archived"
    last = int(client.game_info(gid)["version"])
    assert models.replay(gid, last)["view"]["winner"] is not None
    assert models.replay(gid, 1)["next"] == 2
    audit = models.audit(gid)["entries"]
    assert [e["version"] for e in audit if e["kind"] == "event"] == list(range(1, last + 1))
    assert any(e["kind"] == "refusal" for e in audit)  # its refused commands: from the archive's command log too
    assert models.verify(gid)["ok"]
    for model in MODELS:
        clear_model(r, backend.layout, model, range(backend.layout.shards))
    assert models.audit(gid, last)["entries"][0]["command"]["seat"] in (0, 1)

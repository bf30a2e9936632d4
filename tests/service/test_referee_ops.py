"""A referee's operations on a real redis-server: ``throne export`` re-referees byte for byte with the offline
adjudicator, ``throne verify --all`` lists every stored game and where one changes, and refusals keep their
ruling ids in the command log."""

from __future__ import annotations

import io
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import orjson
import pytest
import redis

from events.base import Rejection
from projections.verify_all import verify_all
from services import cli
from services.adjudicator import adjudicate
from services.bench.scripts import record_games
from services.bus.envelope import CommandEnvelope, seat_key
from services.bus.keys import Layout
from services.client import ServiceClient
from services.rules.registry import get_game
from services.store.eventstore import read_commands
from services.worker.rules_worker import RulesWorker, WorkerConfig

pytestmark = pytest.mark.redis

# A command each game refuses in any position (no such space, no such card): the rules judge it and cite rulings.
ALWAYS_REFUSED = {
    "shadow": {"type": "BuyDoctor", "target": "nowhere.aristocrat.9", "trier": False},
    "barracks": {"type": "TakeFromForum", "card": "no-such-card"},
}


@dataclass
class Stored:
    layout: Layout
    r: redis.Redis
    games: dict[str, str]
    """game name -> game id"""


def _play(r: redis.Redis, layout: Layout, name: str, players: int, seed: int) -> str:
    """A seeded random game through the rules worker, with a refused command of another seat every 25 moves and
    one stale version."""
    script = record_games(name, 1, seed=seed, players=players)[0]
    gid = f"{name}-{uuid.uuid4().hex[:8]}"
    create, commands = script.envelopes(gid)
    envelopes: list[Any] = [create]
    for i, env in enumerate(commands):
        if i % 25 == 3:
            other = (env.seat + 1) % players
            envelopes.append(
                CommandEnvelope.signed(
                    seat_key(script.token(gid, other)),
                    command_id=f"{gid}-refused-{i}",
                    game_id=gid,
                    seat=other,
                    payload=ALWAYS_REFUSED[name],
                )
            )
        if i == 7:
            envelopes.append(
                CommandEnvelope.signed(
                    seat_key(script.token(gid, env.seat)),
                    command_id=f"{gid}-stale",
                    game_id=gid,
                    seat=env.seat,
                    payload=env.payload,
                    expected_version=1,
                )
            )
        envelopes.append(env)
    client = ServiceClient(r, layout)
    client.submit_many(envelopes)
    for env in envelopes:
        outcome = client.wait_on(env, timeout=60)
        assert outcome.accepted == ("refused" not in env.command_id and "stale" not in env.command_id), outcome
    return gid


@pytest.fixture(scope="module")
def stored(redis_url: str) -> Iterator[Stored]:
    """A Shadow and a Barracks game played to their end through a rules worker on a real Redis."""
    layout = Layout(prefix=f"tref{uuid.uuid4().hex[:6]}", shards=4)
    r = redis.Redis.from_url(redis_url)
    worker = RulesWorker(redis.Redis.from_url(redis_url), range(4), layout=layout, config=WorkerConfig(block_ms=20))
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()
    try:
        games = {"shadow": _play(r, layout, "shadow", 3, 41), "barracks": _play(r, layout, "barracks", 2, 42)}
    finally:
        stop.set()
        thread.join(10)
    yield Stored(layout, r, games)
    for key in r.scan_iter(match=f"{layout.prefix}:*", count=1000):
        r.delete(key)


def _cli(monkeypatch: pytest.MonkeyPatch, url: str, layout: Layout, *argv: str) -> tuple[int, bytes]:
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("THRONE_PREFIX", layout.prefix)
    monkeypatch.setenv("THRONE_SHARDS", str(layout.shards))
    buffer = io.BytesIO()
    out = io.TextIOWrapper(buffer, encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    code = cli.main(list(argv))
    out.flush()
    return code, buffer.getvalue()


@pytest.mark.parametrize("name", ["shadow", "barracks"])
def test_given_a_stored_game_when_exported_and_adjudicated_then_the_events_are_the_stored_bytes(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, stored: Stored, name: str
) -> None:
    gid, layout, r = stored.games[name], stored.layout, stored.r
    # When the game is exported with `throne export` and refereed offline
    code, exported = _cli(monkeypatch, redis_url, layout, "export", gid)
    assert code == 0
    lines = exported.splitlines()
    records = list(adjudicate(lines))
    # Then the adjudicator's events are the stored events, byte for byte, at the same versions
    stored_events = r.xrange(layout.events(layout.shard_of(gid), gid))
    offline = [(rec["version"], orjson.dumps(rec["event"])) for rec in records if "event" in rec]
    assert offline == [(int(eid.decode().split("-")[1]), f[b"e"]) for eid, f in stored_events]
    # and the refusals the rules judged are refused again offline, with the same code and rulings; the service's
    # own refusal (the stale version) is not exported
    logged = [c for c in read_commands(r, layout, gid) if not c.accepted and "refused" in c.command_id]
    again = [rec["rejection"] for rec in records if "rejection" in rec]
    assert logged and [(c.outcome["rejection"]["code"], c.outcome["rejection"]["rulings"]) for c in logged] == [
        (rej["code"], rej["rulings"]) for rej in again
    ]
    assert all(rej["rulings"] for rej in again)
    assert len(lines) == 1 + sum(1 for c in read_commands(r, layout, gid) if c.kind == "cmd") - 1  # all but stale


def test_given_stored_games_when_verified_all_then_each_is_ok_and_a_summary_ends(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, stored: Stored
) -> None:
    code, out = _cli(monkeypatch, redis_url, stored.layout, "verify", "--all")
    lines = out.decode().splitlines()
    assert code == 0, lines
    assert sorted(lines[:-1]) == sorted(f"{gid} ok" for gid in stored.games.values())
    summary = orjson.loads(lines[-1])["summary"]
    assert summary["games"] == 2 and summary["ok"] == 2 and summary["changed"] == 0 and summary["games_per_s"] > 0


def test_given_variant_rules_when_verified_all_then_the_first_differing_event_is_reported(stored: Stored) -> None:
    # Given today's Barracks rules changed: every pass now cites one more ruling
    real = get_game("barracks")

    class Variant(type(real.game_rules)):  # type: ignore[misc]
        def execute(self, state: Any, command: Any) -> Any:
            done = super().execute(state, command)
            if isinstance(done, Rejection):
                return done
            events = [
                self.parse_event({**self.encode_event(e), "rulings": [*e.rulings, "KX99"]}) if e.type == "Passed" else e
                for e in done[0]
            ]
            return events, self.fold(events, state)

    variant = replace(real, game_rules=Variant())

    def games(name: str) -> Any:
        return variant if name == "barracks" else get_game(name)

    gid = stored.games["barracks"]
    events = stored.r.xrange(stored.layout.events(stored.layout.shard_of(gid), gid))
    first_pass = next(int(eid.decode().split("-")[1]) for eid, f in events if orjson.loads(f[b"e"])["type"] == "Passed")
    # When every stored game is verified against them
    verdicts = {v["game_id"]: v for v in verify_all(stored.r, stored.layout, games=games)}
    # Then the Shadow game is ok and the Barracks game changed, first at its first pass, with both sides shown
    assert verdicts[stored.games["shadow"]]["status"] == "ok"
    changed = verdicts[gid]
    assert changed["status"] == "changed" and changed["changed_at"] == first_pass, changed["first_difference"]
    first = changed["first_difference"]
    assert first["recorded"]["type"] == "Passed" and first["recomputed"]["rulings"][-1] == "KX99"
    assert "differs in rulings" in first["reason"]


def test_given_a_tampered_event_when_verified_all_then_the_cli_names_the_game_and_version(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, stored: Stored
) -> None:
    # Given a copy of the Shadow game whose stored event 12 was altered
    r, layout = stored.r, stored.layout
    copy = Layout(prefix=f"{layout.prefix}c", shards=layout.shards)
    gid = stored.games["shadow"]
    src, dst = layout.shard_of(gid), copy.shard_of(gid)
    r.restore(copy.meta(dst, gid), 0, r.dump(layout.meta(src, gid)))
    r.restore(copy.commands(dst, gid), 0, r.dump(layout.commands(src, gid)))
    for eid, fields in r.xrange(layout.events(src, gid)):
        if eid == b"0-12":
            data = orjson.loads(fields[b"e"])
            data["rulings"] = ["T1"]
            fields = {**fields, b"e": orjson.dumps(data)}
        r.xadd(copy.events(dst, gid), fields, id=eid)
    try:
        # When `throne verify --all` runs over it
        code, out = _cli(monkeypatch, redis_url, copy, "verify", "--all", "--json")
        lines = [orjson.loads(line) for line in out.decode().splitlines()]
    finally:
        for key in r.scan_iter(match=f"{copy.prefix}:*", count=1000):
            r.delete(key)
    # Then it exits 1 and says at which event the game changes
    assert code == 1
    (verdict,) = [line for line in lines if "game_id" in line]
    assert verdict["game_id"] == gid and verdict["status"] == "changed" and verdict["changed_at"] == 12
    assert lines[-1]["summary"]["changed"] == 1


@pytest.mark.parametrize("name", ["shadow", "barracks"])
def test_given_a_stored_game_when_audited_on_the_command_line_then_refusals_show_with_their_rulings(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, stored: Stored, name: str
) -> None:
    gid = stored.games[name]
    code, out = _cli(monkeypatch, redis_url, stored.layout, "audit", gid)
    text = out.decode()
    assert code == 0
    refused = [line for line in text.splitlines() if "R refused " in line]
    logged = [c for c in read_commands(stored.r, stored.layout, gid) if not c.accepted]
    # Then every logged refusal has its line (the stale version too, citing no ruling), with who sent it
    assert len(refused) == len(logged) and all(" (seat " in line and " sent " in line for line in refused)
    assert any("No ruling cited: the service refused it before any rule judged it." in line for line in refused)
    # and each cited ruling's text is printed once, where it is first cited
    reference = get_game(name).rulings()
    cited = {r for c in logged for r in c.outcome["rejection"]["rulings"]}
    for rid in cited:
        assert text.count(f"       {rid} {reference[rid].title}: {reference[rid].text}") == 1
    assert "None" not in text and "by None" not in text


def test_given_two_processes_when_verified_all_then_the_verdicts_are_those_of_one(
    redis_url: str, stored: Stored
) -> None:
    one = {v["game_id"]: v for v in verify_all(stored.r, stored.layout)}
    two = {v["game_id"]: v for v in verify_all(None, stored.layout, processes=2, url=redis_url)}
    assert one == two and set(one) == set(stored.games.values())

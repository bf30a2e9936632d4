"""Whole-game reads (``ReadModels.replay_all``, the audit in one answer, ``throne replay`` / ``throne audit``): one
read of a game's events and one fold, each step exactly the one-step replay's, no seat shown another's secret,
the refused commands alone on demand, and a small constant number of Redis round trips however long the game."""

from __future__ import annotations

import io
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from projections.api import BadPage, BadSeat, BadVersion, ReadModels
from projections.rebuild import clear_model, rebuild
from services import cli, cli_records
from services.bench.scripts import record_games
from services.bus.keys import Layout
from services.client import ServiceClient
from services.store.eventstore import read_events
from services.worker.rules_worker import RulesWorker
from tests.conformance.harness import as_json, json_shows, text_shows
from tests.games.shadow.support import PRESENTER, RULES
from tests.service.conftest import redis_url  # noqa: F401 - fixture

pytestmark = pytest.mark.redis

SEATS: tuple[int | None, ...] = (None, 0, 1, 2, 3)
"""A spectator and every seat of the 4-player games."""


@dataclass(frozen=True)
class Stored:
    """The games of the module on one key layout: a finished 4-player Shadow game and one stopped half-way, both
    with refused commands among theirs, every read model projected."""

    url: str
    layout: Layout
    finished: str
    running: str

    def models(self, client: redis.Redis | None = None) -> ReadModels:
        """Read models over ``client`` (default: a new connection)."""
        return ReadModels(client or redis.Redis.from_url(self.url), self.layout)


@pytest.fixture(scope="module")
def stored(redis_url: str) -> Iterator[Stored]:  # noqa: F811 - the imported fixture
    layout = Layout(prefix=f"wg{uuid.uuid4().hex[:8]}", shards=4)
    r = redis.Redis.from_url(redis_url)
    script = record_games("shadow", 1, seed=4, players=4)[0]
    client = ServiceClient(redis.Redis.from_url(redis_url), layout)
    client.submit_many([*script.with_refusals("wg-over"), *script.with_refusals("wg-live", upto=60)])
    worker = RulesWorker(redis.Redis.from_url(redis_url), range(layout.shards), layout=layout)
    worker.run_until_idle()
    worker.release()
    rebuild(r, layout)
    try:
        yield Stored(redis_url, layout, "wg-over", "wg-live")
    finally:
        for key in r.scan_iter(match=layout.everything(), count=1000):
            r.unlink(key)


def counting(url: str) -> tuple[redis.Redis, Callable[[], int]]:
    """A client on ``url`` and a function telling how many round trips it made since the last call (each write
    of a command, or of a whole pipeline, to the server is one); its connection is opened first, so that the
    handshake is not counted."""
    sent = [0]

    class Counted(redis.Connection):
        def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            sent[0] += 1
            super().send_packed_command(command, check_health)

    client = redis.Redis(connection_pool=redis.ConnectionPool.from_url(url, connection_class=Counted))
    client.ping()

    def since() -> int:
        n, sent[0] = sent[0], 0
        return n

    since()
    return client, since


def _step_of(one: dict[str, Any], keys: Any) -> dict[str, Any]:
    return {k: one[k] for k in keys}


# --- the replay ------------------------------------------------------------------------------------------------
def test_given_a_finished_game_when_replayed_whole_then_every_step_is_the_one_step_replay_for_every_seat(
    stored: Stored,
) -> None:
    models = stored.models()
    for seat in SEATS:
        # When the whole game is replayed at once, with every step's view and board
        whole = models.replay_all(stored.finished, seat, views=True, boards=True)
        last = whole["last_version"]
        # Then it has every version once, each step equal to the one-step replay at that version
        assert [s["version"] for s in whole["steps"]] == list(range(1, last + 1))
        for step in whole["steps"]:
            one = models.replay(stored.finished, step["version"], seat)
            assert step == _step_of(one, ("version", "event", "event_text", "view", "board_text")), step["version"]
            assert whole["fairness"] == one["fairness"]
        assert whole["board_text"] == models.replay(stored.finished, last, seat)["board_text"]
        assert whole["over"] is True and whole["next"] is None and whole["after"] == 0 and whole["seat"] == seat
        # and without views and boards the steps are the same, lighter
        light = models.replay_all(stored.finished, seat)
        assert light["steps"] == [_step_of(s, ("version", "event", "event_text")) for s in whole["steps"]]


def test_given_pages_of_a_replay_when_walked_then_they_hold_every_step_once(stored: Stored) -> None:
    models = stored.models()
    whole = models.replay_all(stored.finished, 2)["steps"]
    # Given pages of 30 steps, from versions on and off the snapshots (every 25)
    got, after = [], 0
    while after is not None:
        page = models.replay_all(stored.finished, 2, after=after, limit=30)
        got += page["steps"]
        # (each page ends with the board after its last step)
        assert page["board_text"] == models.replay(stored.finished, page["steps"][-1]["version"], 2)["board_text"]
        after = page["next"]
    # Then walking them gives the whole replay, each step once
    assert got == whole
    # and bad pages are typed errors
    with pytest.raises(BadVersion):
        models.replay_all(stored.finished, after=len(whole) + 1)
    with pytest.raises(BadPage):
        models.replay_all(stored.finished, limit=0)
    with pytest.raises(BadSeat):
        models.replay_all(stored.finished, 4)


def test_given_a_running_game_when_replayed_whole_then_no_seat_sees_another_seats_secret(stored: Stored) -> None:
    models = stored.models()
    # Given a game stopped half-way, and its position at every version
    stream = read_events(redis.Redis.from_url(stored.url), stored.layout, stored.running)
    recorded = [RULES.parse_event(e.data) for e in stream]
    states = [RULES.fold(recorded[:v]) for v in range(len(recorded) + 1)]
    now = PRESENTER.secrets(states[-1])
    checked = 0
    for seat in SEATS:
        # When a spectator and each seat replay the whole of it
        whole = models.replay_all(stored.running, seat, views=True, boards=True)
        assert whole["over"] is False and whole["last_version"] == len(recorded)
        for step in whole["steps"]:
            version = step["version"]
            # Then each step is the one-step replay's at its version
            one = models.replay(stored.running, version, seat)
            assert step == _step_of(one, ("version", "event", "event_text", "view", "board_text"))
            # and shows no secret of another seat: neither one kept then, nor one still kept now
            for secret in (*PRESENTER.secrets(states[version]), *now):
                if secret.owner == seat:
                    continue
                checked += 1
                assert not json_shows(as_json(step), secret), (seat, version, secret)
                assert not text_shows(step["event_text"] + step["board_text"], secret), (seat, version, secret)
    assert checked  # the game stopped with secrets kept (sealed votes, hidden points): the check checked
    # and the running game's page does not end the game early
    assert models.replay_all(stored.running, 0)["next"] is None


def test_given_a_whole_replay_then_it_costs_two_round_trips_however_long_the_game(stored: Stored) -> None:
    client, since = counting(stored.url)
    models = stored.models(client)
    for gid in (stored.running, stored.finished):
        for seat in (None, 1):
            # When a whole game is replayed (a fresh read model: nothing cached)
            ReadModels(client, stored.layout).replay_all(gid, seat, views=True)
            # Then two reads were made: the metadata, the events
            assert since() == 2, (gid, seat)
    # and a page further in (the game's end known already) adds one: the nearest snapshot
    models.replay_all(stored.finished)
    since()
    models.replay_all(stored.finished, after=130, limit=50)
    assert since() == 3
    # while the one-step replay, step after step, made a few reads per step
    for version in range(1, 41):
        models.replay(stored.finished, version)
    assert since() >= 2 * 40


# --- the audit -------------------------------------------------------------------------------------------------
def test_given_a_finished_game_when_its_refused_commands_are_asked_then_only_those_in_order(stored: Stored) -> None:
    models = stored.models()
    everything = models.audit(stored.finished)["entries"]
    refused = [e for e in everything if e["kind"] == "refusal"]
    # Given a game whose seats sent commands out of turn and with stale versions
    codes = {e["code"] for e in refused}
    assert "stale_version" in codes and codes - {"stale_version"}, codes
    # When only its refused commands are asked
    only = models.audit(stored.finished, refused_only=True)
    # Then they are every refusal of the whole audit, in the order judged, and nothing else
    assert only["only"] == "refused" and only["entries"] == refused
    assert only["fairness"] == models.audit(stored.finished)["fairness"]
    # and a page of them is the refusals judged at its versions
    page = models.audit(stored.finished, after=100, limit=200, refused_only=True)
    assert page["entries"] == [e for e in refused if 100 < e["version"] <= 300] and page["next"] == 300
    # and the same comes from the store when the audit model is not there
    clear_model(redis.Redis.from_url(stored.url), stored.layout, "audit", range(stored.layout.shards))
    try:
        assert models.audit(stored.finished)["entries"] == everything
        assert models.audit(stored.finished, refused_only=True)["entries"] == refused
    finally:
        rebuild(redis.Redis.from_url(stored.url), stored.layout, models=["audit"])


def test_given_an_audit_then_it_costs_a_few_round_trips_however_long_the_game(stored: Stored) -> None:
    client, since = counting(stored.url)
    costs = {}
    for gid in (stored.running, stored.finished):
        models = ReadModels(client, stored.layout)
        # When the whole audit is read (the referee's), and its refusals alone
        models.audit(gid)
        costs[gid, "all"] = since()
        models.audit(gid, refused_only=True)
        costs[gid, "refused"] = since()
    # Then each read a constant few keys (the metadata, the command log, the events, the audit model's entries
    # and its commands, a snapshot), the same for a game of 150 events as for one of 800
    assert all(cost <= 6 for cost in costs.values()), costs
    assert costs[stored.running, "all"] == costs[stored.finished, "all"], costs
    # and without the audit model the same few
    clear_model(redis.Redis.from_url(stored.url), stored.layout, "audit", range(stored.layout.shards))
    try:
        since()
        ReadModels(client, stored.layout).audit(stored.finished)
        assert since() <= 6
    finally:
        rebuild(redis.Redis.from_url(stored.url), stored.layout, models=["audit"])


# --- the command line ------------------------------------------------------------------------------------------
def _throne(monkeypatch: pytest.MonkeyPatch, stored: Stored, *argv: str, client: redis.Redis | None = None) -> str:
    monkeypatch.setattr(cli_records, "_read_models", lambda: stored.models(client))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(list(argv)) == 0
    return out.getvalue()


def test_given_a_finished_game_when_throne_replays_it_then_every_event_and_the_board_as_one_step_says(
    monkeypatch: pytest.MonkeyPatch, stored: Stored
) -> None:
    models = stored.models()
    last = models.replay(stored.finished, 0)["last_version"]
    steps = [models.replay(stored.finished, v, 1) for v in range(1, last + 1)]
    client, since = counting(stored.url)
    # When `throne replay GAME --seat 1` prints the game (and with --board, the board after every event)
    printed = _throne(monkeypatch, stored, "replay", stored.finished, "--seat", "1", client=client)
    assert since() == 2
    boards = _throne(monkeypatch, stored, "replay", stored.finished, "--seat", "1", "--board")
    # Then it prints what the one-step replay says at every version, in two reads
    expected = [f"{s['version']:5d}  {s['event_text']}" for s in steps]
    assert printed.splitlines() == [*expected, *steps[-1]["board_text"].splitlines()]
    assert boards.splitlines() == [line for s in steps for line in (
        f"{s['version']:5d}  {s['event_text']}", *s["board_text"].splitlines())]  # fmt: skip


def test_given_a_finished_game_when_throne_audits_its_refusals_then_only_the_refused_commands(
    monkeypatch: pytest.MonkeyPatch, stored: Stored
) -> None:
    refused = stored.models().audit(stored.finished, refused_only=True)["entries"]
    # When `throne audit GAME --refused` prints the refused commands
    printed = _throne(monkeypatch, stored, "audit", stored.finished, "--refused").splitlines()
    # Then each refusal has its line (version, code, sentence) and who sent it, and no event is printed
    heads = [line for line in printed if not line.startswith("       ")]
    told = [f"{e['version']:5d}R refused {e['code']} [{','.join(e['rulings'])}] {e['sentence']}" for e in refused]
    assert heads == told
    sent = [line for line in printed if line.startswith("       sent by ")]
    assert len(sent) == len(refused)
    # and the whole audit prints the events too, the refusals among them
    whole = _throne(monkeypatch, stored, "audit", stored.finished).splitlines()
    assert set(heads) <= set(whole) and len(whole) > len(printed)

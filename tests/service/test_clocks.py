"""Clocks through the service, with a controlled clock (nobody waits real minutes): the worker stamps the time the
test sets, the timer process claims due alarms and submits timeouts through the bus, and the games record them.

Each test runs on a real redis-server and on fakeredis (the ``backend`` fixture).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from projections.api import ReadModels
from projections.verify import verify_game
from services.adjudicator import adjudicate
from services.bus.envelope import STALE_VERSION
from services.client import NewGame, ServiceClient
from services.rules.registry import get_game
from services.store.repository import GameRepository
from services.timer.timer import ClockTimer, TimerConfig, timeout_command_id
from services.worker.rules_worker import RulesWorker
from tests.service.conftest import FAST, Backend

T0 = 1_800_000_000_000
MINUTE = 60_000
PER_DECISION = {"clock": {"mode": "per_decision", "per_decision_s": 60, "low_s": 15}}


@dataclass
class Clock:
    """A clock the test moves by hand (ms)."""

    now: int = T0

    def __call__(self) -> int:
        return self.now


@dataclass
class Table:
    """A backend with a worker and a timer on one controlled clock."""

    backend: Backend
    clock: Clock
    worker: RulesWorker
    client: ServiceClient

    def timer(self, **config: Any) -> ClockTimer:
        cfg = TimerConfig(**{"hold_ms": 5_000, **config})
        return ClockTimer(self.backend.make(), range(self.backend.layout.shards), layout=self.backend.layout,
                          config=cfg, clock=self.clock)  # fmt: skip

    def create(self, name: str, players: list[str], settings: dict[str, Any], seed: int = 7) -> NewGame:
        game = self.client.create_game(name, players, settings, seed=seed, timeout=None)
        self.worker.run_until_idle()
        return game

    def state(self, game_id: str) -> Any:
        return GameRepository(self.backend.make(), self.backend.layout).load(game_id)

    def events(self, game_id: str) -> list[dict[str, Any]]:
        return [e.data for e in self.client.read_events(game_id)]

    def alarm(self, game_id: str) -> float | None:
        lay = self.backend.layout
        return self.backend.make().zscore(lay.clocks(lay.shard_of(game_id)), game_id)


@pytest.fixture
def table(backend: Backend) -> Table:
    clock = Clock()
    worker = RulesWorker(backend.make(), range(backend.layout.shards), layout=backend.layout, config=FAST, clock=clock)
    worker.refresh_leases()
    return Table(backend, clock, worker, backend.client())


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


@pytest.mark.parametrize(("name", "players"), [("shadow", ["Ann", "Bob", "Cid"]), ("barracks", ["Ann", "Bob"])])
def test_given_a_clocked_game_when_a_seat_lets_its_time_run_out_then_the_timer_has_the_default_move_recorded(
    table: Table, name: str, players: list[str]
) -> None:
    # Given a game on a 60 s per-decision clock, created at T0
    game = table.create(name, players, PER_DECISION)
    loaded = table.state(game.game_id)
    seat = loaded.rules.awaited(loaded.state)[0]
    assert table.alarm(game.game_id) == T0 + 45_000  # the low-time notice comes first
    timer = table.timer()
    # When the timer looks before the deadline: a notice goes out, no timeout
    table.clock.now = T0 + 50_000
    assert timer.step() == 1 and timer.stats["timeouts"] == 0 and timer.stats["notice"] == 1
    notices = table.backend.make().xrange(table.backend.layout.notices(loaded.shard))
    assert [orjson.loads(n[b"n"])["seat"] for _, n in notices] == [seat]
    assert table.alarm(game.game_id) == T0 + MINUTE
    # When the deadline passes and the timer looks again
    table.clock.now = T0 + MINUTE
    assert timer.step() == 1 and timer.stats["timeouts"] == 1
    before = len(table.events(game.game_id))
    table.worker.run_until_idle()
    # Then the game records that the seat timed out, the default move, and the stamp of the timeout
    new = table.events(game.game_id)[before:]
    fact = new[0]
    assert fact["type"] == "SeatTimedOut" and fact["seat"] == seat and fact["rulings"][0] == loaded.rules.rulings.clock
    assert new[-1] == {"type": "ClockStamped", "seat": seat, "at_ms": T0 + MINUTE, "timed_out": True,
                       "rulings": [loaded.rules.rulings.clock]}  # fmt: skip
    outcome = table.client.outcome(game.game_id, seat, timeout_command_id(seat, 1))
    assert outcome is not None and outcome.accepted
    # And the next decision's deadline is the game's next alarm
    after = table.state(game.game_id)
    assert table.alarm(game.game_id) == after.rules.next_alarm(after.state, T0 + MINUTE)


def test_given_a_late_move_and_its_timeout_when_the_move_comes_first_then_the_timeout_is_stale_and_changes_nothing(
    table: Table,
) -> None:
    game = table.create("shadow", ["Ann", "Bob", "Cid"], PER_DECISION)
    loaded = table.state(game.game_id)
    seat = loaded.rules.awaited(loaded.state)[0]
    move = loaded.rules.encode_command(loaded.rules.legal_commands(loaded.state, seat)[0])
    # Given the deadline has passed and the timer has submitted its timeout
    table.clock.now = T0 + 2 * MINUTE
    timer = table.timer()
    timer.step()
    # When the seat's late move reaches the worker first (it was read first), then the timeout
    lay = table.backend.layout
    entries = table.backend.make().xrange(lay.cmds(loaded.shard))
    assert len(entries) == 1
    table.backend.make().xdel(lay.cmds(loaded.shard), entries[0][0])
    table.client.submit(game.game_id, seat, game.tokens[seat], move)
    table.backend.make().xadd(lay.cmds(loaded.shard), entries[0][1])
    table.worker.run_until_idle()
    # Then the move counts, and the timeout is refused as stale: no event of it
    events = table.events(game.game_id)
    assert "SeatTimedOut" not in _types(events)
    refused = table.client.outcome(game.game_id, seat, timeout_command_id(seat, 1))
    assert refused is not None and refused.rejection is not None and refused.rejection.code == "stale_timeout"
    assert refused.version == len(events)


def test_given_a_late_move_and_its_timeout_when_the_timeout_comes_first_then_the_late_move_is_refused(
    table: Table,
) -> None:
    game = table.create("shadow", ["Ann", "Bob", "Cid"], PER_DECISION)
    loaded = table.state(game.game_id)
    seat = loaded.rules.awaited(loaded.state)[0]
    move = loaded.rules.encode_command(loaded.rules.legal_commands(loaded.state, seat)[0])
    table.clock.now = T0 + 2 * MINUTE
    table.timer().step()
    # When the timeout is decided first, then the late move (sent for the version the seat saw, and without one)
    table.client.submit(game.game_id, seat, game.tokens[seat], move, expected_version=loaded.version,
                        command_id="late-1")  # fmt: skip
    table.client.submit(game.game_id, seat, game.tokens[seat], move, command_id="late-2")
    table.worker.run_until_idle()
    events = table.events(game.game_id)
    # Then the default move stands, and the late move is refused either way, changing nothing
    assert _types(events).count("SeatTimedOut") == 1
    first = table.client.outcome(game.game_id, seat, "late-1")
    second = table.client.outcome(game.game_id, seat, "late-2")
    assert first is not None and first.rejection is not None and first.rejection.code == STALE_VERSION
    assert second is not None and second.rejection is not None and second.rejection.code == "not_your_turn"
    assert len(table.events(game.game_id)) == len(events)


def test_given_two_timer_processes_when_both_claim_the_same_deadline_then_the_timeout_is_applied_once(
    table: Table,
) -> None:
    games = [table.create("barracks", ["Ann", "Bob"], PER_DECISION, seed=s) for s in range(6)]
    table.clock.now = T0 + 2 * MINUTE
    a, b = table.timer(), table.timer()
    # When two timers poll at the same moment: each due game is claimed by one of them only
    claimed_a, claimed_b = a.claim(table.clock.now), b.claim(table.clock.now)
    assert not {g for _, g in claimed_a} & {g for _, g in claimed_b}
    assert {g for _, g in claimed_a + claimed_b} == {g.game_id for g in games}
    for shard, gid in claimed_a:
        a.handle(shard, gid, table.clock.now)
    # When the first timer's claims run out before the worker has decided anything, and the second claims again
    table.clock.now += 5_001
    for shard, gid in b.claim(table.clock.now):
        b.handle(shard, gid, table.clock.now)
    assert a.stats["timeouts"] == b.stats["timeouts"] == len(games)
    table.worker.run_until_idle()
    # Then every game recorded exactly one timeout, the second submission answered with the first outcome
    for g in games:
        assert _types(table.events(g.game_id)).count("SeatTimedOut") == 1
    assert table.worker.stats["duplicate"] == len(games)
    # And nothing is due any more (the commits moved every alarm to the next deadline)
    assert a.claim(table.clock.now) == [] and b.claim(table.clock.now) == []


def test_given_a_clocked_game_with_timeouts_when_verified_then_it_replays_identically(table: Table) -> None:
    rules = get_game("barracks").rules
    game = table.create("barracks", ["Ann", "Bob"], {"clock": {"mode": "bank", "bank_s": 120, "increment_s": 5}})
    rng = random.Random(3)
    timer = table.timer()
    for n in range(400):
        loaded = table.state(game.game_id)
        if loaded.status != "active":
            break
        seat = rules.awaited(loaded.state)[0]
        if n % 4 == 3:
            # this decision is left to run out
            table.clock.now = (
                rules.clock_of(loaded.state)[1].since[seat]
                + rules.clock_status(loaded.state, table.clock.now)[seat]["remaining_ms"]
            )
            timer.step()
        else:
            table.clock.now += rng.randrange(1_000, 20_000)
            move = rules.encode_command(rules.sample_legal(loaded.state, seat, rng))
            table.client.submit(game.game_id, seat, game.tokens[seat], move)
        table.worker.run_until_idle()
    assert table.state(game.game_id).status == "over"
    events = table.events(game.game_id)
    assert _types(events).count("SeatTimedOut") >= 10
    # Then verification re-decides every command at its recorded time and gets the very same events
    report = verify_game(table.backend.make(), table.backend.layout, game.game_id)
    assert report["ok"], report["differences"][:2] or report["outcome_changes"][:2]
    # And the stored events fold to the state the worker holds, clocks included
    folded = rules.fold([rules.parse_event(e) for e in events])
    assert folded == table.state(game.game_id).state
    # And the game is off the timer's list
    assert table.alarm(game.game_id) is None
    # And its export, refereed offline at the times it carries, gives the stored events byte for byte
    lines = ReadModels(table.backend.make(), table.backend.layout).export(game.game_id)
    offline = [orjson.dumps(rec["event"]) for rec in adjudicate(lines) if "event" in rec]
    lay = table.backend.layout
    assert offline == [
        f[b"e"] for _, f in table.backend.make().xrange(lay.events(lay.shard_of(game.game_id), game.game_id))
    ]


def test_given_a_sealed_vote_when_one_voter_times_out_then_its_default_vote_is_sealed_and_the_votes_revealed(
    table: Table,
) -> None:
    rules = get_game("shadow").rules
    game = table.create("shadow", ["Ann", "Bob", "Cid", "Dee"], {"clock": {"mode": "bank", "bank_s": 900}}, seed=0)
    rng = random.Random(0)
    # Given a game played (a second a move) up to a sealed vote of two seats
    for _ in range(800):
        loaded = table.state(game.game_id)
        if loaded.state.game.pending.decision == "vote" and len(rules.awaited(loaded.state)) == 2:
            break
        seat = rules.awaited(loaded.state)[0]
        table.clock.now += 1_000
        move = rules.encode_command(rules.sample_legal(loaded.state, seat, rng))
        table.client.submit(game.game_id, seat, game.tokens[seat], move)
        table.worker.run_until_idle()
    else:
        pytest.fail("no sealed vote reached")
    first, late = rules.awaited(loaded.state)
    vote_opened = rules.clock_of(loaded.state)[1].since[late]
    # When one voter seals its vote and the other lets its bank run out
    table.clock.now += 5_000
    table.client.submit(game.game_id, first, game.tokens[first], {"type": "CastVote", "candidate": "rival"})
    table.worker.run_until_idle()
    sealed = table.state(game.game_id)
    assert rules.awaited(sealed.state) == (late,)
    deadline = vote_opened + rules.clock_of(sealed.state)[1].bank_ms[late]
    assert table.alarm(game.game_id) == deadline  # the late voter's clock ran all along
    table.clock.now = deadline
    timer = table.timer()
    timer.step()
    table.worker.run_until_idle()
    # Then its timeout is recorded with the default vote, the vote it sealed, and the reveal that follows
    new = table.events(game.game_id)[sealed.version :]
    assert _types(new)[:2] == ["SeatTimedOut", "VoteSealed"] and "VotesRevealed" in _types(new)
    assert new[0]["decision"] == "vote" and new[0]["rulings"] == ["X16", "X19"]
    revealed = next(e for e in new if e["type"] == "VotesRevealed")
    ballots = {b["seat"]: b["candidate"] for b in revealed["ballots"]}
    assert ballots[first] == "rival" and ballots[late] == new[0]["default"]["candidate"]


def test_given_a_worker_clock_behind_the_timers_when_the_timeout_comes_early_then_a_later_claim_applies_it(
    table: Table,
) -> None:
    game = table.create("barracks", ["Ann", "Bob"], PER_DECISION)
    seat = table.state(game.game_id).rules.awaited(table.state(game.game_id).state)[0]
    # Given a timer whose clock is past the deadline, and a worker whose clock is a second behind it
    timer_now = [T0 + MINUTE]
    timer = ClockTimer(table.backend.make(), range(table.backend.layout.shards), layout=table.backend.layout,
                       config=TimerConfig(hold_ms=5_000), clock=lambda: timer_now[0])  # fmt: skip
    table.clock.now = T0 + MINUTE - 1_000
    timer.step()
    table.worker.run_until_idle()
    # Then the worker refuses it as early, and nothing is recorded
    early = table.client.outcome(game.game_id, seat, timeout_command_id(seat, 1))
    assert early is not None and early.rejection is not None and early.rejection.code == "clock_running"
    assert "SeatTimedOut" not in _types(table.events(game.game_id))
    # When the claim's hold has run out and the worker's clock has passed the deadline too
    timer_now[0] += 5_001
    table.clock.now = T0 + MINUTE + 4_001
    timer.step()
    table.worker.run_until_idle()
    # Then the timeout, claimed again under a new id, is applied once
    assert timer.stats["resubmitted"] == 1
    assert _types(table.events(game.game_id)).count("SeatTimedOut") == 1

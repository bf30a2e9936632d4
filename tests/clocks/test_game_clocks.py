"""Clocks in each installed game, through the contract only: timeouts get the game's documented default move and
the recorded fact, early or stale timeouts change nothing, and the clocks fold from the recorded events alone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.base import Rejection
from events.clock import TimeOut
from services.rules.contract import GamePlugin
from services.rules.registry import game_names, get_game

PER_DECISION = {"clock": {"mode": "per_decision", "per_decision_s": 60, "low_s": 10}}
T0 = 1_700_000_000_000


def _players(game: GamePlugin) -> list[str]:
    return ["Ann", "Bob", "Cid", "Dee"][: game.rules.capabilities.max_players]


def _offers_clocks(game: GamePlugin) -> bool:
    try:
        opening = game.rules.start(_players(game), PER_DECISION, 1, T0)
    except ValueError:  # a game without the clock setting refuses it (pydantic's ValidationError is one)
        return False
    state = game.rules.fold(opening)
    if game.rules.clock_of(state) is None:
        return False
    # A game with clocks but no default moves (a test's toy game) refuses every timeout: nothing to test here
    return game.rules.default_command(state, game.rules.awaited(state)[0]) is not None


def plugins() -> list[GamePlugin]:
    """Every game that offers clocks with default moves (both of this repository's do; a test's toy game has no
    defaults)."""
    found = [get_game(name) for name in game_names()]
    clocked = [g for g in found if _offers_clocks(g)]
    assert {"shadow", "barracks"} <= {g.name for g in clocked}
    return clocked


def play_with_timeouts(game: GamePlugin, seed: int, every: int, limit: int = 400) -> tuple[list[Any], Any, int]:
    """A seeded game on a 60 s clock: 5 s per move, and every ``every``-th decision left to time out."""
    rules, rng, t = game.rules, random.Random(seed), T0
    events = rules.start(_players(game), PER_DECISION, seed, t)
    state = rules.fold(events)
    timeouts = 0
    for n in range(limit):
        if rules.is_over(state):
            break
        if n % every == every - 1:
            t += 61_000
            due = rules.due_timeouts(state, t)
            assert [d.seat for d in due] == [s for s in rules.awaited(state) if s in {d.seat for d in due}] and due
            done = rules.execute(state, due[0], t)
            timeouts += 1
        else:
            t += 5_000
            seat = rules.awaited(state)[0]
            done = rules.execute(state, rules.sample_legal(state, seat, rng), t)
        assert not isinstance(done, Rejection), done
        events += done[0]
        state = done[1]
    return events, state, timeouts


@pytest.mark.parametrize("game", plugins(), ids=lambda g: g.name)
def test_given_a_clocked_game_when_seats_time_out_then_the_default_move_is_recorded_with_its_ruling(
    game: GamePlugin,
) -> None:
    # Given a clocked game where every third decision is left to run out
    rules = game.rules
    events, state, timeouts = play_with_timeouts(game, seed=3, every=3)
    facts = [e for e in events if e.type == "SeatTimedOut"]
    # Then each timeout is recorded, citing the clock ruling and its default's ruling, and its default was legal
    assert len(facts) == timeouts > 0
    for fact in facts:
        assert fact.rulings[0] == rules.rulings.clock and len(fact.rulings) == 2
        assert rules.parse_command(fact.default).seat == fact.seat
    # And the rules reference names every ruling cited
    reference = game.rules_reference.read_text() if game.rules_reference else ""
    for ruling in {r for f in facts for r in f.rulings}:
        assert f"**{ruling}**" in reference or f"{ruling} " in reference, ruling
    # And the clocks fold from the recorded events alone, snapshots included
    assert rules.fold(events) == state
    assert rules.restore(rules.snapshot(state)) == state
    # And the same inputs give the same events, on any day
    again, _, _ = play_with_timeouts(game, seed=3, every=3)
    assert [rules.encode_event(e) for e in again] == [rules.encode_event(e) for e in events]


@pytest.mark.parametrize("game", plugins(), ids=lambda g: g.name)
def test_given_a_running_clock_when_a_timeout_comes_early_or_stale_then_it_is_refused_and_nothing_changes(
    game: GamePlugin,
) -> None:
    rules = game.rules
    events = rules.start(_players(game), PER_DECISION, 1, T0)
    state = rules.fold(events)
    seat = rules.awaited(state)[0]
    turn = rules.clock_of(state)[1].turn
    before = rules.snapshot(state)
    # When the timeout comes a millisecond early
    early = rules.execute(state, TimeOut(seat=seat, turn=turn), T0 + 59_999)
    # Then it is refused: the clock still runs
    assert isinstance(early, Rejection) and early.code == "clock_running"
    # When the seat moved first (late), then its timeout is stale
    move = rules.sample_legal(state, seat, random.Random(1))
    moved = rules.execute(state, move, T0 + 70_000)
    assert not isinstance(moved, Rejection)
    stale = rules.execute(moved[1], TimeOut(seat=seat, turn=turn), T0 + 70_001)
    assert isinstance(stale, Rejection) and stale.code == "stale_timeout"
    # And a timeout of a seat the game does not await is stale too
    others = [s for s in range(len(_players(game))) if s not in rules.awaited(state)]
    if others:
        idle = rules.execute(state, TimeOut(seat=others[0], turn=turn), T0 + 999_999)
        assert isinstance(idle, Rejection) and idle.code == "stale_timeout"
    assert rules.snapshot(state) == before


@pytest.mark.parametrize("game", plugins(), ids=lambda g: g.name)
def test_given_a_table_without_clocks_when_started_then_nothing_is_stamped_and_timeouts_are_refused(
    game: GamePlugin,
) -> None:
    rules = game.rules
    plain = rules.start(_players(game), {}, 5)
    stamped = rules.start(_players(game), {}, 5, T0)
    assert [rules.encode_event(e) for e in stamped] == [rules.encode_event(e) for e in plain]
    assert "clock" not in rules.encode_event(plain[0])["settings"]
    state = rules.fold(plain)
    refused = rules.execute(state, TimeOut(seat=rules.awaited(state)[0], turn=0), T0 + 10**9)
    assert isinstance(refused, Rejection) and refused.code == "no_clock"
    assert rules.clock_status(state, T0) is None and rules.next_alarm(state, T0) is None


def _shadow_vote(seed_limit: int = 80) -> tuple[Any, list[Any], int]:
    """A seeded 4-player Shadow game on a bank clock, played at random up to a sealed vote of several seats."""
    rules = get_game("shadow").rules
    settings = {"clock": {"mode": "bank", "bank_s": 600, "increment_s": 10}}
    for seed in range(seed_limit):
        rng, t = random.Random(seed), T0
        events = rules.start(["Ann", "Bob", "Cid", "Dee"], settings, seed, t)
        state = rules.fold(events)
        for _ in range(600):
            if rules.is_over(state):
                break
            if state.game.pending.decision == "vote" and len(rules.awaited(state)) >= 2:
                return state, events, t
            t += 1_000
            done = rules.execute(state, rules.sample_legal(state, rules.awaited(state)[0], rng), t)
            events += done[0]
            state = done[1]
    raise AssertionError("no seeded game reached a sealed vote")


def test_given_a_sealed_vote_when_one_seat_times_out_then_the_others_votes_stand_and_its_default_is_sealed() -> None:
    rules = get_game("shadow").rules
    state, events, t = _shadow_vote()
    voters = rules.awaited(state)
    late, answering = voters[-1], voters[:-1]
    # When every other voter seals a vote in turn, each on its own running clock
    for i, seat in enumerate(answering):
        events_i, state = rules.execute(state, rules.legal_commands(state, seat)[0], t + 1_000 * (i + 1))
        events += events_i
    settings, clocks = rules.clock_of(state)
    assert rules.awaited(state) == (late,) and clocks.since[late] == t
    # Then the last voter's clock ran from the start of the vote: its timeout comes at its bank's end
    end = t + clocks.bank_ms[late]
    assert rules.due_timeouts(state, end - 1) == [] and [d.seat for d in rules.due_timeouts(state, end)] == [late]
    timeout = rules.due_timeouts(state, end)[0]
    out, after = rules.execute(state, timeout, end)
    fact = out[0]
    # And its default vote keeps the status quo (its own candidacy for a claimant) [X19], then the votes are revealed
    expected = "rival" if late == state.game.rival else "emperor"
    assert fact.type == "SeatTimedOut" and fact.decision == "vote" and fact.rulings == ("X16", "X19")
    assert fact.default == {"type": "CastVote", "seat": late, "candidate": expected}
    assert "VotesRevealed" in [e.type for e in out]
    assert out[-1].type == "ClockStamped" and out[-1].timed_out
    # And the timed-out seat's bank is spent: it keeps only its increment
    assert rules.clock_of(after)[1].bank_ms[late] == settings.increment_s * 1000
    assert rules.fold(events + out) == after
    # And while the vote runs, other seats never see the default vote: it is masked like a sealed vote
    presenter = get_game("shadow").presenter
    moment = rules.evolve(state, fact)
    for seat in [None, *answering]:
        shown = presenter.redact(fact, seat, moment)
        assert shown is not None and shown["default"] is None and shown["redacted"]
    assert presenter.redact(fact, late, moment)["default"] == fact.default


@pytest.mark.parametrize(
    ("decision_type", "wanted", "ruling"),
    [("actions", {"type": "Pass"}, "X17"), ("marriage_answer", {"type": "AnswerMarriage", "accept": False}, "X18")],
)
def test_given_a_shadow_decision_when_its_seat_times_out_then_the_referee_passes_or_declines(
    decision_type: str, wanted: dict[str, Any], ruling: str
) -> None:
    rules = get_game("shadow").rules
    for seed in range(40):
        rng = random.Random(seed)
        state = rules.fold(rules.start(["Ann", "Bob", "Cid"], {}, seed))
        for _ in range(400):
            if rules.is_over(state):
                break
            if state.game.pending.decision == decision_type:
                seat = rules.awaited(state)[0]
                command, cited = rules.default_command(state, seat)
                assert cited == ruling and {**rules.encode_command(command), **wanted} == rules.encode_command(command)
                return
            state = rules.execute(state, rules.sample_legal(state, rules.awaited(state)[0], rng))[1]
    pytest.fail(f"no seeded game reached a {decision_type} decision")

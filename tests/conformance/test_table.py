"""Conformance of the table around every game (services/rules/table): timeouts with the game's default move, a seat
handed to a bot and taken back, a player leaving, the committed seed, the table's snapshot, and the table's facts
and commands in words on every surface (describe, narrate, label, the audit's label), never as raw JSON."""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.base import Rejection
from events.clock import LeaveSeat, TakeSeat, TimeOut
from projections.audit_model import third_person
from services.rules import fair
from services.rules.contract import Event, GamePlugin
from services.rules.table import TABLE_EVENTS
from tests.conformance.harness import NAMES, player_counts

T0 = 1_700_000_000_000
SALT = "3c" * 32
CLOCKED = {"clock": {"mode": "per_decision", "per_decision_s": 30, "bot_after": 1, "bot": "random"}}


def _table(game: GamePlugin, settings: dict[str, Any], salt: str | None = None) -> tuple[list[Event], Any]:
    players = list(NAMES[: player_counts(game)[0]])
    events = game.rules.start(players, settings, 5, T0, salt)
    return events, game.rules.fold(events)


def _clocked(game: GamePlugin) -> tuple[list[Event], Any]:
    try:
        events, state = _table(game, CLOCKED)
    except ValueError:  # a game whose settings have no clock refuses one (pydantic's ValidationError is one)
        pytest.skip(f"{game.name} offers no clocks")
    if game.rules.clock_of(state) is None:
        pytest.skip(f"{game.name} offers no clocks")
    return events, state


def assert_worded(game: GamePlugin, events: list[Event], state: Any) -> None:
    """Every table fact among ``events`` reads in words for every reader, never as JSON."""
    players = list(state.players)
    for event in events:
        if event.type not in TABLE_EVENTS:
            continue
        described = game.presenter.describe(event, players)
        assert described.strip() and "{" not in described, (event, described)
        assert game.presenter.explain_event(event, players).strip()
        for reader in [*range(len(players)), None]:
            told = game.presenter.narrate(event, reader, state, players)
            assert told is None or (told.strip() and "{" not in told), (event, reader, told)


def test_given_a_clocked_table_when_the_awaited_seat_times_out_then_the_fact_its_default_and_the_stamp_follow(
    game: GamePlugin,
) -> None:
    rules = game.rules
    opening, state = _clocked(game)
    assert opening[-1].type == "ClockStamped" and opening[-1].at_ms == T0
    seat = rules.awaited(state)[0]
    turn = rules.clock_of(state)[1].turn
    # When the timer claims too early, or for a turn that has passed, Then refused citing the clock ruling
    early = rules.execute(state, TimeOut(seat=seat, turn=turn), T0 + 29_999)
    assert isinstance(early, Rejection) and early.code == "clock_running"
    stale = rules.execute(state, TimeOut(seat=seat, turn=turn - 1), T0 + 60_000)
    assert isinstance(stale, Rejection) and stale.code == "stale_timeout"
    assert rules.due_timeouts(state, T0 + 29_999) == []
    # When the seat's time runs out
    (due,) = [d for d in rules.due_timeouts(state, T0 + 30_000) if d.seat == seat]
    if rules.default_command(state, seat) is None:
        # Then a game with no default move for the decision has it refused: nothing is recorded
        refused = rules.execute(state, due, T0 + 30_000)
        assert isinstance(refused, Rejection) and refused.code == "no_default"
        return
    events, after = rules.execute(state, due, T0 + 30_000)
    # Then the timeout (citing the clock's ruling, then the default's), the handover (bot_after 1), the default
    # move's own events, and the stamp
    default, ruling = rules.default_command(state, seat)
    fact = events[0]
    assert fact.type == "SeatTimedOut" and fact.seat == seat and fact.default == rules.encode_command(default)
    assert fact.rulings == tuple(r for r in (rules.rulings.clock, ruling) if r)
    assert events[1].type == "SeatHandedOver" and events[1].bot == "random"
    game_part = [e.type for e in events[2:] if e.type not in TABLE_EVENTS]
    assert game_part == [e.type for e in rules.game.decide(state.game, default)]
    assert (events[-1].type == "ClockStamped" and events[-1].timed_out) or rules.is_over(after)
    # And the record alone rebuilds the table, and the bot now plays the seat
    assert rules.fold(opening + events) == after
    assert rules.table_bots(after) == {seat: "random"} or rules.is_over(after)
    assert_worded(game, events, after)


def test_given_a_seat_handed_to_a_bot_when_its_player_takes_it_back_then_recorded_once(game: GamePlugin) -> None:
    rules = game.rules
    _, state = _clocked(game)
    seat = rules.awaited(state)[0]
    assert rules.execute(state, TakeSeat(seat=seat)).code == "not_handed_over"
    if rules.default_command(state, seat) is None:
        pytest.skip(f"{game.name} has no default move: its clock never hands a seat over")
    timed_out, state = rules.execute(state, rules.due_timeouts(state, T0 + 30_000)[0], T0 + 30_000)
    if rules.is_over(state):
        pytest.skip("the default move ended the game")
    assert "TakeSeat" in rules.table_commands(state, seat)
    # When the seat's player takes it back, Then recorded citing the bot ruling, and no bot plays it any more
    events, after = rules.execute(state, TakeSeat(seat=seat))
    assert [e.type for e in events] == ["SeatHandedOver"] and events[0].bot is None
    assert seat not in rules.table_bots(after) and "TakeSeat" not in rules.table_commands(after, seat)
    again = rules.execute(after, TakeSeat(seat=seat))
    assert isinstance(again, Rejection) and again.code == "not_handed_over"
    assert_worded(game, timed_out + events, after)


def test_given_a_table_without_clocks_when_a_clock_command_comes_then_refused(game: GamePlugin) -> None:
    rules = game.rules
    _, state = _table(game, {})
    seat = rules.awaited(state)[0]
    for command in (TimeOut(seat=seat, turn=1), TakeSeat(seat=seat)):
        refused = rules.execute(state, command, T0 + 10**9)
        assert isinstance(refused, Rejection) and refused.code == "no_clock"
    assert rules.due_timeouts(state, T0 + 10**9) == [] and rules.table_bots(state) == {}


def test_given_a_running_game_when_a_player_leaves_then_recorded_and_a_bot_plays_the_seat_to_the_end(
    game: GamePlugin,
) -> None:
    rules = game.rules
    opening, state = _table(game, {})
    seat = len(state.players) - 1
    # When the player leaves, Then one SeatLeft fact (citing the game's leaving ruling), the game unchanged
    events, after = rules.execute(state, LeaveSeat(seat=seat, bot="random"))
    assert [e.type for e in events] == ["SeatLeft"] and events[0].rulings == tuple(
        r for r in [rules.rulings.leave] if r
    )
    assert rules.has_left(after, seat) and rules.table_bots(after) == {seat: "random"}
    assert rules.awaited(after) == rules.awaited(state) and rules.table_commands(after, seat) == []
    assert rules.fold(opening + events) == after
    assert_worded(game, events, after)
    # And a second leave, a leave of no seat, and taking the seat back are refused
    assert rules.execute(after, LeaveSeat(seat=seat, bot="random")).code == "seat_left"
    assert rules.execute(after, LeaveSeat(seat=99, bot="random")).code == "no_such_seat"
    # When the game is played out (the bot at the table plays the seat), Then no one may leave any more
    rng, record = random.Random(3), opening + events
    for _ in range(3000):
        if rules.is_over(after):
            break
        mover = rules.awaited(after)[0]
        command = rules.sample_legal(after, mover, rng)
        done = rules.execute(after, command)
        assert not isinstance(done, Rejection), done
        record, after = record + done[0], done[1]
    assert rules.is_over(after) and rules.fold(record) == after
    assert rules.execute(after, LeaveSeat(seat=0, bot="random")).code == "game_over"
    assert rules.table_bots(after) == {}


def test_given_a_service_table_when_played_out_then_the_seed_is_committed_first_and_revealed_last(
    game: GamePlugin,
) -> None:
    rules = game.rules
    if not rules.commits_seed:
        pytest.skip(f"{game.name} commits no seed")
    record, state = _table(game, {}, SALT)
    assert "seed" not in rules.fairness(state)  # the seed is a secret until the end
    rng = random.Random(1)
    while not rules.is_over(state):
        done = rules.execute(state, rules.sample_legal(state, rules.awaited(state)[0], rng))
        assert not isinstance(done, Rejection), done
        record, state = record + done[0], done[1]
    assert record[-1].type == "SeedRevealed" and rules.fairness(state)["seed"] is not None
    assert fair.verdict([rules.encode_event(e) for e in record])["status"] == fair.VERIFIED
    assert_worded(game, [e for e in record if e.type in ("SeedCommitted", "SeedRevealed")], state)


def test_given_a_table_with_clocks_a_seal_and_a_leaver_when_snapshotted_then_restored_whole(game: GamePlugin) -> None:
    rules = game.rules
    try:
        _, state = _table(game, CLOCKED, SALT)
    except ValueError:
        _, state = _table(game, {}, SALT)
    left = rules.execute(state, LeaveSeat(seat=0, bot="random"))
    assert not isinstance(left, Rejection)
    state = left[1]
    restored = rules.restore(rules.snapshot(state))
    assert restored == state and rules.has_left(restored, 0)


def test_given_the_table_commands_when_labelled_then_words_on_every_surface(game: GamePlugin) -> None:
    rules, presenter = game.rules, game.presenter
    _, state = _table(game, {})
    for command in (TimeOut(seat=0, turn=2), TakeSeat(seat=0), LeaveSeat(seat=0, bot="random")):
        parsed = rules.parse_command(rules.encode_command(command))
        assert parsed == command
        label = presenter.label(parsed, state)
        audit = third_person(label, state.players[0])
        assert label.strip() and "{" not in label and "your" not in audit.lower(), (label, audit)

"""Repeated timeouts hand a seat to a bot (the clock setting ``bot_after`` with ``bot``), through the contract only,
in every installed game with clocks: the handover is recorded, the seat's player takes it back with ``TakeSeat``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from events.base import Rejection
from events.clock import ClockSettings, TakeSeat
from services.rules.contract import GamePlugin
from tests.clocks.test_game_clocks import T0, _players, plugins

BOT_AFTER = {"clock": {"mode": "per_decision", "per_decision_s": 60, "bot_after": 2, "bot": "random"}}


def _time_out(game: GamePlugin, state: Any, t: int) -> tuple[list[Any], Any, int]:
    """Let the awaited seat's clock run out at ``t``; returns the events, the state and the seat."""
    due = game.rules.due_timeouts(state, t)
    assert due
    done = game.rules.execute(state, due[0], t)
    assert not isinstance(done, Rejection), done
    return done[0], done[1], due[0].seat


def _opening(game: GamePlugin) -> tuple[Any, int]:
    rules = game.rules
    return rules.fold(rules.start(_players(game), BOT_AFTER, 4, T0)), T0


@pytest.mark.parametrize("game", plugins(), ids=lambda g: g.name)
def test_given_bot_after_two_when_a_seat_times_out_twice_in_a_row_then_the_second_hands_it_to_the_bot(
    game: GamePlugin,
) -> None:
    rules = game.rules
    state, t = _opening(game)
    # Given a seat that timed out once: no handover yet, though the next timeout would hand it over
    seat = rules.awaited(state)[0]
    t += 61_000
    events, state, timed = _time_out(game, state, t)
    assert timed == seat and "SeatHandedOver" not in [e.type for e in events]
    assert rules.table_bots(state) == {}
    # When the seat times out again, its next decision included (other seats move in between by the referee too)
    handed: list[Any] = []
    for _ in range(40):
        if seat in rules.awaited(state) and rules.hands_over(state, seat):
            break
        t += 61_000
        events, state, _ = _time_out(game, state, t)  # every seat times out: runs grow for all
    assert rules.hands_over(state, seat)
    t += 61_000
    due = [d for d in rules.due_timeouts(state, t) if d.seat == seat]
    done = rules.execute(state, due[0], t)
    assert not isinstance(done, Rejection)
    events, state = done
    # Then the game records the timeout, then the handover to the named bot, citing the clock and bot rulings
    types = [e.type for e in events]
    assert types[:2] == ["SeatTimedOut", "SeatHandedOver"] and types[-1] == "ClockStamped"
    handed = [e for e in events if e.type == "SeatHandedOver"]
    assert handed[0].seat == seat and handed[0].bot == "random"
    assert list(handed[0].rulings) == [rules.rulings.clock, rules.rulings.bot] and rules.rulings.bot
    reference = game.rules_reference.read_text() if game.rules_reference else ""
    assert f"**{rules.rulings.bot}" in reference
    assert rules.table_bots(state)[seat] == "random" and not rules.hands_over(state, seat)
    rows = {row["seat"]: row for row in rules.clock_status(state, t) or []}
    assert rows[seat]["bot"] == "random"
    # And the words say so
    assert "bot plays the seat now" in game.presenter.narrate(handed[0], seat, state, _players(game))


@pytest.mark.parametrize("game", plugins(), ids=lambda g: g.name)
def test_given_a_seat_played_by_a_bot_when_its_player_sends_take_seat_then_it_is_recorded_and_the_bot_stops(
    game: GamePlugin,
) -> None:
    rules = game.rules
    state, t = _opening(game)
    # Given a seat handed to the bot after its timeouts
    seat = rules.awaited(state)[0]
    while seat not in rules.table_bots(state):
        t += 61_000
        _, state, _ = _time_out(game, state, t)
    clocks_before = rules.clock_of(state)
    assert clocks_before is not None
    # When a seat no bot plays sends TakeSeat: refused, nothing changes
    other = next(s for s in range(len(_players(game))) if s not in rules.table_bots(state))
    refused = rules.execute(state, rules.parse_command({"type": "TakeSeat", "seat": other}), t)
    assert isinstance(refused, Rejection) and refused.code == "not_handed_over"
    assert list(refused.rulings) == [rules.rulings.bot]
    # When the seat's player sends TakeSeat
    done = rules.execute(state, TakeSeat(seat=seat), t + 1)
    assert not isinstance(done, Rejection), done
    events, after = done
    # Then one fact records it, without a bot; no clock is stamped, the run of timeouts starts afresh
    assert [(e.type, e.seat, e.bot) for e in events] == [("SeatHandedOver", seat, None)]
    assert list(events[0].rulings) == [rules.rulings.bot]
    assert seat not in rules.table_bots(after)
    clocks_after = rules.clock_of(after)
    assert clocks_after is not None
    assert clocks_after[1].since == clocks_before[1].since and clocks_after[1].turn == clocks_before[1].turn
    assert clocks_after[1].timeouts[seat] == 0
    # And the fold of the recorded events gives the same clocks (the record alone says who plays the seat)
    assert rules.clock_of(rules.evolve(state, rules.parse_event(rules.encode_event(events[0])))) == clocks_after
    # And a second TakeSeat is refused
    again = rules.execute(after, TakeSeat(seat=seat), t + 2)
    assert isinstance(again, Rejection) and again.code == "not_handed_over"


def test_given_clock_settings_when_bot_after_is_set_then_it_takes_a_bot_and_excludes_autoplay() -> None:
    base: dict[str, Any] = {"mode": "per_decision", "per_decision_s": 60}
    assert ClockSettings.model_validate({**base, "bot_after": 3, "bot": "heuristic"}).bot == "heuristic"
    for bad in ({"bot_after": 3}, {"bot": "heuristic"}, {"bot_after": 3, "bot": "heuristic", "autoplay_after": 2},
                {"bot_after": 0, "bot": "random"}, {"bot_after": 3, "bot": "Not A Bot"}):  # fmt: skip
        with pytest.raises(ValidationError):
            ClockSettings.model_validate({**base, **bad})

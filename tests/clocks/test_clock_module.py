"""The clock arithmetic (services/rules/clock.py): banks, increments, per-decision limits, several seats at once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from events.clock import ClockSettings
from services.rules import clock

BANK = ClockSettings(mode="bank", bank_s=60, increment_s=5, low_s=10)
PER = ClockSettings(mode="per_decision", per_decision_s=30, autoplay_after=2)


def test_given_a_bank_when_a_seat_moves_then_its_time_is_taken_from_its_bank_and_the_increment_added() -> None:
    # Given a game created at t=1000 that awaits seat 0
    c = clock.stamp(BANK, clock.initial(BANK, 2), 1000, None, (0,), False)
    assert clock.deadline(BANK, c, 0) == 61_000 and clock.deadline(BANK, c, 1) is None
    # When seat 0 moves 20 s later and the game awaits seat 1
    c = clock.stamp(BANK, c, 21_000, 0, (1,), False)
    # Then seat 0 has 40 s + 5 s left and seat 1's clock runs from the move
    assert c.bank_ms == (45_000, 60_000)
    assert clock.remaining(BANK, c, 0, 99_000) == 45_000
    assert clock.deadline(BANK, c, 1) == 81_000
    assert c.turn == 2


def test_given_a_per_decision_limit_when_a_seat_moves_slowly_then_the_next_decision_has_the_full_limit() -> None:
    c = clock.stamp(PER, clock.initial(PER, 2), 0, None, (0,), False)
    c = clock.stamp(PER, c, 29_000, 0, (0,), False)
    assert clock.deadline(PER, c, 0) == 59_000
    assert not clock.expired(PER, c, 0, 58_999) and clock.expired(PER, c, 0, 59_000)


def test_given_several_awaited_seats_when_one_answers_then_the_others_clocks_keep_running() -> None:
    # Given a sealed vote awaiting seats 0, 1 and 2 from t=0
    c = clock.stamp(BANK, clock.initial(BANK, 3), 0, None, (0, 1, 2), False)
    # When seat 1 answers at 10 s
    c = clock.stamp(BANK, c, 10_000, 1, (0, 2), False)
    # Then seats 0 and 2 still run from t=0, seat 1 was charged its 10 s
    assert c.since == (0, None, 0) and c.bank_ms == (60_000, 55_000, 60_000)


def test_given_a_running_clock_when_another_move_takes_the_decision_away_then_the_time_still_counts() -> None:
    c = clock.stamp(BANK, clock.initial(BANK, 2), 0, None, (0, 1), False)
    c = clock.stamp(BANK, c, 7_000, 0, (0,), False)
    # seat 0 moved (charged, plus the increment) and is awaited again; seat 1 lost its decision after 7 s
    assert c.bank_ms == (58_000, 53_000) and c.since == (7_000, None)


def test_given_timeouts_in_a_row_when_autoplay_is_set_then_the_seat_gets_no_time_until_it_moves() -> None:
    c = clock.stamp(PER, clock.initial(PER, 2), 0, None, (0,), False)
    for t in (30_000, 60_000):
        c = clock.timed_out(c, 0)
        c = clock.stamp(PER, c, t, 0, (0,), True)
    assert clock.autoplay(PER, c, 0) and clock.deadline(PER, c, 0) == 60_000
    c = clock.stamp(PER, c, 60_500, 0, (0,), False)  # it moves by itself: back to the full limit
    assert c.timeouts == (0, 0) and clock.deadline(PER, c, 0) == 90_500


def test_given_a_low_mark_when_the_next_alarm_is_asked_then_the_notice_comes_before_the_deadline() -> None:
    c = clock.stamp(BANK, clock.initial(BANK, 2), 0, None, (0,), False)
    assert clock.next_alarm(BANK, c, 0) == 50_000
    assert clock.next_alarm(BANK, c, 50_000) == 60_000  # the notice is past: the deadline is next
    assert clock.next_alarm(BANK, clock.stamp(BANK, c, 1, 0, (), False), 0) is None


def test_given_a_stamp_older_than_the_last_when_folded_then_time_does_not_go_back() -> None:
    c = clock.stamp(BANK, clock.initial(BANK, 1), 10_000, None, (0,), False)
    c = clock.stamp(BANK, c, 5_000, 0, (0,), False)
    assert c.at_ms == 10_000 and c.bank_ms == (65_000,)


@pytest.mark.parametrize(
    "bad",
    [
        {"mode": "bank"},
        {"mode": "per_decision", "per_decision_s": 10, "increment_s": 2},
        {"mode": "per_decision", "per_decision_s": 0},
        {"mode": "bank", "bank_s": 60, "per_decision_s": 5},
        {"mode": "bank", "bank_s": "60"},
        {"mode": "sometimes", "bank_s": 60},
    ],
)
def test_given_a_bad_clock_setting_when_validated_then_a_value_error(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ClockSettings.model_validate(bad)


def test_durations_read_as_people_write_them() -> None:
    assert [clock.format_ms(ms) for ms in (42_000, 725_000, 11_045_000, 2 * 86_400_000 + 3_600_000)] == [
        "0:42", "12:05", "3:04:05", "2d 01:00",
    ]  # fmt: skip

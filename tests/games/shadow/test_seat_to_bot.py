"""[X22] A Shadow seat that times out ``bot_after`` times in a row is handed to the named bot, and its player takes
it back with ``TakeSeat``; the record alone says who plays the seat."""

from __future__ import annotations

from tests.seats import check_timed_out_seat_played_by_bot_until_taken_back


def test_given_bot_after_one_when_a_seat_times_out_then_the_random_bot_plays_it_until_it_takes_it_back() -> None:
    """[X22] Given a three-seat Shadow table that hands a seat to the random bot at its first timeout, when its
    clock runs out, then the handover cites X16 and X22; when its player takes it back, that cites X22."""
    check_timed_out_seat_played_by_bot_until_taken_back(
        "shadow", 3, "random", handover_rulings=("X16", "X22"), take_back_rulings=("X22",)
    )

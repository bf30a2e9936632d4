"""[KX22] A Barracks seat that times out ``bot_after`` times in a row is handed to the named bot, and its player
takes it back with ``TakeSeat``; the record alone says who plays the seat."""

from __future__ import annotations

from tests.seats import check_timed_out_seat_played_by_bot_until_taken_back


def test_given_bot_after_one_when_a_seat_times_out_then_the_heuristic_bot_plays_it_until_it_takes_it_back() -> None:
    """[KX22] Given a two-seat Barracks table that hands a seat to the heuristic bot at its first timeout, when its
    clock runs out, then the handover cites KX17 and KX22; when its player takes it back, that cites KX22."""
    check_timed_out_seat_played_by_bot_until_taken_back(
        "barracks", 2, "heuristic", handover_rulings=("KX17", "KX22"), take_back_rulings=("KX22",)
    )

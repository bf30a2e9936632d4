"""[X22] A Shadow seat that times out ``bot_after`` times in a row is handed to the named bot, and its player takes
it back with ``TakeSeat``; the record alone says who plays the seat."""

from __future__ import annotations

from events.base import Rejection
from events.clock import TakeSeat
from services.rules.registry import get_game

T0 = 1_700_000_000_000
SETTINGS = {"clock": {"mode": "per_decision", "per_decision_s": 30, "bot_after": 1, "bot": "random"}}


def test_given_bot_after_one_when_a_seat_times_out_then_the_random_bot_plays_it_until_it_takes_it_back() -> None:
    """[X22]"""
    rules = get_game("shadow").rules
    # Given a three-seat Shadow table that hands a seat to the random bot at its first timeout
    state = rules.fold(rules.start_at(["Ann", "Bob", "Cid"], SETTINGS, 9, T0))
    seat = rules.awaited(state)[0]
    # When its clock runs out
    due = [d for d in rules.due_timeouts(state, T0 + 30_000) if d.seat == seat]
    done = rules.execute_at(state, due[0], T0 + 30_000)
    assert not isinstance(done, Rejection)
    events, state = done
    # Then the timeout and the handover are recorded, the handover citing X16 and X22
    handed = [e for e in events if e.type == "SeatHandedOver"]
    assert [(e.seat, e.bot, tuple(e.rulings)) for e in handed] == [(seat, "random", ("X16", "X22"))]
    assert rules.clock_bots(state) == {seat: "random"}
    # When the seat's player takes it back
    done = rules.execute_at(state, TakeSeat(seat=seat), T0 + 31_000)
    assert not isinstance(done, Rejection)
    # Then that is recorded citing X22, and no bot plays any seat
    assert [(e.type, e.bot, tuple(e.rulings)) for e in done[0]] == [("SeatHandedOver", None, ("X22",))]
    assert rules.clock_bots(done[1]) == {}

"""Clocks and the referee's default moves [X16-X20]: over seeded random games, every decision's default is the one
RULES.md states, and a timeout records it."""

from __future__ import annotations

import random
from collections import Counter

from events.base import Rejection
from events.clock import TimeOut
from services.rules.registry import get_game
from tests.games.shadow.support import NAMES, RULES

TABLE = get_game("shadow").rules  # the game with the table around it

DECLINES = {
    "marriage_answer": {"type": "AnswerMarriage", "accept": False},
    "daughter": {"type": "SendDaughterToConvent"},
    "gray_eminence": {"type": "Decline"},
}


def test_given_random_games_when_each_decision_asks_its_default_then_it_is_the_one_the_rules_reference_states() -> None:
    """[X17, X18, X19, X20] Pass in phase IV; decline what may be declined; the vote keeps the status quo (the
    Rival its own candidacy); anything else the first option in board order."""
    seen: Counter[str] = Counter()
    for seed in range(6):
        rng = random.Random(seed)
        state = RULES.fold(RULES.start(NAMES[: 2 + seed % 3], {}, seed))
        while not RULES.is_over(state):
            for seat in RULES.awaited(state):
                command, ruling = RULES.default_command(state, seat)
                shown = RULES.encode_command(command)
                decision = state.pending.decision
                listed = [RULES.encode_command(c) for c in RULES.legal_commands(state, seat)]
                assert shown in listed  # a default is always a legal move
                if decision == "actions":
                    assert (ruling, shown["type"]) == ("X17", "Pass")
                elif decision in DECLINES:
                    assert ruling == "X18" and {**shown, **DECLINES[decision]} == shown
                elif decision == "vote":
                    expected = "rival" if seat == state.rival else "emperor"
                    assert ruling == "X19" and shown["candidate"] == expected
                else:
                    assert ruling == "X20" and shown == listed[0]
                seen[ruling] += 1
            seat = RULES.awaited(state)[0]
            state = RULES.execute(state, RULES.sample_legal(state, seat, rng))[1]
    assert set(seen) == {"X17", "X18", "X19", "X20"}


def test_given_a_clocked_table_when_a_seat_times_out_then_the_fact_and_the_default_are_recorded() -> None:
    """[X16, X20] The first setup decision runs out: SeatTimedOut cites the clock and the default's ruling, the
    default move's events follow, then the stamp; the seat's time is counted from the game's start."""
    table = {"clock": {"mode": "per_decision", "per_decision_s": 30}}
    events = TABLE.start(NAMES[:3], table, 1, 10_000)
    state = TABLE.fold(events)
    (seat,) = TABLE.awaited(state)
    early = TABLE.execute(state, TimeOut(seat=seat, turn=1), 39_999)
    assert isinstance(early, Rejection) and early.code == "clock_running" and early.rulings == ("X16",)
    out, after = TABLE.execute(state, TimeOut(seat=seat, turn=1), 40_000)
    default, _ = TABLE.default_command(state, seat)
    assert out[0].type == "SeatTimedOut" and out[0].rulings == ("X16", "X20") and out[0].timeouts == 1
    assert out[0].default == TABLE.encode_command(default)
    assert [e.type for e in out[1:-1]] == [e.type for e in TABLE.decide(state, default)]
    assert out[-1].type == "ClockStamped" and out[-1].timed_out and out[-1].at_ms == 40_000
    assert after.clocks.timeouts[seat] == 1 and after.clocks.turn == 2

"""Clocks and the referee's default moves [KX17-KX20]: over seeded random games, every decision's default is the
one RULES.md states, and a timeout records it."""

from __future__ import annotations

import random
from collections import Counter

from events.base import Rejection
from events.clock import TimeOut
from services.games.barracks.rules import listing
from services.games.barracks.rules.defaults import default_key
from services.games.barracks.rules.state import ACTION, PHASE_NAMES, PICK
from services.rules.registry import get_game

RULES = get_game("barracks").rules  # the game at the table
GAME = get_game("barracks").game_rules  # the game alone
NAMES = ("Ann", "Bob", "Cid", "Dee")


def test_given_random_games_when_each_decision_asks_its_default_then_it_is_the_one_the_rules_reference_states() -> None:
    """[KX18, KX19, KX20, KX5] An action plays the first influence card listed, with no optional ability, and
    passes only when nothing can be played; a Forum take takes the leftmost card allowed; anything else takes the
    first option listed."""
    seen: Counter[str] = Counter()
    for players in (1, 2, 3, 4):
        rng = random.Random(players)
        state = GAME.fold(GAME.start(NAMES[:players], {}, players))
        while not GAME.is_over(state):
            (seat,) = GAME.awaited(state)
            keys = listing.legal_keys(state, seat)
            key, ruling = default_key(state, seat)
            assert key in keys
            if state.phase == ACTION:
                plays = [k for k in keys if k[0] == "I"]
                plain = [k for k in plays if not k[4]]
                assert ruling == "KX18"
                assert key == (plain[0] if plain else keys[0])
                assert key != ("S",) or keys == [("S",)]
            elif state.phase == PICK:
                assert ruling == "KX19" and key == keys[0]
                assert key[1] == next(c for c in state.forum if ("F", c) in keys)  # the leftmost allowed
            else:
                assert ruling == "KX20" and key == keys[0]
                seen[PHASE_NAMES[state.phase]] += 1
            seen[ruling] += 1
            command, cited = GAME.default_command(state, seat)
            assert cited == ruling and not isinstance(GAME.decide(state, command), Rejection)
            state = GAME.execute(state, GAME.sample_legal(state, seat, rng))[1]
    assert {"KX18", "KX19", "KX20"} <= set(seen)


def test_given_a_clocked_table_when_a_seat_times_out_then_the_fact_and_the_default_are_recorded() -> None:
    """[KX17, KX18] A bank of 20 s runs out on the first action: SeatTimedOut cites the clock and the default's
    ruling, the default play follows, then the stamp; the bank is spent and only the increment is left."""
    table = {"clock": {"mode": "bank", "bank_s": 20, "increment_s": 3}}
    state = RULES.fold(RULES.start(NAMES[:2], table, 2, 0))
    (seat,) = RULES.awaited(state)
    stale = RULES.execute(state, TimeOut(seat=seat, turn=0), 99_000)
    assert isinstance(stale, Rejection) and stale.code == "stale_timeout" and stale.rulings == ("KX17",)
    out, after = RULES.execute(state, TimeOut(seat=seat, turn=1), 20_000)
    assert out[0].type == "SeatTimedOut" and out[0].rulings == ("KX17", "KX18") and out[0].decision == "action"
    assert out[-1].type == "ClockStamped" and out[-1].timed_out
    assert after.clocks.bank_ms[seat] == 3_000 and after.clocks.timeouts[seat] == 1

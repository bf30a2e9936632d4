"""What becomes of a seat whose player leaves or times out, checked the same way in every game (through the
contract only). Each game's own test calls these with its ruling ids, so its ruling coverage test finds them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from events.base import Rejection
from events.clock import LeaveSeat, TakeSeat
from services.bots.kinds import default_bot, make_bot
from services.rules.registry import get_game

NAMES = ("Ann", "Bob", "Cid", "Dee")
T0 = 1_700_000_000_000


def check_leaving_player_replaced_by_default_bot(game_name: str, leave_after: int) -> None:
    """Given a four-seat game of ``game_name`` whose seat 0 is played by a person for ``leave_after`` commands
    (random legal ones), when the player leaves (a recorded ``SeatLeft`` citing the game's leave ruling) and the
    game's default bot plays the seat from there, then every bot move is accepted, a second leave is refused, and
    the game ends with the seat scored like the others."""
    game = get_game(game_name)
    rules = game.rules
    state = rules.fold(rules.start(NAMES, {}, 4))
    rng = random.Random(leave_after)
    kind = default_bot(game_name)
    bot = make_bot(kind, game_name, 1)
    sent = 0
    for _ in range(5000):
        if rules.is_over(state):
            break
        seat = rules.awaited(state)[0]
        if sent == leave_after and not rules.has_left(state, 0):
            # When the person leaves: the table records it, and nothing of the game moves
            left = rules.execute(state, LeaveSeat(seat=0, bot=kind))
            assert not isinstance(left, Rejection), left
            (fact,) = left[0]
            assert fact.type == "SeatLeft" and fact.bot == kind and fact.rulings == (rules.rulings.leave,)
            assert rules.legal_commands(left[1], seat) == rules.legal_commands(state, seat)
            assert rules.has_left(left[1], 0)
            state = left[1]
            again = rules.execute(state, LeaveSeat(seat=0, bot=kind))
            assert isinstance(again, Rejection) and again.code == "seat_left"
            assert "LeaveSeat" not in rules.table_commands(state, 0)
        if seat == 0 and rules.has_left(state, 0):
            command = rules.choose(bot, state, 0)  # the seat's holdings are the state's: nothing moves at hand-over
        else:
            command = rng.choice(list(rules.legal_commands(state, seat)))
            sent += seat == 0
        assert command is not None
        done = rules.execute(state, command)
        assert not isinstance(done, Rejection), done
        state = done[1]
    assert rules.is_over(state)
    assert sent == leave_after, "the person made the commands before leaving"
    assert len(rules.result(state)["scores"]) == 4  # the seat is still one of the game's, scored like the others
    over = rules.execute(state, LeaveSeat(seat=1, bot=kind))
    assert isinstance(over, Rejection) and over.code == "game_over"


def check_timed_out_seat_played_by_bot_until_taken_back(
    game_name: str, players: int, bot: str, *, handover_rulings: Sequence[str], take_back_rulings: Sequence[str]
) -> None:
    """Given a table of ``players`` seats of ``game_name`` that hands a seat to ``bot`` at its first timeout, when
    the awaited seat's clock runs out, then the timeout and the handover are recorded (the handover citing
    ``handover_rulings``) and the bot plays the seat; when its player then sends ``TakeSeat``, then that is
    recorded citing ``take_back_rulings``, and no bot plays any seat."""
    rules = get_game(game_name).rules
    settings = {"clock": {"mode": "per_decision", "per_decision_s": 30, "bot_after": 1, "bot": bot}}
    state = rules.fold(rules.start(NAMES[:players], settings, 9, T0))
    seat = rules.awaited(state)[0]
    # When its clock runs out
    due = [d for d in rules.due_timeouts(state, T0 + 30_000) if d.seat == seat]
    done = rules.execute(state, due[0], T0 + 30_000)
    assert not isinstance(done, Rejection)
    events, state = done
    # Then the timeout and the handover are recorded
    handed = [e for e in events if e.type == "SeatHandedOver"]
    assert [(e.seat, e.bot, tuple(e.rulings)) for e in handed] == [(seat, bot, tuple(handover_rulings))]
    assert rules.table_bots(state) == {seat: bot}
    # When the seat's player takes it back
    done = rules.execute(state, TakeSeat(seat=seat), T0 + 31_000)
    assert not isinstance(done, Rejection)
    # Then that is recorded, and no bot plays any seat
    assert [(e.type, e.bot, tuple(e.rulings)) for e in done[0]] == [("SeatHandedOver", None, tuple(take_back_rulings))]
    assert rules.table_bots(done[1]) == {}

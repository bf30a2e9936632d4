"""[X21] A player who leaves is replaced, not removed: the game's default bot takes the seat over from any
position, with what the seat holds, and plays it to the end by the same rules."""

from __future__ import annotations

import pytest

from tests.seats import check_leaving_player_replaced_by_default_bot


@pytest.mark.parametrize("leave_after", [0, 10, 30])
def test_given_a_player_leaving_mid_game_when_the_default_bot_takes_the_seat_then_the_game_ends_with_it(
    leave_after: int,
) -> None:
    """[X21] Given seat 0 played by a person for ``leave_after`` commands, when the default bot plays it from there,
    then every bot move is accepted and the game ends with the seat in its result."""
    check_leaving_player_replaced_by_default_bot("shadow", leave_after)

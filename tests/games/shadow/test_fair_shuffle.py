"""[X23, X24] Shadow's fair shuffle: the seed committed with the opening, sealed until the end, revealed and
checked; a chosen seed makes a practice table."""

from __future__ import annotations

from tests import fair


def test_given_a_drawn_seed_when_the_game_is_played_then_it_is_committed_sealed_and_revealed() -> None:
    """[X23] The commitment cites X23; no seat or spectator sees the seed or salt before the end; the reveal
    verifies."""
    fair.check_commitment_sealed_until_the_reveal("shadow", ("X23",))


def test_given_a_tampered_reveal_or_commitment_when_checked_then_it_is_a_mismatch() -> None:
    """[X23]"""
    fair.check_tampered_reveal_is_a_mismatch("shadow")


def test_given_a_finished_game_when_adjudicated_offline_then_the_reveal_is_checked() -> None:
    """[X23]"""
    fair.check_adjudicator_verifies_the_reveal("shadow")


def test_given_a_chosen_seed_when_the_game_starts_then_it_is_a_practice_table() -> None:
    """[X24]"""
    fair.check_practice_table_recorded("shadow", ("X23", "X24"))

"""[KX23, KX24] Barracks's fair shuffle: the seed committed with the opening, sealed until the end, revealed and
checked; a chosen seed makes a practice table."""

from __future__ import annotations

from tests import fair


def test_given_a_drawn_seed_when_the_game_is_played_then_it_is_committed_sealed_and_revealed() -> None:
    """[KX23] The commitment cites KX23; no seat or spectator sees the seed or salt before the end; the reveal
    verifies."""
    fair.check_commitment_sealed_until_the_reveal("barracks", ("KX23",))


def test_given_a_tampered_reveal_or_commitment_when_checked_then_it_is_a_mismatch() -> None:
    """[KX23]"""
    fair.check_tampered_reveal_is_a_mismatch("barracks")


def test_given_a_finished_game_when_adjudicated_offline_then_the_reveal_is_checked() -> None:
    """[KX23]"""
    fair.check_adjudicator_verifies_the_reveal("barracks")


def test_given_a_chosen_seed_when_the_game_starts_then_it_is_a_practice_table() -> None:
    """[KX24]"""
    fair.check_practice_table_recorded("barracks", ("KX23", "KX24"))

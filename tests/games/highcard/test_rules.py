"""High Card's rules, one ruling at a time: given recorded events, when a seat plays, then the events recorded
or the refusal (with the ruling it cites)."""

from __future__ import annotations

import pytest

from events.base import Rejection
from events.clock import LeaveSeat
from services.games.highcard.messages import RANKS, CardPlayed, GameEnded, HandDealt, PlayCard, TrickWon
from services.rules import fair
from services.rules.registry import get_game
from tests.games.highcard.support import RULES, dealt, given, play, played

SALT = "5a" * 32
TABLE = get_game("highcard").rules  # the game with the table around it (clocks, the committed seed)


def test_h1_given_a_seed_when_a_game_starts_then_each_seat_is_dealt_distinct_cards_in_order() -> None:
    # When a table of three starts with four cards each
    events = RULES.start(["Ann", "Bob", "Cid"], {"hand_size": 4}, seed=7)
    # Then one hand per seat, lowest first, no card twice, every card from the deck, each event citing H1
    hands = [e.cards for e in events if isinstance(e, HandDealt)]
    assert [len(hand) for hand in hands] == [4, 4, 4]
    assert all(list(hand) == sorted(hand, key=RANKS.index) for hand in hands)
    cards = [card for hand in hands for card in hand]
    assert len(set(cards)) == 12 and set(cards) <= set(RANKS)
    assert all("H1" in e.rulings for e in events)


def test_h1_given_the_same_seed_when_started_again_then_the_same_deal_and_another_seed_deals_otherwise() -> None:
    deal = [RULES.encode_event(e) for e in RULES.start(["Ann", "Bob"], {}, seed=11)]
    assert deal == [RULES.encode_event(e) for e in RULES.start(["Ann", "Bob"], {}, seed=11)]
    deals = {tuple(e.cards for e in RULES.start(["Ann", "Bob"], {}, seed=s)[1:]) for s in range(12, 20)}
    assert len(deals) > 1


def test_h2_given_a_new_game_when_a_seat_other_than_the_leader_plays_then_refused_citing_h2() -> None:
    state = given(dealt(("2", "9"), ("5", "K")))
    assert RULES.awaited(state) == (0,) and RULES.legal_commands(state, 1) == []
    refused = play(state, 1, "5")
    assert isinstance(refused, Rejection) and refused.code == "not_your_turn" and refused.rulings == ("H2",)


def test_h2_given_a_trick_taken_when_the_next_trick_opens_then_its_winner_leads() -> None:
    # Given Bob took the first trick with the king
    state = played(given(dealt(("2", "9"), ("5", "K"))), (0, "2"), (1, "K"))
    # Then Bob leads the second one
    assert state.leader == 1 and RULES.awaited(state) == (1,)


def test_h3_given_a_hand_when_listed_then_every_card_of_it_is_legal_and_a_card_not_held_is_refused() -> None:
    state = given(dealt(("2", "9"), ("5", "K")))
    assert RULES.legal_commands(state, 0) == [PlayCard(seat=0, card="2"), PlayCard(seat=0, card="9")]
    refused = play(state, 0, "K")
    assert isinstance(refused, Rejection) and refused.code == "not_in_hand" and refused.rulings == ("H3",)


def test_h3_given_the_leader_when_it_plays_then_the_card_leaves_its_hand_face_up_on_the_trick() -> None:
    state = given(dealt(("2", "9"), ("5", "K")))
    assert play(state, 0, "9") == [CardPlayed(seat=0, card="9", rulings=("H2", "H3"))]
    after = played(state, (0, "9"))
    assert after.hands[0] == ("2",) and after.trick == ((0, "9"),)


def test_h4_given_every_seat_but_one_played_when_the_last_card_falls_then_the_highest_takes_the_trick() -> None:
    state = played(given(dealt(("2", "9"), ("5", "K"), ("3", "J"))), (0, "9"), (1, "5"))
    events = play(state, 2, "J")
    assert events == [
        CardPlayed(seat=2, card="J", rulings=("H2", "H3")),
        TrickWon(seat=2, card="J", trick=1, rulings=("H4", "H2")),
    ]
    assert RULES.fold(events, state).scores == (0, 0, 1)


def test_h4_given_the_lowest_wins_option_when_a_trick_is_full_then_the_lowest_card_takes_it() -> None:
    state = played(given(dealt(("2", "9"), ("5", "K"), lowest_wins=True)), (0, "9"))
    events = play(state, 1, "5")
    assert not isinstance(events, Rejection) and events[-1] == TrickWon(seat=1, card="5", trick=1, rulings=("H4", "H2"))


def test_h5_given_the_last_trick_when_taken_then_the_game_ends_and_the_most_points_win() -> None:
    # Given Ann took the first trick (A over 5)
    state = played(given(dealt(("3", "A"), ("5", "K"))), (0, "A"), (1, "5"))
    # When the last trick falls to Bob (K over 3)
    final = played(state, (0, "3"), (1, "K"))
    # Then one point each: a shared victory
    assert RULES.is_over(final)
    assert RULES.result(final) == {"players": ["Ann", "Bob"], "scores": [1, 1], "winners": [0, 1], "shared": True}


def test_h5_given_a_single_trick_game_when_it_is_taken_then_game_ended_names_the_winner_alone() -> None:
    state = played(given(dealt(("4",), ("Q",))), (0, "4"))
    events = play(state, 1, "Q")
    assert not isinstance(events, Rejection)
    assert events[-1] == GameEnded(scores=(0, 1), winners=(1,), rulings=("H5",))
    final = RULES.fold(events, state)
    assert RULES.result(final) == {"players": ["Ann", "Bob"], "scores": [0, 1], "winners": [1], "shared": False}
    refused = play(final, 0, "4")
    assert isinstance(refused, Rejection) and refused.code == "game_over" and refused.rulings == ("H5",)
    assert RULES.awaited(final) == () and RULES.legal_commands(final, 0) == []


@pytest.mark.parametrize(
    ("players", "settings"),
    [(1, {}), (5, {}), (4, {"hand_size": 4}), (2, {"hand_size": 7}), (2, {"hand_size": "3"}), (2, {"x": 1})],
)
def test_h6_given_a_table_the_game_cannot_seat_when_started_then_a_value_error(players: int, settings: dict) -> None:
    with pytest.raises(ValueError):
        RULES.start(["Ann", "Bob", "Cid", "Dee", "Eve"][:players], settings, seed=1)


def test_h6_given_no_game_when_a_card_is_played_then_refused_citing_h6() -> None:
    refused = play(RULES.initial_state(), 0, "2")
    assert isinstance(refused, Rejection) and refused.code == "no_game" and refused.rulings == ("H6",)


def test_hx1_given_a_salt_when_the_game_is_played_out_then_the_seed_is_committed_first_and_revealed_last() -> None:
    # Given a game started by the service, with a salt
    events = TABLE.start(["Ann", "Bob"], {"hand_size": 1}, 42, at_ms=0, salt=SALT)
    assert events[-1].type == "SeedCommitted" and events[-1].rulings == ("HX1",)
    state = TABLE.fold(events)
    # When both seats play their card
    for _ in range(2):
        seat = TABLE.awaited(state)[0]
        done = TABLE.execute(state, TABLE.legal_commands(state, seat)[0], at_ms=0)
        assert not isinstance(done, Rejection)
        events += done[0]
        state = done[1]
    # Then the game ends with the reveal, and the record keeps its commitment
    assert events[-1].type == "SeedRevealed"
    assert fair.verdict([TABLE.encode_event(e) for e in events])["status"] == fair.VERIFIED


def test_hx2_given_a_practice_table_when_started_then_the_commitment_says_so_and_cites_hx2() -> None:
    events = TABLE.start(["Ann", "Bob"], {}, 42, at_ms=0, salt=SALT, practice=True)
    assert events[-1].practice and events[-1].rulings == ("HX1", "HX2")


def test_given_a_position_when_snapshotted_then_restore_gives_it_back() -> None:
    state = played(given(dealt(("3", "A"), ("5", "K"))), (0, "A"))
    assert RULES.restore(RULES.snapshot(state)) == state


def test_hx3_given_a_running_game_when_a_player_leaves_then_seat_left_is_recorded_and_no_card_moves() -> None:
    # Given a running game at the table
    state = TABLE.fold(TABLE.start(["Ann", "Bob"], {"hand_size": 2}, 42))
    # When Bob leaves
    events, after = TABLE.execute(state, LeaveSeat(seat=1, bot="greedy"))
    # Then the table records it citing HX3, the same seat is awaited, and Bob's cards are still his
    assert [(e.type, e.rulings) for e in events] == [("SeatLeft", ("HX3",))]
    assert TABLE.awaited(after) == TABLE.awaited(state) and TABLE.table_bots(after) == {1: "greedy"}
    assert after.game.hands == state.game.hands

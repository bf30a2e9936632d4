"""Components, board and setup [K1-K13, K42, KX4, KX13]: the data file's cards and geometry, seats, the round
setup (barbarians, Emperors, deck, hands, Forum) and the first player, all recorded from the seed."""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import ValidationError

from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import ABILITIES, SUITS, default_tables
from services.games.barracks.rules.state import BOX, DECK, FORUM, HAND
from tests.games.barracks.support import NAMES, RULES, given, of_type, one, start, types

T = default_tables()


def test_given_the_data_file_when_loaded_then_there_are_42_unique_influence_cards_14_per_suit() -> None:
    """[K1] 14 per suit: one 1, one 2, two each of 3-8; abilities by value band, one of each per value 3-8."""
    assert T.n_influence == 42 and len(set(T.card_ids[:42])) == 42
    for suit in range(3):
        cards = [c for c in range(42) if T.suit[c] == suit]
        assert len(cards) == 14
        assert Counter(T.value[c] for c in cards) == {1: 1, 2: 1, **{v: 2 for v in range(3, 9)}}
        for v in range(3, 9):
            assert len({T.ability[c] for c in cards if T.value[c] == v}) == 2
    bands = {(SUITS[T.suit[c]], ABILITIES[T.ability[c]]) for c in range(42) if T.value[c] in (3, 4)}
    assert ("red", "castra") in bands and ("blue", "princeps_senatus") in bands and ("yellow", "ambitus") in bands


def test_given_the_counter_cards_when_loaded_then_value_1_gives_1_and_value_2_gives_2() -> None:
    """[K2]"""
    assert {(T.value[c], T.counter[c]) for c in range(42) if T.counter[c]} == {(1, 1), (2, 2)}


def test_given_the_data_when_loaded_then_there_are_18_barbarians_and_45_emperors() -> None:
    """[K3, K4] 18 barbarians without suit or value; 39 Emperors in the round deck (13 per colour) and 6 yellow
    Pretenders set aside."""
    assert T.n_barbarians == 18 and all(T.is_barbarian[c] for c in range(42, 60))
    assert all(T.value[c] == 0 and T.suit[c] == -1 for c in range(42, 60))
    assert T.n_emperors == 45 and T.n_round_deck == 39
    assert Counter(T.colour[x] for x in range(39)) == {0: 13, 1: 13, 2: 13}
    assert {T.colour[x] for x in T.pretenders} == {2} and len(T.pretenders) == 6


def test_given_the_board_when_loaded_then_13_emperor_spaces_and_24_influence_spaces() -> None:
    """[K5, K6] Emperor spaces where row+column is even; influence spaces are the 12 odd cells and 12 outer ones;
    an interior space is on up to four Emperors' sides, at most one per faction."""
    assert T.n_emp_spaces == 13 and T.n_spaces == 24
    assert sorted(T.sides_of[T.space_index["1,2"]]) == sorted(
        [(T.emp_index["2,2"], 0), (T.emp_index["0,2"], 2), (T.emp_index["1,3"], 3), (T.emp_index["1,1"], 1)]
    )
    for pairs in T.sides_of:
        factions = [f for _, f in pairs]
        assert len(factions) == len(set(factions))
    assert [len(T.sides_of[T.space_index[s]]) for s in ("-1,0", "0,1")] == [1, 3]


def test_given_the_board_when_loaded_then_diagonals_homelands_starting_spaces_and_roma_are_as_in_the_data() -> None:
    """[K7, K8, K9] Diagonal connection, the 8 homelands in K44's order, the 4 starting spaces, Roma at 2,2."""
    assert {T.space_ids[d] for d in T.diagonal[T.space_index["-1,0"]]} == {"0,1", "0,-1"}
    assert [T.space_ids[h] for h in T.homelands] == ["-1,0", "-1,4", "5,0", "5,4", "0,-1", "4,-1", "0,5", "4,5"]
    assert [T.space_ids[s] for s in T.starting_spaces] == ["-1,2", "5,2", "2,-1", "2,5"]
    assert T.emp_ids[T.roma] == "2,2"


def test_given_four_players_when_the_game_starts_then_seats_are_north_east_south_west() -> None:
    """[K10, KX13] GameStarted records the seating and the data file the game was played with."""
    opening = start(4)
    started = opening[0]
    assert type(started) is F.GameStarted
    assert started.seats == (("north",), ("east",), ("south",), ("west",)) and started.rivals == ()
    assert started.data["version"] == T.version and len(started.data["cards"]) == 42
    assert "KX13" in started.rulings


def test_given_a_new_game_when_round_1_is_set_up_then_barbarians_emperors_deck_hands_and_forum_are_dealt() -> None:
    """[K11, K3, K9, KX4] 4 barbarians in the holding box, 4 on the starting spaces, 13 Emperors dealt, the rest
    shuffled into the deck, hands of hand_size, the Forum of forum_size."""
    opening = start(4, {"hand_size": 4, "forum_size": 5})
    assert types(opening)[:6] == [
        "GameStarted", "EmperorDeckShuffled", "RoundStarted", "BarbariansSet", "EmperorsDealt", "DeckShuffled"
    ]  # fmt: skip
    state = given(opening)
    barbarians = one(opening, F.BarbariansSet)
    assert barbarians.holding_box == ("barbarian-01", "barbarian-02", "barbarian-03", "barbarian-04")
    assert [s for s, _ in barbarians.placed] == ["-1,2", "5,2", "2,-1", "2,5"]
    assert len(one(opening, F.EmperorsDealt).placed) == 13 and all(x >= 0 for x in state.emp)
    assert len(one(opening, F.DeckShuffled).order) == 42 + 10
    assert [len(h) for h in state.hands] == [4, 4, 4, 4] and len(state.forum) == 5
    assert len(state.deck) == 52 - 16 - 5
    where = Counter(state.loc)
    assert where[BOX] == 4 and where[DECK] == 31 and where[FORUM] == 5 and sum(where[HAND + s] for s in range(4)) == 16
    assert len(state.emperor_deck) == 26


def test_given_a_new_round_when_dealt_then_emperors_hands_and_forum_come_from_the_top_in_order() -> None:
    """[KX9, K11] Emperors top first onto the spaces in row then column order; hands seat by seat from the top of
    the shuffled deck; then the Forum, left to right."""
    opening = start(4, seed=5)
    order = one(opening, F.DeckShuffled).order
    dealt = one(opening, F.EmperorsDealt)
    assert [s for s, _ in dealt.placed] == list(T.emp_ids) and "KX9" in dealt.rulings
    emperor_order = one(opening, F.EmperorDeckShuffled).order
    assert [x for _, x in dealt.placed] == list(emperor_order[:13])
    hands = of_type(opening, F.HandDealt)
    assert [h.cards for h in hands] == [order[5 * i : 5 * i + 5] for i in range(4)]
    assert one(opening, F.ForumDealt).cards == order[20:24]


def test_given_the_same_seed_when_started_twice_then_the_same_events_and_another_seed_differs() -> None:
    """[K13] Every shuffle and deal comes from the seed and is recorded."""
    assert start(4, seed=7) == start(4, seed=7)
    assert one(start(4, seed=7), F.DeckShuffled).order != one(start(4, seed=8), F.DeckShuffled).order


def test_given_the_recorded_events_when_folded_then_no_draw_is_made_again() -> None:
    """[K13] A replay uses the recorded order: folding a tampered shuffle gives the tampered deck."""
    opening = start(4, seed=3)
    shuffled = one(opening, F.DeckShuffled)
    swapped = shuffled._replace(order=tuple(reversed(shuffled.order)))
    tampered = [swapped if e is shuffled else e for e in opening]
    deals = of_type(opening, F.HandDealt)
    state = given(tampered[: tampered.index(swapped) + 1])
    assert [T.card_ids[c] for c in state.deck[::-1]] == list(reversed(shuffled.order))
    assert deals  # the recorded deals name their cards: the fold applies them as recorded


def test_given_round_1_when_the_first_player_is_drawn_then_it_is_one_of_the_seats_from_the_seed() -> None:
    """[K12] Round 1's first player is drawn from the seed among the players' seats."""
    firsts = {one(start(4, seed=s), F.RoundStarted).first_seat for s in range(20)}
    assert firsts == {0, 1, 2, 3}
    started = one(start(3, seed=1), F.RoundStarted)
    assert started.drawn_from == (0, 1, 2) and started.first_seat in (0, 1, 2)


def test_given_settings_when_they_are_malformed_or_do_not_fit_the_table_then_the_start_is_refused() -> None:
    """[K42, K11, KX14] Settings are strict; the number of players must fit; rival claimants must leave one faction
    per player, who take the others clockwise; the deal must fit the deck."""
    with pytest.raises(ValidationError):
        RULES.start(NAMES, {"hand_size": "5"}, 1)
    with pytest.raises(ValidationError):
        RULES.start(NAMES, {"unknown": 1}, 1)
    with pytest.raises(ValueError):
        RULES.start(NAMES, {"players": 3}, 1)
    with pytest.raises(ValueError):
        RULES.start([*NAMES, "Eve"], {}, 1)
    with pytest.raises(ValueError):
        RULES.start(NAMES[:3], {"rival_claimants": ["north", "east"]}, 1)
    assert RULES.start(NAMES[:3], {"players": 3, "rival_claimants": ["north"]}, 1)[0].seats == (
        ("east",),
        ("south",),
        ("west",),
    )

"""Fewer players [K40-K44, KX1, KX2, KX12]: two players holding two factions each, three players and solo with rival
claimants (their automatic turns, their captures), the solo holding box, Castra and Tribute in solo, and the solo
player's choice for a rival under their Demagogue."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from tests.games.barracks.support import (
    E22,
    N22,
    ROMA,
    RULES,
    S22,
    W22,
    accepted,
    at,
    captured,
    covered,
    discard,
    given,
    legal,
    one,
    pick,
    place,
    play,
    rejected,
    start,
    table,
    types,
    won,
)

REFILL = "blue-2-influence-peddling"  # the top card refills the Forum after the pick; the rival draws the next


def first_pick(state: object) -> object:
    seat = state.actor_seat[state.active]  # type: ignore[attr-defined]
    return pick(seat, state.T.card_ids[state.forum[0]])  # type: ignore[attr-defined]


# --- two players -------------------------------------------------------------------------------------------------
def test_given_two_players_when_seated_then_seat_0_holds_north_and_south_or_north_and_east() -> None:
    """[K40] Option two_player_sides: opposite (default) or adjacent."""
    assert start(2)[0].seats == (("north", "south"), ("east", "west"))
    assert start(2, {"two_player_sides": "adjacent"})[0].seats == (("north", "east"), ("south", "west"))


def test_given_two_players_when_a_seat_plays_then_either_of_its_factions_spaces_is_legal_and_turns_alternate() -> None:
    """[K40, K15] A seat plays into the legal spaces of either faction; turns alternate."""
    state = table(players=2, emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"}, hands={0: ["red-3-cavalry"]})
    assert {c.space for c in legal(state, 0, "PlayInfluence")} == {N22, S22, "3,4", "5,4"}
    _, after = accepted(state, play(0, "red-3-cavalry", S22))
    events, after = accepted(after, first_pick(after))
    assert one(events, F.TurnStarted).seat == 1 and one(events, F.TurnStarted).factions == ("east", "west")


def test_given_two_players_when_spiculum_is_played_between_two_emperors_then_its_target_names_the_emperor() -> None:
    """[K40, K16, KX1] A space on the seat's sides of two Emperors: the target decides which it is played on."""
    state = table(
        players=2,
        emperors={ROMA: "red-emperor-01", "0,2": "blue-emperor-01"},
        board={E22: "yellow-5-mob", "0,1": "blue-6-foederati"},
        hands={0: ["red-7-spiculum"]},
    )
    targets = {c.target for c in legal(state, 0, "PlayInfluence") if c.space == N22 and c.ability == "use"}
    assert targets == {"yellow-5-mob", "blue-6-foederati"}  # on 2,2 (N side) and on 0,2 (S side)
    events, _ = accepted(state, play(0, "red-7-spiculum", N22, "use", "blue-6-foederati"))
    assert one(events, F.CardsDiscarded).emperor == "blue-emperor-01"


def test_given_two_players_when_a_card_on_the_south_side_wins_then_the_north_south_seat_captures() -> None:
    """[K40, K27] A seat captures through either of its sides."""
    state = table(
        players=2,
        emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"},
        board={N22: "blue-5-foederati", E22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-8-spiculum"]},
    )
    events, after = accepted(state, play(0, "red-8-spiculum", S22, "decline"))
    assert one(events, F.EmperorResolved).winning_side == "south" and won(after, 0) == ["red-emperor-01"]


# --- three players: a rival claimant ---------------------------------------------------------------------------------
def three(**kw: object) -> object:
    """Three players, South (seat 2) to play; West, the rival claimant, plays next."""
    return table(players=3, turn=2, **kw)  # type: ignore[arg-type]


def test_given_three_players_when_seated_then_west_is_a_rival_claimant_dealt_nothing() -> None:
    """[K41, K11, K42]"""
    started = start(3)
    assert started[0].seats == (("north",), ("east",), ("south",)) and started[0].rivals == ("west",)
    assert len([e for e in started if type(e) is F.HandDealt]) == 3


def test_given_a_rival_turn_when_it_draws_an_influence_card_then_it_takes_the_space_surrounding_most_emperors() -> None:
    """[K43, K22, K41] The rival draws the top card and places it face up, without its triggered ability, on the
    legal space that surrounds most Emperors; the Emperor resolves on its turn; its capture is out of the game;
    it takes no Forum card."""
    state = three(
        emperors={ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"},
        board={N22: "blue-3-tribute", E22: "yellow-4-quaestor", S22: "blue-4-tribute"},
        hands={2: ["red-3-cavalry"]},
        deck_top=[REFILL, "red-8-spiculum"],
    )
    _, after = accepted(state, play(2, "red-3-cavalry", "5,4"))
    events, after = accepted(after, first_pick(after))
    drew = one(events, F.RivalDrew)
    assert (drew.rival, drew.card) == ("west", "red-8-spiculum")
    played = next(e for e in events if type(e) is F.InfluencePlayed)
    assert (played.seat, played.rival, played.space, played.placement, played.ability) == (
        None, "west", W22, "rival", "none"
    )  # fmt: skip
    resolved = one(events, F.EmperorResolved)
    assert (resolved.winning_side, resolved.outcome, resolved.captured_by_rival) == ("west", "out_of_game", "west")
    assert after.T.emperor_index["red-emperor-01"] in after.out
    assert "ForumTaken" not in types(events[types(events).index("RivalDrew") :])
    assert after.actor_seat[after.active] == 0


def test_given_a_rival_turn_with_ties_when_placing_then_most_adjacent_emperors_then_lowest_row_and_column() -> None:
    """[K43] No space surrounds an Emperor: the one touching most Emperors, then the lowest row, then column."""
    state = three(
        emperors={"1,1": "blue-emperor-02", "2,2": "red-emperor-01", "4,4": "yellow-emperor-03"},
        hands={2: ["red-3-cavalry"]},
        deck_top=[REFILL, "blue-6-foederati"],
    )
    _, after = accepted(state, play(2, "red-3-cavalry", "5,4"))
    events, after = accepted(after, first_pick(after))
    # West sides: 1,0 (of 1,1), 2,1 (of 2,2; also E of 2,0 absent, N of 3,1 absent), 4,3 (of 4,4). 1,2 is E of 1,1?
    # 1,0 touches only 1,1; 2,1 touches 2,2 and 1,1 (its South side): two Emperors.
    played = next(e for e in events if type(e) is F.InfluencePlayed and e.rival)
    assert played.space == "2,1"


def test_given_a_rival_without_a_legal_space_when_it_draws_then_the_card_is_discarded_face_up() -> None:
    """[K43, KX10] No legal space: the drawn card is discarded; the rival has not passed."""
    state = three(
        emperors={ROMA: "red-emperor-01", "4,4": "yellow-emperor-03"},
        board={W22: "red-4-castra", "4,3": "red-3-castra"},
        hands={2: ["red-3-cavalry"]},
        deck_top=[REFILL, "blue-6-foederati"],
    )
    _, after = accepted(state, play(2, "red-3-cavalry", "5,4"))
    events, after = accepted(after, first_pick(after))
    gone = one(events, F.CardsDiscarded)
    assert (gone.reason, gone.cards) == ("rival_no_space", ("blue-6-foederati",))
    assert "blue-6-foederati" in discard(after) and "KX10" in gone.rulings and after.passes == 0


def test_given_a_rival_drawing_a_barbarian_outside_solo_when_it_plays_then_the_barbarian_is_discarded() -> None:
    """[K44] A barbarian card drawn by a rival claimant is discarded face up (outside solo nothing else happens)."""
    state = three(emperors={ROMA: "red-emperor-01"}, hands={2: ["red-3-cavalry"]}, deck_top=[REFILL, "barbarian-09"])
    _, after = accepted(state, play(2, "red-3-cavalry", S22))
    events, after = accepted(after, first_pick(after))
    assert one(events, F.CardsDiscarded).reason == "rival_barbarian" and "BarbarianPlaced" not in types(events)


def test_given_an_empty_deck_when_the_rival_turn_comes_then_it_passes() -> None:
    """[K43, K38] With the deck empty a rival claimant passes."""
    state = three(emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"}, hands={2: ["red-3-cavalry"]}, forum=[])
    deck = tuple(state.T.card_ids[c] for c in state.deck)
    state = given(
        [F.CardsDiscarded(cards=deck, spaces=(None,) * len(deck), reason="orphaned", rulings=("K27",))], state
    )
    events, _ = accepted(state, play(2, "red-3-cavalry", S22))
    passed = next(e for e in events if type(e) is F.Passed)
    assert (passed.seat, passed.rival, passed.rulings[0]) == (None, "west", "K43")


# --- solo ----------------------------------------------------------------------------------------------------------
def test_given_solo_when_seated_then_the_player_is_north_and_the_others_rival_claimants() -> None:
    """[K41]"""
    assert start(1)[0].seats == (("north",),) and start(1)[0].rivals == ("east", "south", "west")


def test_given_solo_when_a_rival_draws_a_barbarian_then_one_from_the_holding_box_goes_to_the_first_open_homeland() -> (
    None
):
    """[K44, K8] The barbarian drawn is discarded; one from the holding box goes onto the first homeland in K8's
    order that holds no barbarian and touches an Emperor."""
    state = table(
        players=1,
        emperors={ROMA: "red-emperor-01", "0,4": "blue-emperor-02", "4,4": "yellow-emperor-03"},
        board={"-1,4": "barbarian-10"},
        hands={0: ["red-3-cavalry"]},
        deck_top=[REFILL, "barbarian-09"],
    )
    _, after = accepted(state, play(0, "red-3-cavalry", N22))
    events, after = accepted(after, first_pick(after))
    placed = next(e for e in events if type(e) is F.BarbarianPlaced)
    # -1,0 touches no Emperor; -1,4 holds a barbarian; 5,0 none; 5,4 is the South side of 4,4.
    assert (placed.source, placed.space, placed.seat) == ("holding_box", "5,4", None)


def test_given_solo_when_a_barbarian_lands_on_castra_then_castra_is_discarded_and_the_barbarian_boxed() -> None:
    """[K41, K32, K19] Solo only: a barbarian placed on Castra discards it and goes back to the holding box."""
    state = table(
        players=1,
        emperors={ROMA: "red-emperor-01", "0,0": "blue-emperor-02"},
        board={"-1,0": "red-3-castra"},
        hands={0: ["barbarian-12"]},
    )
    assert "-1,0" in {c.space for c in legal(state, 0, "PlaceBarbarian")}
    events, after = accepted(state, place(0, "barbarian-12", "-1,0"))
    overrun = one(events, F.CastraOverrun)
    assert (overrun.castra, overrun.space) == ("red-3-castra", "-1,0")
    assert at(after, "-1,0") is None and "red-3-castra" in discard(after)
    assert after.T.card_index["barbarian-12"] in after.box


def test_given_solo_when_tribute_returns_the_barbarian_closest_to_roma_then_it_is_shuffled_into_the_deck() -> None:
    """[K41, KX6] Solo: Tribute may instead return the barbarian closest to Roma to the deck, shuffled in."""
    state = table(
        players=1,
        emperors={ROMA: "red-emperor-01", "0,0": "blue-emperor-02"},
        board={E22: ("barbarian-05", "yellow-5-mob"), "0,1": "barbarian-06"},
        hands={0: ["blue-3-tribute"]},
    )
    uses = {(c.ability, c.target) for c in legal(state, 0, "PlayInfluence") if c.space == "-1,0"}
    assert ("to_deck", "barbarian-05") in uses and ("to_deck", "barbarian-06") not in uses
    rejected(state, play(0, "blue-3-tribute", "-1,0", "to_deck", "barbarian-06"), "illegal_target", "K41")
    size = len(state.deck)
    events, after = accepted(state, play(0, "blue-3-tribute", "-1,0", "to_deck", "barbarian-05"))
    assert types(events)[1:3] == ["BarbarianReturned", "DeckShuffled"]
    assert one(events, F.DeckShuffled).reason == "tribute" and len(after.deck) == size + 1
    assert at(after, E22) == "yellow-5-mob" and covered(after, E22) is None


def test_given_the_solo_players_demagogue_when_a_rival_draws_an_influence_card_then_the_player_places_it() -> None:
    """[K43, K37] Under the solo player's Demagogue, the player chooses the rival's space among its legal spaces."""
    state = table(
        players=1,
        emperors={ROMA: "red-emperor-01", "4,4": "yellow-emperor-03"},
        hands={0: ["yellow-7-demagogue"]},
        deck_top=[REFILL, "red-8-spiculum"],
    )
    _, after = accepted(state, play(0, "yellow-7-demagogue", N22, "use"))
    events, after = accepted(after, first_pick(after))
    request = one(events, F.DecisionRequested)
    assert (request.decision, request.seat, request.card) == ("rival_place", 0, "red-8-spiculum")
    assert {c.space for c in legal(after, 0)} == {E22, "4,5"}
    rejected(after, F.PlaceForRival(seat=0, space=W22), "illegal_space", "K43")
    events, after = accepted(after, F.PlaceForRival(seat=0, space="4,5"))
    played = one(events, F.InfluencePlayed)
    assert (played.rival, played.space, played.placement) == ("east", "4,5", "rival_chosen")


def test_given_solo_when_the_game_ends_then_the_player_wins_only_by_exceeding_each_rival() -> None:
    """[K41, KX2, KX12] Rival claimants keep their captures in solo; the player wins when their score exceeds each
    rival's (an equal score loses)."""
    state = table(
        players=1,
        round=3,
        emperors={ROMA: "red-emperor-01"},
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-8-spiculum"]},
        extra=captured(0, "blue-emperor-02"),
    )
    events, after = accepted(state, play(0, "red-8-spiculum", N22, "decline"))
    ended = one(events, F.GameEnded)
    assert (
        ended.scores == (2,)
        and ended.winners == (0,)
        and dict(ended.rival_scores) == {"east": 0, "south": 0, "west": 0}
    )
    assert RULES.result(after)["outcome"] == "won"  # type: ignore[index]


def test_given_capture_by_player_when_a_rival_claimants_card_wins_then_the_rival_takes_it_out_of_the_game() -> None:
    """[K27, K41, KX11] With capture=player a card played by a rival claimant captures for that rival (three players:
    out of the game), wherever it lies."""
    state = three(
        settings={"capture": "player"},
        emperors={ROMA: "red-emperor-01", "4,4": "yellow-emperor-03"},
        board={N22: "red-8-spiculum", E22: "blue-3-tribute", W22: "yellow-4-ambitus"},
        owners={"red-8-spiculum": "west"},
        hands={2: ["blue-5-foederati"]},
    )
    events, _ = accepted(state, play(2, "blue-5-foederati", S22))
    resolved = one(events, F.EmperorResolved)
    assert resolved.winning_side == "north" and resolved.outcome == "out_of_game"
    assert resolved.captured_by_rival == "west" and "KX11" in resolved.rulings

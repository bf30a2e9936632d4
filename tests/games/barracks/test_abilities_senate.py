"""Senate (blue) abilities: Influence Peddling, Tribute, Princeps Senatus, Foederati, Frumentarii, Damnatio Memoriae,
Triumph; each used, with no legal target, and under another seat's Demagogue [K18, K21, K27-K31, K34-K37, K41]."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from tests.games.barracks.support import (
    E22,
    N22,
    ROMA,
    S22,
    W22,
    accepted,
    at,
    covered,
    discard,
    emperor_at,
    given,
    hand,
    legal,
    one,
    pick,
    play,
    rejected,
    table,
    types,
)

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}
NW = "-1,0"  # North side of 0,0


# --- Influence Peddling ---------------------------------------------------------------------------------------------
def test_given_a_blue_card_when_influence_peddling_is_used_then_it_gets_a_counter() -> None:
    """[K18, K2] Influence Peddling (value 1) puts a +1 counter on another face-up blue card; counters add up."""
    state = table(
        emperors=BOARD,
        board={E22: "blue-6-foederati"},
        counters={"blue-6-foederati": 2},
        hands={0: ["blue-1-influence-peddling"]},
    )
    events, after = accepted(state, play(0, "blue-1-influence-peddling", NW, "use", "blue-6-foederati"))
    assert (one(events, F.CounterPlaced).amount, one(events, F.CounterPlaced).total) == (1, 3)
    assert after.counters[after.T.card_index["blue-6-foederati"]] == 3


def test_given_only_red_cards_when_influence_peddling_is_played_then_it_has_no_target() -> None:
    """[K18, K17] Only a card of its own suit takes the counter."""
    state = table(emperors=BOARD, board={E22: "red-6-force-march"}, hands={0: ["blue-2-influence-peddling"]})
    rejected(state, play(0, "blue-2-influence-peddling", NW, "use", "red-6-force-march"), "no_ability_choice")
    assert one(accepted(state, play(0, "blue-2-influence-peddling", NW))[0], F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_influence_peddling_is_played_then_no_counter() -> None:
    """[K37]"""
    state = table(
        emperors=BOARD, board={E22: "blue-6-foederati"}, hands={0: ["blue-1-influence-peddling"]}, demagogue=2
    )
    rejected(state, play(0, "blue-1-influence-peddling", NW, "use", "blue-6-foederati"), "no_ability_choice", "K37")
    assert one(accepted(state, play(0, "blue-1-influence-peddling", NW))[0], F.InfluencePlayed).ability == "suppressed"


# --- Tribute -------------------------------------------------------------------------------------------------------
def test_given_a_barbarian_covering_a_card_when_tribute_discards_it_then_the_card_is_uncovered() -> None:
    """[K34] Tribute discards any barbarian on the board; the card it covered stays, uncovered, with its counters."""
    state = table(
        emperors=BOARD, board={"4,3": ("barbarian-08", "red-6-force-march")}, counters={"red-6-force-march": 1},
        hands={0: ["blue-3-tribute"]},
    )  # fmt: skip
    events, after = accepted(state, play(0, "blue-3-tribute", NW, "use", "barbarian-08"))
    assert (one(events, F.CardsDiscarded).reason, one(events, F.CardsDiscarded).cards) == ("tribute", ("barbarian-08",))
    assert at(after, "4,3") == "red-6-force-march" and after.counters[after.T.card_index["red-6-force-march"]] == 1
    assert "barbarian-08" in discard(after)


def test_given_no_barbarian_on_the_board_when_tribute_is_played_then_it_has_no_target() -> None:
    """[K17, K34]"""
    state = table(emperors=BOARD, hands={0: ["blue-4-tribute"]})
    assert one(accepted(state, play(0, "blue-4-tribute", NW))[0], F.InfluencePlayed).ability == "no_target"


def test_given_a_demagogue_when_tribute_is_played_then_the_barbarian_stays() -> None:
    """[K37]"""
    state = table(emperors=BOARD, board={"4,3": "barbarian-08"}, hands={0: ["blue-3-tribute"]}, demagogue=1)
    rejected(state, play(0, "blue-3-tribute", NW, "use", "barbarian-08"), "no_ability_choice", "K37")
    assert at(accepted(state, play(0, "blue-3-tribute", NW))[1], "4,3") == "barbarian-08"


def test_given_tribute_outside_solo_when_to_deck_is_asked_then_it_is_refused() -> None:
    """[K41] Returning a barbarian to the deck is the solo alternative only."""
    state = table(emperors=BOARD, board={"4,3": "barbarian-08"}, hands={0: ["blue-3-tribute"]})
    rejected(state, play(0, "blue-3-tribute", NW, "to_deck", "barbarian-08"), "illegal_target", "K41")


# --- Princeps Senatus ------------------------------------------------------------------------------------------------
def test_given_princeps_senatus_used_when_the_turn_ends_then_the_top_card_is_drawn_before_the_forum_pick() -> None:
    """[K31, K21] The draw of the top deck card comes after the resolutions and before the Forum pick."""
    state = table(
        emperors=BOARD, board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["blue-4-princeps-senatus"]}, deck_top=["red-8-spiculum"],
    )  # fmt: skip
    events, after = accepted(state, play(0, "blue-4-princeps-senatus", N22, "use"))
    assert types(events)[-2:] == ["CardDrawn", "DecisionRequested"]
    assert types(events).index("EmperorResolved") < types(events).index("CardDrawn")
    assert one(events, F.CardDrawn).card == "red-8-spiculum" and hand(after, 0) == ["red-8-spiculum"]
    assert one(events, F.DecisionRequested).decision == "pick"


def test_given_an_empty_deck_when_princeps_senatus_is_played_then_its_draw_is_lost() -> None:
    """[K31, K17, KX8] With the deck empty the bonus draw is lost: no choice is offered."""
    state = table(emperors=BOARD, hands={0: ["blue-3-princeps-senatus"]})
    deck = tuple(state.T.card_ids[c] for c in state.deck)
    empty = given(
        [F.CardsDiscarded(cards=deck, spaces=(None,) * len(deck), reason="orphaned", rulings=("K27",))], state
    )
    rejected(empty, play(0, "blue-3-princeps-senatus", NW, "use"), "no_ability_choice", "K17")
    events, _ = accepted(empty, play(0, "blue-3-princeps-senatus", NW))
    assert one(events, F.InfluencePlayed).ability == "no_target" and not [e for e in events if type(e) is F.CardDrawn]
    assert "KX8" in one(events, F.InfluencePlayed).rulings


def test_given_a_demagogue_when_princeps_senatus_is_played_then_nothing_is_drawn() -> None:
    """[K37]"""
    state = table(emperors=BOARD, hands={0: ["blue-3-princeps-senatus"]}, demagogue=3)
    rejected(state, play(0, "blue-3-princeps-senatus", NW, "use"), "no_ability_choice", "K37")
    events, _ = accepted(state, play(0, "blue-3-princeps-senatus", NW))
    assert not [e for e in events if type(e) is F.CardDrawn]


# --- Foederati -----------------------------------------------------------------------------------------------------
def test_given_a_barbarian_covering_a_card_on_a_legal_space_when_foederati_goes_there_then_both_are_discarded() -> None:
    """[K35] Foederati replaces an active barbarian on a space of its faction; the barbarian and the card it
    covered are discarded."""
    state = table(emperors=BOARD, board={N22: ("barbarian-09", "yellow-5-mob")}, hands={0: ["blue-5-foederati"]})
    events, after = accepted(state, play(0, "blue-5-foederati", N22))
    played = one(events, F.InfluencePlayed)
    assert (played.placement, set(played.discarded)) == ("foederati", {"barbarian-09", "yellow-5-mob"})
    assert at(after, N22) == "blue-5-foederati" and covered(after, N22) is None
    assert {"barbarian-09", "yellow-5-mob"} <= set(discard(after))


def test_given_no_barbarian_on_its_spaces_when_foederati_is_played_then_it_goes_to_an_empty_space_only() -> None:
    """[K35, K16] Without an active barbarian on its faction's spaces, Foederati plays as a plain card."""
    state = table(emperors=BOARD, board={E22: "barbarian-09"}, hands={0: ["blue-6-foederati"]})
    assert {c.space for c in legal(state, 0, "PlayInfluence")} == {NW, N22, "3,4"}
    rejected(state, play(0, "blue-6-foederati", E22), "illegal_space")


def test_given_a_demagogue_when_foederati_aims_at_a_barbarian_then_it_is_refused() -> None:
    """[K37]"""
    state = table(emperors=BOARD, board={N22: "barbarian-09"}, hands={0: ["blue-5-foederati"]}, demagogue=1)
    rejected(state, play(0, "blue-5-foederati", N22), "illegal_space", "K37")


# --- Frumentarii ---------------------------------------------------------------------------------------------------
def test_given_frumentarii_used_when_the_player_keeps_a_card_then_the_others_go_under_the_deck_in_order() -> None:
    """[K31, KX7, K21] Frumentarii looks at the top 4 cards instead of the Forum pick, keeps one; the others go to
    the bottom in the chosen order (the last listed is the bottom card)."""
    top = ["red-8-spiculum", "blue-8-triumph", "yellow-8-pretender", "red-1-reinforcements"]
    state = table(emperors=BOARD, hands={0: ["blue-5-frumentarii"]}, deck_top=top)
    events, after = accepted(state, play(0, "blue-5-frumentarii", NW, "use"))
    assert one(events, F.CardsLooked).cards == tuple(top)
    assert one(events, F.DecisionRequested).decision == "keep" and "ForumTaken" not in types(events)
    assert len(legal(after, 0, "KeepCard")) == 4 * 6
    rejected(after, F.KeepCard(seat=0, card="blue-1-influence-peddling", bottom=()), "not_looked", "K31")
    rejected(after, F.KeepCard(seat=0, card="blue-8-triumph", bottom=("red-8-spiculum",)), "bad_bottom", "K31")
    keep = F.KeepCard(
        seat=0, card="blue-8-triumph", bottom=("yellow-8-pretender", "red-1-reinforcements", "red-8-spiculum")
    )
    events, after = accepted(after, keep)
    assert "blue-8-triumph" in hand(after, 0)
    bottom = [after.T.card_ids[c] for c in after.deck[:3]]  # the deck's bottom is its start
    assert bottom == ["red-8-spiculum", "red-1-reinforcements", "yellow-8-pretender"]
    assert "ForumTaken" not in types(events) and one(events, F.TurnStarted).seat == 1


def test_given_fewer_than_four_cards_in_the_deck_when_frumentarii_looks_then_it_sees_what_remains() -> None:
    """[K31] Fewer than 4 cards: it looks at all of them."""
    state = table(emperors=BOARD, hands={0: ["blue-6-frumentarii"]})
    rest = tuple(state.T.card_ids[c] for c in state.deck[2:])
    state = given(
        [F.CardsDiscarded(cards=rest, spaces=(None,) * len(rest), reason="orphaned", rulings=("K27",))], state
    )
    assert len(state.deck) == 2
    events, after = accepted(state, play(0, "blue-6-frumentarii", NW, "use"))
    assert len(one(events, F.CardsLooked).cards) == 2 and len(legal(after, 0, "KeepCard")) == 2


def test_given_a_demagogue_when_frumentarii_is_played_then_the_forum_pick_follows_as_usual() -> None:
    """[K37, K29]"""
    state = table(emperors=BOARD, hands={0: ["blue-5-frumentarii"]}, demagogue=1)
    rejected(state, play(0, "blue-5-frumentarii", NW, "use"), "no_ability_choice", "K37")
    events, after = accepted(state, play(0, "blue-5-frumentarii", NW))
    assert one(events, F.DecisionRequested).decision == "pick"
    accepted(after, pick(0, after.T.card_ids[after.forum[0]]))


# --- Damnatio Memoriae ------------------------------------------------------------------------------------------------
def test_given_two_adjacent_emperors_when_damnatio_memoriae_removes_one_then_it_is_out_and_orphans_are_cleaned() -> (
    None
):
    """[K36, K27] One Emperor adjacent to its space (not necessarily the one it is played on) leaves the game, before
    the resolution loop; cards touching no Emperor are discarded."""
    state = table(
        emperors={ROMA: "red-emperor-01", "1,3": "blue-emperor-01", "4,4": "yellow-emperor-03"},
        board={E22: "yellow-6-mob"}, hands={0: ["blue-7-damnatio-memoriae"]},
    )  # fmt: skip
    targets = {c.target for c in legal(state, 0, "PlayInfluence") if c.space == N22 and c.ability == "use"}
    assert targets == {"red-emperor-01", "blue-emperor-01"}  # 1,2 is the West side of 1,3 too
    events, after = accepted(state, play(0, "blue-7-damnatio-memoriae", N22, "use", "red-emperor-01"))
    removed = one(events, F.EmperorRemoved)
    assert (removed.emperor, removed.space) == ("red-emperor-01", ROMA)
    assert emperor_at(after, ROMA) is None and after.T.emperor_index["red-emperor-01"] in after.out
    assert at(after, N22) == "blue-7-damnatio-memoriae"  # still West of 1,3
    assert at(after, E22) == "yellow-6-mob"  # 2,3 is the South side of 1,3
    rejected(state, play(0, "blue-7-damnatio-memoriae", N22, "use", "yellow-emperor-03"), "illegal_target", "K36")


def test_given_a_surrounded_emperor_when_damnatio_memoriae_removes_it_then_no_one_captures_it() -> None:
    """[K36, K22] It may remove an Emperor that its own play surrounded: removal comes before the resolutions."""
    state = table(
        emperors=BOARD,
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["blue-8-damnatio-memoriae"]},
    )
    events, _after = accepted(state, play(0, "blue-8-damnatio-memoriae", N22, "use", "red-emperor-01"))
    assert "EmperorResolved" not in types(events)
    gone = next(e for e in events if type(e) is F.CardsDiscarded and e.reason == "orphaned")
    assert set(gone.cards) == {"blue-8-damnatio-memoriae", "blue-5-foederati", "red-3-cavalry", "yellow-6-mob"}


def test_given_a_demagogue_when_damnatio_memoriae_is_played_then_no_emperor_is_removed() -> None:
    """[K37]"""
    state = table(emperors=BOARD, hands={0: ["blue-7-damnatio-memoriae"]}, demagogue=2)
    rejected(state, play(0, "blue-7-damnatio-memoriae", N22, "use", "red-emperor-01"), "no_ability_choice", "K37")
    assert emperor_at(accepted(state, play(0, "blue-7-damnatio-memoriae", N22))[1], ROMA) == "red-emperor-01"


# --- Triumph -------------------------------------------------------------------------------------------------------
def test_given_a_barbarian_covering_a_card_when_triumph_takes_it_then_it_is_scored_and_the_card_discarded() -> None:
    """[K35, K28] Triumph puts the barbarian in its player's scoring area and discards the covered card."""
    state = table(emperors=BOARD, board={N22: ("barbarian-11", "red-5-force-march")}, hands={0: ["blue-7-triumph"]})
    events, after = accepted(state, play(0, "blue-7-triumph", N22))
    played = one(events, F.InfluencePlayed)
    assert (played.placement, played.barbarian_taken, played.discarded) == (
        "triumph",
        "barbarian-11",
        ("red-5-force-march",),
    )
    assert [after.T.card_ids[b] for b in after.won_barbarians[0]] == ["barbarian-11"]
    assert "red-5-force-march" in discard(after)


def test_given_no_barbarian_on_its_spaces_when_triumph_is_played_then_it_is_a_plain_card() -> None:
    """[K35, K16]"""
    state = table(emperors=BOARD, board={W22: "barbarian-11"}, hands={0: ["blue-8-triumph"]})
    rejected(state, play(0, "blue-8-triumph", W22), "illegal_space")
    assert one(accepted(state, play(0, "blue-8-triumph", N22))[0], F.InfluencePlayed).placement == "faction"


def test_given_a_demagogue_when_triumph_aims_at_a_barbarian_then_it_is_refused() -> None:
    """[K37]"""
    state = table(emperors=BOARD, board={N22: "barbarian-11"}, hands={0: ["blue-7-triumph"]}, demagogue=3)
    rejected(state, play(0, "blue-7-triumph", N22), "illegal_space", "K37")


def test_given_an_empty_deck_when_frumentarii_is_played_then_it_has_no_target_and_the_pick_follows() -> None:
    """[K31, K17, KX8] Frumentarii may look only while the deck holds a card."""
    state = table(emperors=BOARD, hands={0: ["blue-5-frumentarii"]})
    deck = tuple(state.T.card_ids[c] for c in state.deck)
    state = given(
        [F.CardsDiscarded(cards=deck, spaces=(None,) * len(deck), reason="orphaned", rulings=("K27",))], state
    )
    rejected(state, play(0, "blue-5-frumentarii", NW, "use"), "no_ability_choice", "K17")
    events, _ = accepted(state, play(0, "blue-5-frumentarii", NW))
    assert one(events, F.InfluencePlayed).ability == "no_target" and "KX8" in one(events, F.InfluencePlayed).rulings
    assert one(events, F.DecisionRequested).decision == "pick"

"""Phase VI, electing the Emperor: when it is held, aiming, counting and secret votes, the result, backers'
points, the new Emperor's throne and the old Emperor's tile [E1-E4, X4, X7, X8].

Scenarios arrange a round-1 phase IV whose last Pass runs phase V (every arranged elector keeps its seat:
nobody else has power there) and then phase VI until it needs a decision. Seat 0 (Red) is the Emperor
unless a scenario says otherwise.
"""

from __future__ import annotations

from typing import Any

from events.base import Event
from services.games.shadow.rules.state import GameState
from tests.games.shadow.phase56_support import ELECTORATES, phase_v, tile_at
from tests.games.shadow.support import (
    PRESENTER,
    RULES,
    accepted,
    baron,
    cmd,
    couple,
    ev,
    knight,
    of_type,
    prompt,
    rejected,
)
from tests.games.shadow.support import at as piece
from tests.games.shadow.support import taken as card

RED, GREEN, BLUE, YELLOW = range(4)


def at_phase_vi(*facts: Event, **kwargs: Any) -> tuple[list[Event], GameState]:
    """Phase IV ends, phase V keeps every arranged elector, phase VI runs until a decision is needed."""
    events, state = phase_v(*facts, **kwargs)
    assert not [e for e in events if isinstance(e, ev.ElectorChanged)], "the arrangement must keep every elector"
    return events, state


def vote(state: GameState, seat: int, candidate: str) -> tuple[list[Event], GameState]:
    return accepted(state, cmd.CastVote(seat=seat, candidate=candidate))


def requested(events: list[Event]) -> list[tuple[str, tuple[int, ...]]]:
    return [(e.prompt.decision, e.prompt.seats) for e in events if isinstance(e, ev.DecisionRequested)]


def backer_points(events: list[Event]) -> list[tuple[int, int]]:
    """(seat, points) scored for backing the winner."""
    return [(e.seat, e.points) for e in of_type(events, ev.VictoryPointsScored) if "E3" in e.rulings]


def ballot(revealed: ev.VotesRevealed, seat: int) -> tuple[str, int, tuple[tuple[str, int], ...]]:
    b = revealed.ballots[seat]
    assert b.seat == seat
    return b.candidate, b.votes, tuple((s.source, s.votes) for s in b.sources)


def rulebook_example() -> list[Event]:
    """The rulebook's election: Red is Emperor with Trier (1) and the Pope (1); Green took Rival and holds
    Bohemia (2) and Saxony (1), with two Barons of different ages on Bohemia's aristocrat spaces; Blue holds
    Mainz (1); Yellow holds the Palatinate (1) and Brandenburg (1); Köln has no elector."""
    return [
        baron(RED, "throne", 45),
        baron(RED, "trier.elector"),
        card(RED, "pope"),
        card(GREEN, "rival"),
        baron(GREEN, "bohemia.elector", 35),
        baron(GREEN, "saxony.elector"),
        baron(GREEN, "bohemia.aristocrat.0", 15),
        baron(GREEN, "bohemia.aristocrat.1", 25),
        baron(BLUE, "mainz.elector"),
        baron(YELLOW, "palatinate.elector"),
        baron(YELLOW, "brandenburg.elector"),
    ]


# --- E1 when the election is held -------------------------------------------------------------------------
def test_given_nobody_took_rival_when_phase_v_ends_then_phase_vi_is_skipped() -> None:
    """[E1, X7] No Rival, no election: election cards taken this round do nothing."""
    events, state = at_phase_vi(baron(RED, "throne", 45), card(BLUE, "pope"), card(YELLOW, "church_influence"))
    phases = [e.phase for e in of_type(events, ev.PhaseStarted)]
    assert phases == [5, 6, 7]
    assert not of_type(events, ev.ElectionCalled)
    assert not of_type(events, ev.VotesRevealed)
    assert prompt(state).decision == "emperor_place_city"


def test_given_a_rival_when_phase_vi_starts_then_the_election_is_called_and_the_others_vote_at_once() -> None:
    """[E1, E2, G1] With Emperor seat 2 and Rival seat 0, seats 3 and 1 are both awaited at once."""
    events, state = at_phase_vi(card(RED, "rival"), settings={"start_player": 2}, last=2)
    called = of_type(events, ev.ElectionCalled)
    assert [(c.emperor, c.rival, c.rulings) for c in called] == [(2, 0, ("E1",))]
    assert requested(events)[-1] == ("vote", (3, 1))
    assert RULES.awaited(state) == (3, 1)
    assert RULES.legal_commands(state, 1) == [
        cmd.CastVote(seat=1, candidate="emperor"),
        cmd.CastVote(seat=1, candidate="rival"),
    ]


def test_given_an_election_when_a_candidate_tries_to_vote_then_it_is_rejected() -> None:
    """[E2] The Emperor and the Rival vote for themselves; they are not asked."""
    _, state = at_phase_vi(*rulebook_example())
    assert RULES.legal_commands(state, RED) == []
    assert RULES.legal_commands(state, GREEN) == []
    rejected(state, cmd.CastVote(seat=RED, candidate="emperor"), "not_your_turn")
    rejected(state, cmd.CastVote(seat=GREEN, candidate="rival"), "not_your_turn")


# --- E2 secret votes ----------------------------------------------------------------------------------------
def test_given_two_voters_when_the_second_in_order_votes_first_then_his_vote_is_sealed_and_nothing_revealed() -> None:
    """[E2] Votes are sealed in any order; nothing is revealed until all are in."""
    _, state = at_phase_vi(*rulebook_example())
    events, state = vote(state, YELLOW, "rival")
    assert [(e.seat, e.candidate, e.rulings) for e in events if isinstance(e, ev.VoteSealed)] == [
        (YELLOW, "rival", ("E2",))
    ]
    assert [e.type for e in events] == ["VoteSealed"]
    assert RULES.awaited(state) == (BLUE,)


def test_given_a_sealed_vote_when_the_same_seat_votes_again_then_it_is_rejected_as_already_voted() -> None:
    """[E2] One vote per seat."""
    _, state = at_phase_vi(*rulebook_example())
    _, state = vote(state, YELLOW, "rival")
    rejection = rejected(state, cmd.CastVote(seat=YELLOW, candidate="emperor"), "already_voted")
    assert rejection.rulings == ("E2",)


def test_given_a_sealed_vote_when_seats_look_at_the_game_then_only_its_own_seat_sees_it() -> None:
    """[E2] A sealed vote is shown to its own seat only: "sealed" to the others, its choice to no spectator."""
    _, state = at_phase_vi(*rulebook_example())
    _, state = vote(state, YELLOW, "rival")
    assert PRESENTER.view(state, YELLOW)["votes"] == [None, None, None, "rival"]
    for seat in (RED, GREEN, BLUE):
        assert PRESENTER.view(state, seat)["votes"] == [None, None, None, "sealed"]
    spectator = PRESENTER.view(state, None)["votes"]
    assert "rival" not in spectator and "emperor" not in spectator


def test_given_all_votes_revealed_when_seats_look_at_the_game_then_every_vote_is_visible() -> None:
    """[E2] Once VotesRevealed is recorded the votes are public: every seat sees every vote."""
    _, state = at_phase_vi(*rulebook_example())
    _, state = vote(state, YELLOW, "rival")
    events, state = vote(state, BLUE, "emperor")
    assert of_type(events, ev.VotesRevealed)
    for seat in (RED, GREEN, BLUE, YELLOW, None):
        assert PRESENTER.view(state, seat)["votes"][BLUE:] == ["emperor", "rival"]


# --- the rulebook's worked example -----------------------------------------------------------------------------
def test_given_the_rulebook_election_when_blue_backs_the_emperor_and_yellow_the_rival_then_green_wins_5_to_3() -> None:
    """[E1, E2, E3, E4] Emperor 3 (Trier 1, Pope 1, Blue's Mainz 1), Rival 5 (Bohemia 2, Saxony 1, Yellow's
    Palatinate 1 and Brandenburg 1). Green becomes Emperor; only Yellow, who backed him, scores 1 VP."""
    _, state = at_phase_vi(*rulebook_example())
    _, state = vote(state, BLUE, "emperor")
    events, state = vote(state, YELLOW, "rival")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert (revealed.emperor, revealed.rival, revealed.winner) == (RED, GREEN, GREEN)
    assert (revealed.emperor_votes, revealed.rival_votes) == (3, 5)
    assert revealed.rulings == ("E1", "E2")
    assert ballot(revealed, RED) == ("emperor", 2, (("elector of Archdiocese of Trier", 1), ("Pope", 1)))
    assert ballot(revealed, GREEN) == (
        "rival",
        3,
        (("elector of Duchy of Saxony", 1), ("elector of Kingdom of Bohemia", 2)),
    )
    assert ballot(revealed, BLUE) == ("emperor", 1, (("elector of Archdiocese of Mainz", 1),))
    assert ballot(revealed, YELLOW) == (
        "rival",
        2,
        (("elector of County Palatine of the Rhine", 1), ("elector of Marquessate of Brandenburg", 1)),
    )
    assert backer_points(events) == [(YELLOW, 1)]
    assert [(v.seat, v.reason) for v in of_type(events, ev.VictoryPointsScored)] == [(YELLOW, "voted for the winner")]
    [elected] = of_type(events, ev.EmperorElected)
    assert (elected.seat, elected.previous, elected.emperor_votes, elected.rival_votes) == (GREEN, RED, 3, 5)
    assert {"E2", "E4"} <= set(elected.rulings)
    assert state.emperor == GREEN
    # Green puts one of his Barons from Bohemia on the throne (never an elector)
    assert (prompt(state).decision, prompt(state).seats) == ("choose_throne", (GREEN,))
    assert RULES.legal_commands(state, GREEN) == [
        cmd.ChooseAristocrat(seat=GREEN, space="bohemia.aristocrat.0"),
        cmd.ChooseAristocrat(seat=GREEN, space="bohemia.aristocrat.1"),
    ]
    rejected(state, cmd.ChooseAristocrat(seat=GREEN, space="bohemia.elector"), "illegal_move")
    events, state = accepted(state, cmd.ChooseAristocrat(seat=GREEN, space="bohemia.aristocrat.1"))
    assert tile_at(state, "throne") == (GREEN, False, 25)
    assert tile_at(state, "bohemia.elector") == (GREEN, False, 35)
    # Red's old Emperor goes to a free aristocrat space of an electorate Red chooses
    assert (prompt(state).decision, prompt(state).seats) == ("place_dethroned", (RED,))
    assert {c.electorate for c in RULES.legal_commands(state, RED)} == set(ELECTORATES)
    events, state = accepted(state, cmd.PlacePiece(seat=RED, electorate="koeln"))
    moved = of_type(events, ev.AristocratMoved)
    assert [(m.owner, m.from_space, m.to_space) for m in moved] == [(RED, "aside", "koeln.aristocrat.0")]
    assert {"E4", "D2"} <= set(moved[0].rulings)
    assert tile_at(state, "koeln.aristocrat.0") == (RED, False, 45)
    assert piece(state, "aside") is None
    assert state.phase == 7


# --- E1 counting votes -------------------------------------------------------------------------------------
def test_given_church_influence_on_koeln_when_votes_are_revealed_then_its_elector_owner_gains_his_pieces_there() -> (
    None
):
    """[E1, X8] +1 per tile of the elector's owner in Köln (the elector and the Gray eminence included) and
    per knight of his colour there; other players' pieces there add nothing."""
    _, state = at_phase_vi(
        baron(RED, "throne", 45),
        card(GREEN, "rival"),
        card(YELLOW, "church_influence"),
        baron(BLUE, "koeln.elector"),
        baron(BLUE, "koeln.eminence", 45),
        baron(BLUE, "koeln.aristocrat.0"),
        knight(BLUE, "koeln.aristocrat.1"),
        knight(BLUE, "koeln.castle.0"),
        baron(YELLOW, "koeln.aristocrat.2", 15),
    )
    assert (prompt(state).decision, prompt(state).seats) == ("aim_church_influence", (YELLOW,))
    events, state = accepted(state, cmd.AimChurchInfluence(seat=YELLOW, electorate="koeln"))
    aimed = of_type(events, ev.CardAimed)
    assert [(a.seat, a.card, a.electorate) for a in aimed] == [(YELLOW, "church_influence", "koeln")]
    assert {"E1", "X8"} <= set(aimed[0].rulings)
    _, state = vote(state, BLUE, "rival")
    events, _ = vote(state, YELLOW, "emperor")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert ballot(revealed, BLUE) == (
        "rival",
        6,
        (("elector of Archdiocese of Köln", 1), ("Church influence in Archdiocese of Köln", 5)),
    )
    assert ballot(revealed, YELLOW) == ("emperor", 0, ())
    assert (revealed.emperor_votes, revealed.rival_votes, revealed.winner) == (0, 6, GREEN)


def test_given_church_influence_on_an_archdiocese_without_elector_when_counted_then_nobody_gains() -> None:
    """[E1, X8] Church influence may name an archdiocese without an elector; then it gives nothing."""
    _, state = at_phase_vi(
        card(GREEN, "rival"),
        card(YELLOW, "church_influence"),
    )
    _, state = accepted(state, cmd.AimChurchInfluence(seat=YELLOW, electorate="trier"))
    _, state = vote(state, BLUE, "rival")
    events, _ = vote(state, YELLOW, "rival")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert all(b.votes == 0 and b.sources == () for b in revealed.ballots)


def test_given_excommunication_on_bohemia_when_counted_then_its_votes_count_for_nobody() -> None:
    """[E1] Excommunication voids one secular electorate's votes: the Rival's Bohemia (2) no longer beats the
    Emperor's Mainz (1), so the Emperor wins."""
    _, state = at_phase_vi(
        baron(RED, "mainz.elector"),
        card(GREEN, "rival"),
        baron(GREEN, "bohemia.elector"),
        card(BLUE, "excommunication"),
    )
    assert (prompt(state).decision, prompt(state).seats) == ("aim_excommunication", (BLUE,))
    _, state = accepted(state, cmd.AimExcommunication(seat=BLUE, electorate="bohemia"))
    _, state = vote(state, BLUE, "rival")
    events, _ = vote(state, YELLOW, "rival")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert ballot(revealed, GREEN) == ("rival", 0, (("elector of Kingdom of Bohemia (excommunicated)", 0),))
    assert (revealed.emperor_votes, revealed.rival_votes, revealed.winner) == (1, 0, RED)
    assert of_type(events, ev.EmperorRetained)


# --- X8 aiming ---------------------------------------------------------------------------------------------
def test_given_aiming_cards_when_phase_vi_starts_then_they_are_aimed_clockwise_from_the_emperor_before_votes() -> None:
    """[E1, X8] Emperor seat 2: Yellow (seat 3) aims before Green (seat 1); votes are asked only after."""
    _, state = at_phase_vi(
        card(RED, "rival"),
        card(GREEN, "church_influence"),
        card(YELLOW, "excommunication"),
        settings={"start_player": 2},
        last=2,
    )
    assert (prompt(state).decision, prompt(state).seats) == ("aim_excommunication", (YELLOW,))
    events, state = accepted(state, cmd.AimExcommunication(seat=YELLOW, electorate="saxony"))
    assert requested(events) == [("aim_church_influence", (GREEN,))]
    events, state = accepted(state, cmd.AimChurchInfluence(seat=GREEN, electorate="mainz"))
    assert requested(events) == [("vote", (YELLOW, GREEN))]
    assert state.aims == (("excommunication", 4), ("church_influence", 0))


def test_given_one_player_with_both_cards_when_aiming_then_church_influence_comes_first() -> None:
    """[X8] A player holding both names the Church influence target first."""
    _, state = at_phase_vi(card(GREEN, "rival"), card(BLUE, "excommunication"), card(BLUE, "church_influence"))
    assert (prompt(state).decision, prompt(state).seats) == ("aim_church_influence", (BLUE,))
    events, state = accepted(state, cmd.AimChurchInfluence(seat=BLUE, electorate="koeln"))
    assert requested(events) == [("aim_excommunication", (BLUE,))]


def test_given_aiming_when_the_target_is_of_the_wrong_kind_then_it_is_rejected() -> None:
    """[E1, X8] Church influence names an archdiocese, Excommunication a secular electorate."""
    _, state = at_phase_vi(card(GREEN, "rival"), card(BLUE, "excommunication"), card(BLUE, "church_influence"))
    assert {c.electorate for c in RULES.legal_commands(state, BLUE)} == {"mainz", "koeln", "trier"}
    rejected(state, cmd.AimChurchInfluence(seat=BLUE, electorate="saxony"), "illegal_move")
    rejected(state, cmd.AimExcommunication(seat=BLUE, electorate="saxony"), "wrong_decision")
    _, state = accepted(state, cmd.AimChurchInfluence(seat=BLUE, electorate="koeln"))
    assert {c.electorate for c in RULES.legal_commands(state, BLUE)} == {
        "palatinate",
        "saxony",
        "brandenburg",
        "bohemia",
    }
    rejected(state, cmd.AimExcommunication(seat=BLUE, electorate="trier"), "illegal_move")


def test_given_a_two_player_game_when_aiming_then_closed_electorates_cannot_be_named() -> None:
    """[X8, T1] Only open electorates can be named."""
    _, state = at_phase_vi(card(1, "rival"), card(1, "church_influence"), players=2)
    closed_spiritual = [ELECTORATES[e] for e in state.closed if e < 3]
    offered = {c.electorate for c in RULES.legal_commands(state, 1)}
    assert offered == {"mainz", "koeln", "trier"} - set(closed_spiritual)
    rejected(state, cmd.AimChurchInfluence(seat=1, electorate=closed_spiritual[0]), "closed_electorate")


# --- E2 the result, E3 backers --------------------------------------------------------------------------------
def tied_election(**kwargs: Any) -> tuple[list[Event], GameState]:
    """Emperor Red 2 (Mainz, Trier) against Rival Green 2 (Bohemia); Blue and Yellow have no votes."""
    return at_phase_vi(
        baron(RED, "throne", 45),
        baron(RED, "mainz.elector"),
        baron(RED, "trier.elector"),
        card(GREEN, "rival"),
        baron(GREEN, "bohemia.elector"),
        **kwargs,
    )


def test_given_a_tie_when_votes_are_revealed_then_the_emperor_stays() -> None:
    """[E2] The Rival needs more votes than the Emperor; a tie keeps the Emperor."""
    _, state = tied_election()
    _, state = vote(state, BLUE, "rival")
    events, state = vote(state, YELLOW, "rival")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert (revealed.emperor_votes, revealed.rival_votes, revealed.winner) == (2, 2, RED)
    [kept] = of_type(events, ev.EmperorRetained)
    assert (kept.seat, kept.emperor_votes, kept.rival_votes) == (RED, 2, 2)
    assert not of_type(events, ev.EmperorElected)
    assert state.emperor == RED
    assert tile_at(state, "throne") == (RED, False, 45)
    assert backer_points(events) == []


def test_given_players_without_votes_when_they_vote_then_they_are_asked_and_back_the_winner_for_1_vp() -> None:
    """[E2, E3] A player with 0 votes still votes; by default every backer of the winner scores 1 VP, and
    backers of the loser score nothing."""
    events, state = tied_election()
    assert requested(events)[-1] == ("vote", (BLUE, YELLOW))
    _, state = vote(state, BLUE, "emperor")
    events, _ = vote(state, YELLOW, "rival")
    [revealed] = of_type(events, ev.VotesRevealed)
    assert ballot(revealed, BLUE) == ("emperor", 0, ())
    assert ballot(revealed, YELLOW) == ("rival", 0, ())
    assert backer_points(events) == [(BLUE, 1)]


def test_given_the_option_backer_vp_requires_votes_when_a_backer_has_no_votes_then_he_scores_nothing() -> None:
    """[E3 option] backer_vp_requires_votes: only backers with at least one vote score."""
    _, state = tied_election(settings={"backer_vp_requires_votes": True})
    _, state = vote(state, BLUE, "emperor")
    events, _ = vote(state, YELLOW, "emperor")
    assert of_type(events, ev.EmperorRetained)
    assert backer_points(events) == []


def test_given_the_option_backer_vp_requires_votes_when_a_backer_has_votes_then_he_scores_1_vp() -> None:
    """[E3 option] A backer with votes still scores under backer_vp_requires_votes."""
    _, state = at_phase_vi(*rulebook_example(), settings={"backer_vp_requires_votes": True})
    _, state = vote(state, BLUE, "rival")
    events, _ = vote(state, YELLOW, "rival")
    assert backer_points(events) == [(BLUE, 1), (YELLOW, 1)]


# --- E4 a new Emperor -----------------------------------------------------------------------------------------
def rival_wins(*green: Event, **kwargs: Any) -> tuple[list[Event], GameState]:
    """Green (Rival, Bohemia 2) beats Red (Emperor, a Baron 45 on the throne, no votes); Blue and Yellow back
    Green. ``green`` adds Green's own pieces."""
    _, state = at_phase_vi(
        baron(RED, "throne", 45), card(GREEN, "rival"), baron(GREEN, "bohemia.elector"), *green, **kwargs
    )
    _, state = vote(state, BLUE, "rival")
    return vote(state, YELLOW, "rival")


def test_given_the_rival_wins_with_a_gray_eminence_when_he_chooses_the_throne_then_it_may_come_from_the_slot() -> None:
    """[E4, P8] The new Emperor chooses among his aristocrats on aristocrat spaces and in a Gray eminence
    slot, never an elector."""
    events, state = rival_wins(
        baron(GREEN, "saxony.eminence", 45), couple(BLUE, "saxony.elector"), couple(GREEN, "bohemia.aristocrat.0")
    )
    assert state.emperor == GREEN
    assert (prompt(state).decision, prompt(state).seats) == ("choose_throne", (GREEN,))
    assert RULES.legal_commands(state, GREEN) == [
        cmd.ChooseAristocrat(seat=GREEN, space="saxony.eminence"),
        cmd.ChooseAristocrat(seat=GREEN, space="bohemia.aristocrat.0"),
    ]
    events, state = accepted(state, cmd.ChooseAristocrat(seat=GREEN, space="saxony.eminence"))
    moved = of_type(events, ev.AristocratMoved)
    assert (moved[0].from_space, moved[0].to_space, moved[0].reason) == ("saxony.eminence", "throne", "new_emperor")
    assert "E4" in moved[0].rulings
    assert tile_at(state, "throne") == (GREEN, False, 45)


def test_given_the_rival_wins_with_one_aristocrat_on_a_space_when_elected_then_it_goes_to_the_throne_unasked() -> None:
    """[E4, X5] A single possible tile is moved without a question."""
    events, state = rival_wins(couple(GREEN, "bohemia.aristocrat.0"))
    assert "choose_throne" not in [d for d, _ in requested(events)]
    assert tile_at(state, "throne") == (GREEN, True, 35)
    assert piece(state, "bohemia.aristocrat.0") is None


def test_given_the_rival_wins_with_only_an_elector_when_elected_then_a_baron_aged_45_comes_from_supply() -> None:
    """[E4] Electors never go to the throne: with no other aristocrat a Baron aged 45 comes from supply."""
    events, state = rival_wins()
    placed = of_type(events, ev.AristocratPlaced)
    assert [(a.owner, a.space, a.couple, a.age, a.reason) for a in placed] == [
        (GREEN, "throne", False, 45, "new_emperor")
    ]
    assert "E4" in placed[0].rulings
    assert tile_at(state, "bohemia.elector") == (GREEN, False, 25)
    assert state.tiles_in_supply[GREEN] == 5


def test_given_the_rival_wins_with_no_tile_left_when_elected_then_the_throne_stays_empty_but_he_is_emperor() -> None:
    """[E4, X4] No eligible aristocrat and an empty supply: the throne stays empty, yet he is Emperor (he takes
    the Emperor's phase VII points)."""
    green_electors = [baron(GREEN, f"{k}.elector") for k in ELECTORATES if k != "bohemia"]
    events, state = rival_wins(*green_electors)
    assert state.tiles_in_supply[GREEN] == 0
    assert not [a for a in of_type(events, ev.AristocratPlaced) if a.space == "throne"]
    assert piece(state, "throne") is None
    assert state.emperor == GREEN
    assert (prompt(state).decision, prompt(state).seats) == ("place_dethroned", (RED,))
    events, state = accepted(state, cmd.PlacePiece(seat=RED, electorate="saxony"))
    assert piece(state, "throne") is None
    assert [(v.seat, v.rulings) for v in of_type(events, ev.VictoryPointsScored)] == [(GREEN, ("R1",))]


def test_given_the_old_emperor_and_a_full_electorate_when_he_is_placed_there_then_his_owner_picks_the_knight() -> None:
    """[E4, D2, X6] The dethroned Emperor's owner chooses the electorate and, where it is full, the knight to
    push; a free space elsewhere allows no push."""
    full_saxony = [
        baron(BLUE, "saxony.aristocrat.0"),
        knight(YELLOW, "saxony.aristocrat.1"),
        knight(BLUE, "saxony.aristocrat.2"),
        baron(YELLOW, "saxony.aristocrat.3"),
    ]
    _, state = at_phase_vi(
        baron(RED, "throne", 45),
        card(GREEN, "rival"),
        baron(GREEN, "bohemia.elector"),
        baron(BLUE, "saxony.elector"),
        *full_saxony,
    )
    _, state = vote(state, BLUE, "rival")
    _, state = vote(state, YELLOW, "rival")
    assert (prompt(state).decision, prompt(state).seats) == ("place_dethroned", (RED,))
    saxony = {c.push for c in RULES.legal_commands(state, RED) if c.electorate == "saxony"}
    assert saxony == {"saxony.aristocrat.1", "saxony.aristocrat.2"}
    rejected(state, cmd.PlacePiece(seat=RED, electorate="saxony"), "no_room")
    rejected(state, cmd.PlacePiece(seat=RED, electorate="koeln", push="saxony.aristocrat.1"), "push_not_allowed")
    rejected(state, cmd.PlacePiece(seat=GREEN, electorate="koeln"), "not_your_turn")
    events, state = accepted(state, cmd.PlacePiece(seat=RED, electorate="saxony", push="saxony.aristocrat.1"))
    pushed = of_type(events, ev.KnightPushed)
    assert [(k.owner, k.space, k.by) for k in pushed] == [(YELLOW, "saxony.aristocrat.1", RED)]
    assert tile_at(state, "saxony.aristocrat.1") == (RED, False, 45)
    assert state.knights_in_supply[YELLOW] == 3


def test_given_an_emperor_whose_throne_is_empty_when_the_rival_wins_then_no_tile_is_set_aside() -> None:
    """[E4, X4] An Emperor without a tile on the throne leaves nothing to place."""
    _, state = at_phase_vi(card(GREEN, "rival"), baron(GREEN, "bohemia.elector"))
    _, state = vote(state, BLUE, "rival")
    events, state = vote(state, YELLOW, "rival")
    assert of_type(events, ev.EmperorElected)
    assert "place_dethroned" not in [d for d, _ in requested(events)]
    assert state.phase == 7
    assert state.emperor == GREEN
    assert tile_at(state, "throne") == (GREEN, False, 45)

"""Two and three players, and what each seat sees [T1, B5, G4, X9, P2, B6].

With two players one spiritual and one secular electorate are closed; the draw comes from the seed and is
recorded as an ElectoratesClosed event. Seed 0 closes Trier and Bohemia (asserted below), which the arranged
two-player positions rely on.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.base import Event
from services.bots.random_bot import choose
from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.round_support import before_last_pass, before_round, last_pass, next_round
from tests.games.shadow.support import (
    PRESENTER,
    RULES,
    accepted,
    given,
    of_type,
    rejected,
    request,
    start,
    taken,
    tile,
    types,
    vp,
)

SPIRITUAL = ("mainz", "koeln", "trier")
SECULAR = ("palatinate", "saxony", "brandenburg", "bohemia")


def closed_keys(state: GameState) -> set[str]:
    return {state.layout.electorates[e].key for e in state.closed}


def phase4(*facts: Event, players: int = 4, turn: int = 0, settings: dict[str, Any] | None = None) -> GameState:
    """Round 2, phase IV, seat ``turn`` to act (seat 0 is the Emperor)."""
    return given([*start(players, settings), ev.PhaseStarted(round=2, phase=4), *facts, request("actions", turn)])


def names_closed(command: cmd.Command, closed: set[str]) -> bool:
    """Whether a command names a closed electorate or a space inside one."""
    values = command.model_dump().values()
    return any(isinstance(value, str) and value.split(".")[0] in closed for value in values)


# --- T1, G4: the two-player draw ------------------------------------------------------------------------------
def test_given_two_players_when_the_game_starts_then_one_spiritual_and_one_secular_electorate_are_closed() -> None:
    """[T1, G4] The draw is recorded as an event right after GameStarted."""
    events = start(2, seed=0)
    assert types(events) == ["GameStarted", "ElectoratesClosed", "DecisionRequested"]
    closed = events[1]
    assert closed == ev.ElectoratesClosed(
        electorates=("trier", "bohemia"), drawn_from=(SPIRITUAL, SECULAR), rulings=("T1", "G4")
    )
    assert closed_keys(given(events)) == {"trier", "bohemia"}


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_given_the_same_seed_when_two_games_start_then_the_same_electorates_are_closed(seed: int) -> None:
    """[G4] The draw depends only on the seed."""
    first, second = start(2, seed=seed), start(2, seed=seed)
    assert first == second
    electorates = first[1].electorates
    assert electorates[0] in SPIRITUAL and electorates[1] in SECULAR


def test_given_different_seeds_when_games_start_then_the_draw_varies() -> None:
    """[T1, G4] The closed electorates are drawn at random from the seed (not fixed)."""
    draws = {start(2, seed=seed)[1].electorates for seed in range(20)}
    assert len(draws) > 3
    assert {spiritual for spiritual, _ in draws} == set(SPIRITUAL)


@pytest.mark.parametrize("players", [3, 4])
def test_given_three_or_four_players_when_the_game_starts_then_nothing_is_closed(players: int) -> None:
    """[T1] Only a two-player game closes electorates."""
    events = start(players, seed=0)
    assert of_type(events, ev.ElectoratesClosed) == []
    assert given(events).closed == frozenset()


def test_given_a_recorded_draw_when_the_events_are_replayed_then_nothing_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """[G4] Folding uses the recorded ElectoratesClosed, never a random generator: a recorded draw that the
    seed would not give is replayed as recorded."""
    events = start(2, seed=0)
    recorded = ev.ElectoratesClosed(
        electorates=("koeln", "saxony"), drawn_from=(SPIRITUAL, SECULAR), rulings=("T1", "G4")
    )
    events[1] = recorded

    def no_draw(*_: object, **__: object) -> None:
        raise AssertionError("a replay must not draw")

    monkeypatch.setattr(random, "Random", no_draw)
    state = given(events)
    assert closed_keys(state) == {"koeln", "saxony"}


# --- T1: closed electorates take nothing -----------------------------------------------------------------------
def test_given_a_closed_electorate_when_setup_places_there_then_it_is_rejected_and_never_offered() -> None:
    """[T1] A closed electorate takes no empire city and no elector."""
    state = given(start(2, seed=0))
    offered = {c.electorate for c in RULES.legal_commands(state, 0)}
    assert offered == {"mainz", "koeln", "palatinate", "saxony", "brandenburg"}
    rejection = rejected(state, cmd.PlaceEmpireCity(seat=0, electorate="trier"), "closed_electorate")
    assert rejection.rulings == ("T1",)
    _, state = accepted(state, cmd.PlaceEmpireCity(seat=0, electorate="saxony"))
    rejected(state, cmd.PlacePiece(seat=1, electorate="bohemia", space_kind="elector"), "closed_electorate")
    assert "bohemia" not in {c.electorate for c in RULES.legal_commands(state, 1)}


def test_given_a_closed_electorate_when_phase_iv_actions_name_it_then_they_are_rejected() -> None:
    """[T1] Permit, Ordinance and knights cannot go into a closed electorate."""
    state = phase4(tile(1, "saxony.aristocrat.0"), players=2)
    rejected(state, cmd.BuyPermit(seat=0, electorate="trier"), "closed_electorate")
    rejected(state, cmd.BuyOrdinance(seat=0, electorate="bohemia"), "closed_electorate")
    rejected(state, cmd.PlaceKnight(seat=0, electorate="bohemia", space_kind="castle"), "closed_electorate")
    legal = RULES.legal_commands(state, 0)
    assert legal
    assert not [c for c in legal if names_closed(c, {"trier", "bohemia"})]


def test_given_a_two_player_game_when_it_is_played_to_the_end_then_closed_electorates_stay_empty() -> None:
    """[T1] Over a whole seeded game: no legal command ever names a closed electorate, no piece ever stands
    there, phase V never decides its seat and no vote comes from it."""
    state = given(start(2, seed=11))
    closed = closed_keys(state)
    rng = random.Random(11)
    all_events: list[Event] = []
    while not RULES.is_over(state):
        seat = RULES.awaited(state)[0]
        legal = RULES.legal_commands(state, seat)
        assert not [c for c in legal if names_closed(c, closed)]
        events = RULES.decide(state, choose(RULES, state, seat, rng))
        assert isinstance(events, list)
        all_events += events
        state = given(events, state)
        occupied = {state.layout.spaces[i].id.split(".")[0] for i, p in enumerate(state.board) if p is not None}
        assert not occupied & closed
    decided = {
        e.electorate
        for e in all_events
        if isinstance(e, ev.ElectorChanged | ev.ElectorRetained | ev.ElectorSeatStaysEmpty)
    }
    assert decided and not decided & closed
    names = {info.name for info in state.layout.electorates if info.key in closed}
    revealed = of_type(all_events, ev.VotesRevealed)
    assert revealed
    sources = [src.source for r in revealed for ballot in r.ballots for src in ballot.sources]
    assert not [src for src in sources if any(name in src for name in names)]


# --- B5: stack sizes -----------------------------------------------------------------------------------------
BUY = {
    "doctor": cmd.BuyDoctor(seat=0, target="saxony.aristocrat.0"),
    "move": cmd.BuyMove(seat=0, source="koeln.aristocrat.0", electorate="palatinate"),
    "permit": cmd.BuyPermit(seat=0, electorate="palatinate"),
    "ordinance": cmd.BuyOrdinance(seat=0, electorate="palatinate"),
    "pope": cmd.BuyPope(seat=0),
}
STACKS = [
    (4, "doctor", 3),
    (3, "doctor", 2),
    (2, "doctor", 1),
    (4, "move", 2),
    (3, "move", 2),
    (2, "move", 2),
    (4, "permit", 4),
    (3, "permit", 3),
    (2, "permit", 2),
    (4, "ordinance", 3),
    (3, "ordinance", 2),
    (2, "ordinance", 1),
    (4, "pope", 1),
    (3, "pope", 1),
    (2, "pope", 1),
]


@pytest.mark.parametrize(("players", "card", "size"), STACKS)
def test_given_a_player_count_when_its_stack_runs_out_then_the_card_can_no_longer_be_taken(
    players: int,
    card: str,
    size: int,
) -> None:
    """[B5, T1, P2] Stack sizes per player count: the last copy can be taken, then the stack is empty."""
    board = (tile(1, "saxony.aristocrat.0"), tile(0, "koeln.aristocrat.0"))
    others = [taken(1 + i % (players - 1), card) for i in range(size - 1)]
    last_copy = phase4(*board, *others, players=players)
    events, _ = accepted(last_copy, BUY[card])
    assert [(e.seat, e.card) for e in of_type(events, ev.CardTaken)] == [(0, card)]
    empty = phase4(*board, *others, taken(1, card), players=players)
    rejection = rejected(empty, BUY[card], "stack_empty")
    assert rejection.rulings == ("B5", "P2")
    assert not [c for c in RULES.legal_commands(empty, 0) if c.type == BUY[card].type]


# --- P2, X9: buying without effect -----------------------------------------------------------------------------
def test_given_two_players_when_a_card_is_bought_without_effect_then_it_is_paid_and_nothing_else_happens() -> None:
    """[P2, X9] Two players: Ordinance taken and paid (4), no city placed, no VP."""
    state = phase4(players=2)
    assert "BuyCardWithoutEffect" in {c.type for c in RULES.legal_commands(state, 0)}
    events, state = accepted(state, cmd.BuyCardWithoutEffect(seat=0, card="ordinance"))
    assert events[:2] == [
        ev.CardTaken(seat=0, card="ordinance", cost=4, without_effect=True, rulings=("P2", "X9")),
        ev.ThalersChanged(seat=0, delta=-4, balance=3, reason="ordinance", rulings=("P2", "X9")),
    ]
    assert of_type(events, ev.CityPlaced) == [] and of_type(events, ev.VictoryPointsScored) == []
    assert state.play_areas[0] == ("ordinance",)
    assert state.cities_in_supply[0] == 3


def test_given_two_players_when_a_permit_is_bought_without_effect_then_it_costs_three() -> None:
    """[P2, X9] Without effect, a Permit costs the Baron price."""
    events, state = accepted(phase4(players=2), cmd.BuyCardWithoutEffect(seat=0, card="permit"))
    assert of_type(events, ev.ThalersChanged)[0].delta == -3
    assert of_type(events, ev.AristocratPlaced) == []
    assert state.tiles_in_supply[0] == 7


@pytest.mark.parametrize("players", [3, 4])
def test_given_three_or_four_players_when_a_card_is_bought_without_effect_then_it_is_rejected(players: int) -> None:
    """[P2, X9] Buying without effect exists only with two players."""
    state = phase4(players=players)
    rejection = rejected(state, cmd.BuyCardWithoutEffect(seat=0, card="indulgence"), "not_two_players")
    assert rejection.rulings == ("P2", "X9")
    assert "BuyCardWithoutEffect" not in {c.type for c in RULES.legal_commands(state, 0)}


def test_given_a_card_bought_without_effect_when_phase_iii_counts_then_it_counts_by_its_colour() -> None:
    """[D1, X9] A card bought without effect still counts for descendants."""
    state = before_round(tile(0, "throne", 15), taken(1, "doctor", without_effect=True), players=2)
    events, _ = next_round(state, electorate="saxony")
    counted = {e.seat: e for e in of_type(events, ev.DescendantsCounted)}
    assert (counted[1].blue, counted[1].outcome) == (1, "son")


# --- B6: hidden victory points ---------------------------------------------------------------------------------
def test_given_the_default_table_when_a_seat_views_the_game_then_every_vp_total_is_visible() -> None:
    """[B6] VP totals are public by default."""
    state = phase4(vp(0, 2), vp(1, 3), vp(3, 1))
    assert PRESENTER.view(state, 1)["victory_points"] == [2, 3, 0, 1]
    assert PRESENTER.view(state, None)["victory_points"] == [2, 3, 0, 1]


def test_given_hidden_vp_when_a_seat_views_the_game_then_it_sees_only_its_own_total() -> None:
    """[B6 option hidden_victory_points] Other seats' VP are hidden until the end; a seat sees its own; a
    spectator sees none."""
    state = phase4(vp(0, 2), vp(1, 3), vp(3, 1), settings={"hidden_victory_points": True})
    assert PRESENTER.view(state, 1)["victory_points"] == [None, 3, None, None]
    assert PRESENTER.view(state, 2)["victory_points"] == [None, None, 0, None]
    assert PRESENTER.view(state, None)["victory_points"] == [None, None, None, None]


def test_given_hidden_vp_when_the_game_ends_then_every_total_is_visible() -> None:
    """[B6, G3] With hidden VP, the totals are revealed when the game ends."""
    state = before_last_pass(
        tile(0, "throne", 15), vp(1, 3), vp(3, 1), round_=5, settings={"hidden_victory_points": True}
    )
    assert PRESENTER.view(state, 2)["victory_points"] == [None, None, 0, None]
    _, state = last_pass(state)
    assert RULES.is_over(state)
    for seat in (0, 2, None):
        assert PRESENTER.view(state, seat)["victory_points"] == [1, 3, 0, 1]

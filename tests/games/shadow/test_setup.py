"""Setup scenarios: the first empire city, the five placement steps, thalers and VP [S1, S2, S3, G1]."""

from __future__ import annotations

from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import EMPIRE, City, GameState, Knight, Tile
from tests.games.shadow.support import RULES, accepted, given, of_type, prompt, rejected, start, types


def at(state: GameState, space: str) -> object:
    """The piece on a space."""
    return state.board[state.layout.by_id[space]]


def after_empire_city(players: int = 4, start_player: int = 0) -> tuple[list[ev.Event], GameState]:
    """A new game whose first Emperor put the empire city in Saxony."""
    state = given(start(players, {"start_player": start_player}))
    return accepted(state, cmd.PlaceEmpireCity(seat=start_player, electorate="saxony"))


def play_setup(state: GameState) -> tuple[list[tuple[str, int, bool | None, int | None]], list[ev.Event]]:
    """Answer every setup prompt with the seat's first legal command; return (decision, seat, couple, age) of
    each prompt and every event of the setup."""
    seen: list[tuple[str, int, bool | None, int | None]] = []
    events: list[ev.Event] = []
    while state.phase == 0:
        p = prompt(state)
        seen.append((p.decision, p.seats[0], p.couple, p.age))
        new, state = accepted(state, RULES.legal_commands(state, p.seats[0])[0])
        events += new
    return seen, events


def test_given_a_new_game_when_it_starts_then_the_emperor_is_asked_for_the_empire_city_first() -> None:
    """[S1] Before any tile, the first Emperor (seat start_player) places an empire city."""
    events = start(4, {"start_player": 2})
    assert types(events) == ["GameStarted", "DecisionRequested"]
    state = given(events)
    assert state.phase == 0 and state.emperor == 2
    assert prompt(state).decision == "setup_empire_city"
    assert prompt(state).seats == (2,)
    assert events[-1].rulings == ("S1",)


def test_given_the_empire_city_prompt_when_another_seat_places_it_then_it_is_rejected() -> None:
    """[S1, G1] Only the Emperor places the first empire city."""
    state = given(start(4))
    rejection = rejected(state, cmd.PlaceEmpireCity(seat=1, electorate="mainz"), "not_your_turn")
    assert rejection.rulings == ("G1",)


def test_given_the_city_prompt_when_the_emperor_places_it_then_it_stands_on_the_first_city_space() -> None:
    """[S1, X1] The empire city goes to the lowest free city space of the named electorate."""
    events, state = after_empire_city()
    placed = of_type(events, ev.EmpireCityPlaced)
    assert placed == [ev.EmpireCityPlaced(seat=0, space="saxony.city.0", rulings=("S1", "X1"))]
    assert at(state, "saxony.city.0") == City(EMPIRE)
    assert state.empire_cities_in_supply == 2


def test_given_the_empire_city_placed_when_step_one_begins_then_the_emperors_baron_45_is_enthroned() -> None:
    """[S2, X5] The Emperor's step-1 Baron aged 45 goes to the throne without a question; the next seat
    clockwise is asked for its elector."""
    events, state = after_empire_city(start_player=2)
    throne = [e for e in of_type(events, ev.AristocratPlaced) if e.space == "throne"]
    assert throne == [
        ev.AristocratPlaced(owner=2, space="throne", couple=False, age=45, reason="setup", rulings=("S2", "X5"))
    ]
    assert at(state, "throne") == Tile(owner=2, couple=False, age=45)
    assert state.tiles_in_supply == (7, 7, 6, 7)
    p = prompt(state)
    assert (p.decision, p.seats, p.couple, p.age) == ("setup_elector", (3,), False, 45)


def test_given_emperor_seat_two_when_setup_runs_then_each_step_goes_clockwise_from_the_emperor() -> None:
    """[S2, G1] Five steps, each starting with the Emperor (whose step-1 Baron is placed for him) and going
    clockwise: elector Baron 45, Couple 35, Baron 25, Couple 15, knight."""
    _, state = after_empire_city(start_player=2)
    seen, _ = play_setup(state)
    order = (2, 3, 0, 1)
    expected = [("setup_elector", seat, False, 45) for seat in order[1:]]
    expected += [("setup_aristocrat", seat, True, 35) for seat in order]
    expected += [("setup_aristocrat", seat, False, 25) for seat in order]
    expected += [("setup_aristocrat", seat, True, 15) for seat in order]
    expected += [("setup_knight", seat, None, None) for seat in order]
    assert seen == expected


def test_given_a_three_player_game_when_setup_runs_then_the_steps_wrap_around_the_table() -> None:
    """[S2, G1] With three players and seat 1 as Emperor the order of every step is 1, 2, 0."""
    _, state = after_empire_city(players=3, start_player=1)
    seen, _ = play_setup(state)
    assert [seat for _, seat, _, _ in seen] == [2, 0] + [1, 2, 0] * 4


def test_given_the_setup_is_answered_when_it_ends_then_every_player_has_his_pieces_and_no_vp() -> None:
    """[S2, S3] After setup each player has 4 tiles and 1 knight on the board, 7 thalers and 0 VP; setup
    electors score nothing."""
    _, state = after_empire_city()
    _, events = play_setup(state)
    state = given(events, state)
    assert of_type(events, ev.VictoryPointsScored) == []
    assert state.vp == (0, 0, 0, 0)
    assert state.thalers == (7, 7, 7, 7)
    assert state.tiles_in_supply == (3, 3, 3, 3)
    assert state.knights_in_supply == (2, 2, 2, 2)
    for seat in range(4):
        tiles = sorted((p.couple, p.age) for p in state.board if isinstance(p, Tile) and p.owner == seat)
        assert tiles == [(False, 25), (False, 45), (True, 15), (True, 35)]
        assert sum(1 for p in state.board if isinstance(p, Knight) and p.owner == seat) == 1
    electors = [state.board[e.elector] for e in state.layout.electorates]
    assert sorted(t.owner for t in electors if t is not None) == [1, 2, 3]
    assert at(state, "throne") == Tile(0, False, 45)


def test_given_a_fresh_game_when_it_is_folded_then_everyone_has_seven_thalers_and_no_vp() -> None:
    """[S3] Everyone starts with 7 thalers and 0 VP."""
    state = given(start(3))
    assert state.thalers == (7, 7, 7)
    assert state.vp == (0, 0, 0)


def test_given_setup_is_finished_when_the_last_knight_is_placed_then_round_one_begins_at_phase_iv() -> None:
    """[S2, S3, G1] Setup stands for phases I-III of round 1: no income, aging or descendants; the Emperor
    takes the first phase IV turn."""
    _, state = after_empire_city(start_player=3)
    _, events = play_setup(state)
    phases = [(e.round, e.phase) for e in of_type(events, ev.PhaseStarted)]
    assert phases == [(1, 4)]
    assert of_type(events, ev.IncomeCollected) == []
    assert of_type(events, ev.AristocratsAged) == []
    assert of_type(events, ev.DescendantsCounted) == []
    state = given(events, state)
    assert (state.round, state.phase) == (1, 4)
    assert prompt(state).decision == "actions"
    assert prompt(state).seats == (3,)


def test_given_step_one_when_a_player_takes_an_archdiocese_then_his_elector_is_a_baron_aged_45() -> None:
    """[S2, S3, B1] The setup elector of an archdiocese is a Baron, as always."""
    _, state = after_empire_city()
    events, state = accepted(state, cmd.PlacePiece(seat=1, electorate="mainz", space_kind="elector"))
    placed = of_type(events, ev.AristocratPlaced)
    assert placed == [
        ev.AristocratPlaced(owner=1, space="mainz.elector", couple=False, age=45, reason="setup", rulings=("S2", "S3"))
    ]
    assert at(state, "mainz.elector") == Tile(1, False, 45)
    assert prompt(state).seats == (2,)


def test_given_step_one_when_a_player_names_a_taken_elector_space_then_it_is_rejected() -> None:
    """[S2] Step 1 goes to an empty elector space only; the taken one is not offered."""
    _, state = after_empire_city()
    _, state = accepted(state, cmd.PlacePiece(seat=1, electorate="bohemia", space_kind="elector"))
    rejected(state, cmd.PlacePiece(seat=2, electorate="bohemia", space_kind="elector"))
    offered = {c.electorate for c in RULES.legal_commands(state, 2)}
    assert "bohemia" not in offered
    assert len(offered) == 6


def test_given_step_one_when_a_player_names_an_aristocrat_space_then_it_is_rejected() -> None:
    """[S2] Step 1 places the elector: an aristocrat space is not a valid answer."""
    _, state = after_empire_city()
    rejected(state, cmd.PlacePiece(seat=1, electorate="koeln", space_kind="aristocrat"))


def test_given_a_setup_step_when_a_seat_out_of_order_answers_then_it_is_rejected() -> None:
    """[S2, G1] Only the seat whose turn it is in the clockwise order may place; the state does not move."""
    _, state = after_empire_city()
    for seat in (0, 2, 3):
        rejection = rejected(
            state, cmd.PlacePiece(seat=seat, electorate="koeln", space_kind="elector"), "not_your_turn"
        )
        assert rejection.rulings == ("G1",)
    assert RULES.awaited(state) == (1,)


def test_given_a_setup_step_when_the_seat_sends_a_phase_iv_action_then_it_is_rejected() -> None:
    """[S2, S3] Setup is no phase IV: only the placement asked for is accepted."""
    _, state = after_empire_city()
    rejected(state, cmd.Pass(seat=1), "wrong_decision")
    rejected(state, cmd.PlaceKnight(seat=1, electorate="koeln", space_kind="castle"), "wrong_decision")


def test_given_step_two_when_the_player_places_then_his_couple_35_takes_the_lowest_aristocrat_space() -> None:
    """[S2, X1] Step 2 is a Couple aged 35 on an empty aristocrat space (the lowest-numbered one)."""
    _, state = after_empire_city()
    for seat, electorate in ((1, "koeln"), (2, "trier"), (3, "bohemia")):
        _, state = accepted(state, cmd.PlacePiece(seat=seat, electorate=electorate, space_kind="elector"))
    _, state = accepted(state, cmd.PlacePiece(seat=0, electorate="mainz"))
    events, state = accepted(state, cmd.PlacePiece(seat=1, electorate="mainz"))
    assert of_type(events, ev.AristocratPlaced) == [
        ev.AristocratPlaced(
            owner=1, space="mainz.aristocrat.1", couple=True, age=35, reason="setup", rulings=("S2", "X1")
        )
    ]
    assert at(state, "mainz.aristocrat.0") == Tile(0, True, 35)


def test_given_step_five_when_a_player_places_his_knight_then_castles_are_allowed_but_not_in_mainz() -> None:
    """[S2, B2] The knight goes on an empty aristocrat or castle space; Mainz has no castle space."""
    _, state = after_empire_city()
    while prompt(state).decision != "setup_knight":
        seat = prompt(state).seats[0]
        _, state = accepted(state, RULES.legal_commands(state, seat)[0])
    assert prompt(state).seats == (0,)
    rejected(state, cmd.PlacePiece(seat=0, electorate="mainz", space_kind="castle"))
    rejected(state, cmd.PlacePiece(seat=0, electorate="mainz", space_kind="elector"))
    events, state = accepted(state, cmd.PlacePiece(seat=0, electorate="koeln", space_kind="castle"))
    knight = ev.KnightPlaced(owner=0, space="koeln.castle.0", rulings=("S2", "X1"))
    assert of_type(events, ev.KnightPlaced) == [knight]
    assert at(state, "koeln.castle.0") == Knight(0)
    rejected(state, cmd.PlacePiece(seat=1, electorate="koeln", space_kind="castle"))

"""The engine's fast paths agree with the plain rules they stand for.

There is one copy of each rule: the fast paths only share or remember work. Listing the phase IV options runs
the option functions of actions.py with one shared ``Turn`` (what several of them ask, worked out once);
``is_legal`` answers from the latest listing of the same state; ``evolve`` keeps the census of the board (the
free spaces of each group) and the cards taken; the engine builds its events as plain tuples (facts.py). Each
must give exactly what the plain path gives, in the same order (the random bot's choice depends on it), on
positions from seeded random games and on variants of them that reach the rare branches (rich and broke
players, emptied stacks so that Trier's privilege applies, privileges held).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from events.base import Rejection
from services.games.shadow.messages import events as ev
from services.games.shadow.rules import actions, facts, turn_counts, turn_options, turn_picks
from services.games.shadow.rules.actions import OPTIONS, Key, is_legal, legal_keys
from services.games.shadow.rules.board import ARISTOCRAT, CASTLE
from services.games.shadow.rules.queries import (
    KOELN,
    PALATINATE,
    TRIER,
    Census,
    first_free,
    open_electorates,
    push_options,
)
from services.games.shadow.rules.state import PIECE, GameState, Knight, Tile, census_of, taken_of
from tests.games.shadow.support import NAMES, RULES


def positions(players: int, seed: int) -> Iterator[GameState]:
    """Every state of a seeded random game at which a seat is asked for a decision."""
    state = None
    for event in RULES.start(NAMES[:players], {}, seed):
        state = RULES.evolve(state, event)
    rng = random.Random(seed)
    while not RULES.is_over(state):
        yield state
        seat = RULES.awaited(state)[0]
        events = RULES.decide(state, RULES.sample_legal(state, seat, rng))
        for event in events:  # type: ignore[union-attr]
            state = RULES.evolve(state, event)


def variants(s: GameState) -> Iterator[GameState]:
    """The position itself, everyone rich, everyone broke, all stacks emptied, and every seat holding the
    privileged electors (Trier, Köln, Palatinate) unused."""
    n = s.n
    yield s
    yield s._replace(thalers=(12,) * n)
    yield s._replace(thalers=(0,) * n)
    stacks = [card for card, info in s.layout.cards.items() for _ in range(info.stack_size(n))]
    yield s._replace(thalers=(12,) * n, play_areas=(tuple(stacks), *(() for _ in range(n - 1))))
    for seat in range(n):
        board = list(s.board)
        for e in (TRIER, KOELN, PALATINATE):
            board[s.layout.electorates[e].elector] = Tile(seat, False, 35)
        yield s._replace(board=tuple(board), privilege_used=(False,) * 7, thalers=(12,) * n)


def per_type(s: GameState, seat: int) -> list[Key]:
    """The phase IV keys listed by the option functions one type after the other, each working out its own
    Turn (none is shared or remembered)."""
    keys: list[Key] = []
    for fn in OPTIONS["actions"].values():
        turn_options._last_turn = None
        keys += fn(s, seat, s.pending)  # type: ignore[arg-type]
    return keys


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_phase_iv_positions_when_listing_with_one_turn_then_same_keys_as_each_function_alone(
    players: int,
) -> None:
    """[P1-P8, X2, X9] The listing with one shared Turn equals the option functions run one by one, key for key;
    for every seat (a seat not awaited lists nothing through ``legal_keys``, so the shared path is asked
    directly)."""
    checked = 0
    for seed in range(4):
        for s in positions(players, seed):
            if s.pending is None or s.pending.decision != "actions":
                continue
            for v in variants(s):
                for seat in range(players):
                    x = actions.turn(v, seat)
                    blocks = [block for fn in actions.PHASE_IV.values() for block in fn(x)]
                    shared = [key for block in blocks for key in actions.block_keys(block)]
                    assert [actions.block_size(b) for b in blocks] == [len(actions.block_keys(b)) for b in blocks]
                    assert shared == per_type(v, seat)
                    if seat in actions.awaited(v):
                        assert legal_keys(v, seat) == shared
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_phase_iv_positions_when_counting_each_type_then_the_length_of_its_listing(players: int) -> None:
    """[P1-P8, X2, X9] The keys of each phase IV command type counted without listing them (turn_counts.py) are
    as many as its option function lists, for every seat of every position and variant."""
    checked = 0
    for seed in range(4):
        for s in positions(players, seed):
            if s.pending is None or s.pending.decision != "actions":
                continue
            for v in variants(s):
                for seat in range(players):
                    x = actions.turn(v, seat)
                    listed = [sum(map(actions.block_size, fn(x))) for fn in actions.PHASE_IV.values()]
                    assert turn_counts.counts(v, seat) == listed
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_phase_iv_positions_when_picking_each_key_alone_then_the_key_of_the_listing(players: int) -> None:
    """[P1-P8, X2, X9] Every key of every phase IV command type built alone from its number (turn_picks.py) is the
    listing's key of that number, for every seat of every position and variant."""
    checked = 0
    for seed in range(3):
        for s in positions(players, seed):
            if s.pending is None or s.pending.decision != "actions":
                continue
            for v in variants(s):
                for seat in range(players):
                    x = actions.turn(v, seat)
                    for pick, fn in zip(turn_picks.PICKS, actions.PHASE_IV.values(), strict=True):
                        listed = [key for block in fn(x) for key in actions.block_keys(block)]
                        assert [pick(v, seat, r) for r in range(len(listed))] == listed
                        checked += len(listed)
    assert checked > 10000


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_phase_iv_positions_when_sampling_by_counting_then_the_draw_of_rng_choice_over_the_listing(
    players: int,
) -> None:
    """[P1-P8] The random bot's sample counts the keys and builds the one drawn: the key ``rng.choice`` takes from
    the full listing, with the generator left in the same state, for many draws per position and variant."""
    checked = 0
    for s in positions(players, seed=2):
        for v in variants(s):
            seat = actions.awaited(v)[0]
            listed = legal_keys(v, seat)
            for draw in range(5):
                one, two = random.Random(draw), random.Random(draw)
                assert actions.sample_key(v, seat, one) == (two.choice(listed) if listed else None)
                assert one.random() == two.random()
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize("players", [2, 4])
def test_given_a_listing_when_checking_commands_then_the_cached_answer_is_the_plain_one(players: int) -> None:
    """A command is accepted exactly when its key is listed: from the latest listing or recomputed."""
    previous: list[Key] = []
    for s in positions(players, seed=7):
        p = s.pending
        assert p is not None
        seat = RULES.awaited(s)[0]
        listed = legal_keys(s, seat)
        for key in [*listed, *previous]:
            if key[0] not in OPTIONS[p.decision]:
                continue
            cached = is_legal(s, seat, p, key[0], key)
            actions._last_keys = actions._last_sample = None
            assert cached == is_legal(s, seat, p, key[0], key) == (key in listed)
            legal_keys(s, seat)
        previous = listed


@pytest.mark.parametrize("players", [2, 4])
def test_given_positions_when_asking_the_census_then_it_answers_like_the_queries(players: int) -> None:
    """[T1, D2, X1] Pushes, free knight spaces, free city electorates, open electorates and pieces, per state."""
    for s in positions(players, seed=3):
        c = Census(s)
        electorates = s.layout.electorates
        assert c.pushes == tuple(tuple(push_options(s, e)) for e in range(len(electorates)))
        assert list(c.open) == open_electorates(s)
        assert list(c.free_cities) == [e for e in c.open if first_free(s, electorates[e].cities) is not None]
        assert list(c.knight_spaces) == [
            (kind, e)
            for e in c.open
            for kind, spaces in ((ARISTOCRAT, electorates[e].aristocrats), (CASTLE, electorates[e].castles))
            if first_free(s, spaces) is not None
        ]
        assert [PIECE[code] for _, code in c.tiles] == [p for p in s.board if isinstance(p, Tile)]
        assert [PIECE[code] for _, code in c.knights] == [p for p in s.board if isinstance(p, Knight)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_random_games_when_evolve_keeps_the_census_then_it_equals_a_census_counted_afresh(players: int) -> None:
    """[X1, B5] The free spaces of each electorate's groups, the spaces of tiles and of knights and the cards taken,
    which ``evolve`` changes event by event, equal what a count from scratch finds, after every event; a state
    handed back is never changed again (each command works on its own copy)."""
    state = None
    for event in RULES.start(NAMES[:players], {}, 5):
        state = RULES.evolve(state, event)
    rng = random.Random(5)
    checked = 0
    while not RULES.is_over(state):
        before, board_before = state, state.board
        result = RULES.execute(state, RULES.sample_legal(state, RULES.awaited(state)[0], rng))
        assert not isinstance(result, Rejection)
        walked = before
        for event in result[0]:
            walked = RULES.evolve(walked, event)
            assert walked.free == census_of(walked.layout, walked.cells)
            assert walked.taken == taken_of(walked.play_areas)
            assert walked.tiles == [i for i, p in enumerate(walked.board) if isinstance(p, Tile)]
            assert walked.knights == [i for i, p in enumerate(walked.board) if isinstance(p, Knight)]
            checked += 1
        assert walked == result[1]
        assert before.board == board_before
        state = result[1]
    assert checked > 300


@pytest.mark.parametrize("players", [2, 3, 4])
def test_given_random_games_when_the_engine_builds_core_events_then_they_are_the_validated_models(
    players: int,
) -> None:
    """The engine's events are plain tuples (facts.py); at the edge each becomes the model validation gives from
    the same values (repr tells a tuple from a list and True from 1), writes the same JSON, and equals it."""
    for seed in range(3):
        state = None
        for event in RULES.start(NAMES[:players], {}, seed):
            state = RULES.evolve(state, event)
        rng = random.Random(seed)
        while not RULES.is_over(state):
            seat = RULES.awaited(state)[0]
            result = RULES.execute(state, RULES.sample_legal(state, seat, rng))
            assert not isinstance(result, Rejection)
            for event in result[0]:
                assert facts.is_core(event)
                model = facts.to_model(event)
                validated = type(model).model_validate(model.model_dump())
                assert repr(model) == repr(validated)
                assert facts.encode(event) == validated.to_json() == RULES.encode_event_bytes(event)
                assert event == validated and validated == event
                assert RULES.parse_event(facts.encode(event)) == event
            state = result[1]


def test_given_a_core_event_when_built_wrongly_then_it_fails_or_differs_from_its_model() -> None:
    # An unknown field, or a required one left out, is refused at once
    with pytest.raises(TypeError):
        facts.E.ThalersChanged(seat=0, delta=1, balance=1, reason="x", colour="red")
    with pytest.raises(TypeError):
        facts.E.ThalersChanged(seat=0, delta=1, balance=1)
    # A core event equals its model only with the same values
    core = facts.E.ThalersChanged(seat=0, delta=1, balance=1, reason="x")
    assert core == ev.ThalersChanged(seat=0, delta=1, balance=1, reason="x")
    assert core != ev.ThalersChanged(seat=0, delta=1, balance=2, reason="x")
    assert core != ev.VictoryPointsScored(seat=0, points=1, total=1, reason="x")

"""Properties of whole random legal games for 1, 2, 3 and 4 players, played to the end and checked after every
command [K3, K4, K11, K13, K19, K38, K39, K41]:

- each of the 42 influence cards, 18 barbarians and 45 Emperors is in exactly one place, and the location index
  agrees with the containers;
- no space holds two cards except a barbarian covering an influence card;
- listed legal commands are accepted (a sample of them each step) and mutated illegal ones are refused with the
  state unchanged;
- the events fold to the live state; every event round-trips through the codecs and cites rulings; snapshots
  round-trip;
- every round ends, and the game ends after round 3 with a winner or a shared victory (solo: won or lost).

Seeded loops keep each test to a few seconds; ``BARRACKS_PROPERTY_GAMES`` plays more games per player count.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest

from events.base import Rejection
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.state import (
    BOARD,
    BOX,
    DECK,
    DISCARD,
    E_ASIDE,
    E_BOARD,
    E_DECK,
    E_OUT,
    E_WON,
    FORUM,
    HAND,
    LIMBO,
    POOL,
    WON,
    Game,
)
from tests.games.barracks.support import NAMES, RULES

GAMES = int(os.environ.get("BARRACKS_PROPERTY_GAMES", "3"))
SAMPLE = 6  # legal commands tried per step besides the one played
SETTINGS = [
    {},
    {"capture": "player", "hand_size": 4, "forum_size": 3, "tiebreak": "sets_then_emperors"},
    {"hand_size": 6, "forum_size": 5, "two_player_sides": "adjacent", "set_bonus": 0},
]


def check_places(g: Game) -> None:
    """Every card and Emperor is in exactly one place, and its location code says which [K3, K4, K19]."""
    T = g.T
    places: Counter[int] = Counter()
    expect = {}
    for cards, code in ((g.deck, DECK), (g.forum, FORUM), (g.discard, DISCARD), (g.box, BOX), (g.pool, POOL)):
        for c in cards:
            places[c] += 1
            expect[c] = code
    for seat, hand in enumerate(g.hands):
        for c in hand:
            places[c] += 1
            expect[c] = HAND + seat
    for actor, barbarians in enumerate(g.won_barbarians):
        for c in barbarians:
            places[c] += 1
            expect[c] = WON + actor
    if g.limbo >= 0:
        places[g.limbo] += 1
        expect[g.limbo] = LIMBO
    for s in range(T.n_spaces):
        top, under = g.top[s], g.under[s]
        if under >= 0:  # only a barbarian covers, and only an influence card
            assert top >= 0 and T.is_barbarian[top] and not T.is_barbarian[under], (s, top, under)
        for c in (top, under):
            if c >= 0:
                places[c] += 1
                expect[c] = BOARD
                assert g.pos[c] == s
    assert sorted(places) == list(range(T.n_cards)) and set(places.values()) == {1}, places
    assert all(g.loc[c] == expect[c] for c in range(T.n_cards))
    assert sum(1 for s in range(T.n_spaces) if g.top[s] >= 0 and g.under[s] < 0) + sum(
        2 for s in range(T.n_spaces) if g.under[s] >= 0
    ) == sum(1 for c in range(T.n_cards) if g.loc[c] == BOARD)
    emperors: Counter[int] = Counter()
    where = {}
    for cards, code in ((g.emperor_deck, E_DECK), (g.aside, E_ASIDE), (g.out, E_OUT)):
        for x in cards:
            emperors[x] += 1
            where[x] = code
    for actor, captured in enumerate(g.won):
        for x in captured:
            emperors[x] += 1
            where[x] = E_WON + actor
    for x in g.emp:
        if x >= 0:
            emperors[x] += 1
            where[x] = E_BOARD
    assert sorted(emperors) == list(range(T.n_emperors)) and set(emperors.values()) == {1}
    assert all(g.eloc[x] == where[x] for x in range(T.n_emperors))
    assert g.alive == sum(1 << e for e, x in enumerate(g.emp) if x >= 0)


def mutations(g: Game, command: Any, rng: random.Random) -> list[Any]:
    """Commands near a legal one: another seat, card, space, target or ability."""
    T = g.T
    cards = T.card_ids
    spaces = T.space_ids
    out = [command._replace(seat=(command.seat + 1) % 4)]
    if hasattr(command, "card"):
        out.append(command._replace(card=rng.choice(cards)))
    if hasattr(command, "space"):
        out.append(command._replace(space=rng.choice(spaces)))
    if hasattr(command, "target"):
        out.append(command._replace(target=rng.choice([*cards, *T.emperor_ids, *T.emp_ids])))
        out.append(command._replace(ability=rng.choice([None, "use", "decline", "to_deck"])))
    if hasattr(command, "to_space"):
        out.append(command._replace(to_space=rng.choice(spaces)))
    return out


def play_game(players: int, seed: int, settings: dict[str, Any]) -> list[Any]:
    """One random legal game, checked after every command; returns its events."""
    rng = random.Random(seed)
    events = RULES.start(NAMES[:players], settings, seed)
    g = RULES.fold(events)
    check_places(g)
    rounds_ended = 0
    steps = 0
    while not RULES.is_over(g):
        steps += 1
        assert steps < 2000, "a game that does not end"
        (seat,) = RULES.awaited(g)
        options = RULES.legal_commands(g, seat)
        assert options, "an awaited seat always has a legal command"
        snapshot = RULES.snapshot(g)
        for command in rng.sample(options, min(SAMPLE, len(options))):
            assert not isinstance(RULES.decide(g, command), Rejection), command
        for command in mutations(g, rng.choice(options), rng):
            if command not in options:
                refusal = RULES.decide(g, command)
                assert isinstance(refusal, Rejection) and refusal.rulings, (command, refusal)
        assert RULES.snapshot(g) == snapshot, "deciding changed the state"
        command = RULES.sample_legal(g, seat, rng)
        assert command in options
        result = RULES.execute(g, command)
        assert not isinstance(result, Rejection), (command, result)
        new_events, after = result
        assert RULES.fold(new_events, g) == after
        for event in new_events:
            assert event.rulings, event
            assert RULES.parse_event(RULES.encode_event_bytes(event)) == event
            F.model_of(event)  # the edge model accepts it
            rounds_ended += type(event) is F.RoundEnded
        events += new_events
        g = after
        check_places(g)
        if steps % 40 == 0:
            assert RULES.restore(RULES.snapshot(g)) == g
    assert RULES.fold(events) == g
    assert RULES.restore(RULES.snapshot(g)) == g
    assert rounds_ended == 3 and g.round == 3
    result = RULES.result(g)
    assert result is not None
    if players == 1:
        assert result["outcome"] in ("won", "lost") and not result["shared"]
    else:
        assert result["winners"] and result["shared"] == (len(result["winners"]) > 1)
        assert max(result["scores"]) == result["scores"][result["winners"][0]]
    return events


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_given_random_legal_games_when_played_to_the_end_then_every_invariant_holds(players: int) -> None:
    """[K3, K4, K13, K19, K38, K39, K41] See the module docstring."""
    for i in range(GAMES):
        play_game(players, 1000 * players + i, SETTINGS[i % len(SETTINGS)])


def test_given_a_recorded_game_when_replayed_from_json_then_it_reaches_the_same_state() -> None:
    """[K13] A game's events, stored as JSON and parsed back, fold to the same final state."""
    events = play_game(4, 77, {})
    parsed = [RULES.parse_event(RULES.encode_event_bytes(e)) for e in events]
    assert RULES.fold(parsed) == RULES.fold(events)

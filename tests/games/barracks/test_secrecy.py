"""Secrecy properties over random games [K14]: before the end, no seat's view and no event redacted for it reveals
another seat's hand (except what is public: Forum picks and a passing hand), what Frumentarii showed another seat,
the order of the draw deck or of the Emperor deck, or the seed; a spectator learns no hand at all; once the game
is over everything is public."""

from __future__ import annotations

import random

import orjson
import pytest

from services.games.barracks import plugin
from services.games.barracks.rules import facts as F
from tests.games.barracks.support import NAMES, ROMA, accepted, pick, table
from tests.games.barracks.support import play as play_card

PLUGIN = plugin()
RULES, PRESENTER = PLUGIN.game_rules, PLUGIN.game_presenter


def quoted(ids: set[str]) -> set[bytes]:
    return {orjson.dumps(i) for i in ids}


def leaks(data: object, secret: set[bytes]) -> set[bytes]:
    text = orjson.dumps(data)
    return {s for s in secret if s in text}


def play(players: int, seed: int, check: object) -> None:
    rng = random.Random(seed)
    events = RULES.start(NAMES[:players], {}, seed)
    state = RULES.fold(events)
    round_start = 0
    while not RULES.is_over(state):
        check(state, events, round_start)  # type: ignore[operator]
        (seat,) = RULES.awaited(state)
        new, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
        for e in new:
            if type(e) is F.RoundStarted:
                round_start = len(events) + new.index(e)
        events += new
    check(state, events, round_start)  # type: ignore[operator]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_given_random_games_when_each_seat_looks_then_no_other_seats_secret_shows(players: int) -> None:
    """[K14] Views and redacted events of the current round, for every seat and a spectator, checked each step."""
    seats = [*range(players), None]

    def check(state: object, events: list[object], round_start: int) -> None:
        over = RULES.is_over(state)
        secrets = {s: quoted(PRESENTER.secret_cards(state, s)) for s in range(players)}  # type: ignore[attr-defined]
        recent = events[round_start:]
        for viewer in seats:
            view = PRESENTER.view(state, viewer)
            if over:
                assert "seed" in view and "deck" in view
                continue
            assert "seed" not in view and "deck" not in view and "emperor_deck" not in view
            for owner, secret in secrets.items():
                if owner == viewer:
                    assert not secret - quoted(set(view["hand"]) | set(view.get("looked", [])))
                    continue
                assert not leaks(view, secret), (viewer, owner)
                for event in recent:
                    assert not leaks(PRESENTER.redact(event, viewer, state), secret), (viewer, owner, event)
            for event in events[:5]:
                shown = PRESENTER.redact(event, viewer, state)
                if type(event) in (F.EmperorDeckShuffled, F.DeckShuffled):
                    assert shown["order"] is None and shown["redacted"]
                if type(event) is F.GameStarted:
                    assert shown["seed"] is None

    play(players, 500 + players, check)


def test_given_a_pass_when_the_hand_is_shown_then_other_seats_see_it_until_it_changes() -> None:
    """[K14, K20] A passing hand is public: other seats' views list it as known; it is no secret of its seat."""
    state = table(
        emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"},
        board={"1,2": "red-3-castra", "3,4": "red-4-castra"},
        hands={0: ["blue-3-tribute", "yellow-3-quaestor"], 3: ["red-7-spiculum"]},
        turn=3,
    )
    assert PRESENTER.secret_cards(state, 0) == {"blue-3-tribute", "yellow-3-quaestor"}
    assert "blue-3-tribute" not in orjson.dumps(PRESENTER.view(state, 1)).decode()
    _, state = accepted(state, play_card(3, "red-7-spiculum", "2,1"))
    events, state = accepted(state, pick(3, state.T.card_ids[state.forum[0]]))
    assert next(e for e in events if type(e) is F.Passed).seat == 0
    assert set(PRESENTER.view(state, 1)["hands"][0]["known"]) == {"blue-3-tribute", "yellow-3-quaestor"}
    assert PRESENTER.secret_cards(state, 0) == set()


def test_given_a_finished_game_when_replayed_then_every_past_hand_and_deck_is_shown() -> None:
    """[K14] Once over, everything is public, the past included."""
    rng = random.Random(3)
    events = RULES.start(NAMES, {}, 3)
    state = RULES.fold(events)
    early = state
    while not RULES.is_over(state):
        (seat,) = RULES.awaited(state)
        new, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
        events += new
    replay = PRESENTER.replay_view(early, 1, state)
    assert all("cards" in h for h in replay["hands"]) and replay["seed"] == 3
    live = PRESENTER.replay_view(early, 1, early)
    assert [("cards" in h) for h in live["hands"]] == [False, True, False, False]
    assert PRESENTER.redact(events[0], 2, state)["seed"] == 3
    hand = next(e for e in events if type(e) is F.HandDealt and e.seat == 0)
    assert PRESENTER.redact(hand, 2, state)["cards"] == list(hand.cards) or tuple(
        PRESENTER.redact(hand, 2, state)["cards"]
    ) == tuple(hand.cards)

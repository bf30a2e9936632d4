"""Hidden victory points [B6, X14]: with the table setting ``hidden_victory_points``, no other seat and no
spectator learns a seat's points before the end: not from its VictoryPointsScored events (withheld: their
reason alone would tell the points), nor from a view, the boards or the scoreboard. Everything shows once the
game is over.

The defect this guards against: every other seat's VictoryPointsScored was shown with its points masked, but
its ``reason`` fixed them; a spectator's running totals matched the true ones at 1,478 of 1,478 positions.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.support import NAMES, PRESENTER, RULES
from tests.games.shadow.test_properties import PROFILE

HIDDEN = {"hidden_victory_points": True}


def play(players: int, seed: int, settings: dict[str, object]) -> list[tuple[ev.Event, GameState]]:
    """A seeded random game: each event with the state right after it."""
    out = []
    state = None
    for event in RULES.start(NAMES[:players], settings, seed):
        state = RULES.evolve(state, event)
        out.append((event, state))
    rng = random.Random(seed)
    while not RULES.is_over(state):
        events = RULES.decide(state, RULES.sample_legal(state, RULES.awaited(state)[0], rng))
        assert isinstance(events, list)
        for event in events:
            state = RULES.evolve(state, event)
            out.append((event, state))
    return out


def running_totals(feed: list[dict[str, object]], players: int) -> list[int]:
    """What a reader can add up from the VictoryPointsScored events it received."""
    totals = [0] * players
    for shown in feed:
        if shown.get("type") == "VictoryPointsScored" and isinstance(shown.get("points"), int):
            totals[shown["seat"]] += shown["points"]  # type: ignore[index,operator]
    return totals


def shown_to(state: GameState, reader: int | None) -> tuple[object, ...]:
    """Everything the presenter shows ``reader`` of a position (a replay made now, at the end, aside)."""
    return (
        PRESENTER.view(state, reader),
        PRESENTER.replay_view(state, reader, state),
        PRESENTER.render_text(state, reader),
        PRESENTER.render_svg(state, reader),
        PRESENTER.scoreboard(state) if reader is None else None,
    )


@settings(PROFILE)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10_000))
def test_given_hidden_victory_points_when_a_game_is_read_by_others_then_no_score_of_a_seat_reaches_them(
    players: int, seed: int
) -> None:
    """[B6, X14] Other seats and spectators receive none of a seat's VictoryPointsScored before the end, and no
    view, board or scoreboard of theirs changes when that seat's total changes."""
    # Given a random game with hidden victory points
    game = play(players, seed, HIDDEN)
    readers: list[int | None] = [*range(players), None]
    feeds: dict[int | None, list[dict[str, object]]] = {r: [] for r in readers}
    scored = 0
    for event, state in game:
        for reader in readers:
            shown = PRESENTER.redact(event, reader, state)
            if shown is not None:
                feeds[reader].append(shown)
            if isinstance(event, ev.VictoryPointsScored) and not state.over:
                scored += 1
                # Then another seat's score is withheld whole, and the scorer sees it whole
                assert (shown is None) == (event.seat != reader), (reader, event)
        if state.over:
            continue
        sampled = event.type in ("VictoryPointsScored", "PhaseStarted", "GameStarted")  # a sample of positions
        seen = {reader: PRESENTER.view(state, reader)["victory_points"] for reader in readers}
        at_rest = {reader: shown_to(state, reader) for reader in readers} if sampled else {}
        for owner in range(players):
            # Then what others see does not depend on the owner's total (its points changed, nothing else)
            other_total = state._replace(vp=tuple(v + 7 if i == owner else v for i, v in enumerate(state.vp)))
            for reader in readers:
                if reader == owner:
                    continue
                assert seen[reader][owner] is None and (reader is None or seen[reader][reader] == state.vp[reader])
                if sampled:
                    assert at_rest[reader] == shown_to(other_total, reader), (reader, owner, event.type)
    assert scored > 0
    # Then a seat's own running total is exact and nobody else's can be added up from its feed
    final = game[-1][1]
    for reader in readers:
        totals = running_totals(feeds[reader], players)
        for seat in range(players):
            assert totals[seat] == (final.vp[seat] if seat == reader else 0), (reader, seat)


def test_given_hidden_victory_points_when_the_game_is_over_then_every_score_and_total_is_shown() -> None:
    """[B6, X14] At the end the secret is over: every score, each total in every view and on the scoreboard."""
    game = play(3, 5, HIDDEN)
    final = game[-1][1]
    assert final.over
    for event, _ in game:
        if isinstance(event, ev.VictoryPointsScored):
            for reader in (None, 0, 1, 2):
                assert PRESENTER.redact(event, reader, final) == event.to_dict()
    assert PRESENTER.view(final, None)["victory_points"] == list(final.vp)
    assert [s["victory_points"] for s in PRESENTER.scoreboard(final)["seats"]] == list(final.vp)
    before_end = next(s for e, s in reversed(game) if not s.over)
    assert PRESENTER.replay_view(before_end, 1, final)["victory_points"] == list(before_end.vp)


def test_given_public_victory_points_when_a_seat_scores_then_everyone_sees_it() -> None:
    """[B6] Without the setting (the default) every score is public."""
    game = play(2, 3, {})
    scores = [(e, s) for e, s in game if isinstance(e, ev.VictoryPointsScored)]
    assert scores
    for event, state in scores:
        assert PRESENTER.redact(event, None, state) == event.to_dict()

"""The search bot on In the Shadow of the Emperor: it plays on determinizations that keep everything a seat
sees and re-draw the rest (sealed votes [E2], hidden victory points [B6, X14]), so it never reads a secret."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from services.bots.kinds import bot_kinds, make_bot
from services.bots.search import SearchBot, SearchKit
from services.games.shadow.bots import search_bench
from services.games.shadow.bots.search import kit
from services.games.shadow.rules.state import GameState
from services.rules.registry import get_game
from tests.games.shadow.support import NAMES, PRESENTER, RULES

HIDDEN = {"hidden_victory_points": True}


def positions(seed: int, settings: dict[str, Any] | None = None) -> Iterator[GameState]:
    """Every position of a seeded random 4-player game at which a seat is asked to decide."""
    state = RULES.fold(RULES.start(NAMES, settings or {}, seed))
    rng = random.Random(seed)
    while not RULES.is_over(state):
        yield state
        result = RULES.execute(state, RULES.sample_legal(state, RULES.awaited(state)[0], rng))
        assert isinstance(result, tuple)
        state = result[1]


def first(found: Callable[[GameState], bool], settings: dict[str, Any] | None = None) -> GameState:
    """The first position of seeded random games that ``found`` accepts."""
    for seed in range(50):
        for state in positions(seed, settings):
            if found(state):
                return state
    raise AssertionError("no such position in 50 games")


def sealed_vote_pending(s: GameState) -> bool:
    """A vote is open, some seat has sealed its vote and another is still to vote."""
    return s.pending is not None and s.pending.decision == "vote" and any(v is not None for v in s.votes)


def other_sealed(s: GameState) -> tuple[int, int]:
    """(a seat still to vote, a seat whose vote is sealed)."""
    voter = RULES.awaited(s)[0]
    return voter, next(seat for seat, v in enumerate(s.votes) if v is not None and seat != voter)


def tiny() -> SearchKit:
    """A small budget, for speed."""
    return kit(iterations=6, width=2)


def one_ply() -> SearchKit:
    """The smallest budget (no opponent replies), for whole games played fast."""
    return kit(iterations=2, width=2, depth=1)


def test_given_a_position_when_determinized_for_a_seat_then_that_seat_sees_exactly_the_same_game() -> None:
    # Given positions of a game with hidden victory points, and each seat
    for state in list(positions(3, HIDDEN))[::7]:
        for seat in range(4):
            # When the position is determinized for the seat
            world = RULES.determinize(state, seat, random.Random(seat))
            # Then the seat's view of it is the view of the real position: only what it cannot see may differ
            assert PRESENTER.view(world, seat) == PRESENTER.view(state, seat)
            assert RULES.legal_commands(world, seat) == RULES.legal_commands(state, seat)


def test_given_two_positions_differing_only_in_another_seats_sealed_vote_then_the_bot_decides_the_same() -> None:
    # Given a vote in progress: one seat's vote sealed, another seat's still to come, and the same position
    # with the sealed vote the other way round (the voter cannot tell them apart [E2])
    state = first(sealed_vote_pending)
    voter, sealed = other_sealed(state)
    votes = list(state.votes)
    votes[sealed] = "rival" if votes[sealed] == "emperor" else "emperor"
    twin = state._replace(votes=tuple(votes))
    assert PRESENTER.view(twin, voter) == PRESENTER.view(state, voter) and twin != state
    # When the voter's position is determinized and searched with the same seed in both
    # Then the determinizations are the same, and so are the search's decision and its statistics
    assert RULES.determinize(state, voter, random.Random(9)) == RULES.determinize(twin, voter, random.Random(9))
    bots = [SearchBot(5, tiny()), SearchBot(5, tiny())]
    assert bots[0].choose(RULES, state, voter) == bots[1].choose(RULES, twin, voter)
    assert bots[0].stats.root_visits == bots[1].stats.root_visits


def test_given_hidden_victory_points_when_another_seats_total_differs_then_the_bot_decides_the_same() -> None:
    # Given hidden victory points [B6], a position in phase IV after some scoring, and its twin in which the
    # other seats' totals are different (the seat to act cannot see them [X14])
    state = first(lambda s: s.round >= 2 and s.phase == 4 and s.pending is not None and sum(s.vp) > 0, HIDDEN)
    seat = RULES.awaited(state)[0]
    twin = state._replace(vp=tuple(v if i == seat else v + 3 * i + 1 for i, v in enumerate(state.vp)))
    assert PRESENTER.view(twin, seat) == PRESENTER.view(state, seat) and twin != state
    # When both are searched with the same seed, Then the bot decides the same way, on the same statistics
    bots = [SearchBot(8, tiny()), SearchBot(8, tiny())]
    assert bots[0].choose(RULES, state, seat) == bots[1].choose(RULES, twin, seat)
    assert bots[0].stats.root_visits == bots[1].stats.root_visits


def test_given_a_sealed_vote_when_determinized_many_times_then_it_is_redrawn_not_read() -> None:
    # Given a vote in progress with another seat's vote sealed
    state = first(sealed_vote_pending)
    voter, sealed = other_sealed(state)
    # When it is determinized for the voter with many seeds
    drawn = {RULES.determinize(state, voter, random.Random(i)).votes[sealed] for i in range(40)}
    # Then the sealed vote takes both values (a guess), while the voter's own view stays as it was
    assert drawn == {"emperor", "rival"}
    # And for the seat that sealed it, its own vote is kept
    assert RULES.determinize(state, sealed, random.Random(1)).votes[sealed] == state.votes[sealed]


def test_given_shadow_when_listing_bot_kinds_then_its_own_search_bot_is_offered() -> None:
    # Given Shadow, Then "search" is one of its bot kinds, and it is the search bot with Shadow's kit
    assert "search" in bot_kinds("shadow")
    bot = make_bot("search", "shadow", 1)
    assert isinstance(bot, SearchBot) and bot.kit.opponents == "policy" and bot.kit.iterations > 1


def test_given_a_position_when_the_search_bot_decides_then_it_sends_a_legal_command_on_budget() -> None:
    # Given a phase IV position with many options
    state = first(lambda s: s.phase == 4 and len(RULES.legal_commands(s, RULES.awaited(s)[0])) > 10)
    seat = RULES.awaited(state)[0]
    # When the search bot decides with a budget of 6 iterations over the heuristic's best 2 commands
    bot = SearchBot(4, tiny())
    command = bot.choose(RULES, state, seat)
    # Then its command is legal, and it ran its budget over those two candidates
    assert command in RULES.legal_commands(state, seat)
    assert bot.stats.iterations == 6 and len(bot.stats.root_visits) == 2 and sum(bot.stats.root_visits.values()) == 6


@pytest.mark.parametrize("kind", ["one", "pairs"])
def test_given_a_series_when_measured_then_the_games_are_scored_as_the_readme_says(kind: str) -> None:
    # Given one game of each measure, with the smallest budget
    tally = search_bench.measure(kind, 1, processes=1, make_kit=one_ply)
    # Then one game was played, its score counted over one game or four (search, heuristic) pairs
    assert tally.games == 1 and tally.count == (1 if kind == "one" else 4)
    assert 0.0 <= tally.rate <= 1.0 and tally.search_moves > 0


def test_given_the_bench_of_shadow_then_the_search_section_reports_its_figures(monkeypatch: Any) -> None:
    # Given the quick bench context and a series of one game each, with the smallest budget
    from services import bench

    monkeypatch.setattr(search_bench, "QUICK_GAMES", 1)
    monkeypatch.setattr(search_bench, "QUICK_HEAD_TO_HEAD_GAMES", 1)
    ctx = bench.Context(game=get_game("shadow"), games=3, out=__import__("io").StringIO())
    # When the section runs
    figures = search_bench.bench(ctx, make_kit=one_ply, processes=1)
    # Then it reports the win rate, the head-to-head rate, the games and the time per move
    assert set(figures) == {
        "search_bot_win_rate",
        "search_bot_games",
        "search_bot_head_to_head",
        "search_bot_head_to_head_games",
        "search_bot_ms_per_move",
        "search_bot_iterations",
    }
    assert figures["search_bot_games"] == 1 and figures["search_bot_ms_per_move"] > 0
    assert figures["search_bot_iterations"] == 2
    assert "search bot scored" in ctx.out.getvalue()  # type: ignore[attr-defined]

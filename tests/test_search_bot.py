"""The search bot (services/bots/search.py) on any game of the contract, shown on toy21 (tests/service/
toy_game.py: two seats add 1 to 3 to a total, whoever reaches 21 wins), with the contract's default kit.

Reaching 17 wins by force (the opponent must leave 18 to 20, from which one move reaches 21): from 14, 15 or 16
the only winning move goes to 17, a two-move combination a one-ply bot cannot see."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.bots.kinds import SEARCH, bot_kinds, make_bot
from services.bots.search import SearchBot, SearchKit, outcome_value
from services.rules.contract import Capabilities, GameRules
from tests.service import toy_game as toy
from tests.service.toy_game import ToyRules, ToyState

RULES = ToyRules()


def at_total(total: int, turn: int = 0) -> ToyState:
    """toy21 with ``total`` reached and seat ``turn`` to play."""
    return ToyState(players=("a", "b"), total=total, turn=turn)


def amount(command: Any) -> int:
    return int(command.amount)


@pytest.mark.parametrize(("total", "winning"), [(18, 3), (14, 3), (15, 2), (16, 1)])
def test_given_a_forced_win_when_the_search_bot_decides_then_it_plays_the_winning_move(
    total: int, winning: int
) -> None:
    # Given a total from which exactly one move wins by force (at once from 18, via 17 from 14 to 16)
    state = at_total(total)
    # When the search bot decides for the seat to play, whatever its seed
    chosen = {amount(SearchBot(seed, SearchKit(iterations=300)).choose(RULES, state, 0)) for seed in range(5)}
    # Then it plays the winning move
    assert chosen == {winning}


def test_given_a_budget_when_the_search_bot_decides_then_it_runs_exactly_that_many_iterations() -> None:
    # Given a kit of 37 iterations whose evaluation counts its calls
    calls = []

    def counted(rules: GameRules[Any], state: Any, seat: int) -> float:
        calls.append(seat)
        return outcome_value(rules, state, seat)

    bot = SearchBot(3, SearchKit(iterations=37, evaluate=counted))
    # When it decides at the start of a game
    bot.choose(RULES, at_total(0), 0)
    # Then it ran 37 iterations, scored 37 positions for its seat (and some for the opponent, searched too),
    # and spread the visits over the three moves
    assert bot.stats.iterations == 37 and calls.count(0) == 37 and set(calls) == {0, 1}
    assert sum(bot.stats.root_visits.values()) == 37 and len(bot.stats.root_visits) == 3


def test_given_a_seed_when_the_search_bot_decides_twice_then_it_decides_the_same_way() -> None:
    # Given two bots with the same seed and one with another
    state = at_total(5)
    first, second = SearchBot(11, SearchKit(iterations=60)), SearchBot(11, SearchKit(iterations=60))
    # When they decide on the same position
    a, b = first.choose(RULES, state, 0), second.choose(RULES, state, 0)
    # Then the same seed gives the same command and the very same statistics
    assert a == b and first.stats.root_visits == second.stats.root_visits


def test_given_a_single_legal_command_when_the_search_bot_decides_then_it_spends_nothing() -> None:
    # Given a game in which the seat has one option only (the policy would raise if called)
    class OneMove(ToyRules):
        def legal_commands(self, state: ToyState, seat: int) -> list[Any]:
            return super().legal_commands(state, seat)[:1]

    def never(rules: GameRules[Any], state: Any, seat: int, rng: random.Random) -> Any:
        raise AssertionError("no search needed")

    bot = SearchBot(1, SearchKit(policy=never))
    # When it decides, Then it plays that command without an iteration
    assert amount(bot.choose(OneMove(), at_total(3), 0)) == 1 and bot.stats.iterations == 0


def test_given_a_game_with_secrets_but_no_determinize_when_searched_then_the_bot_refuses() -> None:
    # Given toy21 declared as having secrets, without an honest determinize
    class Secretive(ToyRules):
        capabilities = Capabilities(min_players=2, max_players=2, hidden_information=True)

    # When a search bot is asked to play it, Then it refuses rather than read the real state
    with pytest.raises(ValueError, match="determinize"):
        SearchBot(1).choose(Secretive(), at_total(3), 0)
    # And the generic search kind is offered to a game without secrets
    assert SEARCH in bot_kinds("toy21") and type(make_bot(SEARCH, toy.NAME, 1)).__name__ == "SearchBot"

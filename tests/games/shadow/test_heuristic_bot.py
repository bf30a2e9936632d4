"""The heuristic bot: it beats random bots, only ever sends legal commands, and plays sensibly in arranged
positions (wins a seat, breaks a tie for itself, backs the winner of a vote without peeking at sealed votes,
weighs a marriage, takes Rival only when it can win, buys VP)."""

from __future__ import annotations

from typing import Any

import pytest

from events.base import Command, Event
from services.bots.random_bot import RandomBot
from services.games.shadow.bots.arena import heuristic_win_rate, play_game
from services.games.shadow.bots.heuristic import HeuristicBot
from services.games.shadow.messages import commands as cmd
from services.games.shadow.messages import events as ev
from services.games.shadow.rules.state import GameState
from tests.games.shadow.support import RULES, given, request, start


# --- arranged positions -----------------------------------------------------------------------------------
def tile(owner: int, space: str, age: int = 25, couple: bool = False) -> ev.AristocratPlaced:
    return ev.AristocratPlaced(owner=owner, space=space, couple=couple, age=age, reason="test")


def knight(owner: int, space: str) -> ev.KnightPlaced:
    return ev.KnightPlaced(owner=owner, space=space)


def thalers(seat: int, balance: int) -> ev.ThalersChanged:
    return ev.ThalersChanged(seat=seat, delta=0, balance=balance, reason="test")


def position(*facts: Event, round_: int = 2, phase: int = 4, emperor: int = 0) -> GameState:
    """A real 4-player game start, then ``PhaseStarted`` and the arranged facts (the last one a request)."""
    return given([*start(4, {"start_player": emperor}), ev.PhaseStarted(round=round_, phase=phase), *facts])


def bot_choice(state: GameState, seat: int, seed: int = 0) -> Command:
    command = HeuristicBot(seed).choose(RULES, state, seat)
    assert command is not None
    assert command in RULES.legal_commands(state, seat)
    return command


# --- strength and legality ----------------------------------------------------------------------------------
def test_given_twenty_seeded_games_against_three_random_bots_when_the_heuristic_plays_then_it_wins_most() -> None:
    """[G3] Over 20 seeded 4-player games (its seat rotating, shared victories counted as wins) the heuristic
    bot wins at least 70% against three random bots; the seeds make the figure stable."""
    assert heuristic_win_rate(games=20, seed=0) >= 0.70


class CheckedBot:
    """Wraps a bot and checks that every command it sends is one of the seat's legal commands."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.sent = 0

    def choose(self, decider: Any, state: GameState, seat: int) -> Command | None:
        command = self.bot.choose(decider, state, seat)
        assert command is not None
        assert command in decider.legal_commands(state, seat), f"illegal: {command}"
        assert isinstance(decider.decide(state, command), list)
        self.sent += 1
        return command


@pytest.mark.parametrize(("players", "heuristic_seats"), [(2, (0, 1)), (3, (0, 1, 2)), (4, (1, 3))])
def test_given_games_of_two_to_four_players_when_heuristic_bots_play_then_every_command_they_pick_is_legal(
    players: int, heuristic_seats: tuple[int, ...]
) -> None:
    """[P1, P2, E2] Whatever the decision (setup, descendants, actions, ties, votes, the Emperor's city) and
    however many players (two-player games close two electorates [T1]), the bot's command is legal."""
    for seed in (1, 2):
        bots = [
            CheckedBot(HeuristicBot(seed * 10 + seat) if seat in heuristic_seats else RandomBot(seed * 10 + seat))
            for seat in range(players)
        ]
        state = play_game(RULES, bots, seed)
        assert state.over and state.round == 5
        assert all(bots[seat].sent > 10 for seat in heuristic_seats)


# --- sensible play in arranged positions --------------------------------------------------------------------
def test_given_a_tied_electorate_and_one_thaler_when_the_bot_acts_then_it_places_a_knight_there() -> None:
    """[V1, V2, V3, P1] Saxony is tied 1-1 between the bot and an opponent and the Emperor is not tied: one
    knight there makes the bot the sole winner of the seat (+2 VP), so that is where its last thaler goes."""
    state = position(
        tile(1, "saxony.aristocrat.0"),
        tile(2, "saxony.aristocrat.1"),
        tile(0, "throne"),
        thalers(1, 1),
        request("actions", 1),
    )
    assert bot_choice(state, 1) == cmd.PlaceKnight(seat=1, electorate="saxony", space_kind="aristocrat")


def test_given_a_tie_the_bot_is_in_when_it_breaks_it_as_emperor_then_it_names_itself() -> None:
    """[V2] The Emperor may pick himself among the tied players; the bot does, and enters the seat."""
    state = position(
        tile(0, "palatinate.aristocrat.0"),
        tile(2, "palatinate.aristocrat.1"),
        request("break_tie", 0, electorate="palatinate", tied=(0, 2), step=3),
        phase=5,
    )
    assert bot_choice(state, 0) == cmd.BreakTie(seat=0, winner=0)


def election(*facts: Event, sealed: dict[int, str] | None = None) -> GameState:
    """Phase VI: seat 0 is Emperor, seat 1 Rival; seats 2 and 3 vote (with optional sealed votes)."""
    votes = [ev.VoteSealed(seat=seat, candidate=candidate) for seat, candidate in (sealed or {}).items()]
    return position(
        ev.CardTaken(seat=1, card="rival", cost=0),
        *facts,
        ev.ElectionCalled(emperor=0, rival=1),
        *votes,
        request("vote", 2, 3),
        phase=6,
    )


def test_given_the_emperor_outvotes_everyone_when_the_bot_votes_then_it_backs_the_emperor() -> None:
    """[E1, E2, E3] The Emperor holds three electors, the Rival one and the other voter one: the Emperor wins
    whatever happens, so the bot backs him for the 1 VP."""
    state = election(
        tile(0, "mainz.elector", age=25),
        tile(0, "koeln.elector", age=25),
        tile(0, "trier.elector", age=25),
        tile(1, "saxony.elector", age=25),
        tile(3, "palatinate.elector", age=25),
    )
    assert bot_choice(state, 2) == cmd.CastVote(seat=2, candidate="emperor")


@pytest.mark.parametrize("secret", ["emperor", "rival"])
def test_given_an_opponents_sealed_vote_when_the_bot_votes_then_its_choice_does_not_depend_on_it(
    secret: str,
) -> None:
    """[E2] Votes are secret until all are in: seat 3 (2 votes, Bohemia) has sealed its vote, which decides
    the election (Emperor 1 vote, Rival 1). The bot's vote is the same whichever way seat 3 voted."""
    facts = (
        tile(0, "mainz.elector", age=25),
        tile(1, "saxony.elector", age=25),
        tile(3, "bohemia.elector", age=25),
    )
    chosen = bot_choice(election(*facts, sealed={3: secret}), 2)
    assert chosen == bot_choice(election(*facts), 2)


def marriage(*facts: Event, space: str) -> GameState:
    """Phase III of round 2: seat 3 (the last to be handled) offered a daughter to the bot's Baron on
    ``space``."""
    return position(
        *facts,
        ev.DaughterOffered(seat=3, to_seat=1, space=space),
        request("marriage_answer", 1, offer_from=3, space=space, step=3),
        phase=3,
    )


def test_given_a_marriage_that_wins_a_seat_when_the_bot_answers_then_it_accepts() -> None:
    """[D3, V1] The bot's Baron in Saxony is tied 1-1 with seat 2: as a Couple it has 2 power and takes the
    seat (+2 VP), worth more than the 1 VP the offer gives seat 3."""
    state = marriage(tile(1, "saxony.aristocrat.0"), tile(2, "saxony.aristocrat.1"), space="saxony.aristocrat.0")
    assert bot_choice(state, 1) == cmd.AnswerMarriage(seat=1, accept=True)


def test_given_a_marriage_that_changes_nothing_when_the_bot_answers_then_it_declines() -> None:
    """[D3, A1] The offer is for the bot's Emperor tile, aged 45: the throne lies in no electorate and the
    tile dies next phase II, so a Couple gains nothing and accepting would only give seat 3 a VP."""
    state = marriage(tile(1, "throne", age=45), space="throne")
    assert bot_choice(state, 1) == cmd.AnswerMarriage(seat=1, accept=False)


def test_given_more_votes_than_the_emperor_and_no_thalers_when_the_bot_acts_then_it_takes_rival() -> None:
    """[P1, E1, E2, R1] The bot holds two electors, the Emperor one, and nobody else votes: as Rival it wins
    the election and the Emperor's bonus, so it challenges rather than pass."""
    state = position(
        tile(0, "mainz.elector", age=25),
        tile(1, "koeln.elector", age=25),
        tile(1, "trier.elector", age=25),
        thalers(1, 0),
        request("actions", 1),
    )
    assert bot_choice(state, 1) == cmd.BuyRival(seat=1)


def test_given_fewer_votes_than_the_emperor_when_the_bot_acts_then_it_does_not_take_rival() -> None:
    """[P1, E2] The Emperor holds two electors and the bot none: a challenge would be lost, so the bot
    passes instead of taking Rival."""
    state = position(
        tile(0, "mainz.elector", age=25),
        tile(0, "koeln.elector", age=25),
        thalers(1, 0),
        request("actions", 1),
    )
    assert bot_choice(state, 1) == cmd.Pass(seat=1)


def test_given_the_last_round_and_two_thalers_when_the_bot_acts_then_it_buys_the_indulgence() -> None:
    """[P5, G3] In round 5 thalers are worth nothing at the end; with 2 thalers, no seat within reach and
    the Emperor holding two electors (no Rival challenge can win, even with a Pope), the Indulgence (1 VP)
    is the best use."""
    state = position(
        tile(0, "mainz.elector", age=25),
        tile(0, "koeln.elector", age=25),
        thalers(1, 2),
        request("actions", 1),
        round_=5,
    )
    assert bot_choice(state, 1) == cmd.BuyIndulgence(seat=1)

"""Determinizing a Barracks position for one seat [K14] (services/games/barracks/rules/determinize.py): what the seat
sees is kept, the rest (others' unknown hand cards, the deck's order, the Emperor deck, the seed) re-drawn
without being read; so the generic search bot may play Barracks."""

from __future__ import annotations

import random

from services.bots.kinds import bot_kinds, make_bot
from services.bots.search import SearchBot, SearchKit
from services.games.barracks import plugin
from services.games.barracks.rules.state import DECK, HAND, Game
from tests.games.barracks.support import NAMES

PLUGIN = plugin()
RULES, PRESENTER = PLUGIN.game_rules, PLUGIN.game_presenter


def positions(seed: int) -> list[Game]:
    """Every 7th position of a seeded random 4-player game."""
    rng = random.Random(seed)
    state = RULES.fold(RULES.start(NAMES, {}, seed))
    found = []
    while not RULES.is_over(state):
        found.append(state)
        (seat,) = RULES.awaited(state)
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
    return found[::7]


def swapped(g: Game, seat: int) -> Game | None:
    """``g`` with a card of another seat's hand that ``seat`` does not know swapped with the deck's top card."""
    for other in range(len(g.players)):
        hidden = [c for c in g.hands[other] if c not in g.known[other]]
        if other == seat or not hidden or not g.deck or g.looked:
            continue
        twin = g.copy()
        card, top = hidden[0], g.deck[-1]
        twin.hands[other] = [top if c == card else c for c in g.hands[other]]
        twin.deck[-1] = card
        twin.loc[card], twin.loc[top] = DECK, HAND + other
        return twin
    return None


def test_given_positions_when_determinized_then_the_seat_sees_the_same_and_the_hidden_cards_move() -> None:
    moved = 0
    for state in positions(4):
        for seat in range(len(state.players)):
            # When a position is determinized for a seat
            world = RULES.determinize(state, seat, random.Random(seat))
            # Then its view and its options are the real ones; its hand and every count are kept
            assert PRESENTER.view(world, seat) == PRESENTER.view(state, seat)
            assert RULES.legal_commands(world, seat) == RULES.legal_commands(state, seat)
            assert world.hands[seat] == state.hands[seat] and len(world.deck) == len(state.deck)
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            moved += world.deck != state.deck or world.hands != state.hands
    # And the hidden cards were really re-dealt (not left where they are)
    assert moved > 0


def test_given_two_positions_differing_only_in_a_hidden_card_when_determinized_then_the_same() -> None:
    compared = 0
    for state in positions(6):
        for seat in range(len(state.players)):
            # Given the position and its twin in which a card of another seat's hidden hand and the deck's top
            # card are swapped (the seat cannot tell them apart)
            twin = swapped(state, seat)
            if twin is None:
                continue
            assert PRESENTER.view(twin, seat) == PRESENTER.view(state, seat)
            # When both are determinized for the seat with the same seed, Then the results are equal
            a = RULES.determinize(state, seat, random.Random(3))
            b = RULES.determinize(twin, seat, random.Random(3))
            assert a.record() == b.record()
            compared += 1
    assert compared > 0


def test_given_barracks_when_listing_bot_kinds_then_the_generic_search_bot_plays_it() -> None:
    # Given Barracks, which now determinizes honestly, Then the generic search bot is offered and plays legally
    assert "search" in bot_kinds("barracks")
    state = positions(2)[3]
    (seat,) = RULES.awaited(state)
    bot = make_bot("search", "barracks", 1)
    assert isinstance(bot, SearchBot)
    command = SearchBot(1, SearchKit(iterations=10, playout=30)).choose(RULES, state, seat)
    assert command in RULES.legal_commands(state, seat)

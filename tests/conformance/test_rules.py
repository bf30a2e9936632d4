"""Conformance of a game's rules: what every game plug-in must do, checked over seeded random games.

Listed legal commands are accepted, and nothing else is; a rejection is typed and changes nothing; folding the
recorded events rebuilds the live state, and a snapshot restores it; the same seed gives the same game; every
event cites its rulings; events and commands survive their codecs.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.base import Rejection
from services.rules.contract import GamePlugin
from tests.conformance.conftest import games_of
from tests.conformance.harness import play

LEGAL_TRIED = 12
"""Legal commands decided per step (all of them when there are fewer)."""


def test_given_random_games_when_a_listed_legal_command_is_decided_then_it_is_accepted(game: GamePlugin) -> None:
    rules = game.rules
    for played in games_of(game):
        rng = random.Random(played.seed)
        for step in played.steps:
            for seat in rules.awaited(step.before):
                legal = rules.legal_commands(step.before, seat)
                assert legal, f"seat {seat} is awaited but lists no legal command"
                for command in rng.sample(legal, min(LEGAL_TRIED, len(legal))):
                    assert command.seat == seat
                    outcome = rules.decide(step.before, command)
                    assert not isinstance(outcome, Rejection), (command, outcome)
                    assert outcome, f"{command} was accepted without an event"


def test_given_random_games_when_a_seat_not_awaited_sends_a_legal_command_then_a_typed_rejection_and_no_change(
    game: GamePlugin,
) -> None:
    rules = game.rules
    checked = everyone_awaited = 0
    for played in games_of(game):
        for step in played.steps:
            awaited = rules.awaited(step.before)
            idle = [s for s in range(len(played.players)) if s not in awaited]
            everyone_awaited += not idle
            assert all(not rules.legal_commands(step.before, s) for s in idle), "a seat not awaited lists commands"
            before = rules.snapshot(step.before)
            for seat in idle:
                moved = dict(rules.encode_command(step.command), seat=seat)
                outcome = rules.decide(step.before, rules.parse_command(moved))
                assert_rejected(outcome)
                checked += 1
            assert rules.snapshot(step.before) == before
    assert checked > 0 or everyone_awaited


def test_given_a_game_over_when_any_command_is_sent_then_it_is_rejected(game: GamePlugin) -> None:
    rules = game.rules
    for played in games_of(game):
        for step in played.steps[-3:]:
            assert_rejected(rules.decide(played.final, step.command))


def assert_rejected(outcome: Any) -> None:
    """A typed rejection: a stable code and a sentence."""
    assert isinstance(outcome, Rejection), f"accepted: {outcome}"
    assert isinstance(outcome.code, str) and outcome.code and isinstance(outcome.message, str) and outcome.message


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_given_a_legal_command_with_a_field_changed_when_decided_then_accepted_exactly_when_listed(data: Any) -> None:
    """Mutated fields, wrong types, unknown fields: the codec refuses it with a ValueError, or the rules accept it
    exactly when it is one of the listed legal commands (and then nothing else changes either)."""
    from services.rules.registry import get_game
    from tests.conformance.conftest import GAMES

    game = get_game(data.draw(st.sampled_from(GAMES), label="game"))
    rules = game.rules
    played = games_of(game)[0]
    step = data.draw(st.sampled_from(played.steps), label="step")
    seat = data.draw(st.sampled_from(rules.awaited(step.before)), label="seat")
    legal = rules.legal_commands(step.before, seat)
    base = rules.encode_command(data.draw(st.sampled_from(legal), label="command"))
    fields = sorted(k for k in base if k != "type")
    key = data.draw(st.sampled_from([*fields, "unknown_field"]), label="field")
    raw = dict(base)
    changed = data.draw(
        st.sampled_from([v for c in legal for k, v in rules.encode_command(c).items() if k == key] or [None])
        | JSON_VALUES,
        label="value",
    )
    raw[key] = changed
    try:
        command = rules.parse_command(orjson.dumps(raw))
    except ValueError:
        return  # refused by the codec: a typed error at the edge
    before = rules.snapshot(step.before)
    outcome = rules.decide(step.before, command)
    listed = [rules.encode_command(c) for c in legal]
    if rules.encode_command(command) in listed:
        assert not isinstance(outcome, Rejection), (raw, outcome)
    else:
        assert_rejected(outcome)
    assert rules.snapshot(step.before) == before


@pytest.mark.parametrize("raw", [b"{", b"[]", b'{"type": "NoSuchCommand", "seat": 0}', b'{"seat": 0}', b"null"])
def test_given_malformed_input_when_parsed_then_a_value_error(game: GamePlugin, raw: bytes) -> None:
    with pytest.raises(ValueError):
        game.rules.parse_command(raw)
    with pytest.raises(ValueError):
        game.rules.parse_event(raw)


def test_given_recorded_events_when_folded_then_the_live_state_and_snapshots_restore_it(game: GamePlugin) -> None:
    rules = game.rules
    for played in games_of(game):
        assert rules.fold(played.events) == played.final
        assert rules.is_over(played.final) and rules.result(played.final) is not None
        for step in played.steps[:: max(1, len(played.steps) // 25)] + played.steps[-1:]:
            for state in (step.before, step.after):
                assert rules.restore(rules.snapshot(state)) == state
        # replay never re-runs a rule: parsing the stored JSON and folding gives the same state
        parsed = [rules.parse_event(rules.encode_event_bytes(e)) for e in played.events]
        assert rules.fold(parsed) == played.final


def test_given_the_same_seed_when_played_again_then_the_same_events(game: GamePlugin) -> None:
    for played in games_of(game)[:2]:
        again = play(game, len(played.players), played.seed, played.settings)
        assert [game.rules.encode_event(e) for e in again.events] == [game.rules.encode_event(e) for e in played.events]


def test_given_random_games_when_events_are_recorded_then_each_cites_rulings(game: GamePlugin) -> None:
    for played in games_of(game):
        for event in played.events:
            data = game.rules.encode_event(event)
            assert data["type"] == event.type and tuple(data["rulings"]) == tuple(event.rulings)
            assert event.rulings and all(isinstance(r, str) and r for r in event.rulings), data


def test_given_events_and_commands_when_encoded_and_parsed_then_they_are_the_same(game: GamePlugin) -> None:
    rules = game.rules
    for played in games_of(game):
        for event in played.events:
            data = rules.encode_event(event)
            assert orjson.loads(orjson.dumps(data)) == data, "encode_event is not JSON-ready"
            assert rules.parse_event(data) == event
            assert rules.parse_event(rules.encode_event_bytes(event)) == event
        for step in played.steps:
            data = rules.encode_command(step.command)
            assert data["type"] == step.command.type and data["seat"] == step.command.seat
            assert rules.parse_command(orjson.dumps(data)) == step.command

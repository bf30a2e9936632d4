"""Every installed game's ``view_schema`` is true to its views: the views of a played game (every seat's and a
spectator's, at every position, and once the game is over) conform to it, and it is no bare object."""

from __future__ import annotations

import random

import jsonschema
import pytest

from services.rules.registry import game_names, get_game

TYPED = [name for name in game_names() if get_game(name).view_schema is not None]


@pytest.mark.parametrize("name", TYPED)
def test_given_a_played_game_when_each_reader_looks_then_the_view_conforms_to_the_games_view_schema(name: str) -> None:
    # Given a game with a view schema, played through by random legal moves
    game = get_game(name)
    rules, presenter = game.rules, game.presenter
    schema = game.view_schema
    assert schema is not None
    validator = jsonschema.Draft202012Validator(schema)
    caps = rules.capabilities
    players = [f"P{i}" for i in range(caps.max_players)]
    rng = random.Random(5)
    state = rules.fold(rules.start(players, {}, 5))
    readers: list[int | None] = [None, *range(len(players))]
    # When every reader looks, before each move and at the end
    looked = 0
    while True:
        for seat in readers:
            errors = sorted(validator.iter_errors(presenter.view(state, seat)), key=str)
            # Then the view conforms
            assert not errors, (
                f"{name} view for {seat} at {state.version if hasattr(state, 'version') else '?'}: {errors[0]}"
            )
            looked += 1
        if rules.is_over(state):
            break
        seat = rules.awaited(state)[0]
        command = rules.sample_legal(state, seat, rng)
        assert command is not None
        events = rules.decide(state, command)
        assert isinstance(events, list)
        for event in events:
            state = rules.evolve(state, event)
    assert looked > len(readers)


@pytest.mark.parametrize("name", TYPED)
def test_a_games_view_schema_names_the_views_fields(name: str) -> None:
    # Given a game's view schema; then it is no bare object: its views have typed properties
    schema = get_game(name).view_schema
    assert schema is not None
    variants = schema.get("anyOf") or schema.get("oneOf") or [schema]
    defs = schema.get("$defs", {})
    resolved = [defs[v["$ref"].rsplit("/", 1)[-1]] if "$ref" in v else v for v in variants]
    assert any(len(v.get("properties", {})) > 10 for v in resolved)
    # and a view of the game's start validates against it
    rules = get_game(name).rules
    state = rules.fold(rules.start(["A", "B"], {}, 1))
    jsonschema.validate(get_game(name).presenter.view(state, 0), schema, cls=jsonschema.Draft202012Validator)

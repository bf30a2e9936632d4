"""Conformance of a game's presenter: nothing it shows one seat (or a spectator) carries another seat's secret.

A game declares its secrets (``Presenter.secrets``: what some seat alone may know now, with how it would show);
the suite reads everything the presenter gives each reader at each moment of seeded random games, with the
table options switched on too: the view, the replay view, the text and SVG boards, the labels of its legal
commands and their menu groups, its prompt, the event just recorded as redacted and as narrated for it, and the
scoreboard (public). A game without secrets
passes trivially; the Shadow suite checks that its secrets are really met (tests/games/shadow/).
"""

from __future__ import annotations

import random
from typing import Any

from services.rules.contract import GamePlugin, Secret
from tests.conformance.conftest import games_of
from tests.conformance.harness import Shown, as_json, text_shows


def leaks(outputs: list[Any], texts: list[str], secrets: list[Secret], reader: int | None) -> list[str]:
    """The secrets of seats other than ``reader`` that the outputs show."""
    found = []
    shown = [Shown(as_json(value)) for value in outputs]  # indexed once, asked for every secret
    for secret in secrets:
        if secret.owner == reader:
            continue
        for i, output in enumerate(shown):
            if output.shows(secret):
                found.append(f"JSON output {i} shows {secret}")
        found += [f"text shows {secret}" for text in texts if text_shows(text, secret)]
    return found


def test_given_random_games_when_each_reader_is_shown_the_game_then_no_other_seats_secret(game: GamePlugin) -> None:
    rules, presenter = game.rules, game.presenter
    met = 0
    for played in games_of(game):
        readers: list[int | None] = [*range(len(played.players)), None]
        # Every event as each reader receives it live: redacted with the state right after it
        for event, state in played.moments():
            secrets = list(presenter.secrets(state))
            met += bool(secrets)
            for reader in readers:
                shown = presenter.redact(event, reader, state)
                assert shown is None or isinstance(shown, dict)
                told = presenter.narrate(event, reader, state, played.players)
                assert (told is None) == (shown is None), (event.type, reader, told)
                problems = leaks([shown], [told or ""], secrets, reader)
                assert not problems, (event.type, reader, problems)
        # Everything shown of each position at rest (after each command), and the replay of it made then
        for step in played.steps:
            state = step.after
            secrets = list(presenter.secrets(state))
            if not secrets:
                continue
            for reader in readers:
                legal = rules.legal_commands(state, reader) if reader is not None else []
                outputs = [presenter.view(state, reader), presenter.replay_view(state, reader, state)]
                texts = [
                    presenter.render_text(state, reader),
                    presenter.render_svg(state, reader),
                    *(presenter.label(c, state) for c in legal),
                    *([presenter.prompt(state, reader) or ""] if reader is not None else []),
                    *(title for title, _ in presenter.menu_groups(legal, state)),
                ]
                if reader is None:
                    outputs.append(presenter.scoreboard(state))
                problems = leaks(outputs, texts, secrets, reader)
                assert not problems, (reader, problems)
            assert presenter.views(state, readers) == [presenter.view(state, r) for r in readers]
    if game.rules.capabilities.hidden_information:
        assert met > 0, "a game with hidden information showed no secret in its random games"


def test_given_a_game_over_when_secrets_are_asked_then_none_are_left(game: GamePlugin) -> None:
    for played in games_of(game):
        assert not list(game.presenter.secrets(played.final))


def test_given_random_games_when_determinized_for_a_seat_then_that_seat_sees_the_same_game(game: GamePlugin) -> None:
    """``GameRules.determinize`` (what a search bot plays on) keeps everything a seat may see: its view and its
    legal commands are those of the real position. A game with secrets that does not declare ``determinizes``
    keeps the default (the state itself), which a search bot refuses to play on."""
    rules, presenter = game.rules, game.presenter
    if rules.capabilities.hidden_information and not rules.capabilities.determinizes:
        return
    for played in games_of(game):
        for step in played.steps[::5]:
            state = step.after
            for seat in range(len(played.players)):
                world = rules.determinize(state, seat, random.Random(seat))
                assert presenter.view(world, seat) == presenter.view(state, seat)
                assert rules.legal_commands(world, seat) == rules.legal_commands(state, seat)

"""Conformance of a game's words for chat-bots and notifications: a prompt for exactly the seats the game waits
for, menu groups that partition the legal commands, and a narration of every event a reader is shown."""

from __future__ import annotations

from services.rules.contract import GamePlugin
from tests.conformance.conftest import games_of


def test_given_random_games_when_each_seat_is_prompted_then_exactly_the_awaited_seats_are_asked(
    game: GamePlugin,
) -> None:
    rules, presenter = game.rules, game.presenter
    for played in games_of(game):
        for step in played.steps:
            state = step.after
            awaited = set(rules.awaited(state))
            for seat in range(len(played.players)):
                prompt = presenter.prompt(state, seat)
                if seat in awaited and not rules.is_over(state):
                    assert isinstance(prompt, str) and prompt.strip(), (seat, prompt)
                else:
                    assert prompt is None, (seat, prompt)


def test_given_random_games_when_legal_commands_are_grouped_then_the_groups_partition_them_in_order(
    game: GamePlugin,
) -> None:
    rules, presenter = game.rules, game.presenter
    for played in games_of(game):
        for step in played.steps[::3]:
            state = step.after
            for seat in rules.awaited(state):
                legal = rules.legal_commands(state, seat)
                groups = presenter.menu_groups(legal, state)
                indexes = [i for _, part in groups for i in part]
                assert sorted(indexes) == list(range(len(legal))), groups
                assert all(part == sorted(part) and part for _, part in groups)
                assert all(isinstance(title, str) and title.strip() for title, _ in groups)
                assert len({title for title, _ in groups}) == len(groups)


def test_given_random_games_when_events_are_narrated_then_each_shown_event_has_words(game: GamePlugin) -> None:
    presenter = game.presenter
    for played in games_of(game):
        for event, state in played.moments():
            for reader in [*range(len(played.players)), None]:
                told = presenter.narrate(event, reader, state, played.players)
                assert told is None or (isinstance(told, str) and told.strip())

"""High Card, the template game: a small complete game plug-in of the contract (services/rules/contract.py).

Copy this package to write a new game (docs/pages/adding-a-game.md). ``plugin`` is what the ``throne.games``
entry point in pyproject.toml names: the service finds the game through it, and nothing else of the service
names the game.
"""

from __future__ import annotations

from pathlib import Path

from services.rules.contract import GamePlugin

RULES_REFERENCE = Path(__file__).with_name("RULES.md")


def plugin() -> GamePlugin:
    """The whole game: rules, presenter, bots, rules reference and JSON Schemas (imported on first use, so a
    process that serves other games never loads this one)."""
    from services.games.highcard.bots import greedy_bot, random_bot
    from services.games.highcard.messages import COMMAND_ADAPTER, EVENT_ADAPTER, HighCardSettings
    from services.games.highcard.presentation import VIEW_ADAPTER, HighCardPresenter
    from services.games.highcard.rules import HighCardRules

    rules = HighCardRules()
    return GamePlugin(
        game_rules=rules,
        game_presenter=HighCardPresenter(rules),
        bots={"greedy": greedy_bot, "random": random_bot},
        rules_reference=RULES_REFERENCE,
        settings_schema=HighCardSettings.model_json_schema(),
        command_schema=COMMAND_ADAPTER.json_schema(),
        event_schema=EVENT_ADAPTER.json_schema(),
        view_schema=VIEW_ADAPTER.json_schema(),
    )

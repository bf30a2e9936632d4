"""The Barracks Emperors as a plug-in of the game contract (services/rules/contract.py)."""

from __future__ import annotations

from pathlib import Path

from services.games.barracks.messages.commands import COMMAND_ADAPTER
from services.games.barracks.messages.events import EVENT_ADAPTER
from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.presentation.view_model import VIEW_ADAPTER
from services.rules.contract import GamePlugin

RULES_REFERENCE = Path(__file__).with_name("RULES.md")


def plugin() -> GamePlugin:
    """The whole game: rules, presenter, bots (random, heuristic), rules reference and JSON Schemas."""
    from services.games.barracks.bots.heuristic import heuristic_bot, random_bot
    from services.games.barracks.presentation.presenter import BarracksPresenter
    from services.games.barracks.rules.decider import BarracksRules

    rules = BarracksRules()
    return GamePlugin(
        game_rules=rules,
        game_presenter=BarracksPresenter(rules),
        bots={"random": random_bot, "heuristic": heuristic_bot},
        rules_reference=RULES_REFERENCE,
        settings_schema=BarracksSettings.model_json_schema(),
        command_schema=COMMAND_ADAPTER.json_schema(),
        event_schema=EVENT_ADAPTER.json_schema(),
        view_schema=VIEW_ADAPTER.json_schema(),
    )

"""In the Shadow of the Emperor as one game plug-in: what the ``throne.games`` entry point ``shadow`` loads.

The rules (:class:`ShadowRules`), the presenter (:class:`ShadowPresenter`), the bots (``heuristic``, the
default opponent, ``random`` and ``search``), the rules reference RULES.md, and the JSON Schemas of the table
settings, the commands, the events and the views.
"""

from __future__ import annotations

from pathlib import Path

from services.games.shadow.messages.commands import COMMAND_ADAPTER
from services.games.shadow.messages.events import EVENT_ADAPTER
from services.games.shadow.messages.settings import ShadowSettings
from services.games.shadow.presentation.view_model import VIEW_ADAPTER
from services.rules.contract import JSON, Bot, GamePlugin

HERE = Path(__file__).resolve().parent
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _heuristic(seed: int) -> Bot:
    from services.games.shadow.bots.heuristic import HeuristicBot

    return HeuristicBot(seed)


def _search(seed: int) -> Bot:
    from services.games.shadow.bots.search import search_bot

    return search_bot(seed)


def _random(seed: int) -> Bot:
    from services.bots.random_bot import RandomBot

    return RandomBot(seed)


def _schema(title: str, schema: JSON) -> JSON:
    return {"$schema": SCHEMA_DIALECT, "title": title, **schema}


def plugin() -> GamePlugin:
    """The Shadow game plug-in (a new one each call: cheap; the registry keeps one per process)."""
    from services.games.shadow.presentation.presenter import ShadowPresenter
    from services.games.shadow.rules.decider import ShadowRules

    rules = ShadowRules()
    return GamePlugin(
        game_rules=rules,
        game_presenter=ShadowPresenter(rules),
        bots={"heuristic": _heuristic, "random": _random, "search": _search},
        rules_reference=HERE / "RULES.md",
        settings_schema=_schema("shadow.settings", ShadowSettings.model_json_schema()),
        command_schema=_schema("shadow.commands", COMMAND_ADAPTER.json_schema()),
        event_schema=_schema("shadow.events", EVENT_ADAPTER.json_schema()),
        view_schema=_schema("shadow.views", VIEW_ADAPTER.json_schema()),
    )

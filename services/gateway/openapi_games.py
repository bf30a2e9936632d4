"""The request of ``POST /games`` in the OpenAPI document, per game and table size.

What makes a new game's request valid depends on the game and on how many players it names: the game's own
table settings, its bots, its player counts, and seats (``open``, ``bots``, ``player_ids``) that exist at a
table of that size. The generic model (:class:`~services.gateway.models.CreateGameRequest`) can not say so; the
document does, as one variant per installed game and table size (``<game>.CreateGameRequest.<n>``), told apart
by ``game``. What no JSON Schema can say is left to the gateway's typed 422: names that differ only in case,
player ids given twice.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from services.bots.kinds import bot_kinds
from services.bus.names import PLAYER_ID_RE, name_pattern
from services.rules.contract import JSON, GamePlugin

PLAYER_NAME = "PlayerName"
"""The component of one player name (its pattern is long: the document holds it once)."""
_MODELS = ("CreateGameRequest", "CreateGameRequest-Input")
_KEEP = ("title", "description")


def _kept(schema: JSON) -> JSON:
    return {k: v for k, v in schema.items() if k in _KEEP}


def _seats(size: int) -> JSON:
    return {"type": "integer", "minimum": 0, "maximum": size - 1}


def _variant(base: JSON, plugin: GamePlugin, size: int, settings: JSON, kinds: list[str]) -> JSON:
    """The request of a game of ``plugin`` at a table of ``size`` seats."""
    variant = copy.deepcopy(base)
    props = variant["properties"]
    props["game"] = {"type": "string", "const": plugin.name, **_kept(props["game"])}
    props["players"] = {
        "type": "array", "items": {"$ref": f"#/components/schemas/{PLAYER_NAME}"}, "minItems": size,
        "maxItems": size, "uniqueItems": True, **_kept(props["players"]),
    }  # fmt: skip
    props["settings"] = {**settings, **_kept(props["settings"])}
    props["bots"] = {
        "type": "object", "propertyNames": {"enum": [str(seat) for seat in range(size)]},
        "additionalProperties": {"type": "string", "enum": kinds}, **_kept(props["bots"]),
    }  # fmt: skip
    ids = next(option for option in props["player_ids"]["anyOf"] if option.get("type") == "array")
    props["player_ids"] = {
        "anyOf": [{**ids, "minItems": size, "maxItems": size}, {"type": "null"}],
        **_kept(props["player_ids"]),
    }
    props["open"] = {
        "type": "array", "items": _seats(size), "maxItems": size, "uniqueItems": True, **_kept(props["open"])
    }  # fmt: skip
    # A seat is open or a bot's, not both.
    variant["allOf"] = [
        {"not": {"required": ["open", "bots"], "properties": {"open": {"contains": {"const": seat}},
                                                              "bots": {"required": [str(seat)]}}}}
        for seat in range(size)
    ]  # fmt: skip
    variant["required"] = sorted({*variant.get("required", ()), "game", "players"})
    variant["title"] = f"{plugin.name}.CreateGameRequest.{size}"
    return variant


def _resolve(components: dict[str, JSON], schema: JSON) -> list[JSON]:
    """The object schemas ``schema`` may be: itself, its ``anyOf`` options, references followed."""
    if "$ref" in schema:
        return _resolve(components, components.get(schema["$ref"].rsplit("/", 1)[-1], {}))
    if "anyOf" in schema:
        return [found for option in schema["anyOf"] for found in _resolve(components, option)]
    return [schema] if "properties" in schema else []


def _clock_bots(components: dict[str, JSON], settings: str, kinds: list[str]) -> None:
    """The table setting ``clock.bot`` (the kind of bot a timed-out seat is handed to, which the gateway checks
    against the game's bots) as one of ``kinds``."""
    for table in _resolve(components, components[settings]):
        for clock in _resolve(components, table["properties"].get("clock", {})):
            bot = clock["properties"].get("bot")
            if bot is None:
                continue
            options = bot.get("anyOf", [bot])
            named = [{"type": "string", "enum": kinds} if o.get("type") == "string" else o for o in options]
            clock["properties"]["bot"] = {**_kept(bot), "anyOf": named}


def new_game_variants(document: JSON, plugins: Iterable[GamePlugin]) -> None:
    """The body of ``POST /games`` as one of the per-game, per-size variants (in place)."""
    from services.gateway.openapi import game_components  # the generic document's helpers

    components: dict[str, JSON] = document["components"]["schemas"]
    model = next((name for name in _MODELS if name in components), None)
    operation = document.get("paths", {}).get("/games", {}).get("post")
    if model is None or operation is None:
        return
    base = components[model]
    components[PLAYER_NAME] = {"type": "string", "pattern": name_pattern(), "title": PLAYER_NAME}
    ids = next(option for option in base["properties"]["player_ids"]["anyOf"] if option.get("type") == "array")
    ids["items"] = {"anyOf": [{"type": "string", "pattern": f"^{PLAYER_ID_RE.pattern}$"}, {"type": "null"}]}
    base["properties"]["players"]["items"] = {"$ref": f"#/components/schemas/{PLAYER_NAME}"}
    refs = []
    for plugin in plugins:
        settings: JSON = {"type": "object", "additionalProperties": True}
        if plugin.settings_schema:
            components.update(game_components(plugin.name, "Settings", "settings", plugin.settings_schema))
            settings = {"$ref": f"#/components/schemas/{plugin.name}.Settings"}
            _clock_bots(components, f"{plugin.name}.Settings", list(bot_kinds(plugin.name)))
        caps = plugin.rules.capabilities
        for size in range(caps.min_players, caps.max_players + 1):
            name = f"{plugin.name}.CreateGameRequest.{size}"
            components[name] = _variant(base, plugin, size, settings, list(bot_kinds(plugin.name)))
            refs.append({"$ref": f"#/components/schemas/{name}"})
    body = operation["requestBody"]["content"]["application/json"]
    body["schema"] = {"oneOf": refs}

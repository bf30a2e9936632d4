"""The typed OpenAPI document: the games' own schemas of views, commands and events, and short operation ids.

The gateway's models carry a game's view, commands and events as JSON objects (the gateway knows no game).
The document is made precise afterwards, from the installed games' plug-ins (``GamePlugin.view_schema``,
``command_schema``, ``event_schema``, found through the registry): each game's schemas go into the components
under the game's name (``shadow.View``, ``shadow.Command``, ``shadow.Event``, their parts as
``shadow.views.<Name>``, ``shadow.commands.<Name>``, ``shadow.events.<Name>``), and the document points at
them:

* the answers that name their game (``game``: ``SeatView``, ``SeatEvents``, ``CommandResult``) are, per route,
  one of their per-game variants (``shadow.SeatView``, ...), discriminated by ``game``: in ``shadow.SeatView``
  the view is ``shadow.View`` and the legal commands ``shadow.Command``; in ``shadow.SeatEvents`` and
  ``shadow.CommandResult`` an event is ``shadow.Event``, a redacted event (``RedactedEvent``: ``{"type",
  "redacted": true, ...}``, what a seat may see of another's secret) or null (withheld);
* the generic models keep the union of every game's (``SeatView.view``: one of the games' views, a replay
  step's ``ReplayStep.event`` one of the games' events, redacted or null, ...);
* ``CommandRequest.command``: one of the games' commands with ``seat`` optional (the gateway fills in the
  token's seat).

A game that declares no such schema (a test's toy game) is typed as a plain object where the schema would be
(in its variants, and added to the generic unions), which keeps the document true for it.

Operation ids are short (``submitCommand``, ``getSeatView``): :data:`OPERATION_IDS` names the gateway's routes;
any other route gets its function's name in camelCase.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from services.bus.envelope import MAX_PLAYERS
from services.gateway.openapi_games import new_game_variants
from services.rules.contract import JSON, GamePlugin
from services.rules.registry import game_names, get_game

OPERATION_IDS = {
    "create_game": "createGame",
    "game_summary": "getGame",
    "send_command": "submitCommand",
    "command_outcome": "getCommandOutcome",
    "seat_view": "getSeatView",
    "spectator_view": "getSpectatorView",
    "seat_events": "getSeatEvents",
    "spectator_events": "getSpectatorEvents",
    "chat": "sendChat",
    "scoreboard": "getScoreboard",
    "leaderboard": "getLeaderboard",
    "replay": "getReplay",
    "replay_steps": "getReplaySteps",
    "audit": "getAudit",
    "verify": "verifyGame",
    "board_svg": "getBoardSvg",
    "board_text": "getBoardText",
    "create_board_link": "createBoardLink",
    "linked_board": "getLinkedBoard",
    "schemas": "listSchemas",
    "schema": "getSchema",
    "health": "getHealth",
}
"""Operation ids of the gateway's routes, by the route function's name."""

KINDS = (
    ("View", "views", "view_schema"),
    ("Command", "commands", "command_schema"),
    ("Event", "events", "event_schema"),
)
"""(component suffix, parts' namespace, plug-in attribute) of each kind of a game's schema."""
REDACTED_EVENT = "RedactedEvent"
_ANY_OBJECT: JSON = {"type": "object", "additionalProperties": True}


def operation_id(route: APIRoute) -> str:
    """The short operation id of ``route`` (FastAPI's ``generate_unique_id_function``)."""
    known = OPERATION_IDS.get(route.name)
    if known is not None:
        return known
    head, *rest = route.name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def _rewrite_refs(node: Any, prefix: str) -> Any:
    """``node`` with every local ``#/$defs/X`` reference (and discriminator mapping) pointing at the component
    ``<prefix>.X``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("$ref",) and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = f"#/components/schemas/{prefix}.{value[len('#/$defs/') :]}"
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {k: _rewrite_refs({"$ref": v}, prefix)["$ref"] for k, v in value.items()}
            else:
                out[key] = _rewrite_refs(value, prefix)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(item, prefix) for item in node]
    return node


def game_components(game: str, kind: str, namespace: str, schema: JSON) -> dict[str, JSON]:
    """One schema of a game as OpenAPI components: its parts (``$defs``) as ``<game>.<namespace>.<Name>`` and
    itself as ``<game>.<kind>``, every reference rewritten to the components."""
    prefix = f"{game}.{namespace}"
    body = {k: v for k, v in schema.items() if k not in ("$defs", "$schema")}
    out = {f"{prefix}.{name}": _rewrite_refs(part, prefix) for name, part in schema.get("$defs", {}).items()}
    out[f"{game}.{kind}"] = _rewrite_refs(body, prefix)
    return out


def _union(refs: list[JSON], untyped: bool, *extra: JSON) -> JSON:
    """``anyOf`` the game schemas ``refs`` (and ``extra``), with a plain object when a game has no schema."""
    options = [*refs, *extra]
    if untyped or not refs:
        options.append(_ANY_OBJECT)
    return {"anyOf": options}


def _optional_seat(command: JSON) -> JSON:
    """A command schema part as a request sends it: ``seat`` no longer required (a request may leave it out) and
    a seat number where given (what the gateway takes of any game's command: 0 to ``MAX_PLAYERS - 1``);
    ``type`` required."""
    properties = command.get("properties", {})
    if "seat" in properties:
        seat = {k: v for k, v in properties["seat"].items() if k not in ("anyOf", "type")}
        properties = {**properties, "seat": {**seat, "type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1}}
        command = {**command, "properties": properties}
    # ``type`` names the command: a request leaves out its seat, never its type.
    required = [name for name in command.get("required", ()) if name != "seat"]
    if "type" in properties and "type" not in required:
        required.insert(0, "type")
    return {**command, "required": required}


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


EVENT_OF = {"anyOf": [_ref(REDACTED_EVENT), {"type": "null"}]}
"""What may stand in for a game's event in a reader's list: a redacted one, or null (withheld)."""
PER_GAME = ("SeatView", "SeatEvents", "CommandResult")
"""Answers that name their game (``game``): each has a variant per game, and the routes answer their union."""


def _variant(components: dict[str, JSON], model: str, game: str, fields: dict[str, JSON]) -> str:
    """Component ``<game>.<model>``: the generic ``model`` with ``game`` fixed and ``fields`` retyped."""
    name = f"{game}.{model}"
    base = copy.deepcopy(components[model])
    properties = base.setdefault("properties", {})
    for field, schema in {"game": {"const": game, "type": "string"}, **fields}.items():
        if field in properties:
            keep = {k: v for k, v in properties[field].items() if k in ("description", "title")}
            properties[field] = {**schema, **keep}
    components[name] = {**base, "title": name}
    return name


def _game_variants(components: dict[str, JSON], game: str, typed: dict[str, bool]) -> None:
    """The per-game variants of the answers naming their game, and of their parts, for ``game``."""
    view = _ref(f"{game}.View") if typed["View"] else _ANY_OBJECT
    command = _ref(f"{game}.Command") if typed["Command"] else _ANY_OBJECT
    event = {"anyOf": [_ref(f"{game}.Event") if typed["Event"] else _ANY_OBJECT, *EVENT_OF["anyOf"]]}
    legal = _variant(components, "LegalCommand", game, {"command": command})
    legal_list = {"type": "array", "items": _ref(legal)}
    narrated = _variant(components, "NarratedEvent", game, {"event": event})
    events = {"type": "array", "items": _ref(narrated)}
    turn = _variant(components, "Turn", game, {"legal": legal_list})
    _variant(components, "SeatView", game, {"view": view, "legal": legal_list})
    _variant(components, "SeatEvents", game, {"events": events, "turn": {"anyOf": [_ref(turn), {"type": "null"}]}})
    _variant(components, "CommandResult", game, {"events": events})


def _answer_per_game(document: JSON, games: list[str]) -> None:
    """Every route answering a :data:`PER_GAME` model answers one of its per-game variants, by ``game``."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            content = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
            ref = content.get("schema", {}).get("$ref", "")
            model = ref.rsplit("/", 1)[-1]
            if model in PER_GAME:
                variants = {game: f"#/components/schemas/{game}.{model}" for game in games}
                content["schema"] = {
                    "oneOf": [{"$ref": v} for v in variants.values()],
                    "discriminator": {"propertyName": "game", "mapping": variants},
                }


def type_games(document: JSON, plugins: Iterable[GamePlugin]) -> JSON:
    """``document`` (FastAPI's) with the games' schemas added and the generic fields pointing at them (in
    place; also returned)."""
    plugins = list(plugins)
    components: dict[str, JSON] = document.setdefault("components", {}).setdefault("schemas", {})
    refs: dict[str, list[JSON]] = {kind: [] for kind, _, _ in KINDS}
    untyped = dict.fromkeys(refs, False)
    request_commands: list[JSON] = []
    components[REDACTED_EVENT] = {
        "type": "object",
        "title": REDACTED_EVENT,
        "description": "An event with a part this reader may not see yet (e.g. another seat's sealed vote): its "
        "type and what is public, the hidden fields left out or null, and redacted: true.",
        "properties": {"type": {"type": "string"}, "redacted": {"const": True}},
        "required": ["type", "redacted"],
    }
    for plugin in plugins:
        typed = {}
        for kind, namespace, attribute in KINDS:
            schema = getattr(plugin, attribute, None)
            typed[kind] = bool(schema)
            if not schema:
                untyped[kind] = True
                continue
            parts = game_components(plugin.name, kind, namespace, schema)
            components.update(parts)
            refs[kind].append(_ref(f"{plugin.name}.{kind}"))
            if kind == "Command":
                request_commands.append(_request_command(plugin.name, parts, components))
        if all(model in components for model in (*PER_GAME, "LegalCommand", "NarratedEvent", "Turn")):
            _game_variants(components, plugin.name, typed)
    # The generic models (what any game's answer is): their fields are one of the games' schemas.
    view = _union(refs["View"], untyped["View"])
    command = _union(refs["Command"], untyped["Command"])
    event = {"anyOf": [*_union(refs["Event"], untyped["Event"])["anyOf"], *EVENT_OF["anyOf"]]}
    _set(components, "SeatView", "view", {**view, "description": "the game's view for this reader"})
    _set(components, "LegalCommand", "command", command)
    for model in ("NarratedEvent", "ReplayStep"):
        _set(components, model, "event", {**event, "description": "as this reader may see it (null: withheld)"})
    for name in ("CommandRequest", "CommandRequest-Input"):
        if name in components:
            description = components[name]["properties"]["command"].get("description", "")
            _set(
                components,
                name,
                "command",
                {**_union(request_commands, untyped["Command"]), "description": description},
            )
    if plugins:
        _answer_per_game(document, [plugin.name for plugin in plugins])
        _name_games(document, [plugin.name for plugin in plugins])
        new_game_variants(document, plugins)
    return document


NAMED_GAME = (("post", "/games"), ("get", "/leaderboard"))
"""Operations that refuse a game name no installed game has (422 ``unknown_game_name``): their ``game`` is one
of the installed games' names in the document."""


def _name_games(document: JSON, names: list[str]) -> None:
    """``game`` of the :data:`NAMED_GAME` operations (a body field or a query parameter) is one of ``names``."""
    named = {"type": "string", "enum": sorted(names)}
    for method, path in NAMED_GAME:
        operation = document.get("paths", {}).get(path, {}).get(method)
        if operation is None:
            continue
        for parameter in operation.get("parameters", ()):
            if parameter["name"] == "game" and parameter["in"] == "query":
                parameter["schema"] = {**parameter["schema"], "anyOf": [named, {"type": "null"}]}
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
        model = document["components"]["schemas"].get(body.get("$ref", "").rsplit("/", 1)[-1], {})
        if "game" in model.get("properties", {}):
            keep = {k: v for k, v in model["properties"]["game"].items() if k in ("title", "description")}
            model["properties"]["game"] = {**named, **keep}


def _request_command(game: str, parts: dict[str, JSON], components: dict[str, JSON]) -> JSON:
    """The schema of a game's command as a request sends it: ``seat`` optional in each variant (components
    ``<game>.CommandInput`` and ``<game>.commands-input.<Name>``)."""
    prefix, suffix = f"{game}.commands.", f"{game}.commands-input."
    union = copy.deepcopy(parts[f"{game}.Command"])
    for name, part in parts.items():
        if name.startswith(prefix):
            components[suffix + name[len(prefix) :]] = _optional_seat(part)

    def retarget(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: retarget(v) for k, v in node.items()}
        if isinstance(node, list):
            return [retarget(v) for v in node]
        if isinstance(node, str) and node.startswith(f"#/components/schemas/{prefix}"):
            return node.replace(prefix, suffix, 1)
        return node

    components[f"{game}.CommandInput"] = retarget(union)
    return {"$ref": f"#/components/schemas/{game}.CommandInput"}


def _set(components: dict[str, JSON], model: str, field: str, schema: JSON) -> None:
    """Type ``model.field`` as ``schema`` (models the document does not hold are left alone)."""
    properties = components.get(model, {}).get("properties")
    if properties is not None and field in properties:
        properties[field] = schema


def installed_games() -> list[GamePlugin]:
    """The installed games' plug-ins, by name."""
    return [get_game(name) for name in sorted(game_names())]


def install_openapi(app: FastAPI, games: Callable[[], list[GamePlugin]] = installed_games) -> None:
    """Make ``app.openapi()`` build the typed document (once; it is cached on the app)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version=app.openapi_version,
                description=app.description,
                routes=app.routes,
                tags=app.openapi_tags,
                servers=app.servers,
            )
            app.openapi_schema = type_games(document, games())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

"""The published OpenAPI document is typed and usable offline, against a running gateway on a real
redis-server: it is a valid OpenAPI document; views, commands and events are typed with the games' own schemas
(no bare object, every reference resolves); the seat token is a declared bearer scheme on the routes that need
it; operation ids are short; a typed client generated from it reads the gateway's real answers; and ``/docs``
loads nothing from another host."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel, RootModel, ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from services.rules.registry import game_names, get_game
from tests.gateway.bots import play_http
from tests.gateway.conftest import Served, new_game

pytestmark = pytest.mark.redis

SEAT_ROUTES = {
    ("post", "/games/{game_id}/commands"): "submitCommand",
    ("get", "/games/{game_id}/commands/{command_id}"): "getCommandOutcome",
    ("get", "/games/{game_id}/seats/{seat}/view"): "getSeatView",
    ("get", "/games/{game_id}/seats/{seat}/events"): "getSeatEvents",
    ("post", "/games/{game_id}/chat"): "sendChat",
    ("post", "/games/{game_id}/board-links"): "createBoardLink",
}
"""Routes that need a seat's token, and their operation ids."""


def _document(served: Served) -> dict[str, Any]:
    with served.http() as http:
        r = http.get("/openapi.json")
    assert r.status_code == 200
    return r.json()  # type: ignore[no-any-return]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        mapping = node.get("mapping") if isinstance(node.get("mapping"), dict) else {}
        return found + list(mapping.values()) + [r for k, v in node.items() if k != "mapping" for r in _refs(v)]
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    return []


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def test_the_document_is_valid_openapi_and_every_reference_resolves(gateway: Served) -> None:
    # Given the document a running gateway publishes
    doc = _document(gateway)
    # Then it is a valid OpenAPI document
    validate(doc)
    # and every reference in it (discriminator mappings too) names a component it has
    refs = _refs(doc)
    assert refs
    prefix = "#/components/schemas/"
    missing = sorted(
        {r for r in refs if not r.startswith(prefix) or r[len(prefix) :] not in doc["components"]["schemas"]}
    )
    assert not missing, missing[:5]


def test_views_commands_and_events_are_typed_with_the_games_schemas(gateway: Served) -> None:
    # Given the document
    doc = _document(gateway)
    schemas = doc["components"]["schemas"]
    # Then a view route answers one of the games' seat views, told apart by the game's name
    for path in ("/games/{game_id}/seats/{seat}/view", "/games/{game_id}/view"):
        ok = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["discriminator"]["propertyName"] == "game"
        assert ok["discriminator"]["mapping"] == {
            name: f"#/components/schemas/{name}.SeatView" for name in game_names()
        }
    # and a Shadow seat view is the Shadow view with its named fields (no bare object), and Shadow's commands
    shadow = schemas["shadow.SeatView"]["properties"]
    assert shadow["game"]["const"] == "shadow"
    assert shadow["view"]["$ref"] == "#/components/schemas/shadow.View"
    variants = [_resolve(doc, v) for v in _resolve(doc, shadow["view"])["anyOf"]]
    assert any({"electorates", "thalers", "board", "decision"} <= set(v.get("properties", {})) for v in variants)
    legal = _resolve(doc, shadow["legal"]["items"])["properties"]["command"]
    command = _resolve(doc, legal)
    assert legal["$ref"] == "#/components/schemas/shadow.Command"
    assert command["discriminator"]["propertyName"] == "type" and len(command["oneOf"]) > 10
    # and the replies of commands and the events routes carry the game's events (or redacted ones, or null)
    for path, name in (
        ("/games/{game_id}/commands", "CommandResult"),
        ("/games/{game_id}/seats/{seat}/events", "SeatEvents"),
    ):
        ok = next(iter(doc["paths"][path].values()))["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["discriminator"]["mapping"]["shadow"] == f"#/components/schemas/shadow.{name}"
        items = _resolve(doc, schemas[f"shadow.{name}"]["properties"]["events"]["items"])
        assert items["properties"]["event"]["anyOf"] == [
            {"$ref": "#/components/schemas/shadow.Event"},
            {"$ref": "#/components/schemas/RedactedEvent"},
            {"type": "null"},
        ]
    # and a request's command is one of the games' commands, with its seat optional (the gateway fills it in)
    request = schemas["CommandRequest"]["properties"]["command"]["anyOf"]
    buy = _resolve(doc, {"$ref": "#/components/schemas/shadow.commands-input.BuyPermit"})
    assert "seat" in buy["properties"] and "seat" not in buy.get("required", [])
    assert {"$ref": "#/components/schemas/shadow.CommandInput"} in request
    # (a plain object only stands for a game that declares no schemas: a test's toy game)
    untyped = any(get_game(name).command_schema is None for name in game_names())
    assert ({"type": "object", "additionalProperties": True} in request) == untyped


def test_the_seat_token_is_a_bearer_scheme_on_the_routes_that_take_it(gateway: Served) -> None:
    # Given the document
    doc = _document(gateway)
    # Then it declares the seat token as an HTTP bearer scheme
    scheme = doc["components"]["securitySchemes"]["seatToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    # and every route that needs one requires it, routes that take one for a seat's picture make it optional,
    # and public routes ask for none
    for (method, path), _ in SEAT_ROUTES.items():
        assert doc["paths"][path][method]["security"] == [{"seatToken": []}], path
    assert doc["paths"]["/games/{game_id}/board.svg"]["get"]["security"] == [{}, {"seatToken": []}]
    for method, path in (("post", "/games"), ("get", "/games/{game_id}"), ("get", "/games/{game_id}/view")):
        assert "security" not in doc["paths"][path][method], path


def test_operation_ids_are_short_unique_and_named(gateway: Served) -> None:
    # Given the document; then each operation has a short camelCase id, none twice
    doc = _document(gateway)
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][A-Za-z]{2,24}", i) for i in ids), ids
    for (method, path), name in SEAT_ROUTES.items():
        assert doc["paths"][path][method]["operationId"] == name
    assert doc["paths"]["/games"]["post"]["operationId"] == "createGame"


def test_a_client_generated_from_the_document_reads_real_answers(gateway: Served, tmp_path: Path) -> None:
    # Given pydantic models generated from the published document (datamodel-code-generator)
    (tmp_path / "openapi.json").write_bytes(orjson.dumps(_document(gateway)))
    package = tmp_path / "throne_client"
    codegen = Path(sys.executable).with_name("datamodel-codegen")
    subprocess.run(
        [str(codegen), "--input", str(tmp_path / "openapi.json"), "--input-file-type", "openapi", "--output",
         str(package), "--output-model-type", "pydantic_v2.BaseModel", "--formatters", "builtin"],
        check=True, capture_output=True,
    )  # fmt: skip
    sys.path.insert(0, str(tmp_path))
    try:
        shadow = importlib.import_module("throne_client.shadow")
        barracks = importlib.import_module("throne_client.barracks")
        shadow_views = importlib.import_module("throne_client.shadow.views")
        # When a game is played a step and its answers are read with those models
        created = new_game(gateway, seed=41)
        gid, token = created["game_id"], created["seats"][0]["token"]
        with gateway.http(token) as http:
            view = http.get(f"/games/{gid}/seats/0/view").json()
            reply = http.post(f"/games/{gid}/commands", json={"command": view["legal"][0]["command"]}).json()
        typed_view = shadow.SeatView.model_validate(view)
        typed_reply = shadow.CommandResult.model_validate(reply)
        # (and another game's models refuse them)
        with pytest.raises(ValidationError):
            barracks.SeatView.model_validate(view)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "throne_client" or m.startswith("throne_client.")]:
            del sys.modules[name]
    # Then the view is read as a Shadow view, field by field, and the reply's events each with its own model
    assert isinstance(typed_view.view.root, shadow_views.ShadowView)
    assert typed_view.view.root.players == ["Ann", "Bob", "Cid", "Dee"]
    assert typed_reply.events
    for event in typed_reply.events:
        inner = event.event
        while isinstance(inner, RootModel):
            inner = inner.root
        # the event's own model (the generator numbers names it meets twice: DecisionRequested_1)
        assert isinstance(inner, BaseModel) and re.sub(r"_[0-9]+$", "", type(inner).__name__) == inner.type
        assert "rulings" in type(inner).model_fields
        assert event.text


def test_docs_load_only_local_assets_and_those_are_served(gateway: Served) -> None:
    # Given the /docs page of a running gateway
    with gateway.http() as http:
        page = http.get("/docs")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        # Then every script, stylesheet and icon it loads is on this gateway
        assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert assets and all(a.startswith("/docs/assets/") for a in assets), assets
        assert "http://" not in page.text and "https://" not in page.text
        assert "url: '/openapi.json'" in page.text
        # and each is served
        for asset in assets:
            got = http.get(asset)
            assert got.status_code == 200 and len(got.content) > 100, asset
        assert "SwaggerUIBundle" in http.get("/docs/assets/swagger-ui-bundle.js").text


def _validator(doc: dict[str, Any], component: str) -> jsonschema.Draft202012Validator:
    """A JSON Schema validator of the document's component ``component`` (its references resolved in it)."""
    resource = Resource.from_contents(doc, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:throne", resource)
    return jsonschema.Draft202012Validator({"$ref": f"urn:throne#/components/schemas/{component}"}, registry=registry)


def test_answers_with_secrets_of_others_conform_to_their_games_variant(gateway: Served) -> None:
    # Given a Barracks game played a while through HTTP (other seats' cards are redacted in every seat's events)
    doc = _document(gateway)
    created = new_game(gateway, game="barracks", players=("Ann", "Bob", "Cid"), seed=8)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    played = play_http(gateway, created, seed=6, until=lambda g: g.commands >= 15)
    # When seat 0, and a spectator, read its events and views, and its command replies are looked at
    with gateway.http(tokens[0]) as http:
        events = http.get(f"/games/{gid}/seats/0/events").json()
        view = http.get(f"/games/{gid}/seats/0/view").json()
        spectator = http.get(f"/games/{gid}/events").json()
    redacted = [e for e in events["events"] if e["event"] is not None and e["event"].get("redacted")]
    assert redacted, "another seat's cards are redacted for seat 0"
    # Then each answer conforms to the Barracks variant of its route's answer
    for answer, model in ((events, "SeatEvents"), (spectator, "SeatEvents"), (view, "SeatView")):
        errors = list(_validator(doc, f"barracks.{model}").iter_errors(answer))
        assert not errors, errors[0].message[:300]
    replies = _validator(doc, "barracks.CommandResult")
    for _, _, reply in played.outcomes:
        assert not list(replies.iter_errors(reply))
    # and not to Shadow's
    assert list(_validator(doc, "shadow.SeatView").iter_errors(view))

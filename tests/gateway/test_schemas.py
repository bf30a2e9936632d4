"""The published OpenAPI document and the downloadable JSON Schemas of commands and events."""

from __future__ import annotations

import orjson
import pytest

from events.schemas import path_of
from tests.gateway.conftest import Served

pytestmark = pytest.mark.redis


def test_openapi_names_every_route_and_the_typed_error(gateway: Served) -> None:
    with gateway.http() as http:
        doc = http.get("/openapi.json").json()
        docs_page = http.get("/docs")
    paths = doc["paths"]
    for path in (
        "/games",
        "/games/{game_id}",
        "/games/{game_id}/commands",
        "/games/{game_id}/commands/{command_id}",
        "/games/{game_id}/seats/{seat}/view",
        "/games/{game_id}/seats/{seat}/events",
        "/games/{game_id}/chat",
        "/games/{game_id}/scoreboard",
        "/leaderboard",
        "/games/{game_id}/replay",
        "/games/{game_id}/audit",
        "/games/{game_id}/verify",
        "/games/{game_id}/board.svg",
        "/games/{game_id}/board.txt",
        "/schemas/{kind}/{game}",
    ):
        assert path in paths, path
    command = paths["/games/{game_id}/commands"]["post"]
    assert command["responses"]["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
    assert "ErrorResponse" in doc["components"]["schemas"]
    assert docs_page.status_code == 200


@pytest.mark.parametrize("kind", ["commands", "events", "views"])
def test_json_schemas_of_a_game_download_as_committed(gateway: Served, kind: str) -> None:
    # Given the schema files committed under events/schemas (kept fresh by tests/test_schemas.py)
    committed = orjson.loads(path_of(f"shadow.{kind}").read_bytes())
    # When a client downloads them
    with gateway.http() as http:
        listing = http.get("/schemas").json()
        got = http.get(f"/schemas/{kind}/shadow")
    # Then they are the very same schemas
    assert {
        "game": "shadow",
        "commands": "/schemas/commands/shadow",
        "events": "/schemas/events/shadow",
        "views": "/schemas/views/shadow",
    } in listing["games"]
    assert got.status_code == 200 and got.headers["content-type"].startswith("application/json")
    assert got.json() == committed

"""The OpenAPI document and the gateway agree, checked by schemathesis over every operation, both ways.

Against a gateway with a rules worker on a real redis-server (started by the suite), a real Shadow game and the
token of its seat 0: schemathesis generates, for every operation of the published document, requests the
document allows (positive) and requests it excludes (negative), and checks each answer:

* positive data is accepted: no refusal as malformed (400/422) of a request the document allows;
* negative data is rejected: no request the document excludes is accepted;
* every status code, content type and body is the documented one (the typed error shape for every error), and
  no answer is a server error.

The run is deterministic (a fixed seed, derandomized, no example database) and bounded (a few examples per
operation and mode), so it is the same run every time. The document is narrowed only where the request is about
the one game of the test: ``game_id`` is that game's id, and a command is one of its game's (Shadow's) commands
(the document's union of every installed game's commands is right for the route, but a Barracks command sent to
a Shadow game is refused as another game's).

Mismatches this found and that are fixed: an integral float (``2.0``) refused as an integer; a lobby cursor, a
game name, a webhook URL and a notice kind (``""``) the document allowed and the gateway refused; ``open`` seats
given twice; a chat line naming no move answered 422; a private webhook target (a policy, not a shape) answered
422; the seat token checked after the body (422 before 401).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
import schemathesis
from schemathesis import Case
from schemathesis.checks import positive_data_acceptance

from services.bus.keys import Layout
from services.client import ServiceClient
from services.gateway.app import create_app
from tests.gateway.conftest import OPEN, Served, error_of, serve
from tests.service.conftest import redis_url  # noqa: F401 - fixture

pytestmark = pytest.mark.redis

MAX_EXAMPLES = 12
"""Examples per operation and generation mode: enough to meet every field's bounds, short for ``make test``."""
NEW_GAME_EXAMPLES = 6
"""The same for ``POST /games``, whose bodies (seven variants, every printable character) are slow to draw."""
GAME_ID = f"conformance-{uuid.uuid4().hex[:12]}"
"""The game every generated request about a game is about (created before the run, by this id)."""


@pytest.fixture(scope="module")
def conformance(redis_url: str) -> Iterator[tuple[Served, str]]:  # noqa: F811 - the imported fixture
    """A gateway with a rules worker, the Shadow game GAME_ID on it, and the token of its seat 0."""
    served = serve(redis_url)
    try:
        game = ServiceClient(served.redis, served.layout).create_game(
            "shadow", ["Ann", "Bob", "Cid", "Dee"], seed=61, game_id=GAME_ID
        )
        yield served, game.tokens[0]
    finally:
        served.close()


def _document() -> dict[str, Any]:
    """The gateway's OpenAPI document (built without serving: the app's clients connect lazily), narrowed to the
    test's game: its id, and its game's commands."""
    document = create_app(redis.Redis(), Layout(), limits=OPEN).openapi()
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", ()):
                if parameter["name"] == "game_id" and parameter["in"] == "path":
                    parameter["schema"] = {"type": "string", "enum": [GAME_ID]}
    command = document["components"]["schemas"]["CommandRequest"]["properties"]["command"]
    command.pop("anyOf")
    command["$ref"] = "#/components/schemas/shadow.CommandInput"
    return document


def _config() -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            "seed": 20261202,
            "cache": {"enabled": False},  # no failures replayed from an earlier run: the same run every time
            "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none"},
            "request-timeout": 15,
            # The coverage phase derives boundary cases from every pattern at collection, and a player name's
            # pattern (every printable character) takes it minutes; the other phases cover a new game's body.
            "operations": [
                {
                    "include-path": "/games",
                    "include-method": "POST",
                    "phases": {"coverage": {"enabled": False}},
                    "generation": {"max-examples": NEW_GAME_EXAMPLES},
                }
            ],
            "checks": {
                "enabled": False,
                "not_a_server_error": {"enabled": True},
                "status_code_conformance": {"enabled": True},
                "content_type_conformance": {"enabled": True},
                "response_schema_conformance": {"enabled": True},
                "positive_data_acceptance": {"enabled": True},
                "negative_data_rejection": {"enabled": True},
            },
        }
    )


schema = schemathesis.openapi.from_dict(_document(), config=_config())


@schema.parametrize()
def test_every_operation_accepts_what_the_document_allows_and_answers_as_documented(
    case: Case, conformance: tuple[Served, str]
) -> None:
    served, token = conformance
    headers = {"Authorization": f"Bearer {token}"}
    if (case.method, case.path) != ("POST", "/games"):
        case.call_and_validate(base_url=served.base_url, headers=headers)
        return
    # A new game's table: the document says, per game and table size, everything the gateway checks; what a
    # game's own rules say of its settings at that size (Barracks: how many factions rival claimants take at
    # 1 to 4 players) is the game's: its typed refusal, bad_command, and nothing else, is not a mismatch.
    response = case.call(base_url=served.base_url, headers=headers)
    refused_by_the_game = response.status_code == 422 and response.json()["error"]["code"] == "bad_command"
    excluded = [positive_data_acceptance] if refused_by_the_game else []
    case.validate_response(response, excluded_checks=excluded)


def _token_routes() -> list[tuple[str, str]]:
    """(method, path) of every operation the document says needs a seat's token."""
    document = _document()
    return [
        (method, path)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if operation.get("security") == [{"seatToken": []}]
    ]


WELL_FORMED = {
    "commands": b'{"command": {"type": "BuyRival"}}',
    "chat": b'{"text": "1"}',
    "board-links": b'{"ttl": 60}',
    "webhooks": b'{"url": "https://example.com/hook"}',
}
"""A body each route with one takes, by the last part of its path."""


@pytest.mark.parametrize(("method", "path"), _token_routes())
def test_a_request_without_a_seat_token_is_401_whatever_its_body(
    conformance: tuple[Served, str], method: str, path: str
) -> None:
    served, token = conformance
    url = path.format(game_id=GAME_ID, seat=0, command_id="c1", hook_id="wh_0123456789abcdef")
    # (a body well formed for the route, e.g. a command the fast path takes; one not JSON; one not of its shape)
    bodies = [WELL_FORMED.get(path.rsplit("/", 1)[-1], b"{}"), b"{not json", b'{"unknown": [1, 2, 3]}', b"[]"]
    answers = set()
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Basic {token}"}):
        with httpx.Client(base_url=served.base_url, timeout=15) as http:
            for body in bodies if method in ("post", "put", "patch") else [b""]:
                # When a request without a seat's token of the game is sent with that body
                sent = http.request(
                    method.upper(), url, headers={**headers, "content-type": "application/json"}, content=body
                )
                # Then it is refused for its token, before anything is made of its body or query
                error_of(sent, 401, "unauthorized")
                assert sent.headers["www-authenticate"].startswith("Bearer")
                answers.add(sent.content)
    # and the answer does not depend on the body (nor, for commands, on which of the two paths took it)
    assert len(answers) == 2  # no token / a token that is not this game's

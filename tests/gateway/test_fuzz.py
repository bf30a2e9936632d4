"""Property-based fuzzing of the gateway from its own OpenAPI document (schemathesis), bounded.

Against a gateway with a rules worker on a real redis-server, with a real game and one of its seat tokens as the
bearer: schemathesis generates valid and invalid requests for every documented operation. Every response must
be no server error (5xx) and conform to the document: a documented status code, the documented content type,
and a body matching the documented schema (the typed error shape for every error).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import schemathesis
from schemathesis import Case

from services.bus.keys import Layout
from services.client import ServiceClient
from services.gateway.app import create_app
from tests.gateway.conftest import OPEN, Served, serve
from tests.service.conftest import redis_url  # noqa: F401 - fixture

pytestmark = pytest.mark.redis

MAX_EXAMPLES = 15
"""Examples per operation and generation mode: enough to find the usual holes, small enough for ``make test``."""


GAME_ID = f"fuzz-{uuid.uuid4().hex[:12]}"
"""The game every generated request about a game is about (created before the run, by this id)."""


@pytest.fixture(scope="module")
def fuzzed(redis_url: str) -> Iterator[tuple[Served, str]]:  # noqa: F811 - the imported fixture
    """A gateway with a rules worker, the game GAME_ID on it, and the token of its seat 0 (the first to act)."""
    served = serve(redis_url)
    try:
        game = ServiceClient(served.redis, served.layout).create_game(
            "shadow", ["Ann", "Bob", "Cid", "Dee"], seed=61, game_id=GAME_ID
        )
        yield served, game.tokens[0]
    finally:
        served.close()


def _document() -> dict[str, Any]:
    """The gateway's OpenAPI document, built without serving anything (the app's clients connect lazily), with
    ``game_id`` narrowed to GAME_ID: valid requests are about the real game, invalid ones name another id."""
    document = create_app(redis.Redis(), Layout(), limits=OPEN).openapi()
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", ()):
                if parameter["name"] == "game_id" and parameter["in"] == "path":
                    parameter["schema"] = {"type": "string", "enum": [GAME_ID]}
    return document


schema = schemathesis.openapi.from_dict(
    _document(),
    config=schemathesis.Config.from_dict(
        {
            "seed": 20260101,
            "generation": {"max-examples": MAX_EXAMPLES, "database": "none"},
            "request-timeout": 15,
            # A request valid by the document may still be refused by the game itself: a command its rules can
            # not parse, a chat line that names no move, player names that are not unique (422, typed).
            "checks": {"positive_data_acceptance": {"expected-statuses": ["2XX", 401, 403, 404, 409, 422, 429]}},
        }
    ),
)


@schema.parametrize()
def test_the_gateway_answers_every_generated_request_as_documented(case: Case, fuzzed: tuple[Served, str]) -> None:
    served, token = fuzzed
    case.call_and_validate(base_url=served.base_url, headers={"Authorization": f"Bearer {token}"})

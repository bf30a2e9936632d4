"""Cross-origin requests (CORS), against a running gateway on a real redis-server: a browser's preflight from an
allowed origin is answered with what the page may send (the Authorization header among it), one from any other
origin is refused, and without configuration no origin is allowed."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from services.gateway.cors import ENV, parse_origins
from tests.gateway.conftest import Served, new_game, serve
from tests.service.conftest import redis_url  # noqa: F401 - fixture

pytestmark = pytest.mark.redis

ALLOWED = "https://play.example"
REFUSED = "https://evil.example"


@pytest.fixture(scope="module")
def cors(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway that allows the origin ALLOWED (and the dev server's)."""
    served = serve(redis_url, cors_origins=parse_origins([f"{ALLOWED}, http://localhost:5173"]))
    try:
        yield served
    finally:
        served.close()


def _preflight(http: httpx.Client, path: str, origin: str) -> httpx.Response:
    """What a browser sends before a cross-origin POST with a bearer token and a JSON body."""
    return http.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )


def test_a_preflight_from_an_allowed_origin_may_send_a_seats_command(cors: Served) -> None:
    # Given a game and a page on an allowed origin
    created = new_game(cors, seed=31)
    gid = created["game_id"]
    with cors.http() as http:
        # When the browser sends the preflight of a command
        r = _preflight(http, f"/games/{gid}/commands", ALLOWED)
    # Then it may send it: its origin, the method, the Authorization and Content-Type headers are allowed
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed
    assert "access-control-allow-credentials" not in r.headers  # bearer tokens, never cookies
    # and the request itself, from that origin, is answered readably, with the headers a client needs exposed
    token = created["seats"][0]["token"]
    with cors.http(token) as http:
        view = http.get(f"/games/{gid}/seats/0/view", headers={"Origin": ALLOWED})
        refused = http.get(f"/games/{gid}/seats/1/view", headers={"Origin": ALLOWED})
    assert view.status_code == 200 and view.headers["access-control-allow-origin"] == ALLOWED
    assert refused.status_code == 403 and refused.headers["access-control-allow-origin"] == ALLOWED
    exposed = {h.strip().lower() for h in view.headers["access-control-expose-headers"].split(",")}
    assert {"retry-after", "www-authenticate"} <= exposed


def test_a_preflight_from_another_origin_is_refused(cors: Served) -> None:
    # Given a game and a page on an origin nobody allowed
    gid = new_game(cors, seed=32)["game_id"]
    with cors.http() as http:
        # When the browser sends the preflight of a command
        r = _preflight(http, f"/games/{gid}/commands", REFUSED)
        # and a simple request
        plain = http.get(f"/games/{gid}", headers={"Origin": REFUSED})
    # Then the preflight is refused and no answer lets that page read it
    assert r.status_code == 400
    assert "access-control-allow-origin" not in r.headers
    assert plain.status_code == 200 and "access-control-allow-origin" not in plain.headers


def test_without_configuration_no_origin_is_allowed(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    # Given a gateway started without CORS origins (neither configured nor in the environment: the default)
    monkeypatch.delenv(ENV, raising=False)
    served = serve(redis_url, worker=False)
    try:
        # When a page on any origin asks, then it is refused
        with served.http() as http:
            r = _preflight(http, "/games", ALLOWED)
    finally:
        served.close()
    assert r.status_code == 400 and "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("bad", ["play.example", "https://play.example/", "https://play.example/app", "ftp://x.org"])
def test_a_mistyped_origin_is_refused_at_start(bad: str) -> None:
    # Given an origin as a browser never sends it; when it is configured, then it is an error, not silence
    with pytest.raises(ValueError, match="not a CORS origin"):
        parse_origins([bad])

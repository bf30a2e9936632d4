"""Board links, against a running gateway on a real redis-server: a seat gets a short-lived signed link to its
own SVG board (for an ``<img src>``) that holds no token, shows that seat's board, expires, and breaks when any
part of it is changed."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from services.gateway.boardlinks import ENV, BadLink, BoardLinks
from tests.gateway.bots import play_http
from tests.gateway.conftest import Served, error_of, new_game, serve
from tests.service.conftest import redis_url  # noqa: F401 - fixture

pytestmark = pytest.mark.redis


class Clock:
    """A clock the test moves by hand (Unix seconds)."""

    def __init__(self, now: float = 1_900_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


CLOCK = Clock()


@pytest.fixture(scope="module")
def linked(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway (with the read models kept) whose board links run on :data:`CLOCK`."""
    served = serve(redis_url, projections=True, board_links=BoardLinks(key=b"k" * 32, clock=CLOCK))
    try:
        yield served
    finally:
        served.close()


def _parts(url: str) -> tuple[str, dict[str, str]]:
    split = urlsplit(url)
    return split.path, {k: v[0] for k, v in parse_qs(split.query).items()}


def test_a_seats_board_link_shows_its_own_board_without_its_token(linked: Served) -> None:
    # Given a game played a little, and seat 1's token
    created = new_game(linked, seed=21)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    play_http(linked, created, seed=2, until=lambda g: g.commands >= 6)
    # When seat 1 asks for a link to its board
    with linked.http(tokens[1]) as http:
        r = http.post(f"/games/{gid}/board-links", json={"ttl": 120})
        own = http.get(f"/games/{gid}/board.svg", params={"seat": 1})
    assert r.status_code == 201, r.text
    link = r.json()
    # Then the link is for seat 1, lasts 120 s, and holds no token, in any form
    assert (link["seat"], link["version"], link["expires"]) == (1, "latest", int(CLOCK.now) + 120)
    assert all(token not in link["url"] for token in tokens)
    assert "token" not in link["url"] and "Bearer" not in link["url"]
    # and anyone loading it (no header at all, as an <img> does) gets seat 1's own board
    with linked.http() as anonymous:
        got = anonymous.get(link["url"])
    assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")
    assert got.text == own.text
    assert got.headers["cache-control"] == "private, no-cache"


def test_a_board_link_expires(linked: Served) -> None:
    # Given a link that lasts 30 s
    created = new_game(linked, seed=22)
    gid, token = created["game_id"], created["seats"][0]["token"]
    with linked.http(token) as http:
        link = http.post(f"/games/{gid}/board-links", json={"ttl": 30}).json()
    with linked.http() as anonymous:
        assert anonymous.get(link["url"]).status_code == 200
        # When 30 s have passed
        CLOCK.now += 30
        # Then it no longer works
        error_of(anonymous.get(link["url"]), 403, "link_expired")


def test_a_board_link_can_not_be_altered_to_another_seat_game_version_or_expiry(linked: Served) -> None:
    # Given seat 0's link to its board at version 1, in a game with a second one
    created = new_game(linked, seed=23)
    other = new_game(linked, seed=24)["game_id"]
    gid, token = created["game_id"], created["seats"][0]["token"]
    with linked.http(token) as http:
        link = http.post(f"/games/{gid}/board-links", json={"version": 1}).json()
    assert link["version"] == 1
    path, query = _parts(link["url"])
    assert path == f"/games/{gid}/seats/0/board.svg"
    with linked.http() as anonymous:
        assert anonymous.get(link["url"]).status_code == 200
        # When any part of it is changed, then it is refused as altered
        for changed_path, changed_query in (
            (f"/games/{gid}/seats/1/board.svg", query),  # another seat (with its secrets)
            (f"/games/{other}/seats/0/board.svg", query),  # another game
            (path, {**query, "version": "latest"}),  # another version
            (path, {**query, "expires": str(int(query["expires"]) + 3600)}),  # a longer life
            (path, {**query, "signature": query["signature"][:-1] + ("A" if query["signature"][-1] != "A" else "B")}),
        ):
            error_of(anonymous.get(f"{changed_path}?{urlencode(changed_query)}"), 403, "bad_link_signature")


def test_a_board_link_needs_a_seats_token_and_a_version_the_game_has(linked: Served) -> None:
    # Given a game
    created = new_game(linked, seed=25)
    gid = created["game_id"]
    with linked.http() as anonymous, linked.http(created["seats"][2]["token"]) as seat2:
        # When no token asks, then it is refused
        error_of(anonymous.post(f"/games/{gid}/board-links", json={}), 401, "unauthorized")
        # When a seat asks for a version the game does not have yet, then it is refused
        error_of(seat2.post(f"/games/{gid}/board-links", json={"version": 10_000}), 404, "bad_version")
        # When a seat asks for longer than an hour, then it is refused
        error_of(seat2.post(f"/games/{gid}/board-links", json={"ttl": 3601}), 422, "validation_error")
        # and a link it gets is always for its own seat
        assert seat2.post(f"/games/{gid}/board-links", json={}).json()["seat"] == 2


def test_gateways_sharing_the_link_key_accept_each_others_links(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two gateways' signers made from the same env THRONE_LINK_KEY, and one from another key
    monkeypatch.setenv(ENV, "x" * 40)
    one, two = BoardLinks.from_env(), BoardLinks.from_env()
    monkeypatch.setenv(ENV, "y" * 40)
    other = BoardLinks.from_env()
    # When one makes a link
    _, query = _parts(one.make("g1", 2, None, 60)[0])
    args = ("g1", 2, query["version"], int(query["expires"]), query["signature"])
    # Then the other gateway with the same key shows it, and one with another key refuses it
    assert two.check(*args) is None
    with pytest.raises(BadLink, match="altered"):
        other.check(*args)


def test_a_short_link_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a link key too short to be a secret; when a gateway reads it, then it refuses to start with it
    monkeypatch.setenv(ENV, "short")
    with pytest.raises(ValueError, match="at least 32"):
        BoardLinks.from_env()

"""The lobby on a real redis-server: listing games (filters, paging), claiming open seats, leaving a seat."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from services.bus.envelope import hash_token
from services.store.meta import GameMeta
from tests.gateway.conftest import Served, error_of, serve
from tests.waiting import patient

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def lobby(redis_url: str) -> Iterator[Served]:
    """A gateway with a rules worker and the bots process, on a key layout of its own."""
    served = serve(redis_url, bots=True, seat_key=b"k" * 32)
    try:
        yield served
    finally:
        served.close()


def _create(served: Served, **body: Any) -> dict[str, Any]:
    body = {"game": "shadow", "players": ["Ann", "Bob", "Cid"], **body}
    if not body.get("open"):  # a chosen seed only on a table nobody else may join (a practice table) [X24]
        body.setdefault("seed", 3)
    with served.http() as http:
        r = http.post("/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _list(served: Served, **params: Any) -> dict[str, Any]:
    with served.http() as http:
        r = http.get("/games", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_game_with_open_seats_is_listed_open_and_a_claim_gives_the_seat_once(lobby: Served) -> None:
    # Given a game created with seats 1 and 2 left open
    created = _create(lobby, open=[1, 2], players=["Ann", "Open 1", "Open 2"])
    gid = created["game_id"]
    assert [s["token"] is None for s in created["seats"]] == [False, True, True]
    assert [s["open"] for s in created["seats"]] == [False, True, True]

    # Then the lobby lists it as open with those seats
    listed = {g["game_id"]: g for g in _list(lobby, status="open", limit=50)["games"]}
    assert listed[gid]["open_seats"] == [1, 2]
    assert listed[gid]["status"] == "open"

    # When seat 1 is claimed
    with lobby.http() as http:
        claim = http.post(f"/games/{gid}/seats/1/claim")
        again = http.post(f"/games/{gid}/seats/1/claim")
    # Then the claimer receives a token that acts and sees for seat 1, and a second claim is refused
    assert claim.status_code == 200, claim.text
    token = claim.json()["token"]
    assert claim.json()["player"] == "Open 1"
    error_of(again, 409, "seat_taken")
    with lobby.http(token) as http:
        assert http.get(f"/games/{gid}/seats/1/view").status_code == 200
        error_of(http.get(f"/games/{gid}/seats/0/view"), 403, "forbidden_seat")
    # And Redis holds no token: only the seat's sha256 in the metadata, and no field holds the token itself
    meta = GameMeta.parse(gid, lobby.redis.hgetall(lobby.layout.meta(lobby.layout.shard_of(gid), gid)))
    assert meta.token_digests[1] == hash_token(token)
    for key in lobby.redis.scan_iter(f"{lobby.layout.prefix}:*"):
        kind = lobby.redis.type(key)
        if kind == b"hash":
            assert token.encode() not in b"".join(v for kv in lobby.redis.hgetall(key).items() for v in kv)
        elif kind == b"string":
            assert token.encode() not in (lobby.redis.get(key) or b"")

    # When the last open seat is claimed, the game is no longer open but running
    with lobby.http() as http:
        assert http.post(f"/games/{gid}/seats/2/claim").status_code == 200
    assert gid not in {g["game_id"] for g in _list(lobby, status="open", limit=50)["games"]}
    assert gid in {g["game_id"] for g in _list(lobby, status="running", limit=50)["games"]}


def test_a_seat_that_was_never_open_can_not_be_claimed(lobby: Served) -> None:
    # Given a game with no open seat
    gid = _create(lobby)["game_id"]
    # When seat 0 is claimed, or a seat the game does not have
    with lobby.http() as http:
        taken = http.post(f"/games/{gid}/seats/0/claim")
        missing = http.post(f"/games/{gid}/seats/9/claim")
    # Then both are refused, and the seat's token is given to nobody
    error_of(taken, 409, "seat_taken")
    error_of(missing, 404, "bad_seat")


def test_the_listing_filters_by_game_and_player_and_pages_with_a_cursor(lobby: Served) -> None:
    # Given seven games, two of them with the player "Zed", one of them a Barracks game
    ids = [_create(lobby, players=["Ann", "Bob", f"P{i}"], seed=i)["game_id"] for i in range(5)]
    zed = _create(lobby, players=["Zed", "Bob", "Cid"], player_ids=["acct:zed", None, None])["game_id"]
    zed_barracks = _create(lobby, game="barracks", players=["Zed", "Bob", "Cid", "Dee"])["game_id"]

    # When the lobby is asked for Zed's games, and Zed's Barracks games
    by_player = {g["game_id"] for g in _list(lobby, player="zed", limit=50)["games"]}
    by_id = {g["game_id"] for g in _list(lobby, player="acct:zed", limit=50)["games"]}
    barracks = _list(lobby, player="Zed", game="barracks", limit=50)["games"]
    # Then it lists just those
    assert by_player == {zed, zed_barracks}
    assert by_id == {zed}
    assert [g["game_id"] for g in barracks] == [zed_barracks]
    assert barracks[0]["seats"][0] == {
        "seat": 0, "player": "Zed", "player_id": None, "open": False, "bot": None, "left": False
    }  # fmt: skip

    # When every game is listed two at a time, following the cursors
    seen: list[str] = []
    cursor = None
    for _ in range(100):
        page = _list(lobby, limit=2, **({"cursor": cursor} if cursor else {}))
        assert len(page["games"]) <= 2
        seen += [g["game_id"] for g in page["games"]]
        cursor = page["next"]
        if cursor is None:
            break
    # Then each game comes once, newest first, and the seven new ones are all there
    assert len(seen) == len(set(seen))
    assert set(ids) | {zed, zed_barracks} <= set(seen)
    assert seen.index(zed_barracks) < seen.index(zed) < seen.index(ids[0])


def test_bad_listing_queries_are_typed_errors(lobby: Served) -> None:
    # When the lobby is asked with a bad cursor, status, limit or an unknown parameter
    with lobby.http() as http:
        cursor = http.get("/games", params={"cursor": "nonsense"})
        status = http.get("/games", params={"status": "paused"})
        limit = http.get("/games", params={"limit": 10_000})
        unknown = http.get("/games", params={"pager": 1})
    # Then each is refused with a typed error
    error_of(cursor, 422, "bad_cursor")
    for response in (status, limit, unknown):
        error_of(response, 422, "validation_error")


def test_a_player_who_leaves_is_replaced_by_a_bot_and_can_no_longer_command(lobby: Served) -> None:
    # Given a 3-player game where every seat is a person's
    created = _create(lobby, seed=8)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]

    # When every seat leaves, each with its own token (seat 0 first tries with seat 1's token)
    with lobby.http(tokens[1]) as http:
        error_of(http.post(f"/games/{gid}/seats/0/leave"), 403, "forbidden_seat")
    for seat, token in enumerate(tokens):
        with lobby.http(token) as http:
            r = http.post(f"/games/{gid}/seats/{seat}/leave")
        assert r.status_code == 200, r.text
        assert r.json() == {"game_id": gid, "seat": seat, "bot": "heuristic"}
    # Then the game's record holds each leave as a fact, in words, citing the leaving ruling
    with lobby.http() as http:
        events = http.get(f"/games/{gid}/events", params={"after": 0}).json()["events"]
    left = [e for e in events if e["event"]["type"] == "SeatLeft"]
    assert [(e["event"]["seat"], e["event"]["bot"], e["event"]["rulings"]) for e in left] == [
        (seat, "heuristic", ["X21"]) for seat in range(3)
    ]

    # Then the leaver's token can no longer send commands, but still reads the seat's view
    with lobby.http(tokens[0]) as http:
        error_of(http.post(f"/games/{gid}/commands", json={"command": {"type": "Pass"}}), 403, "seat_left")
        assert http.get(f"/games/{gid}/seats/0/view").status_code == 200
        error_of(http.post(f"/games/{gid}/seats/0/leave"), 409, "seat_is_bot")
    # And the lobby shows the seats as left and played by bots
    listed = {g["game_id"]: g for g in _list(lobby, limit=50)["games"]}
    assert all(s["left"] and s["bot"] == "heuristic" for s in listed[gid]["seats"])
    # And the bots play the game to its end
    deadline = time.monotonic() + patient(300)
    over = False
    while time.monotonic() < deadline and not over:
        with lobby.http() as http:
            over = http.get(f"/games/{gid}").json()["over"]
        time.sleep(0.2)
    assert over, "the bots did not finish the game"
    with lobby.http(tokens[1]) as http:
        error_of(http.post(f"/games/{gid}/seats/1/leave"), 409, "game_over")
    assert gid in {g["game_id"] for g in _list(lobby, status="over", limit=50)["games"]}


def test_a_method_the_lobby_path_does_not_serve_names_every_method_it_does(lobby: Served) -> None:
    # When /games is asked with a method neither of its routes serves
    with lobby.http() as http:
        r = http.delete("/games")
    # Then the 405 names both methods of the path (listing and creating), not only the first route's
    error_of(r, 405, "method_not_allowed")
    assert r.headers["allow"] == "GET, POST"

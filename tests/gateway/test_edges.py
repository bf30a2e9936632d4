"""Input an outsider controls is bounded and validated strictly at the edge: huge integers, wrong types, player
names. Each gets a typed 422 (or a typed close 4400 on a feed) and changes nothing."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import orjson
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from services.bus.envelope import CreateEnvelope
from services.client import ServiceClient
from tests.gateway.conftest import Served, error_of, game_version, new_game
from tests.waiting import patient

pytestmark = pytest.mark.redis

HUGE = 2**64
NAME_CASES = ["50000-chars", "33-chars", "empty", "blank", "duplicate", "duplicate-trimmed", "nul", "ansi", "newline",
              "bidi-override"]  # fmt: skip
SHADOW = {"game": "shadow", "players": ["Ann", "Bob", "Cid"]}


@pytest.fixture
def game(gateway: Served) -> dict[str, Any]:
    """A fresh game, the awaited seat, its token and one of its legal commands."""
    created = new_game(gateway, seed=51)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with gateway.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[seat]) as http:
        view = http.get(f"/games/{gid}/seats/{seat}/view").json()
    return {"id": gid, "seat": seat, "token": tokens[seat], "command": view["legal"][0]["command"],
            "version": view["version"]}  # fmt: skip


def _games_created(served: Served) -> int:
    return sum(served.redis.zcard(served.layout.games(s)) for s in range(served.layout.shards))


def test_integers_beyond_64_bits_are_refused_everywhere(gateway: Served, game: dict[str, Any]) -> None:
    gid, url = game["id"], f"/games/{game['id']}/commands"
    created_before = _games_created(gateway)
    with gateway.http(game["token"]) as http:
        # When an integer of 2^64 or more is anywhere in a new game's settings, a command or a version
        error_of(http.post("/games", json={**SHADOW, "settings": {"start_player": HUGE}}), 422, "validation_error")
        error_of(http.post("/games", json={**SHADOW, "settings": {"x": [{"y": -HUGE}]}}), 422, "validation_error")
        error_of(http.post("/games", json={**SHADOW, "seed": HUGE}), 422, "validation_error")
        error_of(http.post(url, json={"command": {**game["command"], "n": HUGE}}), 422, "validation_error")
        error_of(http.post(url, json={"command": game["command"], "expected_version": 2**70}), 422, "validation_error")
        error_of(http.get(f"/games/{gid}/events", params={"after": 2**70}), 422, "validation_error")
        error_of(http.get(f"/games/{gid}/replay", params={"version": 2**70}), 422, "validation_error")
        # or a number that is not finite, or JSON nested deeper than anyone needs
        nan = b'{"game": "shadow", "players": ["Ann", "Bob"], "settings": {"x": NaN}}'
        error_of(http.post("/games", content=nan, headers={"content-type": "application/json"}), 422,
                 "validation_error")  # fmt: skip
        deep: Any = 1
        for _ in range(40):
            deep = [deep]
        error_of(http.post(url, json={"command": {**game["command"], "deep": deep}}), 422, "validation_error")
    # Then each is a typed 422, and nothing was created or played
    assert _games_created(gateway) == created_before
    assert game_version(gateway, gid) == game["version"]


@pytest.mark.parametrize("after", [str(2**70), "1000000000", "-1", "1e3", "٣", " 1"])
def test_a_feed_after_a_bad_version_gets_a_typed_close(gateway: Served, game: dict[str, Any], after: str) -> None:
    # When a feed asks for the events after a version the game does not have, or that is no version at all
    with connect(f"{gateway.ws_url}/games/{game['id']}/feed?after={quote(after)}", open_timeout=10) as ws:
        message = orjson.loads(ws.recv(timeout=patient(60)))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=patient(60))
    # Then it gets a typed error and a close frame 4400
    assert message["error"]["code"] == "bad_request"
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400


def test_an_integral_float_is_an_integer_as_json_schema_says(gateway: Served, game: dict[str, Any]) -> None:
    # Given a command and a new game whose integers come as integral floats (JSON has one number type, and the
    # OpenAPI document's "integer" is any number with no fractional part)
    url = f"/games/{game['id']}/commands"
    with gateway.http(game["token"]) as http:
        # When they are sent: a version, a seed, open seats, a board link's lifetime
        created = http.post("/games", json={**SHADOW, "seed": 7.0})  # a chosen seed: no open seat [X24]
        opened = http.post("/games", json={**SHADOW, "open": [2.0]})
        link = http.post(f"/games/{game['id']}/board-links", json={"ttl": 60.0, "version": 1.0})
        stale = http.post(url, json={"command": game["command"], "expected_version": game["version"] + 1.0})
    # Then each is the integer it equals
    assert created.status_code == 201, created.text
    assert created.json()["seed"] == 7 and opened.status_code == 201, opened.text
    assert [s["open"] for s in opened.json()["seats"]] == [False, False, True]
    assert link.status_code == 201 and link.json()["version"] == 1, link.text
    error_of(stale, 409, "stale_version")
    assert game_version(gateway, game["id"]) == game["version"]


def test_wrong_types_are_refused_not_coerced(gateway: Served, game: dict[str, Any]) -> None:
    gid, url, command = game["id"], f"/games/{game['id']}/commands", game["command"]
    created_before = _games_created(gateway)
    with gateway.http(game["token"]) as http:
        # When a version, a seed or a table option comes as another type than documented
        for wrong in ("7", True, 7.5):
            error_of(http.post(url, json={"command": command, "expected_version": wrong}), 422, "validation_error")
        error_of(http.post("/games", json={**SHADOW, "seed": False}), 422, "validation_error")
        error_of(http.post("/games", json={**SHADOW, "bots": {"01": "random"}}), 422, "validation_error")
        error_of(http.post(f"/games/{gid}/chat", json={"text": "board", "version": "3"}), 422, "validation_error")
        # Then each is refused: the game itself checks its settings strictly
        for options in ({"hidden_victory_points": "yes"}, {"hidden_victory_points": 1}, {"start_player": "1"}):
            err = error_of(http.post("/games", json={**SHADOW, "settings": options}), 422, "bad_command")
            assert next(iter(options)) in err["message"]
        # And a command naming its seat as a string is a malformed request, not another seat's command
        err = error_of(http.post(url, json={"command": {**command, "seat": str(game["seat"])}}), 422,
                       "validation_error")  # fmt: skip
        assert "seat" in err["message"]
        error_of(http.post(url, json={"command": {**command, "seat": True}}), 422, "validation_error")
        # while the right types are accepted
        assert http.post("/games", json={**SHADOW, "settings": {"hidden_victory_points": True}}).status_code == 201
    assert _games_created(gateway) == created_before + 1
    assert game_version(gateway, gid) == game["version"]


@pytest.mark.parametrize(
    "players",
    [
        ["x" * 50_000, "Bob"],
        ["x" * 33, "Bob"],
        ["", "Bob"],
        ["   ", "Bob"],
        ["Ann", "ann"],
        ["Ann", " ANN "],
        ["Ann\x00", "Bob"],
        ["\x1b[31mAnn\x1b[0m", "Bob"],
        ["Ann\nBob", "Cid"],
        ["Ann\u202e", "Bob"],
    ],
    ids=NAME_CASES,
)
def test_bad_player_names_are_refused(gateway: Served, players: list[str]) -> None:
    created_before = _games_created(gateway)
    # When a game is created with such a name, through the gateway
    with gateway.http() as http:
        err = error_of(http.post("/games", json={"game": "shadow", "players": players}), 422, "validation_error")
    assert "players" in err["message"]
    # or through the client library
    with pytest.raises(ValueError, match="player"):
        ServiceClient(gateway.redis, gateway.layout).create_game("shadow", players, timeout=1)
    # Then no game was created
    assert _games_created(gateway) == created_before


def test_player_names_are_trimmed_and_may_be_anything_printable(gateway: Served) -> None:
    with gateway.http() as http:
        r = http.post("/games", json={"game": "shadow", "players": ["  Ann ", "Zoë", "李小龍", "x" * 32]})
        assert r.status_code == 201, r.text
        assert r.json()["players"] == ["Ann", "Zoë", "李小龍", "x" * 32]
        board = http.get(f"/games/{r.json()['game_id']}/board.txt")
    assert board.status_code == 200 and "李小龍" in board.text


def test_the_rules_worker_refuses_bad_names_from_a_client_that_skipped_the_check(gateway: Served) -> None:
    # Given a creation put on the bus by hand with duplicate names (no library check on the way)
    client = ServiceClient(gateway.redis, gateway.layout)
    fields = CreateEnvelope(command_id="c1", game_id="dupnames", game_name="shadow", players=["Ann", "Bob"], seed=1,
                            token_hashes=["0" * 64, "1" * 64]).to_fields()  # fmt: skip
    fields["players"] = orjson.dumps(["Ann", "ANN"])
    gateway.redis.xadd(gateway.layout.cmds(gateway.layout.shard_of("dupnames")), fields)
    # Then the worker refuses it as a bad envelope, and there is no game
    outcome = client.wait("dupnames", None, "c1", timeout=10)
    assert outcome.status == "rejected" and outcome.rejection is not None
    assert outcome.rejection.code == "bad_envelope" and "players" in outcome.rejection.message
    assert client.game_info("dupnames") is None

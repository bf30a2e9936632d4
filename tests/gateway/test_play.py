"""Whole games played through the gateway's HTTP API by bots, on a real redis-server with a rules worker."""

from __future__ import annotations

import pytest

from services.rules.registry import get_game
from services.store import eventstore
from tests.gateway.bots import HttpGame, play_http
from tests.gateway.conftest import Served, new_game

pytestmark = pytest.mark.redis


def _store_events(served: Served, game_id: str) -> list[eventstore.StoredEvent]:
    return eventstore.read_events(served.redis, served.layout, game_id)


def test_a_complete_shadow_game_through_http(gateway: Served) -> None:
    # Given a 4-player game opened through HTTP, with one secret token per seat
    created = new_game(gateway, seed=11)
    assert [s["seat"] for s in created["seats"]] == [0, 1, 2, 3]
    assert len({s["token"] for s in created["seats"]}) == 4
    assert created["version"] > 0

    # When random bots play it to the end, each seat only through its own token
    game = play_http(gateway, created, seed=3)

    # Then the game is over, and its result is what the decider folds from the event store
    rules = get_game("shadow").rules
    stored = _store_events(gateway, created["game_id"])
    final = rules.fold([rules.parse_event(e.data) for e in stored])
    assert game.summary["over"] is True
    assert game.summary["status"] in ("over", "archived")
    assert game.summary["version"] == len(stored) == stored[-1].version
    assert game.summary["result"] == rules.result(final)
    # And every command's reply named the versions of exactly the events it caused, in order
    expected_first = created["version"] + 1
    for _, _, body in game.outcomes:
        assert body["status"] == "accepted"
        assert body["first_version"] == expected_first
        assert [e["version"] for e in body["events"]] == list(range(body["first_version"], body["version"] + 1))
        recorded = [e for e in stored if body["first_version"] <= e.version <= body["version"]]
        assert {e.command_id for e in recorded} == {body["command_id"]}
        expected_first = body["version"] + 1
    assert expected_first == len(stored) + 1
    # And the seats' own events were shown to them in full (a command's events include its own secrets)
    votes = [(seat, body) for seat, command, body in game.outcomes if command["type"] == "CastVote"]
    assert votes, "a whole game has elections"
    for seat, body in votes:
        sealed = [e["event"] for e in body["events"] if e["event"]["type"] == "VoteSealed"]
        assert all(e["candidate"] is not None for e in sealed if e["seat"] == seat)


def test_another_seats_sealed_vote_is_hidden_until_revealed(gateway: Served) -> None:
    # Given a game played until the first seat has sealed a vote while the others still have to vote
    created = new_game(gateway, seed=5)

    def vote_open(g: HttpGame) -> bool:
        if not g.outcomes:
            return False
        _, command, body = g.outcomes[-1]
        types = [e["event"]["type"] for e in body["events"]]
        return command["type"] == "CastVote" and "VotesRevealed" not in types

    game = play_http(gateway, created, seed=8, until=vote_open)
    voter, _, body = game.outcomes[-1]
    sealed = next(e for e in body["events"] if e["event"]["type"] == "VoteSealed")
    assert sealed["event"]["candidate"] is not None  # the voter sees its own vote
    gid, version = created["game_id"], sealed["version"]
    other = (voter + 1) % 4

    # When another seat and a spectator read that event
    with gateway.http(game.tokens[other]) as http:
        theirs = http.get(f"/games/{gid}/seats/{other}/events", params={"after": version - 1}).json()
        view = http.get(f"/games/{gid}/seats/{other}/view").json()
    with gateway.http() as http:
        spectator = http.get(f"/games/{gid}/events", params={"after": version - 1}).json()

    # Then they learn that the seat voted, not for whom
    for feed in (theirs, spectator):
        shown = next(e for e in feed["events"] if e["version"] == version)["event"]
        assert shown["type"] == "VoteSealed" and shown["seat"] == voter
        assert "candidate" not in shown and shown["redacted"] is True
    assert view["view"]["votes"][voter] == "sealed"


def test_a_toy_game_through_the_same_gateway(gateway: Served) -> None:
    # Given a game of another registered game (toy21: two seats add 1..3 up to 21)
    created = new_game(gateway, game="toy21", players=("A", "B"), seed=0)

    # When bots play it through HTTP
    game = play_http(gateway, created, seed=2)

    # Then it ends with a winner, through the very same routes
    assert game.summary["over"] is True
    assert game.summary["result"]["total"] >= 21
    assert game.summary["result"]["winner"] in (0, 1)

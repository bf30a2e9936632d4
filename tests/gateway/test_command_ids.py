"""Through HTTP: a command id belongs to the seat whose token sent it."""

from __future__ import annotations

import pytest

from tests.gateway.conftest import Served, error_of, new_game

pytestmark = pytest.mark.redis


def test_given_a_seats_command_id_then_only_that_seat_sees_its_outcome_and_reusing_it_is_a_conflict(
    gateway: Served,
) -> None:
    # Given a toy game where seat 0 sent an Add of 2 under the id "x"
    created = new_game(gateway, game="toy21", players=("Ann", "Bob"), seed=2)
    gid, (ann, bob) = created["game_id"], [s["token"] for s in created["seats"]]
    url = f"/games/{gid}/commands"
    with gateway.http(ann) as http:
        sent = http.post(url, json={"command": {"type": "Add", "amount": 2}, "command_id": "x"})
    assert sent.status_code == 200, sent.text

    with gateway.http(bob) as http:
        # When seat 1 asks for the outcome of "x"
        # Then it is not found: seat 0's command ids are not seat 1's
        error_of(http.get(f"{url}/x"), 404, "not_found")
        # and seat 1 may use "x" for a command of its own, decided on its own
        own = http.post(url, json={"command": {"type": "Add", "amount": 1}, "command_id": "x"})
        assert own.status_code == 200, own.text
        assert own.json()["version"] == sent.json()["version"] + 1

    with gateway.http(ann) as http:
        # When seat 0 asks for "x", it gets its own outcome
        assert http.get(f"{url}/x").json() == sent.json()
        # and when it sends "x" again with another command, that is a conflict (and changes nothing)
        err = error_of(
            http.post(url, json={"command": {"type": "Add", "amount": 3}, "command_id": "x"}),
            409,
            "command_id_conflict",
        )
        assert err["command_id"] == "x"
        # while the same command under "x" gets its first outcome again
        again = http.post(url, json={"command": {"type": "Add", "amount": 2}, "command_id": "x"})
        assert again.status_code == 200 and again.json() == sent.json()
    with gateway.http() as http:
        assert http.get(f"/games/{gid}").json()["version"] == own.json()["version"]

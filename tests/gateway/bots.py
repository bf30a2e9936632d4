"""Bots that play through the gateway's HTTP API only: one client (and token) per seat."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.gateway.conftest import Served


@dataclass
class HttpGame:
    """What bots saw while playing one game through HTTP."""

    game_id: str
    tokens: list[str]
    commands: int = 0
    outcomes: list[tuple[int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    """(seat, command sent, response body) of every accepted command."""
    summary: dict[str, Any] = field(default_factory=dict)


def play_http(
    served: Served,
    created: dict[str, Any],
    seed: int = 1,
    until: Callable[[HttpGame], bool] = lambda g: False,
    game: HttpGame | None = None,
    max_commands: int = 5000,
) -> HttpGame:
    """Random bots play ``created`` (the body of POST /games) through HTTP until it ends or ``until`` holds.

    Each turn: the summary says who is awaited; that seat's bot asks for its own view and legal commands with
    its own token and sends one of them (with the version it saw). Every command must be accepted.
    """
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    game = game or HttpGame(gid, tokens)
    rng = random.Random(seed)
    clients = [served.http(t) for t in tokens]
    public = served.http()
    try:
        while game.commands < max_commands:
            summary = _ok(public.get(f"/games/{gid}"))
            game.summary = summary
            if summary["over"] or until(game):
                return game
            seat = rng.choice(summary["awaiting"])
            view = _ok(clients[seat].get(f"/games/{gid}/seats/{seat}/view"))
            assert view["legal"], f"seat {seat} is awaited but has no legal command"
            choice = rng.choice(view["legal"])["command"]
            body = _ok(
                clients[seat].post(
                    f"/games/{gid}/commands", json={"command": choice, "expected_version": view["version"]}
                )
            )
            game.outcomes.append((seat, choice, body))
            game.commands += 1
        raise AssertionError(f"game {gid} did not end within {max_commands} commands")
    finally:
        for c in [*clients, public]:
            c.close()


def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, f"{response.status_code}: {response.text}"
    return response.json()

"""Narration in the feeds, against a running gateway on a real redis-server: every event comes with its plain
words as that seat may know them (never another seat's sealed vote or hidden points), and the seat the game
waits for gets a "your turn" message with the prompt and its labelled legal commands, in its own feed only."""

from __future__ import annotations

import contextlib
from typing import Any

import orjson
import pytest
from websockets.sync.client import ClientConnection, connect

from services.rules.registry import get_game
from services.store import eventstore
from tests.gateway.bots import play_http
from tests.gateway.conftest import Served, game_version, new_game
from tests.gateway.folding import folded
from tests.waiting import patient

pytestmark = pytest.mark.redis

SHADOW = get_game("shadow")


def _feed(served: Served, gid: str, seat: int | None, token: str | None) -> ClientConnection:
    path = f"/games/{gid}/seats/{seat}/feed?after=0" if seat is not None else f"/games/{gid}/feed?after=0"
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return connect(served.ws_url + path, additional_headers=headers, open_timeout=10)


def _read(ws: ClientConnection, upto: int, turn: bool) -> list[dict[str, Any]]:
    """Messages until the event at ``upto`` (and, when ``turn``, the turn message after it)."""
    got: list[dict[str, Any]] = []
    while True:
        message = orjson.loads(ws.recv(timeout=patient(60)))
        got.append(message)
        if message["kind"] == "turn" or (not turn and message.get("version", 0) >= upto):
            return got


def _quiet_after(ws: ClientConnection, seconds: float = 0.5) -> None:
    with pytest.raises(TimeoutError):
        ws.recv(timeout=seconds)


def _state(served: Served, gid: str) -> Any:
    return folded(served, gid)


def _vote_half_sealed(served: Served, gid: str) -> bool:
    """A secret vote is open, some votes are sealed and some still awaited."""
    state = _state(served, gid)
    return bool(
        state.game.pending is not None
        and state.game.pending.decision == "vote"
        and any(v is not None for v in state.game.votes)
        and SHADOW.rules.awaited(state)
    )


def test_every_seat_feed_narrates_each_event_without_others_secrets_and_only_the_awaited_get_a_turn(
    gateway: Served,
) -> None:
    # Given a 4-player game with hidden victory points, played through HTTP until a secret vote is half sealed
    with gateway.http() as http:
        r = http.post("/games", json={"game": "shadow", "players": ["Ann", "Bob", "Cid", "Dee"], "seed": 5,
                                      "settings": {"hidden_victory_points": True}})  # fmt: skip
    assert r.status_code == 201, r.text
    created = r.json()
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    play_http(gateway, created, seed=3, until=lambda g: _vote_half_sealed(gateway, gid))
    version = game_version(gateway, gid)
    state = _state(gateway, gid)
    awaited = set(SHADOW.rules.awaited(state))
    voted = {seat for seat, vote in enumerate(state.game.votes) if vote is not None}
    assert awaited and voted, "the vote is half sealed"
    secrets = list(SHADOW.presenter.secrets(state))
    stored = eventstore.read_events(gateway.redis, gateway.layout, gid)

    # When every seat and a spectator open their feeds from the start
    for seat in [0, 1, 2, 3, None]:
        with _feed(gateway, gid, seat, tokens[seat] if seat is not None else None) as ws:
            messages = _read(ws, version, turn=seat in awaited)
            if seat not in awaited:
                _quiet_after(ws)  # no turn message follows
        events = [m for m in messages if m["kind"] == "event"]
        turns = [m for m in messages if m["kind"] == "turn"]

        # Then every version comes once, narrated in words when shown, not at all when withheld
        assert [m["version"] for m in events] == list(range(1, version + 1))
        for message, recorded in zip(events, stored, strict=True):
            assert isinstance(message["quiet"], bool)
            if message["event"] is None:
                assert message["text"] is None and recorded.data["type"] == "VictoryPointsScored"
                assert recorded.data["seat"] != seat
            else:
                assert isinstance(message["text"], str) and message["text"]
                assert message["quiet"] == (recorded.data["type"] == "DecisionRequested")
        # and another seat's sealed vote is narrated as sealed, never with its candidate
        for message, recorded in zip(events, stored, strict=True):
            if recorded.data["type"] == "VoteSealed" and recorded.data["seat"] != seat:
                name = created["players"][recorded.data["seat"]]
                assert message["text"] == f"{name} seals a vote."
            if recorded.data["type"] == "VictoryPointsScored" and recorded.data["seat"] != seat:
                assert message["text"] is None
        texts = "\n".join(m["text"] or "" for m in events)
        for secret in secrets:
            if secret.owner != seat and secret.text is not None:
                assert secret.text not in texts, (seat, secret)

        # And only a seat the game waits for gets a turn message, once, after the events, with its prompt
        if seat in awaited:
            assert len(turns) == 1 and messages[-1] is turns[0]
            message = turns[0]
            assert message["version"] == version and message["seat"] == seat
            assert "Your turn: vote in secret" in message["prompt"] and message["text"] == message["prompt"]
            labels = sorted(c["label"] for c in message["legal"])
            assert labels[0].startswith("Vote for the Emperor (") and labels[1].startswith("Vote for the Rival (")
            assert sorted(i for g in message["groups"] for i in g["indexes"]) == [0, 1]
        else:
            assert turns == []


def test_a_turn_message_comes_live_to_the_seat_awaited_next_and_the_polling_route_has_it_too(gateway: Served) -> None:
    # Given a new game and the feeds of every seat open and caught up
    created = new_game(gateway, seed=61)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    first = SHADOW.rules.awaited(_state(gateway, gid))[0]
    with contextlib.ExitStack() as stack:
        feeds = {seat: stack.enter_context(_feed(gateway, gid, seat, tokens[seat])) for seat in range(4)}
        for seat, ws in feeds.items():
            got = _read(ws, created["version"], turn=seat == first)
            assert (got[-1]["kind"] == "turn") == (seat == first)
            if seat == first:
                assert got[-1]["prompt"].startswith("Setup. Your turn: place the first empire city")

        # When the awaited seat plays its first legal command through HTTP
        with gateway.http(tokens[first]) as http:
            view = http.get(f"/games/{gid}/seats/{first}/view").json()
            sent = http.post(f"/games/{gid}/commands", json={"command": view["legal"][0]["command"]}).json()
        version = sent["version"]
        after = _state(gateway, gid)
        following = SHADOW.rules.awaited(after)[0]

        # Then every feed gets the new events with their words, and only the seat awaited next a turn message
        for seat, ws in feeds.items():
            got = _read(ws, version, turn=seat == following)
            events = [m for m in got if m["kind"] == "event"]
            assert [m["version"] for m in events] == list(range(created["version"] + 1, version + 1))
            assert any("empire city" in m["text"] for m in events)
            if seat == following:
                assert got[-1]["kind"] == "turn" and got[-1]["version"] == version
                assert [c["label"] for c in got[-1]["legal"]] == [
                    SHADOW.presenter.label(c, after) for c in SHADOW.rules.legal_commands(after, seat)
                ]
            else:
                assert all(m["kind"] == "event" for m in got)
                _quiet_after(ws, 0.3)

    # And the polling route narrates the same events and carries the turn for the awaited seat only
    for seat in range(4):
        with gateway.http(tokens[seat]) as http:
            body = http.get(f"/games/{gid}/seats/{seat}/events", params={"after": created["version"]}).json()
        assert [e["version"] for e in body["events"]] == list(range(created["version"] + 1, version + 1))
        assert all(isinstance(e["text"], str) for e in body["events"])
        assert (body["turn"] is not None) == (seat == following)
        if body["turn"] is not None:
            assert body["turn"]["kind"] == "turn" and body["turn"]["prompt"].startswith("Setup. Your turn: ")
    with gateway.http() as http:
        spectator = http.get(f"/games/{gid}/events", params={"after": 0}).json()
    assert spectator["turn"] is None and all(isinstance(e["text"], str) for e in spectator["events"])


def test_barracks_feeds_narrate_without_other_hands_and_turn_only_the_awaited_seat(gateway: Served) -> None:
    # Given a 3-player game of The Barracks Emperors some way in
    barracks = get_game("barracks")
    created = new_game(gateway, game="barracks", players=("Ann", "Bob", "Cid"), seed=12)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    play_http(gateway, created, seed=12, until=lambda g: g.commands >= 12)
    version = game_version(gateway, gid)
    state = folded(gateway, gid, "barracks")
    awaited = set(barracks.rules.awaited(state))
    secrets = list(barracks.presenter.secrets(state))
    assert secrets, "the seats hold cards the others may not know"

    # When each seat opens its feed from the start
    for seat in range(3):
        with _feed(gateway, gid, seat, tokens[seat]) as ws:
            messages = _read(ws, version, turn=seat in awaited)
            if seat not in awaited:
                _quiet_after(ws)
        events = [m for m in messages if m["kind"] == "event"]
        # Then every event is narrated, and no narration names a card another seat holds unseen
        assert [m["version"] for m in events] == list(range(1, version + 1))
        assert all(isinstance(m["text"], str) and m["text"] for m in events if m["event"] is not None)
        texts = "\n".join(m["text"] or "" for m in events)
        leaked = [s for s in secrets if s.owner != seat and s.text is not None and s.text in texts]
        assert not leaked, (seat, leaked[:3])
        # And only the awaited seat gets its turn, with the game's prompt and groups
        turns = [m for m in messages if m["kind"] == "turn"]
        assert len(turns) == (1 if seat in awaited else 0)
        if turns:
            assert turns[0]["prompt"] == barracks.presenter.prompt(state, seat)
            indexes = sorted(i for g in turns[0]["groups"] for i in g["indexes"])
            assert indexes == list(range(len(turns[0]["legal"])))


def test_the_reply_to_a_command_narrates_its_events_as_the_seat_may_know_them(gateway: Served) -> None:
    # Given a game with hidden victory points, played a while through HTTP
    created = new_game(gateway, seed=17)
    created_hidden = _created_with_hidden_points(gateway)
    for game in (created, created_hidden):
        played = play_http(gateway, game, seed=4, until=lambda g: g.commands >= 25)
        gid = game["game_id"]
        tokens = [s["token"] for s in game["seats"]]
        # When each reply to an accepted command is read
        for seat, _, reply in played.outcomes:
            # Then every event in it has its plain words, the same as the seat's own events route tells them
            with gateway.http(tokens[seat]) as http:
                told = http.get(f"/games/{gid}/seats/{seat}/events", params={"after": reply["first_version"] - 1})
            by_version = {e["version"]: e for e in told.json()["events"]}
            assert reply["events"], reply
            for event in reply["events"]:
                same = by_version[event["version"]]
                assert (event["event"], event["text"], event["quiet"]) == (same["event"], same["text"], same["quiet"])
                # (a withheld event tells nothing; any other is told in words)
                assert (event["text"] is None) == (event["event"] is None)
            assert any(e["text"] and not e["quiet"] for e in reply["events"]), reply


def _created_with_hidden_points(served: Served) -> dict[str, Any]:
    with served.http() as http:
        r = http.post(
            "/games",
            json={"game": "shadow", "players": ["Ann", "Bob", "Cid"], "seed": 5,
                  "settings": {"hidden_victory_points": True}},
        )  # fmt: skip
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]

"""Webhooks end to end: registration at a running gateway on a real Redis, notices delivered by the webhooks
process (its two halves in threads here) to a real HTTP receiver that checks every signature."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from services.webhooks.config import WebhookConfig
from services.webhooks.signing import signature, verify
from tests.gateway.conftest import Served, error_of, new_game
from tests.service.helpers import wait_for
from tests.webhooks.conftest import FAST_HOOKS, Hooks
from tests.webhooks.receiver import Received, Receiver, receiver

pytestmark = pytest.mark.redis

TOY = ("Ann", "Bob")


def register(served: Served, game: dict[str, Any], seat: int, url: str, **extra: Any) -> Any:
    """Register a webhook for ``seat`` with its own token; returns the response."""
    token = game["seats"][seat]["token"]
    with served.http(token) as http:
        return http.post(f"/games/{game['game_id']}/seats/{seat}/webhooks", json={"url": url, **extra})


def play(served: Served, game: dict[str, Any], seat: int, amount: int = 3) -> int:
    """``seat`` adds ``amount`` in toy21; returns the version after it."""
    with served.http(game["seats"][seat]["token"]) as http:
        r = http.post(f"/games/{game['game_id']}/commands", json={"command": {"type": "Add", "amount": amount}})
    assert r.status_code == 200, r.text
    return int(r.json()["version"])


def hooked_game(served: Served, rx: Receiver, seats: tuple[int, ...] = (0, 1), seed: int = 1) -> dict[str, Any]:
    """A new toy21 game with one webhook per seat of ``seats`` on ``rx`` (path ``/<game>/<seat>``)."""
    game = new_game(served, "toy21", TOY, seed=seed)
    for seat in seats:
        path = f"/{game['game_id']}/{seat}"
        r = register(served, game, seat, rx.hook_url(path))
        assert r.status_code == 201, r.text
        rx.secrets[path] = r.json()["secret"]
    return game


def test_given_seat_tokens_when_webhooks_are_registered_then_each_seat_manages_only_its_own_within_bounds(
    gateway: Served,
) -> None:
    # Given a toy21 game
    game = new_game(gateway, "toy21", TOY)
    gid = game["game_id"]
    url = "http://127.0.0.1:9/hook"
    # When seat 0 registers a webhook with its token
    created = register(gateway, game, 0, url)
    # Then it gets the webhook with its secret, once
    assert created.status_code == 201, created.text
    hook = created.json()
    assert hook["secret"].startswith("whsec_") and hook["kinds"][:2] == ["turn", "game_over"] and hook["seat"] == 0
    with gateway.http(game["seats"][0]["token"]) as http:
        listed = http.get(f"/games/{gid}/seats/0/webhooks").json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert "secret" not in listed[0] and hook["secret"] not in str(listed)
    assert listed[0]["status"] == {"delivered": 0, "failed": 0, "last_error": None}
    # And nobody else may touch seat 0's webhooks: no token, a foreign token, another seat's token
    with gateway.http() as http:
        error_of(http.post(f"/games/{gid}/seats/0/webhooks", json={"url": url}), 401, "unauthorized")
        error_of(http.get(f"/games/{gid}/seats/0/webhooks"), 401, "unauthorized")
    with gateway.http(game["seats"][1]["token"]) as http:
        error_of(http.post(f"/games/{gid}/seats/0/webhooks", json={"url": url}), 403, "forbidden_seat")
        error_of(http.delete(f"/games/{gid}/seats/0/webhooks/{hook['id']}"), 403, "forbidden_seat")
        error_of(http.delete(f"/games/{gid}/seats/1/webhooks/{hook['id']}"), 404, "not_found")
        assert http.get(f"/games/{gid}/seats/1/webhooks").json() == {"webhooks": []}
    # And bad URLs and kinds are refused with typed errors
    for bad in ("ftp://example.com/x", "http://user:pw@example.com/", "http:///nohost", "x" * 3000, "not a url"):
        r = register(gateway, game, 0, bad)
        assert r.status_code == 422, (bad, r.text)
    error_of(register(gateway, game, 0, url, kinds=["gossip"]), 422, "validation_error")
    # And a seat has at most four webhooks; the fifth is refused, and seat 1 is not affected
    for _ in range(3):
        assert register(gateway, game, 0, url).status_code == 201
    error_of(register(gateway, game, 0, url), 409, "too_many_webhooks")
    assert register(gateway, game, 1, url, kinds=["game_over"]).status_code == 201
    # When seat 0 deletes one, it is gone and there is room again
    with gateway.http(game["seats"][0]["token"]) as http:
        assert http.delete(f"/games/{gid}/seats/0/webhooks/{hook['id']}").status_code == 204
        error_of(http.delete(f"/games/{gid}/seats/0/webhooks/{hook['id']}"), 404, "not_found")
        assert len(http.get(f"/games/{gid}/seats/0/webhooks").json()["webhooks"]) == 3
    assert register(gateway, game, 0, url).status_code == 201
    # And an unknown game is 404
    with gateway.http(game["seats"][0]["token"]) as http:
        error_of(http.post("/games/nosuchgame/seats/0/webhooks", json={"url": url}), 404, "unknown_game")


def test_given_a_gateway_with_the_default_policy_when_a_private_url_is_registered_then_it_is_refused(
    redis_url: str,
) -> None:
    from tests.gateway.conftest import OPEN, serve

    served = serve(redis_url, limits=OPEN, worker=True)
    try:
        game = new_game(served, "toy21", TOY)
        for url in ("http://127.0.0.1:8000/", "http://localhost/x", "http://10.0.0.5/", "http://[::1]/",
                    "http://169.254.169.254/latest/meta-data"):  # fmt: skip
            error_of(register(served, game, 0, url), 403, "private_target")
        assert register(served, game, 0, "https://hooks.example.com/throne").status_code == 201
    finally:
        served.close()


def test_given_hooked_seats_when_a_game_is_played_then_each_seat_hears_its_turns_and_the_end_signed_and_once(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    with receiver() as rx:
        # Given a receiver that answers 500 to the very first delivery it gets, then 200
        first: list[str] = []

        def answer(got: Received) -> int:
            if not first:
                first.append(got.notice_id)
                return 500
            return 200

        rx.answer = answer
        # And a toy21 game whose two seats have a webhook each, and the webhooks process running
        game = hooked_game(gateway, rx)
        gid = game["game_id"]
        hooks_process(FAST_HOOKS)
        # When the seats play it to its end (3 each time: totals 3, 6, ..., 21)
        versions = [play(gateway, game, n % 2) for n in range(7)]
        # Then each seat was told every time the game came to wait for it, and both were told of the end
        turns = [(v, 1 - n % 2) for n, v in enumerate(versions[:-1])]
        end = versions[-1]
        expected = {f"{gid}:{seat}:turn:{v}" for v, seat in turns} | {f"{gid}:{s}:game_over:{end}" for s in (0, 1)}
        wait_for(lambda: set(rx.unique) >= expected, 60)
        assert set(rx.unique) == expected
        assert [(n["version"], n["seat"]) for n in rx.notices("turn")] == turns
        over = rx.notices("game_over")
        assert [n["seat"] for n in over] == [0, 1]
        assert over[0]["result"]["winners"] == [0] and over[0]["text"]
        turn = rx.notices("turn")[0]
        assert turn["game_id"] == gid and turn["game"] == "toy21" and turn["player"] == "Bob" and turn["text"]
        # And the first delivery, refused with 500, came again with the same id and body, as attempt 2
        copies = [r for r in rx.requests if r.notice_id == first[0]]
        assert len(copies) >= 2 and copies[0].attempt == 1 and copies[1].attempt == 2
        assert copies[0].body == copies[1].body
        # And every request carried a valid signature of its timestamp and body
        assert rx.bad_signatures == 0
        # And a receiver holding the wrong secret (or reading another body) would refuse it
        one = copies[1]
        assert verify(rx.secrets[one.path], one.body, one.timestamp, one.signature)
        assert not verify("whsec_wrong", one.body, one.timestamp, one.signature)
        assert not verify(rx.secrets[one.path], one.body + b" ", one.timestamp, one.signature)
        assert not verify(rx.secrets[one.path], one.body, str(int(one.timestamp) - 3600), one.signature)
        assert one.signature == signature(rx.secrets[one.path], int(one.timestamp), one.body)
        # And the seat's listing counts what was delivered
        with gateway.http(game["seats"][1]["token"]) as http:
            listed = http.get(f"/games/{gid}/seats/1/webhooks").json()["webhooks"]
        wait_for(lambda: _status(gateway, game, 1)["delivered"] == 4)
        assert listed[0]["status"]["failed"] == 0


def _status(served: Served, game: dict[str, Any], seat: int) -> dict[str, Any]:
    with served.http(game["seats"][seat]["token"]) as http:
        return http.get(f"/games/{game['game_id']}/seats/{seat}/webhooks").json()["webhooks"][0]["status"]  # type: ignore[no-any-return]


def test_given_a_receiver_that_keeps_failing_when_notices_are_sent_then_they_are_retried_then_recorded_as_failed(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    with receiver() as rx:
        # Given a receiver whose seat-0 hook always answers 503 and whose seat-1 hook answers 404
        rx.answer = lambda got: 503 if got.path.endswith("/0") else 404
        game = hooked_game(gateway, rx, seed=2)
        gid = game["game_id"]
        hooks = hooks_process(FAST_HOOKS)
        # When seat 0 moves (seat 1 is told its turn) and seat 1 moves (seat 0 is told)
        play(gateway, game, 0)
        play(gateway, game, 1)
        # Then seat 0's notice was tried max_attempts times, seat 1's once (a 404 is not worth another try)
        wait_for(lambda: _status(gateway, game, 0)["failed"] == 1 and _status(gateway, game, 1)["failed"] == 1, 60)
        tries = [r for r in rx.requests if r.path.endswith("/0")]
        assert len(tries) == FAST_HOOKS.max_attempts and {r.notice_id for r in tries} == {f"{gid}:0:turn:3"}
        assert [r.attempt for r in tries] == list(range(1, FAST_HOOKS.max_attempts + 1))
        assert len([r for r in rx.requests if r.path.endswith("/1")]) == 1
        # And the failures are visible: the hooks' status, and the shard's failure records
        assert _status(gateway, game, 0)["last_error"] == "HTTP 503"
        assert _status(gateway, game, 1)["last_error"] == "HTTP 404"
        shard = gateway.layout.shard_of(gid)
        records = hooks.deliverer.outbox.failures(shard)
        assert {r["id"] for r in records if r["g"] == gid} == {f"{gid}:0:turn:3", f"{gid}:1:turn:2"}
        assert all("whsec_" not in str(r) for r in records)
        # And nothing is left pending in the outbox
        assert gateway.redis.xlen(gateway.layout.webhooks(shard)) == 0


def test_given_a_game_whose_only_webhook_was_deleted_when_a_new_one_is_registered_then_it_hears_only_what_follows(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    with receiver() as rx:
        # Given a game whose seat 1 registered a webhook and deleted it, and moves made while it had none
        game = new_game(gateway, "toy21", TOY, seed=4)
        gid = game["game_id"]
        hook = register(gateway, game, 1, rx.hook_url("/old")).json()
        with gateway.http(game["seats"][1]["token"]) as http:
            assert http.delete(f"/games/{gid}/seats/1/webhooks/{hook['id']}").status_code == 204
        hooks_process(FAST_HOOKS)
        play(gateway, game, 0)
        play(gateway, game, 1)
        # When seat 1 registers a new webhook and the game moves on
        created = register(gateway, game, 1, rx.hook_url("/new")).json()
        rx.secrets["/new"] = created["secret"]
        v3 = play(gateway, game, 0)
        # Then the new webhook hears of that move only, never of the moves made while nobody listened
        wait_for(lambda: f"{gid}:1:turn:{v3}" in rx.unique)
        assert {r.notice_id for r in rx.requests} == {f"{gid}:1:turn:{v3}"}
        assert {r.path for r in rx.requests} == {"/new"}


def test_given_webhooks_at_work_then_their_secrets_are_only_in_the_games_hooks_never_in_logs_or_other_keys(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks], capsys: pytest.CaptureFixture[str]
) -> None:
    from services.log import configure
    from tests.gateway.test_no_raw_secrets import _everything_stored

    configure("debug")  # every log line, debug included, goes to the captured stderr
    try:
        with receiver() as rx:
            # Given a game whose seat 0 hook fails once then works, and whose seat 1 hook always answers 404
            rx.answer = lambda got: 404 if got.path.endswith("/1") else (500 if got.attempt == 1 else 200)
            game = hooked_game(gateway, rx, seed=6)
            gid = game["game_id"]
            hooks_process(FAST_HOOKS)
            # When the game is played to its end
            for n in range(7):
                play(gateway, game, n % 2)
            wait_for(lambda: _status(gateway, game, 0)["delivered"] == 4 and _status(gateway, game, 1)["failed"] == 4)
    finally:
        configure("warning")
    logs = capsys.readouterr()
    # Then no secret is in a log line
    keys = list(rx.secrets.values())
    assert len(keys) == 2 and "webhooks.delivery_failed" in logs.err and "webhooks.retry" in logs.err
    assert not any(k in logs.err or k in logs.out for k in keys)
    # And in Redis each is only in its game's hooks hash
    shard = gateway.layout.shard_of(gid)
    hooks_key = gateway.layout.hooks(shard, gid).encode()
    everything = _everything_stored(gateway.redis)
    outside = everything.replace(b"\n".join(b"%s=%s" % kv for kv in gateway.redis.hgetall(hooks_key).items()), b"")
    assert all(k.encode() in everything for k in keys)
    assert not any(k.encode() in outside for k in keys)


def test_given_a_kind_that_follows_from_no_commit_when_another_process_notifies_it_then_its_webhooks_hear_it(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    from services.webhooks.hooks import HookStore
    from services.webhooks.notices import external_kind, kinds
    from services.webhooks.outbox import Outbox

    # Given a kind declared by another part of the service (as the clocks of issue [5/7] would)
    external_kind("test_clock_low")
    assert "test_clock_low" in kinds()
    with receiver() as rx:
        # And seat 0 hooked for it only, seat 1 for turns only
        game = new_game(gateway, "toy21", TOY, seed=7)
        gid = game["game_id"]
        for seat, wanted in ((0, ["test_clock_low"]), (1, ["turn"])):
            r = register(gateway, game, seat, rx.hook_url(f"/{seat}"), kinds=wanted)
            assert r.status_code == 201, r.text
            rx.secrets[f"/{seat}"] = r.json()["secret"]
        hooks_process(FAST_HOOKS)
        # When that part notifies both seats of it
        outbox = Outbox(gateway.redis, gateway.layout)
        store = HookStore(gateway.redis, gateway.layout)
        ids = [outbox.notify(store, gid, s, "test_clock_low", 1, {"text": "Two minutes left."}) for s in (0, 1)]
        # Then only the seat that asked for it hears it, signed, with its id and words; seat 1 hears nothing
        wait_for(lambda: ids[0] in rx.unique)
        assert rx.unique[ids[0]].notice == {
            "id": f"{gid}:0:test_clock_low:1", "kind": "test_clock_low", "game_id": gid, "seat": 0, "version": 1,
            "text": "Two minutes left.",
        }  # fmt: skip
        assert ids[1] not in rx.unique and rx.bad_signatures == 0
        # And the moves of the game still tell seat 1 its turn, and seat 0 nothing (it asked for no turns)
        v = play(gateway, game, 0)
        wait_for(lambda: f"{gid}:1:turn:{v}" in rx.unique)
        assert {r.notice_id for r in rx.requests} == {ids[0], f"{gid}:1:turn:{v}"}


def test_given_a_receiver_that_hangs_when_notices_are_due_then_the_other_receivers_still_get_theirs(
    gateway: Served, hooks_process: Callable[[WebhookConfig], Hooks]
) -> None:
    import dataclasses
    import threading

    release = threading.Event()
    with receiver() as slow, receiver() as fast:
        # Given seat 0's webhook on a receiver that holds every request until released (reached as "localhost",
        # another host than seat 1's receiver on 127.0.0.1), and the process allowed one request per host
        slow.answer = lambda got: 200 if release.wait(30) else 500
        game = new_game(gateway, "toy21", TOY, seed=8)
        gid = game["game_id"]
        for seat, rx, url in (
            (0, slow, slow.hook_url("/0").replace("127.0.0.1", "localhost")),
            (1, fast, fast.hook_url("/1")),
        ):
            r = register(gateway, game, seat, url)
            assert r.status_code == 201, r.text
            rx.secrets[f"/{seat}"] = r.json()["secret"]
        hooks = hooks_process(dataclasses.replace(FAST_HOOKS, per_host=1, timeout_s=30))
        try:
            # When the game goes on while seat 0's receiver hangs on its first notice
            versions = [play(gateway, game, n % 2) for n in range(6)]
            # Then seat 1's receiver gets each of its turns all the same
            wanted = {f"{gid}:1:turn:{v}" for v in versions[0::2]}
            wait_for(lambda: set(fast.unique) >= wanted)
            assert slow.unique == {}
        finally:
            release.set()
        # And once released, seat 0's receiver gets its turns too
        wait_for(lambda: set(slow.unique) >= {f"{gid}:0:turn:{v}" for v in versions[1::2]})
        # And the hosts' and seats' slots are forgotten once nobody waits for them
        wait_for(lambda: len(hooks.deliverer.slots) == 0)

"""Heavy reads are bounded and fairly shared: pages with a cursor, finished games' pages cached with an ETag, the
rate limit charged by the bytes served, and anonymous reads behind a gate that the players' requests bypass."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.chatbot.client import GatewayClient
from services.gateway.limits import ByteBudget, TokenBuckets
from services.gateway.pages import MAX_EVENTS_PAGE, PageCache, page_of
from tests.gateway.bots import play_http
from tests.gateway.conftest import OPEN, Served, error_of, new_game, redis_url, serve, walk  # noqa: F401 - fixture

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway with a rules worker."""
    s = serve(redis_url)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(scope="module")
def finished(served: Served) -> dict[str, Any]:
    """A 3-player game played to its end through HTTP."""
    created = new_game(served, players=("Ann", "Bob", "Cid"), seed=61)
    game = play_http(served, created, seed=61)
    return {"id": created["game_id"], "tokens": game.tokens, "version": game.summary["version"]}


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def test_the_cursor_walks_a_whole_game_exactly_once_a_bounded_page_at_a_time(
    served: Served, finished: dict[str, Any]
) -> None:
    gid, last = finished["id"], finished["version"]
    with served.http() as http, served.http(finished["tokens"][1]) as seat:
        # When a spectator and a seat walk the events 37 versions a page, following next from after=0
        pages: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            pages.append(_ok(http.get(f"/games/{gid}/events", params={"after": after, "limit": 37})))
            after = pages[-1]["next"]
        seats = walk(seat, f"/games/{gid}/seats/1/events", limit=37)
        # and the audit, 20 versions a page
        audit = walk(http, f"/games/{gid}/audit", "entries", limit=20)
        # and without a limit: the default page
        default = _ok(http.get(f"/games/{gid}/events"))
        too_many = http.get(f"/games/{gid}/events", params={"limit": MAX_EVENTS_PAGE + 1})
    # Then every version comes exactly once, in order, no page covering more than its limit
    versions = [e["version"] for page in pages for e in page["events"]]
    assert versions == list(range(1, last + 1))
    assert all(len(page["events"]) <= 37 and page["after"] < page["events"][0]["version"] for page in pages)
    assert [p["next"] for p in pages[:-1]] == [p["events"][-1]["version"] for p in pages[:-1]]
    assert pages[-1]["next"] is None and pages[-1]["version"] == last
    assert [e["version"] for e in seats] == list(range(1, last + 1))
    assert [e["version"] for e in audit if e["kind"] == "event"] == list(range(1, last + 1))
    # And a page never holds more than the documented maximum
    assert len(default["events"]) == 100 and default["next"] == 100
    error_of(too_many, 422, "validation_error")


def test_a_running_games_page_reaches_back_past_the_cached_events(served: Served) -> None:
    # Given a game some way in (further than the events the gateway keeps at hand)
    created = new_game(served, seed=5)
    game = play_http(served, created, seed=5, until=lambda g: g.commands >= 40)
    version = game.summary["version"]
    with served.http() as http:
        # When a spectator walks it from the start in small pages
        events = walk(http, f"/games/{created['game_id']}/events", limit=9)
        first = http.get(f"/games/{created['game_id']}/events", params={"limit": 9})
    # Then it gets every event once, and the pages may change while it runs: asked again every time
    assert [e["version"] for e in events] == list(range(1, version + 1))
    assert first.headers["cache-control"] == "public, no-cache" and first.headers["etag"]


def test_a_finished_games_page_answers_304_to_its_etag_which_never_changes(
    served: Served, finished: dict[str, Any]
) -> None:
    gid = finished["id"]
    path, params = f"/games/{gid}/events", {"after": 50, "limit": 30}
    with served.http() as http:
        # When a client reads a finished game's page, then asks again with its ETag
        first = http.get(path, params=params)
        again = http.get(path, params=params, headers={"If-None-Match": first.headers["etag"]})
        stale = http.get(path, params=params, headers={"If-None-Match": '"something-else"'})
        audit = http.get(f"/games/{gid}/audit", params={"limit": 10})
        audit_again = http.get(
            f"/games/{gid}/audit", params={"limit": 10}, headers={"If-None-Match": audit.headers["etag"]}
        )
        replay = http.get(f"/games/{gid}/replay", params={"version": 3})
        replay_again = http.get(
            f"/games/{gid}/replay", params={"version": 3}, headers={"If-None-Match": replay.headers["etag"]}
        )
    # Then the page may be kept (it never changes) and the second answer is 304 without a body
    assert first.status_code == 200 and first.headers["cache-control"].startswith("public, max-age=")
    assert "immutable" in first.headers["cache-control"]
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
    assert stale.status_code == 200 and stale.headers["etag"] == first.headers["etag"]
    assert stale.content == first.content
    assert audit_again.status_code == 304 and replay_again.status_code == 304
    # And the page was kept serialized: the cache holds it
    reads = served.server.config.app.state.reads
    assert reads.cache.get(("events", gid, None, 50, 30)).etag == first.headers["etag"]


def test_the_etag_of_a_finished_games_page_is_the_same_when_built_again(
    served: Served, finished: dict[str, Any]
) -> None:
    # Given the page cache emptied (as after a restart, or its least recently used pages dropped)
    gid = finished["id"]
    with served.http() as http:
        before = http.get(f"/games/{gid}/events", params={"after": 10, "limit": 5})
        reads = served.server.config.app.state.reads
        reads.cache = PageCache(1)  # keeps nothing from here on
        # When the page is built again, twice
        rebuilt = [http.get(f"/games/{gid}/events", params={"after": 10, "limit": 5}) for _ in range(2)]
    # Then its ETag and bytes are the same: a finished game's page never changes
    assert {r.headers["etag"] for r in rebuilt} == {before.headers["etag"]}
    assert all(r.content == before.content for r in rebuilt)
    assert len(reads.cache) == 0


def test_the_page_cache_is_bounded_by_bytes_least_recently_used_first() -> None:
    # Given a cache of 10,000 bytes and final pages of about 3,000 bytes each
    cache = PageCache(10_000)
    pages = {i: page_of(bytes([65 + i]) * 2_800, final=True) for i in range(5)}
    # When four are kept, the first read again, then a fifth kept
    for i in range(3):
        cache.put(i, pages[i])
    assert cache.get(0) is not None
    cache.put(3, pages[3])
    # Then the least recently used one went, and the bytes held stay within the bound
    assert cache.get(1) is None and cache.get(0) is not None and cache.get(3) is not None
    assert cache.size <= 10_000
    # And a page of a running game is never kept, nor one larger than the whole cache
    cache.put(9, page_of(b"x" * 10, final=False))
    cache.put(8, page_of(b"x" * 20_000, final=True))
    assert cache.get(9) is None and cache.get(8) is None


def test_an_address_served_its_bytes_is_refused_while_another_address_and_the_players_pass(
    redis_url: str,  # noqa: F811 - the imported fixture
) -> None:
    # Given a gateway allowing plenty of requests, but each client key 400,000 bytes of answers at once
    budget = 400_000
    served = serve(redis_url, limits=dataclasses.replace(OPEN, read_bytes_rate=1.0, read_bytes_burst=budget))
    try:
        created = new_game(served, seed=9)
        game = play_http(served, created, seed=9, until=lambda g: g.commands >= 30)
        gid = created["game_id"]
        with served.http() as http:
            # When one anonymous address reads the first events page again and again
            served_bytes, answers = 0, []
            for _ in range(200):
                answer = http.get(f"/games/{gid}/events", params={"after": 0})
                answers.append(answer.status_code)
                if answer.status_code != 200:
                    break
                served_bytes += len(answer.content)
            refused = answer
            # and then with a made-up token
            made_up = http.get(f"/games/{gid}/events", headers={"Authorization": "Bearer made-up"})
        # Then it is refused once it was served its budget, not before, with a hint when to retry
        error_of(refused, 429, "rate_limited")
        assert int(refused.headers["retry-after"]) >= 1
        assert answers.count(200) >= 2 and served_bytes >= budget - 20_000  # (what the game's set-up read)
        error_of(made_up, 429, "rate_limited")
        # And another address reads on
        other = httpx.Client(
            base_url=served.base_url, transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=15
        )
        with other:
            summary = _ok(other.get(f"/games/{gid}"))
            assert other.get(f"/games/{gid}/events").status_code == 200
        # And the player the game waits for (its own token) plays on
        seat = summary["awaiting"][0]
        with served.http(game.tokens[seat]) as player:
            view = _ok(player.get(f"/games/{gid}/seats/{seat}/view"))
            command = {"command": view["legal"][0]["command"], "expected_version": view["version"]}
            assert player.post(f"/games/{gid}/commands", json=command).status_code == 200
    finally:
        served.close()


def test_a_players_command_completes_while_the_read_gate_is_full(
    redis_url: str,  # noqa: F811 - the imported fixture
) -> None:
    # Given a gateway with 4 threads, building 2 anonymous heavy reads at once with 3 more waiting
    served = serve(redis_url, limits=dataclasses.replace(OPEN, read_slots=2, read_queue=3), threads=4)
    try:
        created = new_game(served, seed=11)
        game = play_http(served, created, seed=11, until=lambda g: g.commands >= 5)
        gid, tokens = created["game_id"], game.tokens
        gateway = served.server.config.app.state.gateway
        gate = served.server.config.app.state.reads.gate
        # and every events page held in the middle of its building until released
        release, inside = threading.Event(), []
        building = gateway.directory.history_page

        def held(*args: Any) -> Any:
            inside.append(threading.current_thread().name)
            assert release.wait(60), "never released"
            return building(*args)

        gateway.directory.history_page = held
        results: list[int] = []

        def read() -> None:
            with served.http() as http:
                results.append(http.get(f"/games/{gid}/events", timeout=60).status_code)

        readers = [threading.Thread(target=read) for _ in range(5)]
        for t in readers:
            t.start()
        # When five anonymous reads are in flight: two building, three waiting at the gate
        deadline = time.monotonic() + 30
        while not (gate.running == 2 and gate.waiting == 3):
            assert time.monotonic() < deadline, (gate.running, gate.waiting)
            time.sleep(0.01)
        try:
            with served.http() as http:
                sixth = http.get(f"/games/{gid}/events")
            summary = served.http().get(f"/games/{gid}").json()
            seat = summary["awaiting"][0]
            with served.http(tokens[seat]) as player:
                # Then the player's own view (a thread-pool read) and its command complete meanwhile
                view = _ok(player.get(f"/games/{gid}/seats/{seat}/view"))
                command = {"command": view["legal"][0]["command"], "expected_version": view["version"]}
                outcome = player.post(f"/games/{gid}/commands", json=command)
            assert outcome.status_code == 200, outcome.text
            # while only two reads reached the thread pool, and a sixth one was refused at once
            assert len(inside) == 2 and not results
            error_of(sixth, 429, "rate_limited")
        finally:
            release.set()
            for t in readers:
                t.join(60)
        # And once released, the waiting reads are served too
        assert results == [200] * 5
    finally:
        served.close()


def test_the_client_library_follows_the_cursor(served: Served, finished: dict[str, Any]) -> None:
    gid, last = finished["id"], finished["version"]
    # When the gateway's client library reads a finished game's events (as a spectator, and as seat 2) and audit
    with GatewayClient(served.base_url) as anyone, GatewayClient(served.base_url, finished["tokens"][2]) as seat:
        events = list(anyone.events(gid, limit=64))
        own = list(seat.events(gid, seat=2))
        audit = list(anyone.audit(gid, limit=40))
    # Then each holds every version once
    assert [e["version"] for e in events] == [e["version"] for e in own] == list(range(1, last + 1))
    assert [e["version"] for e in audit if e["kind"] == "event"] == list(range(1, last + 1))


def test_the_byte_budget_refuses_a_key_in_debt_until_it_refilled() -> None:
    # Given a budget of 1,000 bytes at once and 100 bytes a second per key (token keys: 5,000 per address)
    now = [0.0]
    budget = ByteBudget(
        TokenBuckets(100.0, 1_000, clock=lambda: now[0]), TokenBuckets(1_000.0, 5_000, clock=lambda: now[0])
    )
    # When an anonymous address is served 1,500 bytes in one answer (a page is charged after it is sent)
    assert budget.wait("a:1.2.3.4", "1.2.3.4") == 0.0
    budget.charge("a:1.2.3.4", "1.2.3.4", 1_500)
    # Then it must wait until its debt is paid back, while another address and a token need not
    assert budget.wait("a:1.2.3.4", "1.2.3.4") == pytest.approx(5.01)
    assert budget.wait("a:5.6.7.8", "5.6.7.8") == 0.0 and budget.wait("t:x", "1.2.3.4") == 0.0
    now[0] = 5.1
    assert budget.wait("a:1.2.3.4", "1.2.3.4") == 0.0
    # And tokens made up at one address share that address's wider budget
    for i in range(6):
        budget.charge(f"t:made-up-{i}", "5.6.7.8", 900)
    assert budget.wait("t:made-up-9", "5.6.7.8") > 0.0 and budget.wait("a:5.6.7.8", "5.6.7.8") == 0.0

"""The fair shuffle through the gateway, on a real redis-server with a rules worker and the projection workers
[X23, X24, KX23, KX24]: the referee draws every seed itself, nobody sees it (nor its salt) on any read path while
the game runs, the commitment is published at the start and the reveal at the end verifies; a chosen seed is only
kept on a practice table, and marked so."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from websockets.sync.client import connect

from projections.api import ReadModels
from projections.verify import verify_recorded
from services.adjudicator import adjudicate
from services.rules import fair
from services.rules.registry import get_game
from services.store import eventstore
from tests.gateway.bots import HttpGame, play_http
from tests.gateway.conftest import Served, error_of, serve

pytestmark = pytest.mark.redis

PLAYERS = ("Ann", "Bob", "Cid")


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:
    """A gateway with its rules worker and every projection worker (the read models are read paths too)."""
    gateway = serve(redis_url, projections=True)
    try:
        yield gateway
    finally:
        gateway.close()


def _create(served: Served, game: str, **extra: Any) -> httpx.Response:
    with served.http() as http:
        return http.post("/games", json={"game": game, "players": list(PLAYERS), **extra})


def _secrets(served: Served, gid: str) -> tuple[int, str]:
    """The truth, from the event store (the operator's Redis): the seed GameStarted recorded and the salt."""
    events = eventstore.read_events(served.redis, served.layout, gid)
    committed = next(e.data for e in events if e.data["type"] == "SeedCommitted")
    return int(events[0].data["seed"]), str(committed["salt"])


def _pages(http: httpx.Client, path: str) -> list[str]:
    """Every page of a paged read (events, audit), walking ``next`` from 0."""
    out, after = [], 0
    while after is not None:
        r = http.get(path, params={"after": after, "limit": 100})
        out.append(r.text)
        after = r.json().get("next") if r.status_code == 200 else None
    return out


def _texts(served: Served, gid: str, tokens: list[str], game: HttpGame | None) -> dict[str, list[str]]:
    """Every body the API gives a spectator and each seat about ``gid`` now, by reader ("public", "0", ...)."""
    out: dict[str, list[str]] = {"public": []}
    with served.http() as http:
        summary = http.get(f"/games/{gid}").json()
        version = int(summary["version"])
        paths = [
            f"/games/{gid}", f"/games/{gid}/view", f"/games/{gid}/scoreboard",
            f"/games/{gid}/board.txt", f"/games/{gid}/board.svg", f"/games/{gid}/verify",
            "/lobby/games", f"/leaderboard?game={summary['game']}",
            *(f"/games/{gid}/replay?version={v}" for v in range(version + 1)),
        ]  # fmt: skip
        out["public"] += [http.get(path).text for path in paths]
        out["public"] += _pages(http, f"/games/{gid}/events") + _pages(http, f"/games/{gid}/audit")
    out["public"].append(_live_feed(served, gid, version))
    for seat, token in enumerate(tokens):
        mine = out.setdefault(str(seat), [])
        with served.http(token) as http:
            paths = [
                f"/games/{gid}/seats/{seat}/view",
                f"/games/{gid}/seats/{seat}/board.svg", f"/games/{gid}/audit?seat={seat}",
                *(f"/games/{gid}/replay?version={v}&seat={seat}" for v in range(0, version + 1, 7)),
            ]  # fmt: skip
            mine += [http.get(path).text for path in paths] + _pages(http, f"/games/{gid}/seats/{seat}/events")
        if game is not None:  # the replies to the seat's own commands
            mine += [orjson.dumps(body).decode() for s, _, body in game.outcomes if s == seat]
    return out


def _live_feed(served: Served, gid: str, upto: int) -> str:
    """The spectators' WebSocket feed from the start to version ``upto``, as one text."""
    got: list[str] = []
    with connect(f"{served.ws_url}/games/{gid}/feed?after=0", open_timeout=10) as ws:
        while True:
            text = ws.recv(timeout=20)
            got.append(str(text))
            message = orjson.loads(text)
            if message.get("version", 0) >= upto or message.get("kind") == "over":
                return "\n".join(got)


def _found(texts: dict[str, list[str]], *needles: str) -> set[str]:
    return {needle for bodies in texts.values() for body in bodies for needle in needles if needle in body}


@pytest.mark.parametrize("game_name", ["shadow", "barracks"])
@pytest.mark.parametrize("play_seed", [1, 2])
def test_no_read_path_shows_the_seed_or_the_salt_before_the_end_and_the_reveal_verifies_after(
    served: Served, game_name: str, play_seed: int
) -> None:
    # Given a game created without a seed (the referee draws it), played by random bots through HTTP
    r = _create(served, game_name)
    assert r.status_code == 201, r.text
    created = r.json()
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    seed, salt = _secrets(served, gid)
    assert created["seed"] is None and created["practice"] is False
    assert created["commitment"] == fair.commitment(seed, salt)
    needles = (str(seed), salt)

    # When every read path is read at the start and in the middle of the game
    assert not _found(_texts(served, gid, tokens, None), *needles), "a read path shows the seed or the salt"
    game = play_http(served, created, seed=play_seed, until=lambda g: g.commands >= 25)
    seen = _texts(served, gid, tokens, game)

    # Then none of them shows the seed or the salt, to a spectator or to any seat
    assert not _found(seen, *needles), "a read path shows the seed or the salt while the game runs"
    with served.http() as http:
        summary = http.get(f"/games/{gid}").json()
    assert summary["fairness"]["commitment"] == created["commitment"] and not summary["fairness"]["revealed"]

    # When the game is played to its end
    play_http(served, created, seed=play_seed, game=game)
    seen = _texts(served, gid, tokens, game)

    # Then the reveal is public and verifies: in the summary, the events, the audit and the verification
    assert _found(seen, *needles) == set(needles)
    with served.http() as http:
        summary = http.get(f"/games/{gid}").json()
        pages = [orjson.loads(page) for page in _pages(http, f"/games/{gid}/events")]
        events = [e["event"] for page in pages for e in page["events"]]
        audit = http.get(f"/games/{gid}/audit").json()
        verified = http.get(f"/games/{gid}/verify").json()
    assert summary["fairness"] | {"seed": str(seed), "salt": salt, "revealed": True} == summary["fairness"]
    assert events[-1]["type"] == "SeedRevealed" and events[-1]["seed"] == str(seed)
    assert audit["fairness"]["status"] == fair.VERIFIED and audit["practice"] is False
    assert verified["ok"] and verified["fairness"]["status"] == fair.VERIFIED


def test_two_games_created_by_the_same_request_get_different_seeds_and_commitments(served: Served) -> None:
    # Given the same creation request sent twice
    first, second = _create(served, "barracks"), _create(served, "barracks")
    assert first.status_code == second.status_code == 201
    # Then the two games were dealt from different seeds, under different commitments
    a, b = first.json()["game_id"], second.json()["game_id"]
    assert _secrets(served, a)[0] != _secrets(served, b)[0]
    assert first.json()["commitment"] != second.json()["commitment"]


def _candidates(value: Any) -> Iterator[int]:
    """Every integer in ``value`` (JSON), and every integer written in one of its strings."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, str):
        yield from (int(digits) for digits in re.findall(r"\d+", value))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _candidates(key)
            yield from _candidates(item)
    elif isinstance(value, list):
        for item in value:
            yield from _candidates(item)


def test_a_seat_that_knows_everything_the_api_gave_it_cannot_reproduce_the_deal(served: Served) -> None:
    # Given a Barracks game (the seed fixes every shuffle and deal [K13, KX23]) and all a seat got from the API
    r = _create(served, "barracks")
    created = r.json()
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    game = play_http(served, created, seed=3, until=lambda g: g.commands >= 10)
    bodies = [created, *(orjson.loads(t) for t in _texts(served, gid, tokens, game)["0"] if t.startswith("{"))]
    candidates = set(_candidates(bodies)) | {
        int(x, 16) for x in re.findall(r"[0-9a-f]{16,}", orjson.dumps(bodies).decode())
    }
    assert len(candidates) > 50  # the seat was told plenty: versions, ids, times, card numbers, the commitment

    # When each of those numbers is tried as the seed of the same table
    rules = get_game("barracks").rules
    recorded = eventstore.read_events(served.redis, served.layout, gid)
    shuffles = [e.data for e in recorded if e.data["type"] in ("DeckShuffled", "EmperorDeckShuffled")][:2]
    hits = []
    for guess in candidates:
        dealt = [rules.encode_event(e) for e in rules.start(list(PLAYERS), {}, guess)]
        tried = [d for d in dealt if d["type"] in ("DeckShuffled", "EmperorDeckShuffled")][:2]
        if tried == shuffles:
            hits.append(guess)

    # Then none of them deals the game's decks
    assert not hits


def test_a_chosen_seed_on_a_table_strangers_can_join_is_refused(served: Served) -> None:
    # Given a table with an open seat (the lobby offers it to anyone) [X24, KX24]
    with served.http() as http:
        before = http.get("/lobby/games").text
    # When its creator chooses the seed
    for game in ("shadow", "barracks"):
        r = _create(served, game, seed=42, open=[2])
        # Then the creation is refused with a typed error, and nothing was created
        assert "open" in error_of(r, 422, "seed_not_allowed")["message"]
    with served.http() as http:
        assert http.get("/lobby/games").text == before


def test_a_chosen_seed_makes_a_practice_table_marked_as_such(served: Served) -> None:
    # Given a table whose seats are all the creator's or bots' [X24, KX24]
    r = _create(served, "barracks", seed=42, bots={"1": "random", "2": "random"})
    # When its creator chooses the seed
    assert r.status_code == 201, r.text
    created = r.json()
    gid = created["game_id"]
    # Then it is kept, and the table is a practice table everywhere its results show
    assert created["seed"] == 42 and created["practice"] is True
    assert created["commitment"] == fair.commitment(42, _secrets(served, gid)[1])
    with served.http() as http:
        assert http.get(f"/games/{gid}").json()["practice"] is True
        assert http.get(f"/games/{gid}/replay", params={"version": 1}).json()["fairness"]["practice"] is True
        assert http.get("/leaderboard", params={"game": "barracks"}).json()["practice_tables"].startswith("not")
    events = eventstore.read_events(served.redis, served.layout, gid)
    committed = next(e.data for e in events if e.data["type"] == "SeedCommitted")
    assert committed["practice"] is True and committed["rulings"] == ["KX23", "KX24"]


def test_a_tampered_reveal_or_commitment_is_a_mismatch_for_verify_the_audit_and_the_adjudicator(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a finished Shadow game
    created = _create(served, "shadow").json()
    gid = created["game_id"]
    play_http(served, created, seed=5)
    models = ReadModels(served.redis, served.layout)
    assert models.audit(gid)["fairness"]["status"] == fair.VERIFIED
    lines = models.export(gid)
    header = orjson.loads(lines[0])
    assert next(r for r in adjudicate(lines) if "fairness" in r)["fairness"]["status"] == fair.VERIFIED

    # When the recorded reveal names another seed (as a forged record would)
    real = models.history.events

    def forged(game: Any, first: int, last: int) -> list[eventstore.StoredEvent]:
        out = real(game, first, last)
        return [
            eventstore.StoredEvent(e.version, {**e.data, "seed": "12345"}, e.command_id, e.at)
            if e.data["type"] == "SeedRevealed" else e
            for e in out
        ]  # fmt: skip

    monkeypatch.setattr(models.history, "events", forged)
    # Then the audit and the verification report a mismatch
    assert models.audit(gid)["fairness"]["status"] == fair.MISMATCH
    monkeypatch.undo()
    # (the verification reads the store itself: it is given the same forged record)
    game = models.history.game(gid)
    tampered = forged(game, 1, game.version)
    report = verify_recorded(game.rules, game.meta, tampered, models.history.commands(game))
    assert not report["ok"] and report["fairness"]["status"] == fair.MISMATCH

    # When the published commitment in the adjudicator's header is not the one of its seed and salt
    header["commitment"] = "0" * 64
    closing = next(r for r in adjudicate([orjson.dumps(header), *lines[1:]]) if "fairness" in r)["fairness"]
    # Then the adjudicator reports a mismatch
    assert closing["status"] == fair.MISMATCH

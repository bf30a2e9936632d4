"""The referees' surfaces through a running gateway on a real redis-server, for every installed game: refusals keep
their ruling ids over HTTP and in the audit, refused commands are interleaved with the events (a seat sees its
own while the game runs, everyone once it is over), ruling ids resolve to their texts at the rules routes, and
the audit's sentences are a referee's (no "None", no "you").
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.gateway.conftest import Served, error_of, new_game, redis_url, serve, walk  # noqa: F401 - fixture

pytestmark = pytest.mark.redis

TABLES = {"shadow": ("Ann", "Bob", "Cid", "Dee"), "barracks": ("Ann", "Bob")}
PERSPECTIVE = re.compile(r"\b(you|your|yours)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    """A gateway with a rules worker and every projection worker."""
    s = serve(redis_url, projections=True)
    try:
        yield s
    finally:
        s.close()


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def play_with_refusals(served: Served, game: str, seed: int, every: int = 15) -> dict[str, Any]:
    """Random bots play a game to its end through HTTP; every ``every`` commands a seat that is not awaited sends
    the awaited seat's chosen command as its own, which the rules refuse. Returns the game id, tokens, and each
    refusal as ``(seat, version judged at, error body)``; checks the seat's own audit while the game runs."""
    created = new_game(served, game=game, players=TABLES[game], seed=seed)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    rng = random.Random(seed)
    clients = [served.http(t) for t in tokens]
    public = served.http()
    refusals: list[tuple[int, int, dict[str, Any]]] = []
    try:
        for n in range(5000):
            summary = _ok(public.get(f"/games/{gid}"))
            if summary["over"]:
                break
            seat = rng.choice(summary["awaiting"])
            view = _ok(clients[seat].get(f"/games/{gid}/seats/{seat}/view"))
            choice = rng.choice(view["legal"])["command"]
            idle = [s for s in range(len(tokens)) if s not in summary["awaiting"]]
            if n % every == every - 1 and idle:
                other = rng.choice(idle)
                sent = {k: v for k, v in choice.items() if k != "seat"}
                response = clients[other].post(f"/games/{gid}/commands", json={"command": sent})
                # Given a command from a seat the game does not wait for, then it is refused with its rulings
                error = error_of(response, 409, response.json()["error"]["code"])
                assert error["rulings"], f"a rules refusal without ruling ids: {error}"
                refusals.append((other, view["version"], error))
                # and that seat (only) may read it in its own audit while the game runs
                own = {"entries": walk(clients[other], f"/games/{gid}/audit", "entries", seat=other)}
                assert own["entries"][-1]["code"] == error["code"]
                assert own["entries"][-1]["rulings"] == error["rulings"]
                assert all(e["command"]["seat"] == other for e in own["entries"])
            _ok(clients[seat].post(f"/games/{gid}/commands", json={"command": choice}))
        else:
            raise AssertionError("the game did not end")
    finally:
        for c in [*clients, public]:
            c.close()
    return {"id": gid, "tokens": tokens, "refusals": refusals, "players": TABLES[game]}


@pytest.fixture(scope="module", params=sorted(TABLES))
def played(request: pytest.FixtureRequest, served: Served) -> dict[str, Any]:
    game = request.param
    return {"game": game, **play_with_refusals(served, game, seed=5)}


def test_a_seat_reads_only_its_own_refusals_while_the_game_runs(served: Served) -> None:
    # Given a running Shadow game with a refused command of seat 1
    created = new_game(served, seed=91)
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    with served.http(tokens[1]) as http:
        refused = http.post(f"/games/{gid}/commands", json={"command": {"type": "Pass"}})
    assert refused.status_code in (409, 422)
    with served.http(tokens[1]) as own, served.http(tokens[2]) as other, served.http() as anyone:
        mine = {"entries": walk(own, f"/games/{gid}/audit", "entries", seat=1)}
        foreign = other.get(f"/games/{gid}/audit", params={"seat": 1})
        anonymous = anyone.get(f"/games/{gid}/audit", params={"seat": 1})
        whole = own.get(f"/games/{gid}/audit")
    # Then its own audit has it, another seat's token and no token are refused, the whole audit is not public yet
    assert [e["code"] for e in mine["entries"]] == [refused.json()["error"]["code"]]
    assert mine["entries"][0]["command"]["payload"]["type"] == "Pass"
    error_of(foreign, 403, "forbidden_seat")
    error_of(anonymous, 401, "unauthorized")
    error_of(whole, 403, "game_running")


def test_the_audit_interleaves_refused_commands_with_the_events(served: Served, played: dict[str, Any]) -> None:
    gid, players = played["id"], played["players"]
    with served.http() as http:  # over: public
        entries = walk(http, f"/games/{gid}/audit", "entries")
    events = [e for e in entries if e["kind"] == "event"]
    refused = [e for e in entries if e["kind"] == "refusal"]
    # Then every event is there once, in order
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    # and every refused command is there, after the event of the version it was judged at
    assert [(e["command"]["seat"], e["version"], e["code"]) for e in refused] == [
        (seat, version, error["code"]) for seat, version, error in played["refusals"]
    ]
    for i, entry in enumerate(entries):
        if entry["kind"] == "refusal":
            before = [e for e in entries[:i] if e["kind"] == "event"]
            assert before[-1]["version"] == entry["version"]
    for entry, (seat, _, error) in zip(refused, played["refusals"], strict=True):
        # with who, when, the command, the code, the sentence its sender was told and the rulings with texts
        assert entry["command"]["sender"] == players[seat] and entry["at_ms"] > 0
        assert entry["command"]["payload"] and entry["command"]["label"]
        assert entry["message"] == error["message"] and entry["rulings"] == error["rulings"]
        assert [t["id"] for t in entry["ruling_texts"]] == error["rulings"]
        assert all(t["text"] and t["text"] != "(not in the rules reference)" for t in entry["ruling_texts"])
        assert f"{players[seat]} (seat {seat}) sent" in entry["sentence"] and error["code"] in entry["sentence"]


def test_the_audit_is_a_referees_text(served: Served, played: dict[str, Any]) -> None:
    gid = played["id"]
    with served.http() as http:
        entries = walk(http, f"/games/{gid}/audit", "entries")
    for entry in entries:
        # What the referee says: the sentence (a refusal quotes what its sender was told, addressed to him: that
        # quotation alone is left out), the explanation, the ruling texts and the command's label.
        text = entry["sentence"]
        if entry["kind"] == "refusal":
            text = text.replace(f'"{entry["message"]}"', '"..."')
        texts = [text, entry.get("explanation", ""), *(t["text"] for t in entry["ruling_texts"])]
        if entry["command"] is not None:
            texts.append(entry["command"]["label"])
        for t in texts:
            assert "None" not in t, t
            assert not PERSPECTIVE.search(t), t
        # and every cited ruling resolves to the game's own text
        assert all(t["text"] != "(not in the rules reference)" for t in entry["ruling_texts"]), entry["ruling_texts"]
    # An event the game's own flow recorded is not told as caused by the command committed with it
    flow = [e for e in entries if e["kind"] == "event" and e["cause"] == "flow"]
    assert flow, "no flow event in a whole game"
    for entry in flow:
        assert "It follows the command" not in entry["sentence"] and "No seat chose it" in entry["sentence"]


def test_a_shadow_old_age_death_is_worded_as_the_rounds_flow(served: Served) -> None:
    # Given a finished Shadow game (several rounds: aristocrats die of old age in phase II)
    created = new_game(served, seed=3)
    from tests.gateway.bots import play_http

    play_http(served, created, seed=3)
    with served.http() as http:
        entries = walk(http, f"/games/{created['game_id']}/audit", "entries")
    deaths = [e for e in entries if e.get("event_type") == "AristocratDied" and e["event"]["cause"] == "old_age"]
    assert deaths
    # Then each is a flow event of the commit it came with, never "the command of ...: <its label>" as its cause
    for death in deaths:
        assert death["cause"] == "flow" and "It follows the command" not in death["sentence"]
        assert death["command"] is not None and death["command"]["label"] in death["sentence"]


def test_the_rules_routes_resolve_every_ruling_id(served: Served) -> None:
    with served.http() as http:
        shadow = _ok(http.get("/rules/shadow"))
        x4 = _ok(http.get("/rules/shadow/X4"))
        k27 = _ok(http.get("/rules/barracks/K27"))
        missing = http.get("/rules/shadow/X999")
        unknown = http.get("/rules/nosuchgame")
        malformed = http.get("/rules/shadow/x4")
    ids = {r["id"] for r in shadow["rulings"]}
    assert {"B1", "G1", "S1", "I1", "A1", "D1", "P1", "V1", "E1", "R1", "T1", "X1", "X14"} <= ids
    assert x4["game"] == "shadow" and x4["id"] == "X4" and x4["title"] == "Empty throne" and "throne" in x4["text"]
    assert k27["id"] == "K27" and k27["text"]
    error_of(missing, 404, "unknown_ruling")
    error_of(unknown, 404, "unknown_game_name")
    error_of(malformed, 422, "validation_error")

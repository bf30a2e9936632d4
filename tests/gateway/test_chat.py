"""The chat surface: one line of text in, the board as text and a numbered menu of legal moves out."""

from __future__ import annotations

import random
import time

import pytest

from services.gateway.chat import ChatError, menu, pick
from tests.gateway.conftest import Served, error_of, new_game, redis_url, serve  # noqa: F401 - fixture

LABELS = [
    "Place an empire city in Mainz",
    "Place an empire city in Köln",
    "Pass",
    "Buy a Pope card (3 thalers)",
    "Buy safe passage",
]


# --- parsing (no server) ------------------------------------------------------------------------------------
def test_menu_numbers_from_one() -> None:
    assert menu(["a", "b"]) == ["1. a", "2. b"]


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("1", 0), (" #2 ", 1), ("3.", 2), ("4)", 3),       # numbers, as people type them
        ("köln", 1), ("MAINZ", 0), ("pope", 3),           # a phrase contained in exactly one label
        ("pass", 2), ("passage", 4),                      # an exact label wins over labels containing it
        ("city  mainz", 0), ("pope buy", 3),              # else all words, in any order
        ("", None), ("board", None), (" Help ", None),  # only looking
    ],
)  # fmt: skip
def test_a_line_picks_one_move_or_none(text: str, index: int | None) -> None:
    assert pick(text, LABELS) == index


@pytest.mark.parametrize(
    ("text", "code", "candidates"),
    [
        ("empire city", "ambiguous_choice", ["1. Place an empire city in Mainz", "2. Place an empire city in Köln"]),
        ("6", "no_match", menu(LABELS)),
        ("0", "no_match", menu(LABELS)),
        ("castle", "no_match", menu(LABELS)),
    ],
)
def test_a_line_that_picks_no_single_move_is_a_typed_error(text: str, code: str, candidates: list[str]) -> None:
    with pytest.raises(ChatError) as err:
        pick(text, LABELS)
    assert err.value.code == code
    assert err.value.candidates == candidates


# --- through the gateway ------------------------------------------------------------------------------------


@pytest.mark.redis
def test_a_seat_chats_its_way_through_the_first_moves(gateway: Served) -> None:
    # Given a new game and the token of the seat it waits for
    created = new_game(gateway, seed=51)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with gateway.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[seat]) as chat:
        url = f"/games/{gid}/chat"
        # When it says hello, then it gets its board as text and a numbered menu, and nothing is played
        hello = chat.post(url, json={"text": "hello?"})
        error_of(hello, 422, "no_match")
        look = chat.post(url, json={"text": ""}).json()
        assert look["result"] is None and look["version"] == created["version"] and look["seat"] == seat
        assert created["seats"][seat]["player"] in look["board"]
        assert look["menu"] and all(line.startswith(f"{i}. ") for i, line in enumerate(look["menu"], 1))

        # When it answers with a phrase several moves contain, then it is asked to choose among them
        word = _shared_word(look["menu"])
        err = error_of(chat.post(url, json={"text": word}), 409, "ambiguous_choice")
        assert len(err["candidates"]) > 1 and all(word.lower() in c.lower() for c in err["candidates"])
        # and a number that is not on the menu is refused
        error_of(chat.post(url, json={"text": str(len(look["menu"]) + 1)}), 422, "no_match")

        # When it sends a number with the version of the menu it saw, then that move is played
        played = chat.post(url, json={"text": "2", "version": look["version"]}).json()
        assert played["result"]["status"] == "accepted"
        assert played["result"]["label"] == look["menu"][1].split(". ", 1)[1]
        assert played["result"]["events"] and all(isinstance(line, str) for line in played["result"]["events"])
        assert played["version"] >= played["result"]["version"] > look["version"]

        # When it picks from the old menu again, then it is told the game moved on, with the new board and menu
        err = error_of(chat.post(url, json={"text": "1", "version": look["version"]}), 409, "menu_changed")
        assert err["version"] == played["version"] and err["menu"] == played["menu"] and err["board"]


def _shared_word(lines: list[str]) -> str:
    words = [set(line.split(". ", 1)[1].lower().split()) for line in lines]
    common = set.intersection(*words) if len(words) > 1 else set()
    return max(common, key=len) if common else "zzz"


@pytest.mark.redis
def test_chat_bots_play_a_whole_game_by_menu_numbers(gateway: Served) -> None:
    # Given a 3-player game where each seat is driven by a chat-bot that only reads the menu and answers a number
    created = new_game(gateway, players=("Ann", "Bob", "Cid"), seed=52)
    gid = created["game_id"]
    rng = random.Random(52)
    chats = [gateway.http(s["token"]) for s in created["seats"]]
    public = gateway.http()
    try:
        moves = 0
        while True:
            summary = public.get(f"/games/{gid}").json()
            if summary["over"]:
                break
            seat = rng.choice(summary["awaiting"])
            look = chats[seat].post(f"/games/{gid}/chat", json={"text": "menu"}).json()
            assert look["menu"], f"{seat} is awaited: it has moves"
            number = rng.randint(1, len(look["menu"]))
            reply = chats[seat].post(f"/games/{gid}/chat", json={"text": str(number), "version": look["version"]})
            assert reply.status_code == 200, reply.text
            moves += 1
            assert moves < 3000
        # Then the game ended, and the last board the chat shows says so
        last = chats[0].post(f"/games/{gid}/chat", json={"text": "board"}).json()
        assert last["over"] is True and last["menu"] == [] and summary["result"]["winners"]
    finally:
        for c in [*chats, public]:
            c.close()


@pytest.mark.redis
def test_a_person_chats_a_whole_game_against_a_bot_seat(redis_url: str) -> None:  # noqa: F811 - fixture
    # Given a gateway with the bots process running, and a 2-player game whose seat 1 is a bot
    served = serve(redis_url, bots=True)
    try:
        with served.http() as http:
            r = http.post("/games", json={"game": "shadow", "players": ["Ann", "Robot"], "seed": 71,
                                          "bots": {"1": "random"}})  # fmt: skip
        assert r.status_code == 201, r.text
        created = r.json()
        gid = created["game_id"]
        # Then the bot's seat comes without a token: nobody but the bots process acts for it
        assert created["seats"][1] == {"seat": 1, "player": "Robot", "token": None, "bot": "random", "player_id": None}
        rng = random.Random(71)
        with served.http(created["seats"][0]["token"]) as chat:
            # When the person answers each menu with a number whenever it is their turn
            deadline = time.monotonic() + 60
            while True:
                look = chat.post(f"/games/{gid}/chat", json={"text": "board"}).json()
                if look["over"]:
                    break
                assert time.monotonic() < deadline, "the game did not end in time"
                if not look["menu"]:
                    time.sleep(0.005)  # the bot's turn
                    continue
                number = rng.randint(1, len(look["menu"]))
                reply = chat.post(f"/games/{gid}/chat", json={"text": str(number), "version": look["version"]})
                assert reply.status_code in (200, 409), reply.text  # 409: the bot moved first (menu_changed)
        # Then the game ends, the bot having played its seat
        with served.http() as http:
            summary = http.get(f"/games/{gid}").json()
        assert summary["over"] is True and summary["result"]["winners"]
    finally:
        served.close()

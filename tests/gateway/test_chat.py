"""The chat surface: one line of text in; what happened since the seat's last message, the board as text and a
menu of legal moves, grouped and paged under a size limit, out."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import httpx
import pytest

import tests.service.toy_game
from services.menus.menu import Menu, groups_of, type_title
from services.menus.phrases import ChatError, Choice, interpret, menu, normalize, pick
from services.rules.contract import GamePlugin, Presenter
from services.rules.registry import get_game
from tests.gateway.bots import play_http
from tests.gateway.conftest import Served, error_of, new_game, redis_url, serve  # noqa: F401 - fixture
from tests.gateway.folding import folded
from tests.waiting import patient

SHADOW = get_game("shadow")
BARRACKS = get_game("barracks")

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
        error_of(hello, 409, "no_match")
        look = chat.post(url, json={"text": ""}).json()
        assert look["result"] is None and look["version"] == created["version"] and look["seat"] == seat
        assert created["seats"][seat]["player"] in look["board"]
        assert look["menu"] and all(line.startswith(f"{i}. ") for i, line in enumerate(look["menu"], 1))

        # When it answers with a phrase several moves contain, then it is asked to choose among them
        word = _shared_word(look["menu"])
        err = error_of(chat.post(url, json={"text": word}), 409, "ambiguous_choice")
        assert len(err["candidates"]) > 1 and all(word.lower() in c.lower() for c in err["candidates"])
        # and a number that is not on the menu is refused
        error_of(chat.post(url, json={"text": str(len(look["menu"]) + 1)}), 409, "no_match")

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
        assert created["seats"][1] == {
            "seat": 1, "player": "Robot", "token": None, "bot": "random", "player_id": None, "open": False
        }  # fmt: skip
        rng = random.Random(71)
        with served.http(created["seats"][0]["token"]) as chat:
            # When the person answers each menu with a number whenever it is their turn
            deadline = time.monotonic() + patient(300)
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


# --- accents, groups and pages (no server) ------------------------------------------------------------------
@pytest.mark.parametrize("text", ["koln", "KOLN", "Köln", "KÖLN", "empire city koln", "köln"])
def test_a_phrase_ignores_accents_and_case(text: str) -> None:
    assert pick(text, LABELS) == 1


def test_normalize_drops_accents_and_folds_case() -> None:
    assert normalize("  Köln\u2019s  PRIVILEGE ") == "koln's privilege"
    assert normalize("Straße") == "strasse"


def _phase_iv(min_moves: int = 80) -> tuple[Any, int, list[Any]]:
    """A Shadow position in phase IV where the awaited seat has at least ``min_moves`` legal commands."""
    rules = SHADOW.rules
    for seed in range(1, 50):
        rng = random.Random(seed)
        state = rules.fold(rules.start(["Ann", "Bob", "Cid", "Dee"], {}, seed))
        while not rules.is_over(state) and state.game.round == 1:
            seat = rules.awaited(state)[0]
            legal = rules.legal_commands(state, seat)
            if state.game.phase == 4 and len(legal) >= min_moves:
                return state, seat, legal
            _, state = rules.execute(state, rng.choice(legal))
    raise AssertionError("no big phase IV menu found")


def _walk(menu: Menu, key: str, max_chars: int) -> list[int]:
    """Every move number a reader reaches from group ``key`` by opening groups and paging with "more"."""
    numbers: list[int] = []
    page, pages = 0, 1
    while page < pages:
        shown = menu.page(key, page, max_chars, "Round 1, phase IV Actions. Your turn: take an action.")
        assert len(shown.text) <= max_chars, shown.text
        pages = shown.pages
        for entry in shown.entries:
            if entry.number is not None:
                numbers.append(entry.number)
            elif entry.key is not None:
                numbers.extend(_walk(menu, entry.key, max_chars))
        page += 1
    return numbers


def _biggest_barracks_menu() -> tuple[Any, list[Any]]:
    """A Barracks position (2 players) where the awaited seat has the longest legal list of a seeded game."""
    rules = BARRACKS.rules
    rng = random.Random(5)
    state = rules.fold(rules.start(["Ann", "Bob"], {}, 5))
    best: tuple[Any, list[Any]] = (state, [])
    while not rules.is_over(state):
        (seat,) = rules.awaited(state)
        legal = rules.legal_commands(state, seat)
        if len(legal) > len(best[1]):
            best = (state, legal)
        _, state = rules.execute(state, rules.sample_legal(state, seat, rng))
    return best


@pytest.mark.parametrize("max_chars", [300, 2000])
def test_a_long_barracks_menu_is_grouped_and_paged_under_the_limit_and_every_move_is_reachable(max_chars: int) -> None:
    state, legal = _biggest_barracks_menu()
    labels = [BARRACKS.presenter.label(c, state) for c in legal]
    menu = Menu(labels, BARRACKS.presenter.menu_groups(legal, state))
    assert len("\n".join(menu.lines())) > 2000
    assert sorted(_walk(menu, "", max_chars)) == list(range(1, len(legal) + 1))


@pytest.mark.parametrize("max_chars", [300, 700, 2000, 4096])
def test_a_phase_iv_menu_is_grouped_and_paged_under_the_limit_and_every_move_is_reachable(max_chars: int) -> None:
    # Given a phase IV turn whose numbered menu is far over the limit
    state, _, legal = _phase_iv()
    labels = [SHADOW.presenter.label(c, state) for c in legal]
    menu = Menu(labels, SHADOW.presenter.menu_groups(legal, state))
    assert len("\n".join(menu.lines())) > 4096
    # When a reader opens every group and pages through every listing
    reached = _walk(menu, "", max_chars)
    # Then every message fitted, and every move was reached exactly once, numbered in menu order
    assert sorted(reached) == list(range(1, len(legal) + 1))
    assert sorted(menu.order) == list(range(len(legal)))
    top = menu.page("", 0, max_chars)
    assert any(e.key for e in top.entries), "the top lists groups"
    # And a group is opened by its key or by its title's words, accents ignored
    permit = next(g for g in menu.groups() if g.title == "Permit")
    assert interpret(permit.key.lower(), menu) == Choice("open", key=permit.key)
    assert interpret("permit", menu) == Choice("open", key=permit.key)
    koeln = next((g for g in menu.groups() if g.path == "Permit > Köln"), None)
    if koeln is not None:
        assert interpret("PERMIT koln", menu) == Choice("open", key=koeln.key)


def test_a_title_shared_by_several_groups_opens_the_one_inside_the_group_shown_last() -> None:
    # Given a phase IV menu where several groups share a title (an electorate under two actions)
    state, _, legal = _phase_iv()
    labels = [SHADOW.presenter.label(c, state) for c in legal]
    menu = Menu(labels, SHADOW.presenter.menu_groups(legal, state))
    by_title: dict[str, list[Any]] = {}
    for group in menu.groups():
        by_title.setdefault(group.title.split(" > ")[-1], []).append(group)
    title, groups = next((t, gs) for t, gs in by_title.items() if len(gs) > 1 and all(g.parent.key for g in gs))
    # When the title alone is typed, it names no single group or move
    with pytest.raises(ChatError):
        interpret(title, menu)
    # Then, typed while one parent group is shown, it opens that parent's group of that title
    for group in groups:
        assert interpret(title.upper(), menu, within=group.parent.key) == Choice("open", key=group.key)
    # And a phrase that does pick something in the whole menu is read as before, whatever group is shown
    assert interpret("1", menu, within=groups[0].parent.key) == Choice("play", number=1)


def test_the_contract_default_groups_a_menu_by_command_type() -> None:
    # Given a game whose presenter keeps the contract's one-group menu (Shadow's rules behind a plain Presenter)
    plain = GamePlugin(game_rules=SHADOW.game_rules, game_presenter=Presenter(SHADOW.game_rules))
    state, _, legal = _phase_iv()
    groups = groups_of(plain, legal, state)
    # Then the menu groups them by command type, covering each command once, in the game's order within a type
    assert sorted(i for _, part in groups for i in part) == list(range(len(legal)))
    assert [title for title, _ in groups] == list(dict.fromkeys(type_title(c.type) for c in legal))
    assert all(part == sorted(part) and {legal[i].type for i in part} == {legal[part[0]].type} for _, part in groups)
    assert "Buy permit" in dict(groups)
    # And a game with one kind of command keeps its one group (toy21)
    toy = get_game(tests.service.toy_game.NAME)
    state = toy.rules.fold(toy.rules.start(["A", "B"], {}, 1))
    legal = toy.rules.legal_commands(state, toy.rules.awaited(state)[0])
    assert groups_of(toy, legal, state) == [("Commands", list(range(len(legal))))]


# --- the conversation, through the gateway -----------------------------------------------------------------
def _chat(http: httpx.Client, gid: str, text: str, **fields: Any) -> dict[str, Any]:
    r = http.post(f"/games/{gid}/chat", json={"text": text, **fields})
    assert r.status_code == 200, r.text
    body = r.json()
    assert all(len(m) <= body["max_chars"] for m in body["messages"]), body["messages"]
    return body


@pytest.mark.redis
def test_a_phrase_without_accents_plays_the_move_with_them(gateway: Served) -> None:
    # Given a new game whose first move is the Emperor's empire city, Köln among the choices
    created = new_game(gateway, seed=81)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with gateway.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[seat]) as http:
        # When the seat types the city without its accent, in capitals
        played = _chat(http, gid, "EMPIRE CITY KOLN")
    # Then the Köln move is played
    assert played["result"]["label"] == "Place an empire city in Köln"
    assert any("Köln" in line for line in played["result"]["events"])


@pytest.mark.redis
def test_a_chat_reply_narrates_what_the_others_did_since_the_seats_last_message(gateway: Served) -> None:
    # Given a new game, and seat 1 (not the first to play) looking at its chat once
    created = new_game(gateway, seed=82)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with gateway.http(tokens[1]) as seat1:
        first = _chat(seat1, gid, "board")
        assert first["since"] <= first["version"]
        # When the other seats play until seat 1 is awaited, through their own chats
        moves = 0
        while True:
            with gateway.http() as http:
                awaited = http.get(f"/games/{gid}").json()["awaiting"]
            if 1 in awaited:
                break
            with gateway.http(tokens[awaited[0]]) as other:
                _chat(other, gid, "1")
            moves += 1
        assert moves >= 1
        # Then seat 1's next message narrates their moves in words, since the version it last saw
        told = _chat(seat1, gid, "menu")
        assert told["since"] == first["version"] and told["narration"]
        names = [p for i, p in enumerate(created["players"]) if i != 1]
        assert all(any(name in line for name in names) for line in told["narration"]), told["narration"]
        assert told["messages"][0].startswith("Since your last message:")
        assert told["prompt"] and told["prompt"] in told["messages"][-1]
        # And once told, a new message narrates nothing again
        again = _chat(seat1, gid, "menu")
        assert again["since"] == told["version"] and again["narration"] == []
        # And the client may ask for everything since a version of its own choosing
        since = _chat(seat1, gid, "menu", since=0)
        assert since["since"] == 0 and len(since["narration"]) >= len(told["narration"])
        # When seat 1 plays, then its own move is in result, not in the narration
        played = _chat(seat1, gid, "1")
        assert played["result"]["status"] == "accepted" and played["result"]["events"]
        assert not set(played["result"]["events"]) & set(played["narration"])


@pytest.mark.redis
def test_a_phase_iv_chat_menu_fits_the_limit_and_pages_with_more(gateway: Served) -> None:
    # Given a game played through HTTP to a phase IV turn with a long menu
    created = new_game(gateway, seed=83)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]

    def big_menu(_: Any) -> bool:
        state = folded(gateway, gid)
        awaited = SHADOW.rules.awaited(state)
        return state.game.phase == 4 and len(SHADOW.rules.legal_commands(state, awaited[0])) >= 40

    play_http(gateway, created, seed=7, until=big_menu)
    with gateway.http() as http:
        seat = http.get(f"/games/{gid}").json()["awaiting"][0]
    with gateway.http(tokens[seat]) as http:
        # When the seat asks for its menu with a limit of 300 characters a message
        top = _chat(http, gid, "menu", max_chars=300)
        # Then no message is longer, the full numbered menu would not fit, and the top lists groups
        assert len("\n".join(top["menu"])) > 2000
        groups = [e for e in top["listing"]["entries"] if e["key"]]
        assert groups and top["listing"]["key"] == ""
        # When it opens the biggest group (the limit as a query parameter this time), and in it the biggest of
        # its own groups if it has some, and pages through that one with "more"
        r = http.post(f"/games/{gid}/chat", params={"max_chars": 300}, json={"text": groups[0]["key"].lower()})
        assert r.status_code == 200, r.text
        page = r.json()
        while inner := [e for e in page["listing"]["entries"] if e["key"]]:
            page = _chat(http, gid, max(inner, key=lambda e: e["count"])["key"], max_chars=300)
        group = page["listing"]["key"]
        title = re.search(rf"\(group {re.escape(group)}, (\d+) moves?\):", page["messages"][-1])
        assert title is not None, page["messages"][-1]
        count = int(title.group(1))
        shown = [e["number"] for e in page["listing"]["entries"] if e["number"]]
        while page["listing"]["page"] + 1 < page["listing"]["pages"]:
            page = _chat(http, gid, "more", max_chars=300)
            assert page["listing"]["key"] == group and page["result"] is None
            shown += [e["number"] for e in page["listing"]["entries"] if e["number"]]
        # Then every move of the group was shown, once, each page within the limit
        assert len(shown) == len(set(shown)) == count
        # And "more" past the last page says so; "back" returns to the listing above
        last = _chat(http, gid, "more", max_chars=300)
        assert last["listing"]["key"] == group and "That was the last page." in last["messages"][-1]
        up = _chat(http, gid, "back", max_chars=300)
        assert group.startswith(up["listing"]["key"]) and up["listing"]["key"] != group
        # And with the default limit the top of the menu is one message of at most 2,000 characters
        default = _chat(http, gid, "menu")
        assert default["max_chars"] == 2000 and len(default["messages"][-1]) <= 2000


@pytest.mark.redis
def test_a_number_typed_after_the_moves_changed_is_refused_once_with_the_new_menu(gateway: Served) -> None:
    # Given seat 0 (the first Emperor) that saw its menu and played from it
    created = new_game(gateway, seed=84)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    with gateway.http(tokens[0]) as http:
        seen = _chat(http, gid, "menu")
        assert seen["menu"]
        _chat(http, gid, "1")
        # When the others play until seat 0 has moves again
        while True:
            with gateway.http() as public:
                awaited = public.get(f"/games/{gid}").json()["awaiting"]
            if 0 in awaited:
                break
            with gateway.http(tokens[awaited[0]]) as other:
                _chat(other, gid, "1")
        # Then a bare number (no version) is refused: the moves it was shown are not the moves on offer
        err = error_of(http.post(f"/games/{gid}/chat", json={"text": "1"}), 409, "menu_changed")
        assert err["menu"]
        # And the same number, now that the new menu was shown, plays
        assert _chat(http, gid, "1")["result"]["label"] == err["menu"][0].split(". ", 1)[1]


def test_a_phrase_matches_from_the_start_of_words_so_a_stray_letter_picks_nothing() -> None:
    # Given a plain menu where one label holds the letter x inside a word
    labels = ["Place an empire city in Saxony", "Place an empire city in Köln", "Pass"]
    # When a stray letter is typed, then it picks no move
    with pytest.raises(ChatError) as caught:
        pick("x", labels)
    assert caught.value.code == "no_match"
    # And the start of a word, or of several words in any order, still picks the move
    assert pick("sax", labels) == 0
    assert pick("KOL city", labels) == 1
    with pytest.raises(ChatError):
        pick("axony", labels)

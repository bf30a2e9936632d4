"""The web client in a real browser: selenium drives headless Chromium (Debian's ``chromium`` and
``chromium-driver``, which ``make test`` installs where it can) against a gateway with a rules worker and the
bots process on a real redis-server.

The tests play a whole game against a bot through the page, step a replay, open an audit entry, and check that
the seat's page (its DOM, every HTTP answer and every WebSocket frame it received) never held the other seat's
sealed vote. Screenshots at 1280 and 390 px wide go to ``tests/gateway/screenshots/`` (two are in docs/pages/images/).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.rules.contract import Secret
from services.rules.registry import get_game
from services.store.repository import GameRepository
from tests.conformance.harness import json_shows, text_shows
from tests.gateway.conftest import Served, serve
from tests.waiting import patient

pytestmark = pytest.mark.redis

CHROMIUM = os.environ.get("THRONE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("THRONE_CHROMEDRIVER", "/usr/bin/chromedriver")
SHOTS = Path(__file__).parent / "screenshots"
REQUIRED = os.environ.get("THRONE_REQUIRE_BROWSER") == "1"


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(path) or shutil.which(path)):
            return path
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package"
    return None


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Headless Chromium under selenium, logging the network (CDP performance log) for the secrecy checks."""
    missing = _missing()
    if missing is not None:
        message = (
            f"\n{'!' * 78}\n!! NO BROWSER: {missing} not found: the web client's browser tests DID NOT RUN.\n"
            f"!! Install Debian's chromium and chromium-driver (make test does it as root with apt).\n{'!' * 78}"
        )
        if REQUIRED:
            pytest.fail(message)
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:  # straight to the terminal, past the output capture: loud on purpose
            reporter.write_line(message, red=True, bold=True)
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def site(redis_url: str) -> Iterator[Served]:
    """A gateway serving the page, with a rules worker and the bots process."""
    served = serve(redis_url, bots=True, seat_key=b"w" * 32)
    try:
        yield served
    finally:
        served.close()


class Network:
    """What the page received: HTTP bodies and WebSocket frames, from Chromium's performance log.

    A body is read once its response finished loading (``Network.loadingFinished``); a response still loading is
    read at a later call. Bodies that could not be read are kept in ``missed``: the checks would not see them."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.payloads: list[tuple[str, str]] = []
        self.pending: dict[str, str] = {}
        self.missed: list[str] = []

    def reset(self) -> None:
        """Forget what the browser received so far (an earlier test's pages)."""
        self.collect()
        self.payloads.clear()
        self.pending.clear()
        self.missed.clear()

    def collect(self) -> list[tuple[str, str]]:
        """Read the log since the last call; returns the new ``(url or 'ws', body)`` pairs."""
        new: list[tuple[str, str]] = []
        for entry in self.driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Network.webSocketFrameReceived":
                new.append(("ws", params["response"]["payloadData"]))
            elif method == "Network.responseReceived":
                url = params["response"]["url"]
                if "/games" in url or "/lobby" in url:
                    self.pending[params["requestId"]] = url
            elif method == "Network.loadingFinished" and params.get("requestId") in self.pending:
                url = self.pending.pop(params["requestId"])
                try:
                    body = self.driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": params["requestId"]})
                except Exception:
                    self.missed.append(url)
                    continue
                new.append((url, body.get("body", "")))
        self.payloads += new
        return new


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    try:
        value = json.loads(text)
    except ValueError:
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _json_objects_of(payloads: list[tuple[str, str]]) -> Iterator[dict[str, Any]]:
    for _, body in payloads:
        yield from _json_objects(body)


def _sealed_votes_of_others(payloads: list[tuple[str, str]], seat: int) -> list[str]:
    """Every sealed vote of another seat that a payload shows (a ``VoteSealed`` with its candidate)."""
    found = []
    for url, body in payloads:
        for obj in _json_objects(body):
            if obj.get("type") == "VoteSealed" and obj.get("seat") != seat and obj.get("candidate") is not None:
                found.append(f"{url}: {obj}")
    return found


ENABLED_MOVES = "return [...document.querySelectorAll('button.move')].filter(b => !b.disabled && !b.hidden).length"
CLICK_MOVE = """
const moves = [...document.querySelectorAll('button.move')].filter(b => !b.disabled && !b.hidden);
if (!moves.length) return -1;
moves[arguments[0] % moves.length].click();
return moves.length;
"""
MOVED = """
const c = document.getElementById('commands');
const live = [...c.querySelectorAll('button.move')].filter(b => !b.disabled).length;
const waiting = !document.getElementById('turn').textContent.startsWith('Your turn');
return c.dataset.version !== arguments[0] || (live === 0 && waiting);
"""


VOTE_KEYS = ("candidate", "votes")
"""A sealed vote's secrets. Earlier votes, once revealed, may hold the same values for the same seat, so a sealed
vote is searched for as what it is: a ``VoteSealed`` of another seat that shows its candidate."""


def _parsed(payloads: list[tuple[str, str]]) -> list[Any]:
    out = []
    for _, body in payloads:
        try:
            out.append(json.loads(body))
        except ValueError:
            continue
    return out


def check_secrecy(driver: Any, net: Network, secrets: list[Secret], seat: int) -> int:
    """Whatever another seat keeps secret now is neither in the page's text nor in anything the page received;
    returns how many secrets were looked for."""
    from selenium.webdriver.common.by import By

    net.collect()
    others = [s for s in secrets if s.owner != seat]
    text = driver.find_element(By.TAG_NAME, "body").text
    shown = [s for s in others if text_shows(text, s)]
    assert not shown, f"the page shows another seat's secret: {shown[:3]}"
    received = _parsed(net.payloads)
    leaked = [s for s in others if s.key not in VOTE_KEYS and any(json_shows(p, s) for p in received)]
    assert not leaked, f"the page received another seat's secret: {leaked[:3]}"
    assert not _sealed_votes_of_others(net.payloads, seat)
    return len(others)


def script_errors(driver: Any) -> list[str]:
    """The page's uncaught script errors since the last call (failed requests the page handles are not errors)."""
    return [
        e["message"] for e in driver.get_log("browser") if "Uncaught" in e["message"] or "SyntaxError" in e["message"]
    ]


def _wait(driver: Any, condition: Any, timeout: float = 30) -> Any:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)
    except TimeoutException:
        raise AssertionError(f"the page did not get there; its script errors: {script_errors(driver)}") from None


def _shot(driver: Any, name: str, width: int) -> Path:
    SHOTS.mkdir(exist_ok=True)
    height = 900 if width > 500 else 844
    driver.set_window_size(width, height)
    time.sleep(0.4)  # the layout settles (media queries, the board's size)
    path = SHOTS / f"{name}-{width}.png"
    driver.save_screenshot(str(path))
    return path


def test_a_whole_game_is_played_replayed_and_audited_in_the_browser_without_the_others_secrets(
    browser: Any, site: Served
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, net = browser, Network(browser)
    net.reset()
    rng = random.Random(5)

    # Given the lobby page, served by the gateway with its assets
    driver.get(site.base_url + "/")
    _wait(driver, lambda d: d.find_elements(By.ID, "create"))
    _shot(driver, "lobby", 1280)

    # When a 4-player Shadow game is created: this browser at seat 0, the default bot at seats 1 to 3
    Select(driver.find_element(By.ID, "new-game")).select_by_value("shadow")
    Select(driver.find_element(By.ID, "new-players")).select_by_value("4")
    driver.find_element(By.ID, "seat-name-0").clear()
    driver.find_element(By.ID, "seat-name-0").send_keys("Ann")
    # with hidden victory points: the others' totals and scoring events are secrets the whole game [X14]
    driver.find_element(By.CSS_SELECTOR, 'input[name="hidden_victory_points"]').click()
    driver.find_element(By.ID, "new-seed").send_keys("3")
    assert (
        Select(driver.find_element(By.ID, "seat-kind-1")).first_selected_option.get_attribute("value")
        == "bot:heuristic"
    )
    driver.find_element(By.ID, "create").click()

    # Then the page opens seat 0's game, and the seat plays every turn through the page's buttons to the end
    _wait(driver, lambda d: "#/play/" in d.current_url)
    game_id = driver.current_url.split("#/play/")[1].split("/")[0]
    repo = GameRepository(site.redis, site.layout)
    presenter = get_game("shadow").presenter
    # (and the seat first sends a move the rules refuse, with its own token as the page keeps it: the audit shows it)
    token = driver.execute_script(f"return localStorage.getItem('throne.token.{game_id}.0')")
    with site.http(token) as http:
        refused = http.post(f"/games/{game_id}/commands", json={"command": {"type": "Pass"}})
    assert refused.status_code == 409, refused.text
    moves = secrets_checked = 0
    shot_taken = False
    deadline = time.monotonic() + patient(600)
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        banner = driver.execute_script("return document.getElementById('turn').textContent")
        if banner.startswith("Game over"):
            break
        count = driver.execute_script(ENABLED_MOVES)
        if not banner.startswith("Your turn") or not count:
            time.sleep(0.05)
            continue
        # While it is this seat's turn: whatever the others keep secret now is nowhere on the page
        secrets_checked += check_secrecy(driver, net, list(presenter.secrets(repo.load(game_id).state)), 0)
        if moves == 12 and not shot_taken:
            _shot(driver, "play", 1280)
            _shot(driver, "play", 390)
            driver.set_window_size(1280, 900)
            shot_taken = True
        version = driver.execute_script("return document.getElementById('commands').dataset.version")
        # Click one of the page's move buttons, as a person would (picked at random, the page's own element)
        if driver.execute_script(CLICK_MOVE, rng.randrange(1 << 30)) < 0:
            continue
        moves += 1
        # the page takes the move in: its buttons show the next version's moves, or none
        _wait(driver, lambda d, v=version: d.execute_script(MOVED, v), timeout=30)

    during = len(net.payloads)  # what came while the game ran: once it is over, everything is public
    net.collect()
    summary = site.http().get(f"/games/{game_id}").json()
    assert summary["over"] is True
    assert moves > 10
    assert secrets_checked > 0, "the others had secrets while the game ran"
    assert not net.missed, f"bodies the checks could not read: {net.missed[:5]}"
    # And the page received the others' sealed votes only masked (the check above is not vacuous)
    assert any(url == "ws" for url, _ in net.payloads), "the seat's feed sent frames"
    running = net.payloads[:during]
    sealed = [obj for obj in _json_objects_of(running) if obj.get("type") == "VoteSealed" and obj.get("seat") != 0]
    assert sealed and all(obj.get("candidate") is None for obj in sealed)
    late = [i for i, p in enumerate(net.payloads) if _sealed_votes_of_others([p], 0)]
    assert all(i >= during for i in late), "a sealed vote shown before the end"
    # And the seat's page never asked for another seat's view, feed, events or board
    log_urls = [url for url, _ in net.payloads if url != "ws"]
    assert not [u for u in log_urls if "/seats/1/" in u or "seat=1" in u]
    _shot(driver, "over", 1280)

    # When the replay is opened and stepped from the start
    driver.get(f"{site.base_url}/#/replay/{game_id}?version=0")
    _wait(driver, lambda d: d.find_element(By.ID, "event-text").text.startswith("0:"))
    texts = []
    for _ in range(3):
        driver.find_element(By.ID, "next").click()
        n = len(texts) + 1
        _wait(driver, lambda d, n=n: d.find_element(By.ID, "event-text").text.startswith(f"{n}:"))
        texts.append(driver.find_element(By.ID, "event-text").text)
    # Then each step shows the next event in words, and the board of that version
    assert len(set(texts)) == 3 and all(len(t) > 4 for t in texts)
    _wait(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-version") == "3")
    # And the keyboard steps too
    from selenium.webdriver.common.keys import Keys

    driver.find_element(By.ID, "next").send_keys(Keys.ARROW_RIGHT)
    _wait(driver, lambda d: d.find_element(By.ID, "event-text").text.startswith("4:"))
    driver.find_element(By.ID, "next").send_keys(Keys.ARROW_LEFT)
    _wait(driver, lambda d: d.find_element(By.ID, "event-text").text.startswith("3:"))
    # And a round or phase can be jumped to
    chapters = Select(driver.find_element(By.ID, "chapters"))
    _wait(driver, lambda d: len(chapters.options) > 2)
    target = chapters.options[2].get_attribute("value")
    chapters.select_by_index(2)
    _wait(driver, lambda d: d.find_element(By.ID, "event-text").text.startswith(f"{target}:"))
    _shot(driver, "replay", 1280)
    _shot(driver, "replay", 390)
    driver.set_window_size(1280, 900)

    # When the audit is opened and an entry chosen
    driver.get(f"{site.base_url}/#/audit/{game_id}")
    entries = _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "button.entry"))
    _wait(driver, lambda d: "Today's rules" in d.find_element(By.ID, "verdict").text)
    # an election's change of elector: its deciding inputs are the power tallies
    kinds = ("ElectorChanged", "EmperorElected", "VotesRevealed", "PhaseStarted")
    pick = next(b for kind in kinds for b in entries if f" {kind}" in b.text)
    pick.click()
    detail = _wait(driver, lambda d: d.find_element(By.ID, "audit-detail"))
    # Then it says why: the sentence, the rulings cited, the deciding inputs, and whether today's rules agree
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#audit-detail li.ruling"))
    assert "Event " in detail.text and "Rulings" in detail.text and "Deciding inputs" in detail.text
    assert "decide every one" in driver.find_element(By.ID, "verdict").text
    # And the fair shuffle: the reveal checked against the published commitment, and the table marked as a practice
    # table (this browser chose the seed) [X23, X24]
    fairness = driver.find_element(By.ID, "fairness").text
    assert "verified" in fairness and "practice table" in fairness
    assert "Today's rules decide the same." in detail.text
    assert "power" in detail.text  # the tallies, by player
    # And the refused command is there too, with the code, the sentence its sender was told and the rulings' texts
    refusal = next(b for b in driver.find_elements(By.CSS_SELECTOR, 'button.entry[data-kind="refusal"]'))
    refusal.click()
    _wait(driver, lambda d: "Refused command" in d.find_element(By.ID, "audit-detail").text)
    detail = driver.find_element(By.ID, "audit-detail")
    assert refused.json()["error"]["code"] in detail.text
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#audit-detail li.ruling"))
    rulings = driver.find_elements(By.CSS_SELECTOR, "#audit-detail li.ruling")
    assert all(len(r.text) > 6 and "…" not in r.text for r in rulings)
    pick.click()
    _shot(driver, "audit", 1280)
    _shot(driver, "audit", 390)
    driver.set_window_size(1280, 900)
    assert not script_errors(driver)


def test_an_open_seat_is_claimed_in_the_lobby_watched_live_and_left_to_a_bot(browser: Any, site: Served) -> None:
    from selenium.webdriver.common.by import By

    # Given a Shadow game created through the API with seat 1 left open
    with site.http() as http:
        made = http.post(
            "/games", json={"game": "shadow", "players": ["Ann", "Open"], "open": [1], "bots": {"0": "random"}}
        )
    assert made.status_code == 201, made.text
    gid = made.json()["game_id"]

    # When the lobby is filtered to open games and the seat claimed with the keyboard
    driver = browser
    driver.get(site.base_url + "/#/")
    from selenium.webdriver.support.ui import Select

    _wait(driver, lambda d: d.find_elements(By.ID, "filter-status"))
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("open")
    claim = _wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-game="{gid}"] button.claim'))
    claim.send_keys("\n")

    # Then the page plays seat 1 with the token it received, and the bot at seat 0 is awaited or it is our turn
    _wait(driver, lambda d: f"#/play/{gid}/1" in d.current_url)
    _wait(driver, lambda d: d.find_element(By.ID, "turn").text != "")
    assert driver.execute_script(f"return localStorage.getItem('throne.token.{gid}.1')")
    assert driver.find_element(By.ID, "board").get_attribute("alt")
    with site.http() as http:
        again = http.post(f"/games/{gid}/seats/1/claim")
    assert again.status_code == 409

    # When a spectator watches in another tab while the seat makes a move
    play_tab = driver.current_window_handle
    _wait(driver, lambda d: d.execute_script(ENABLED_MOVES) > 0, timeout=60)
    driver.switch_to.new_window("tab")
    driver.get(f"{site.base_url}/#/watch/{gid}")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#narration li"))
    seen = len(driver.find_elements(By.CSS_SELECTOR, "#narration li"))
    watch_tab = driver.current_window_handle
    driver.switch_to.window(play_tab)
    assert driver.execute_script(CLICK_MOVE, 0) > 0
    # Then the spectator's page shows the move live, without reloading
    driver.switch_to.window(watch_tab)
    _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#narration li")) > seen)
    assert not script_errors(driver)
    driver.close()
    driver.switch_to.window(play_tab)

    # When the player leaves through the page (and confirms)
    driver.find_element(By.ID, "leave").click()
    driver.switch_to.alert.accept()
    # Then the page says a bot plays the seat, offers no move, and the lobby shows the seat left to a bot
    _wait(driver, lambda d: d.find_element(By.ID, "turn").text.startswith("You left"))
    assert not driver.find_elements(By.CSS_SELECTOR, "button.move")
    with site.http() as http:
        listed = {g["game_id"]: g for g in http.get("/games", params={"limit": 50}).json()["games"]}
    assert listed[gid]["seats"][1]["left"] is True and listed[gid]["seats"][1]["bot"] == "heuristic"


def test_a_barracks_seat_page_never_holds_another_seats_hand(browser: Any, site: Served) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, net = browser, Network(browser)
    net.reset()
    rng = random.Random(11)
    # Given a 3-player Barracks game created in the lobby: this browser at seat 0, bots at seats 1 and 2
    driver.get(site.base_url + "/#/")
    _wait(driver, lambda d: d.find_elements(By.ID, "create"))
    Select(driver.find_element(By.ID, "new-game")).select_by_value("barracks")
    Select(driver.find_element(By.ID, "new-players")).select_by_value("3")
    driver.find_element(By.ID, "create").click()
    _wait(driver, lambda d: "#/play/" in d.current_url)
    game_id = driver.current_url.split("#/play/")[1].split("/")[0]
    repo = GameRepository(site.redis, site.layout)
    presenter = get_game("barracks").presenter

    # When the seat plays its first turns through the page (the first round: every hand dealt from the deck)
    checked = turns = 0
    deadline = time.monotonic() + patient(300)
    while turns < 8:
        assert time.monotonic() < deadline, "the seat's turns did not come"
        banner = driver.execute_script("return document.getElementById('turn').textContent")
        if banner.startswith("Game over"):
            break
        if not banner.startswith("Your turn") or not driver.execute_script(ENABLED_MOVES):
            time.sleep(0.05)
            continue
        state = repo.load(game_id).state
        # Then the others' hands are in neither the page's text nor anything it received
        checked += check_secrecy(driver, net, list(presenter.secrets(state)), 0)
        version = driver.execute_script("return document.getElementById('commands').dataset.version")
        driver.execute_script(CLICK_MOVE, rng.randrange(1 << 30))
        turns += 1
        _wait(driver, lambda d, v=version: d.execute_script(MOVED, v), timeout=30)
    assert checked > 0, "the other seats held cards"
    assert not net.missed, f"bodies the checks could not read: {net.missed[:5]}"
    # And the seat's own hand is on its page (what only it sees)
    own = get_game("barracks").game_presenter.secret_cards(repo.load(game_id).state.game, 0)
    received = _parsed(net.payloads)
    assert not own or any(json_shows(p, Secret(0, None, sorted(own)[0])) for p in received)
    assert not script_errors(driver)

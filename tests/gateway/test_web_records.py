"""The web client's replay and audit pages of a finished game in a real browser (the pattern and the fixtures of
tests/gateway/test_web.py): each loads the whole game in one request, and the audit's "Refused commands only"
leaves the refused commands alone."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from services.bench.scripts import record_games
from services.client import ServiceClient
from tests.gateway.conftest import Served
from tests.gateway.test_web import _shot, _wait, browser, script_errors, site  # noqa: F401 - fixtures
from tests.waiting import patient

pytestmark = pytest.mark.redis

SHOWN_KINDS = (
    "return [...document.querySelectorAll('button.entry')].filter((b) => b.offsetParent).map((b) => b.dataset.kind)"
)
"""The kind (event, refusal) of each audit entry the page shows, read at once (the list may be redrawn)."""


def _requested(driver: Any) -> list[str]:
    """The URLs the page asked for since the last call (Chromium's performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def test_a_finished_games_replay_and_audit_pages_load_the_whole_game_in_one_request_each(
    browser: Any,  # noqa: F811 - the imported fixture
    site: Served,  # noqa: F811 - the imported fixture
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    # Given a finished 4-player game whose seats sent commands out of turn and with stale versions
    script = record_games("shadow", 1, seed=4, players=4)[0]
    gid = f"web-whole-{random.randrange(1 << 30):x}"
    envelopes = script.with_refusals(gid)
    client = ServiceClient(site.redis, site.layout)
    client.submit_many(envelopes)
    for env in envelopes:
        client.wait_on(env, timeout=patient(60))
    with site.http() as http:
        whole = http.get(f"/games/{gid}/replay/steps").json()
        audit = http.get(f"/games/{gid}/audit", params={"limit": 1000}).json()
    last = whole["last_version"]
    refusals = [e for e in audit["entries"] if e["kind"] == "refusal"]
    assert last > 700 and refusals
    driver.get(site.base_url + "/#/")
    _wait(driver, lambda d: d.find_elements(By.ID, "create"))  # the lobby drawn: nothing of it comes later
    _requested(driver)

    def told(v: int) -> Any:
        text = f"{v}: {whole['steps'][v - 1]['event_text']}"
        return lambda d: d.execute_script("return document.getElementById('event-text')?.textContent") == text

    # When its replay is opened at the end and stepped back five times, and a phase is jumped to
    driver.get(f"{site.base_url}/#/replay/{gid}")
    _wait(driver, told(last))
    for v in range(last - 1, last - 6, -1):
        driver.find_element(By.ID, "prev").click()
        _wait(driver, told(v))
    chapters = Select(driver.find_element(By.ID, "chapters"))
    _wait(driver, lambda d: len(chapters.options) > 2)
    target = int(chapters.options[2].get_attribute("value"))
    chapters.select_by_index(2)
    _wait(driver, told(target))
    _wait(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-version") == str(target))
    # Then every step's text came in one request: no step one by one, no pages of events for the chapters
    asked = _requested(driver)
    assert len([u for u in asked if "/replay/steps" in u]) == 1, asked
    assert not [u for u in asked if "/replay?" in u or "/events" in u], asked
    assert len([u for u in asked if "/board.svg" in u]) >= 7  # the picture of each version shown

    # When the audit is opened
    driver.get(f"{site.base_url}/#/audit/{gid}")
    entries = _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "button.entry"))
    assert len(entries) == len(audit["entries"])
    # Then the whole game came in one request
    assert len([u for u in _requested(driver) if "/audit" in u]) == 1
    # And "refused commands only" leaves the refused commands alone, in the order judged, and says so in the address
    toggle = driver.find_element(By.ID, "refused-only")
    assert f"({len(refusals)})" in driver.find_element(By.CSS_SELECTOR, "label.toggle").text
    toggle.click()
    shown = [b for b in driver.find_elements(By.CSS_SELECTOR, "button.entry") if b.is_displayed()]
    assert [b.get_attribute("data-kind") for b in shown] == ["refusal"] * len(refusals)
    assert [b.get_attribute("data-version") for b in shown] == [str(e["version"]) for e in refusals]
    assert driver.current_url.endswith(f"#/audit/{gid}?only=refused")
    shown[0].click()
    _wait(driver, lambda d: "Refused command" in d.find_element(By.ID, "audit-detail").text)
    assert refusals[0]["code"] in driver.find_element(By.ID, "audit-detail").text
    _shot(driver, "audit-refused", 1280)
    driver.set_window_size(1280, 900)
    # and unticked, every entry again
    driver.find_element(By.ID, "refused-only").click()
    assert all(b.is_displayed() for b in driver.find_elements(By.CSS_SELECTOR, "button.entry")[:50])
    # And a link to the refused commands alone opens with them, the page loaded afresh in one request too
    driver.get(f"{site.base_url}/#/audit/{gid}?only=refused")
    _wait(driver, lambda d: d.execute_script("return document.getElementById('refused-only')?.checked"))
    _requested(driver)
    driver.refresh()
    _wait(driver, lambda d: d.execute_script("return document.getElementById('refused-only')?.checked"))
    shown = driver.execute_script(SHOWN_KINDS)
    assert shown == ["refusal"] * len(refusals)
    assert len([u for u in _requested(driver) if "/audit" in u]) == 1
    assert not script_errors(driver)

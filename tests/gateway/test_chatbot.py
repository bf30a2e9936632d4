"""The example chat-bot (services/chatbot) against a running gateway on a real redis-server, with the bots
process playing the other seats: a scripted person plays a whole game through the transport-agnostic adapter,
and the console transport works out of the box (a subprocess, typed lines in, text out)."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from services.chatbot.adapter import ChatAdapter
from services.chatbot.client import GatewayClient
from services.chatbot.console import run
from tests.gateway.conftest import Served, redis_url, serve  # noqa: F401 - fixture
from tests.service.conftest import ROOT
from tests.waiting import patient

pytestmark = pytest.mark.redis

FIRST_ITEM = re.compile(r"^([A-Z]{1,2}(?:\.\d+)*|\d+)\. ", re.MULTILINE)
"""The first item of a menu listing: a group's key or a move's number."""


@pytest.fixture(scope="module")
def with_bots(redis_url: str) -> Iterator[Served]:  # noqa: F811 - the imported fixture
    served = serve(redis_url, bots=True)
    try:
        yield served
    finally:
        served.close()


class ScriptedPerson:
    """A transport whose person answers every menu with its first item (a group's key, or "1"-style number)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.typed: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()

    def send(self, text: str) -> None:
        self.seen.append(text)
        first = FIRST_ITEM.search(text)
        if first is not None and "Your turn" in text:
            self.typed.append(first.group(1))
            self._lines.put(first.group(1))

    def receive(self, timeout: float) -> str | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None


@pytest.mark.parametrize("game", ["shadow", "barracks"])
def test_a_scripted_person_plays_a_whole_game_through_the_chat_adapter(with_bots: Served, game: str) -> None:
    # Given a game opened for one person (seat 0) against a random bot, and the adapter on the person's seat
    opener = GatewayClient(with_bots.base_url)
    made = opener.create_game(game, ["Ann", "Robot"], {1: "random"}, seed=91)
    opener.close()
    assert made.ok, made.body
    game_id, token = made.body["game_id"], made.body["seats"][0]["token"]
    client = GatewayClient(with_bots.base_url, token)
    adapter = ChatAdapter(client, game_id, 0, ["Ann", "Robot"], max_chars=1000)
    person = ScriptedPerson()
    for text in adapter.hear("board"):
        person.send(text)

    # When the person answers every menu with its first item, and the feed tells them the rest
    stop = threading.Event()
    player = threading.Thread(
        target=run, args=(adapter, person, client.feed(game_id, 0, after=adapter.shown or 0, stop=stop), stop)
    )
    player.start()
    player.join(150)
    stop.set()
    player.join(10)
    client.close()

    # Then the game ended, and the person saw it end, having played many moves by typing only
    assert not player.is_alive() and adapter.finished, person.seen[-3:]
    assert any(text.startswith("The game is over. Winner") for text in person.seen)
    assert len(person.typed) >= 10
    # And every message fitted the limit; the others' moves were narrated by name; the bot's seat never got a menu
    assert all(len(text) <= 1000 for text in person.seen)
    assert any(text.startswith("Robot ") for text in person.seen)
    summary = GatewayClient(with_bots.base_url).summary(game_id)
    assert summary.body["over"] is True and summary.body["result"]["winners"]


def test_the_console_chat_bot_opens_a_game_plays_quits_and_resumes(with_bots: Served) -> None:
    # Given the console chat-bot started as a person would, opening a game against a bot
    cmd = [sys.executable, "-m", "services.chatbot", "--url", with_bots.base_url, "--new", "shadow", "--name",
           "Ann", "--players", "2", "--bot", "random", "--seed", "92"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out, code = _console(cmd, env, moves=3)
    # Then it printed the game, the way back, the board and the menus, and left cleanly
    assert code == 0, out
    assert "you are seat 0" in out and "Setup. Your turn: " in out and "You: Place an empire city" in out
    resume = re.search(r"^python -m services\.chatbot (.+)$", out, re.MULTILINE)
    assert resume is not None
    # When the person comes back with the printed command line
    again, code = _console([sys.executable, "-m", "services.chatbot", *resume.group(1).split()], env, moves=1)
    # Then the game is there: the board and the seat's turn (or whom it waits for)
    assert code == 0, again
    assert "Seat " in again and ("Your turn" in again or "waiting for" in again)


def _console(cmd: list[str], env: dict[str, str], moves: int) -> tuple[str, int]:
    """Run the console bot: answer the first ``moves`` menus with their first item, then type "quit"."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    out: list[str] = []
    answered = 0
    deadline = time.monotonic() + patient(300)
    block: list[str] = []
    try:
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            out.append(line)
            if line.strip():
                block.append(line)
                continue
            message, block = "".join(block), []  # a blank line ends a message
            first = FIRST_ITEM.search(message)
            if first is None or "Your turn" not in message:
                continue
            proc.stdin.write(("quit" if answered >= moves else first.group(1)) + "\n")
            proc.stdin.flush()
            answered += 1
        code = proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
    return "".join(out), code

"""``throne play`` driven by a typist: whole games of each game played with phrases, ``help`` and ``redraw``;
the person's name in the stored events; a game left and resumed by id and token through a running service."""

from __future__ import annotations

import io
import random
import re
import unicodedata
import uuid

import orjson
import pytest
import redis

from services.bus.keys import Layout
from services.client import ServiceClient
from services.play import play
from tests.service.conftest import spawn_worker
from tests.service.test_bots import spawn_bots
from tests.service.test_bots import stop as stop_process

MOVE = re.compile(r"^(\d+)\. (.+)$")
GROUP = re.compile(r"^([A-Z]{1,2}(?:\.\d+)*)\. (.+) \((\d+) moves\)$")
INCOME = re.compile(r"collects income: \d+ \(basic\) \+ \d+ \(own cities\) \+ \d+ \(controlled cities\)"
                    r"(?: \+ \d+ \(Saxony\))? = \d+, now \d+ thalers")  # fmt: skip


def shout(text: str) -> str:
    """A label as a person in a hurry types it: capitals, no accents."""
    plain = unicodedata.normalize("NFKD", text)
    return "".join(c for c in plain if not unicodedata.combining(c)).upper()


class Typist(io.TextIOBase):
    """Stdin of a person who reads the terminal: first the ``script`` lines, then at each listing a move typed
    as its words (in capitals, without accents), or a group's title when the listing shows groups; after a line
    that named several moves, the number of the first. ``quit_after`` moves, it types ``q``."""

    def __init__(self, out: io.StringIO, seed: int, script: list[str] | None = None, quit_after: int = 10**6):
        super().__init__()
        self.out, self.rng, self.script, self.quit_after = out, random.Random(seed), list(script or []), quit_after
        self.read_upto = 0
        self.typed: list[str] = []
        self.moves = 0
        self.phrases = 0
        self.numbers = 0

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = self._next()
        self.typed.append(line)
        return line + "\n"

    def _next(self) -> str:
        text = self.out.getvalue()
        new, self.read_upto = text[self.read_upto :].splitlines(), len(text)
        if self.script:
            return self.script.pop(0)
        assert len(self.typed) < 5000, "the typist is going round in circles"
        if self.moves >= self.quit_after:
            return "q"
        starts = [i for i, line in enumerate(new) if line.startswith(("-- your move", "# "))]
        new = new[starts[-1] :] if starts else new  # the listing (or the message) shown last, not the board
        moves = [MOVE.match(line.strip()) for line in new]
        if any(line.startswith("# ") and "moves match" in line for line in new):
            first = next(m for m in moves if m is not None)  # the candidates listed after the message
            self.moves += 1
            self.numbers += 1
            return first.group(1)
        groups = [g for g in (GROUP.match(line) for line in new) if g is not None]
        shown = [m for m in moves if m is not None]
        if groups and (not shown or self.rng.random() < 0.7):
            return shout(self.rng.choice(groups).group(2))
        assert not any("no move matches" in line for line in new), f"a phrase of the menu matched nothing: {new}"
        if not shown:  # a message without a listing (a slow answer): ask for the menu again
            return ""
        self.moves += 1
        self.phrases += 1
        return shout(self.rng.choice(shown).group(2))


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded store (no REDIS_URL) under a key prefix of the test's own."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("THRONE_PREFIX", f"play{uuid.uuid4().hex[:6]}")


def stored_text(client: ServiceClient, game_id: str) -> str:
    return "\n".join(orjson.dumps(e.data).decode() for e in client.read_events(game_id))


@pytest.mark.parametrize("game", ["shadow", "barracks"])
def test_given_a_typist_when_a_whole_game_is_played_with_phrases_help_and_redraw_then_it_ends(
    game: str, embedded: None
) -> None:
    # Given a person named Ann who first asks for help and a redraw, then types moves and groups in words
    out = io.StringIO()
    typist = Typist(out, seed=7, script=["help", "redraw"])

    # When Ann plays a whole game against random bots
    result = play(game=game, players=3, seat=1, seed=11, bots="random", name="Ann", inp=typist, out=out, timeout=60)

    # Then the game ends with a result, and Ann played it by phrases
    text = out.getvalue()
    assert result is not None and "# game over:" in text, text[-3000:]
    assert typist.phrases > 5 and typist.numbers <= typist.phrases // 5
    # And help explained the commands, and redraw showed the board again before the first move
    assert "How to play:" in text and "redraw" in text.split("How to play:", 1)[1]
    before_first_move = text.split("\n> ", 1)[0]
    assert before_first_move.count("Legend:") == 2
    # And the events name Ann, never "You"; the board has its legend
    game_id = text.split(" game ", 1)[1].split(",", 1)[0]
    stored = stored_text(ServiceClient(), game_id)
    assert "Ann" in stored and '"You"' not in stored
    assert not re.search(r"\bYou(?:'s)? ", text.replace("Your ", "").replace("your ", ""))
    assert "Ann " in text and "Legend:" in text and "earlier events not shown" not in text
    if game == "shadow":
        # And income reads as arithmetic
        assert INCOME.search(text), [line for line in text.splitlines() if "income" in line][:5]
    else:
        # And the final scores read as arithmetic
        assert re.search(r"Ann: \d+ \(Emperors\) \+ \d+ \(\d+ sets?, \d+ Triumph barbarians?\) = \d+", text)


def test_given_a_long_menu_when_a_group_is_named_then_only_its_moves_are_listed(embedded: None) -> None:
    # Given a Shadow game whose action phase offers the person dozens of moves
    out = io.StringIO()
    typist = Typist(out, seed=3, quit_after=20)

    # When the person plays twenty moves, naming groups on the way, then leaves
    result = play(game="shadow", players=2, seed=5, bots="random", name="Bo", inp=typist, out=out, timeout=60)

    # Then a listing of groups (keys A, B, ...) was shown, and a group named in words listed its own moves
    text = out.getvalue()
    assert result is None and "# you left game" in text
    assert re.search(r"^A\. .+ \(\d+ moves\)$", text, re.M), "no grouped listing was ever shown"
    assert re.search(r"^.+ \(group [A-Z]+(\.\d+)*, \d+ moves\):$", text, re.M)


def test_given_a_game_left_when_resumed_by_id_and_token_through_a_running_service_then_it_ends(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a real Redis, a key prefix of the test's own, and a game Ann leaves after eight moves (its rules
    # worker and bots in the play process)
    layout = Layout(prefix=f"tres{uuid.uuid4().hex[:6]}", shards=4)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("THRONE_PREFIX", layout.prefix)
    monkeypatch.setenv("THRONE_SHARDS", "4")
    first = io.StringIO()
    left = play(game="shadow", players=3, seed=4, bots="random", name="Ann", local=True,
                inp=Typist(first, seed=1, quit_after=8), out=first, timeout=60)  # fmt: skip
    assert left is None
    said = re.search(r"resume with: throne play --game-id (\w+) --token (\S+)", first.getvalue())
    assert said is not None, first.getvalue()[-2000:]
    game_id, token = said.group(1), said.group(2)
    client = ServiceClient(redis.Redis.from_url(redis_url), layout)
    info = client.game_info(game_id)
    assert info is not None and info["status"] != "over" and info["players"] == ["Ann", "Green", "Blue"]
    assert client.seat_of(game_id, token) == 0 and client.seat_of(game_id, "not-a-token") is None

    # When a wrong token is tried, then no game is played
    wrong = io.StringIO()
    assert play(game_id=game_id, token="not-a-token", local=False, inp=io.StringIO("1\n"), out=wrong) is None
    assert "no seat's token" in wrong.getvalue()

    # When the service runs as processes of its own (a rules worker, the bots) and Ann resumes by id and token
    worker, bots = spawn_worker(redis_url, layout), spawn_bots(redis_url, layout)
    try:
        again = io.StringIO()
        result = play(game_id=game_id, token=token, local=False, inp=Typist(again, seed=2), out=again, timeout=60)
    finally:
        worker.stop()
        stop_process(bots)

    # Then the game goes on at Ann's seat from where it was, to its end
    text = again.getvalue()
    assert f"Ann at seat 0 resumes game {game_id}" in text
    assert "earlier events not shown" in text.split("\n-- your move", 1)[0]  # only the latest events at first
    assert result is not None and "# game over:" in text, text[-2000:]
    info = client.game_info(game_id)
    assert info is not None and info["status"] == "over"
    # And the stored events name Ann, never "You"
    stored = stored_text(client, game_id)
    assert '"Ann"' in stored and '"You"' not in stored


def test_given_the_play_options_then_a_name_clash_gives_the_bot_a_spare_colour() -> None:
    from services.play import table_names

    assert table_names(3, 1, "Ann") == ["Red", "Ann", "Blue"]
    assert table_names(3, 0, "green") == ["green", "Yellow", "Blue"]

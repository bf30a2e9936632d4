"""``throne play``: a person plays in the terminal against bots, through the streams like any client.

The person's seat gets the board (the game presenter's ``render_text`` as that seat may see it) and the seat's
legal commands as the chat surface's grouped menu (:mod:`services.menus`: by action, then by where it acts;
numbered in menu order; a long menu lists its groups, which a letter opens). A line is read as the chat reads
it (:mod:`services.menus.phrases`): a move's number, a group's key, or a few words of a move or a group,
without regard to case or accents ("koln" finds "Köln"); plus the terminal's own words ``redraw`` (the board and
the menu again), ``help`` and ``q`` (leave). The command goes out with the version the board showed.

The person's name (``name``) is the seat's name in the game: the events are stored with it, as every other
client's are; only this terminal's own lines address the person ("your move").

A new game's other seats are bot seats (``create_game(..., bots=...)``), played by the bots process. A game
already running is resumed with its id and the seat's token (printed when the game is created): the seat is the
one the token belongs to, the game is read back from the store, and play goes on through the service.

Where it runs: without REDIS_URL everything is in this process on the embedded fakeredis (a rules worker and a
bots runner in threads). With REDIS_URL the game goes to that deployment, whose rules workers and bots process
must be running (``throne serve``); ``--local`` starts both in this process instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import orjson

from services.bots.kinds import default_bot
from services.bots.runner import BotConfig, BotRunner
from services.bus.connection import connect, is_embedded
from services.bus.envelope import STALE_VERSION
from services.bus.keys import Layout
from services.client import ServiceClient
from services.engine_demo import NAMES, player_names
from services.menus.menu import Menu, menu_of
from services.menus.phrases import ChatError, interpret, normalize
from services.rules.contract import Command, GamePlugin
from services.rules.registry import UnknownGame, default_game, get_game
from services.worker.rules_worker import RulesWorker, WorkerConfig

DEFAULT_NAME = "Player"
"""The person's name when ``--name`` is not given."""
MENU_CHARS = 1800
"""About 30 lines: a menu longer than that lists its groups first (a letter or a phrase opens one)."""
RESUME_LINES = 12
"""How many of the latest events a resumed game narrates before its board."""
QUIT_WORDS = frozenset({"q", "quit", "exit", "leave"})
REDRAW_WORDS = frozenset({"redraw", "board"})
HELP = """How to play:
  a number              plays the move with that number (numbers work whatever group is listed)
  a letter (A, B.2)     opens that group of moves
  a few words           plays the one move they name, or opens the group they name: "permit koln",
                        "mainz city"; case and accents do not matter
  more / back           the next page of a long listing / the listing above
  menu or an empty line the menu again;  redraw  the board and the menu again
  help or ?             this text;  q  leaves the game (resume it later with --game-id and --token)"""


def command_label(plugin: GamePlugin, command: Command, state: Any) -> str:
    """The presenter's label of a command, else its JSON without the seat."""
    try:
        return plugin.presenter.label(command, state)
    except Exception:  # a label is a nicety: never lose the menu over it
        data = dict(plugin.rules.encode_command(command))
        data.pop("seat", None)
        return orjson.dumps(data).decode()


def board_text(plugin: GamePlugin, state: Any, seat: int) -> str:
    """The board as ``seat`` may see it (the presenter's ``render_text``)."""
    return plugin.presenter.render_text(state, seat)


def table_names(players: int, seat: int, name: str) -> list[str]:
    """The players' names of a new game: ``name`` at ``seat``, each bot the colour of its seat (a colour the
    person's name takes goes to no bot: that bot gets a spare colour, so that no two seats share a name)."""
    taken = normalize(name)
    spares = iter(n for n in NAMES[players:] if normalize(n) != taken)
    return [
        name if s == seat else (NAMES[s] if normalize(NAMES[s]) != taken else next(spares, f"Bot {s}"))
        for s in range(players)
    ]


class _Local:
    """A rules worker and a bots runner in threads of this process."""

    def __init__(self, layout: Layout) -> None:
        self.stop = threading.Event()
        worker = RulesWorker(connect(), range(layout.shards), layout=layout, config=WorkerConfig(block_ms=20))
        bots = BotRunner(connect(), range(layout.shards), layout=layout, config=BotConfig(block_ms=20))
        self.threads = [
            threading.Thread(target=worker.run, args=(self.stop,), name="rules-worker", daemon=True),
            threading.Thread(target=bots.run, args=(self.stop,), name="bots", daemon=True),
        ]
        for t in self.threads:
            t.start()

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(10)


@dataclass
class _Table:
    """The person's seat at one game, and what the terminal last showed."""

    plugin: GamePlugin
    game_id: str
    seat: int
    token: str
    names: list[str]
    state: Any = None
    version: int = 0
    menu: Menu | None = None
    commands: list[Command] = field(default_factory=list)
    key: str = ""
    page: int = 0
    shown_at: int = -1
    """The version whose board and menu were last shown (-1: none yet)."""
    resumed: bool = False
    """A game resumed: its first narration is only its latest events."""


def play(
    *,
    game: str | None = None,
    players: int | None = None,
    seat: int = 0,
    seed: int | None = None,
    bots: str | None = None,
    local: bool | None = None,
    name: str | None = None,
    game_id: str | None = None,
    token: str | None = None,
    inp: TextIO,
    out: TextIO,
    timeout: float = 10.0,
) -> dict[str, Any] | None:
    """Play one game in the terminal, reading lines from ``inp`` and writing to ``out``.

    A new game (no ``game_id``): of ``game`` (None: the default game), ``players`` seats (None: as many as it
    takes), the person ``name`` at ``seat`` against bots of kind ``bots`` (None: the game's default bot). With
    ``game_id`` and ``token``: the running game, at the seat of that token.

    Returns the result once the game is over; None when the person quits (``q`` or end of input), when the game
    or the seat is not found, when no rules worker answers within ``timeout`` seconds, or when the game stops
    moving while a bot is awaited for three times that long (no bots process?).
    """
    layout = Layout.from_env()
    redis_client = connect()
    runner = _Local(layout) if (local if local is not None else is_embedded(redis_client)) else None
    client = ServiceClient(redis_client, layout)
    try:
        if game_id is not None:
            table = _resume(client, game_id, token or "", out)
        else:
            table = _create(client, game, players, seat, seed, bots, name or DEFAULT_NAME, timeout, out)
        if table is None:
            return None
        return _Terminal(client, table, inp, out, timeout).run()
    finally:
        if runner is not None:
            runner.close()


def _create(
    client: ServiceClient,
    game: str | None,
    players: int | None,
    seat: int,
    seed: int | None,
    bots: str | None,
    name: str,
    timeout: float,
    out: TextIO,
) -> _Table | None:
    plugin = get_game(game or default_game())
    count = len(player_names(plugin, players))
    if not 0 <= seat < count:
        raise ValueError(f"seat must be between 0 and {count - 1}")
    bots = bots or default_bot(plugin.name)
    names = table_names(count, seat, name)
    try:
        bot_seats = {s: bots for s in range(count) if s != seat}
        new = client.create_game(plugin.name, names, seed=seed, bots=bot_seats, timeout=timeout)
    except TimeoutError:
        print("# no rules worker answered: is the service running (throne serve), or try --local", file=out)
        return None
    print(
        f"# {plugin.name}: {name} at seat {seat} against {count - 1} {bots} bots; game {new.game_id}, "
        + (f"seed {new.seed} (practice table)" if new.seed is not None else "seed secret until the end"),
        file=out,
    )
    print(f"# your seat's token: {new.tokens[seat]}", file=out)
    print(f"# resume later with: throne play --game-id {new.game_id} --token {new.tokens[seat]}", file=out)
    return _Table(plugin, new.game_id, seat, new.tokens[seat], names, state=plugin.rules.initial_state())


def _resume(client: ServiceClient, game_id: str, token: str, out: TextIO) -> _Table | None:
    info = client.game_info(game_id)
    if info is None:
        print(f"# no game {game_id} in this store (is REDIS_URL the service's Redis?)", file=out)
        return None
    seat = client.seat_of(game_id, token)
    if seat is None:
        print(f"# that token is no seat's token of game {game_id}", file=out)
        return None
    try:
        plugin = get_game(str(info["name"]))
    except UnknownGame:
        print(f"# game {game_id} is of {info['name']!r}, a game not installed here", file=out)
        return None
    names = [str(n) for n in info["players"]]
    print(f"# {plugin.name}: {names[seat]} at seat {seat} resumes game {game_id} (version {info['version']})",
          file=out)  # fmt: skip
    return _Table(plugin, game_id, seat, token, names, state=plugin.rules.initial_state(), resumed=True)


class _Terminal:
    """The read-show-send loop of one seat."""

    def __init__(self, client: ServiceClient, table: _Table, inp: TextIO, out: TextIO, timeout: float) -> None:
        self.client, self.t, self.inp, self.out, self.timeout = client, table, inp, out, timeout
        self.rules = table.plugin.rules

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def run(self) -> dict[str, Any] | None:
        t, rules = self.t, self.rules
        told = self.catch_up()
        if t.resumed and len(told) > RESUME_LINES:  # a resumed game: only the latest events
            self.say(f"  ({len(told) - RESUME_LINES} earlier events not shown)")
            told = told[-RESUME_LINES:]
        self.tell(told)
        moved_at = time.monotonic()
        stall_timeout = 3 * self.timeout
        while True:
            if rules.is_over(t.state):
                result = rules.result(t.state)
                self.say("")
                self.say(board_text(t.plugin, t.state, t.seat))
                self.say(f"# game over: {orjson.dumps(result).decode()}")
                return result
            if t.seat not in rules.awaited(t.state):
                if time.monotonic() - moved_at > stall_timeout:
                    self.say(f"# the game has not moved for {stall_timeout:.0f} s: are the rules worker and the bots "
                             "process running (throne serve)?")  # fmt: skip
                    return None
                time.sleep(0.02)
                new = self.catch_up()
                if new:
                    moved_at = time.monotonic()
                    self.tell(new)
                continue
            if t.shown_at != t.version:
                self.fresh_menu()
                self.show(board=True)
            line = self.inp.readline()
            if not line:
                return self.leave()
            sent = self.answer(line)
            if sent is None:
                return self.leave()
            if sent:
                self.tell(self.catch_up())
                moved_at = time.monotonic()

    # --- reading the game ---------------------------------------------------------------------------------
    def catch_up(self) -> list[str]:
        """Fold the events the store has after the shown version; their narration for the seat."""
        t, presenter = self.t, self.t.plugin.presenter
        told = []
        for stored in self.client.read_events(t.game_id, after=t.version):
            event = self.rules.parse_event(stored.data)
            t.state = self.rules.evolve(t.state, event)
            t.version = stored.version
            if event.type in presenter.quiet_events:
                continue
            text = presenter.narrate(event, t.seat, t.state, t.names)
            if text:
                told.append(text)
        return told

    def tell(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.say(f"  {line}")

    # --- showing ------------------------------------------------------------------------------------------
    def fresh_menu(self) -> None:
        t = self.t
        t.commands = self.rules.legal_commands(t.state, t.seat)
        t.menu = menu_of(t.plugin, t.commands, t.state)
        t.key, t.page, t.shown_at = "", 0, t.version

    def show(self, board: bool = False) -> None:
        """The listing shown now (after the board when ``board``)."""
        t = self.t
        assert t.menu is not None
        if board:
            self.say("")
            self.say(board_text(t.plugin, t.state, t.seat))
        header = t.plugin.presenter.prompt(t.state, t.seat) or "Your move."
        page = t.menu.page(t.key, t.page, MENU_CHARS, f"-- your move (version {t.version}): {header}")
        t.key, t.page = page.key, page.page
        self.say(page.text)
        if "Send a letter" not in page.text:  # a listing of groups says it already
            self.say('(a number or a few words of a move; "help" for more)')

    # --- answering ----------------------------------------------------------------------------------------
    def answer(self, line: str) -> bool | None:
        """Act on one typed line: True when a command was sent, False when only shown, None to leave."""
        t = self.t
        assert t.menu is not None
        text = normalize(line)
        if text in QUIT_WORDS:
            return None
        if text in REDRAW_WORDS:
            self.show(board=True)
            return False
        try:
            choice = interpret(line, t.menu, within=t.key)
        except ChatError as exc:
            self.say(f"# {exc.message}")
            if len(exc.candidates) < len(t.menu):
                self.tell(exc.candidates)
            return False
        if choice.kind == "help":
            self.say(HELP)
            self.show()
            return False
        if choice.kind == "show":
            t.key, t.page = "", 0
            self.show()
            return False
        if choice.kind in ("more", "back", "open"):
            self.page_to(choice.kind, choice.key)
            self.show()
            return False
        command = t.commands[t.menu.order[choice.number - 1]]
        self.say(f"> {t.menu.labels[choice.number - 1]}")
        return self.send(command)

    def page_to(self, kind: str, key: str) -> None:
        t = self.t
        assert t.menu is not None
        if kind == "open":
            t.key, t.page = key, 0
        elif kind == "more":
            t.page += 1
        else:
            group = t.menu.group(t.key)
            parent = group.parent if group is not None else None
            t.key, t.page = (parent.key if parent is not None else ""), 0

    def send(self, command: Command) -> bool:
        t = self.t
        payload = self.rules.encode_command(command)
        try:
            outcome = self.client.send(t.game_id, t.seat, t.token, payload, expected_version=t.version,
                                       timeout=self.timeout)  # fmt: skip
        except TimeoutError:  # it may still be decided later: read the game again before asking again
            self.say(f"# no answer within {self.timeout:.0f} s: is the service running (throne serve)? The game "
                     "as it stands now:")  # fmt: skip
            t.shown_at = -1
            return True
        if not outcome.accepted and outcome.rejection is not None:
            if outcome.rejection.code == STALE_VERSION:
                self.say("# the game moved on before your command arrived: here it is again")
            else:
                rulings = f" [{', '.join(outcome.rejection.rulings)}]" if outcome.rejection.rulings else ""
                self.say(f"# refused: {outcome.rejection.code}: {outcome.rejection.message}{rulings}")
            t.shown_at = -1
        return True

    def leave(self) -> None:
        t = self.t
        self.say(f"# you left game {t.game_id} at version {t.version}; resume with: "
                 f"throne play --game-id {t.game_id} --token {t.token}")  # fmt: skip
        return None

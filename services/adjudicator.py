"""The offline adjudicator: referee a whole game from JSON lines, without any server.

Input, one JSON object per line (blank lines are skipped but keep their line number)::

    {"game": "shadow", "players": ["Red", "Green", "Blue", "Yellow"], "settings": {}, "seed": 1}
    {"type": "PlaceEmpireCity", "seat": 0, "electorate": "saxony"}
    ...

The first line is the game header (``settings`` and ``seed`` may be left out: ``{}`` and 0); every further line
is one command of that game (for In the Shadow of the Emperor: ``services/games/shadow/COMMANDS.md``). The header
of a game with a fair shuffle (``throne export`` of a finished game writes it) also carries ``salt`` (64 hex
digits), ``practice`` and ``commitment``, the sha256 published at the start: the adjudicator records the
commitment and, at the end, the reveal, and closes with ``{"fairness": {"status": "verified" | "mismatch" |
"not_revealed", ...}}`` (a mismatch when the published commitment is not that of the header's seed and salt).

Output, one JSON object per line: the opening events, then for every command line its events or its rejection::

    {"line": 1, "version": 1, "event": {"type": "GameStarted", ...}}
    {"line": 2, "version": 5, "event": {...}}
    {"line": 3, "rejection": {"code": "not_your_turn", "message": "...", "rulings": ["G1"]}}

``version`` is the event's 1-based position in the game (as in the event store). A line that is not JSON is
rejected with ``not_json``; a JSON value that is not a valid command (not an object, unknown ``type``, missing
or extra fields) with ``bad_command``; a valid command the rules refuse with the game's own code. A rejected
line changes nothing and adjudication goes on with the next line. A header that can not start a game gives a
single ``bad_header`` (or ``unknown_game``) rejection on line 1 and nothing else.

Clocks: any line (header or command) may carry ``"at_ms"``, the time stamped on it (epoch milliseconds); a line
without it takes the time of the line before (0 before any). On a table with the ``clock`` setting the stamps are
recorded (``ClockStamped``) and a ``{"type": "TimeOut", "seat": s, "turn": n}`` line is refereed as the timer's
claim (README "Clocks"); elsewhere the times change nothing.

Optional last line (``final_view``): ``{"final": {"version": n, "over": bool, "result": {...} | null,
"view": {...spectator view...}}}``. The same input always gives the same output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from pydantic import ValidationError

from events.base import Rejection, summarize_validation_error
from services.rules import fair
from services.rules.contract import Event, GamePlugin
from services.rules.registry import game_names, get_game

NOT_JSON = "not_json"
BAD_COMMAND = "bad_command"
BAD_HEADER = "bad_header"
UNKNOWN_GAME = "unknown_game"
HEADER_FIELDS = frozenset({"game", "players", "settings", "seed", "at_ms", "salt", "practice", "commitment"})
HEX64 = re.compile(r"^[0-9a-f]{64}$")


summarize = summarize_validation_error


def _rejection(line: int, code: str, message: str, rulings: Iterable[str] = ()) -> dict[str, Any]:
    return {"line": line, "rejection": {"code": code, "message": message, "rulings": list(rulings)}}


class Adjudicator:
    """One game refereed line by line; ``feed`` returns the output records of one input line."""

    def __init__(self) -> None:
        self.game: GamePlugin | None = None
        self.state: Any = None
        self.version = 0
        self.players: tuple[str, ...] = ()
        self.at_ms = 0
        self.claimed: str | None = None
        self.opened: list[dict[str, Any]] = []
        """The opening event and the fair-shuffle facts recorded so far (JSON), for the closing verdict."""

    @property
    def started(self) -> bool:
        """Whether the header line started a game."""
        return self.game is not None

    def _events(self, line: int, events: list[Event]) -> list[dict[str, Any]]:
        assert self.game is not None
        rules = self.game.rules
        out = []
        for event in events:
            self.state = rules.evolve(self.state, event)
            self.version += 1
            data = rules.encode_event(event)
            if self.version == 1 or data.get("type") in fair.FACTS:
                self.opened.append(data)
            out.append({"line": line, "version": self.version, "event": data})
        return out

    def header(self, line: int, text: str | bytes) -> list[dict[str, Any]]:
        """Start the game from the header line."""
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            return [_rejection(line, BAD_HEADER, f"the header is not JSON: {exc}")]
        if not isinstance(data, dict):
            return [_rejection(line, BAD_HEADER, "the header must be a JSON object")]
        extra = sorted(set(data) - HEADER_FIELDS)
        if extra:
            return [_rejection(line, BAD_HEADER, f"unknown header field(s): {', '.join(extra)}")]
        name, players = data.get("game"), data.get("players")
        settings, seed = data.get("settings") or {}, data.get("seed", 0)
        if not isinstance(name, str):
            return [_rejection(line, BAD_HEADER, 'the header needs "game": the game\'s name')]
        if name not in game_names():
            return [_rejection(line, UNKNOWN_GAME, f"unknown game {name!r}; known: {', '.join(game_names())}")]
        if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
            return [_rejection(line, BAD_HEADER, '"players" must be a list of player names')]
        if not isinstance(settings, dict):
            return [_rejection(line, BAD_HEADER, '"settings" must be a JSON object')]
        if seed is None and "commitment" in data:
            message = '"seed" is null: the seed of a running game stays secret until its end (export it then)'
            return [_rejection(line, BAD_HEADER, message)]
        if not isinstance(seed, int) or isinstance(seed, bool):
            return [_rejection(line, BAD_HEADER, '"seed" must be an integer')]
        salt, practice, claimed = data.get("salt"), data.get("practice", False), data.get("commitment")
        if salt is not None and not (isinstance(salt, str) and HEX64.match(salt)):
            return [_rejection(line, BAD_HEADER, '"salt" must be 64 lowercase hex digits')]
        if not isinstance(practice, bool):
            return [_rejection(line, BAD_HEADER, '"practice" must be true or false')]
        if claimed is not None and not isinstance(claimed, str):
            return [_rejection(line, BAD_HEADER, '"commitment" must be the published sha256, in hex')]
        if claimed is not None and salt is None:
            return [_rejection(line, BAD_HEADER, 'a "commitment" is checked with the revealed "salt": give both')]
        at = data.get("at_ms", 0)
        if not isinstance(at, int) or isinstance(at, bool):
            return [_rejection(line, BAD_HEADER, '"at_ms" must be an integer (epoch milliseconds)')]
        game = get_game(name)
        try:
            events = game.rules.start(players, settings, seed, at, salt, practice)
        except ValidationError as exc:
            return [_rejection(line, BAD_HEADER, f"bad settings: {summarize(exc)}")]
        except (ValueError, TypeError) as exc:
            return [_rejection(line, BAD_HEADER, str(exc)[:300])]
        self.game, self.players, self.at_ms = game, tuple(players), at
        self.claimed = claimed
        self.state = game.rules.initial_state()
        return self._events(line, events)

    def command(self, line: int, text: str | bytes) -> list[dict[str, Any]]:
        """Referee one command line."""
        assert self.game is not None, "the header comes first"
        rules = self.game.rules
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            return [_rejection(line, NOT_JSON, f"not JSON: {exc}")]
        if not isinstance(data, dict):
            return [_rejection(line, BAD_COMMAND, "a command must be a JSON object")]
        at = data.pop("at_ms", self.at_ms)
        if not isinstance(at, int) or isinstance(at, bool):
            return [_rejection(line, BAD_COMMAND, '"at_ms" must be an integer (epoch milliseconds)')]
        try:
            command = rules.parse_command(data)
        except ValidationError as exc:
            return [_rejection(line, BAD_COMMAND, summarize(exc))]
        except (ValueError, TypeError, KeyError) as exc:
            return [_rejection(line, BAD_COMMAND, str(exc)[:300])]
        self.at_ms = at
        result = rules.decide(self.state, command, at)
        if isinstance(result, Rejection):
            return [_rejection(line, result.code, result.message, result.rulings)]
        return self._events(line, result)

    def final(self) -> dict[str, Any]:
        """The closing record: version, whether the game is over, its result and the spectator view."""
        if self.game is None:
            return {"final": None}
        rules = self.game.rules
        return {
            "final": {
                "version": self.version,
                "over": rules.is_over(self.state),
                "result": rules.result(self.state),
                "view": self.game.presenter.view(self.state, None),
            }
        }

    def fairness(self) -> dict[str, Any] | None:
        """The closing record of a game with a fair shuffle: whether the reveal the adjudicator recorded matches
        the commitment, and the commitment the header says was published (``commitment``); None: no commitment."""
        if self.game is None or not self.opened:
            return None
        shown = fair.verdict(self.opened)
        if shown["status"] == fair.NO_COMMITMENT:
            return None
        if self.claimed is not None and self.claimed != shown.get("commitment"):
            problems = [*shown["problems"], "the published commitment is not the one of the header's seed and salt"]
            shown = {**shown, "status": fair.MISMATCH, "problems": problems}
            shown["message"] = "Fair shuffle MISMATCH: " + "; ".join(problems) + "."
        return {"fairness": shown}


def adjudicate(lines: Iterable[str | bytes], final_view: bool = False) -> Iterator[dict[str, Any]]:
    """The output records for the input lines (numbered from 1)."""
    judge = Adjudicator()
    for number, line in enumerate(lines, start=1):
        raw = line.strip()
        if not raw:
            continue
        if not judge.started:
            yield from judge.header(number, raw)
            if not judge.started:
                return
        else:
            yield from judge.command(number, raw)
    if not judge.started:
        yield _rejection(0, BAD_HEADER, "empty input: the first line must be the game header")
        return
    closing = judge.fairness()
    if closing is not None:
        yield closing
    if final_view:
        yield judge.final()


def dumps(record: dict[str, Any]) -> bytes:
    """One output line (compact JSON, no newline)."""
    return orjson.dumps(record)

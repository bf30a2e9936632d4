"""The contract between a game and the service: everything generic code may know about a game.

A game is one :class:`GamePlugin`: its pure rules (:class:`GameRules`), its presentation (:class:`Presenter`),
its bots and its rules reference. The service (bus, worker, store, projections, gateway, CLI) calls only what is
declared here; optional abilities have their defaults here, once, so callers never probe a game with
``getattr``.

The rules are pure: no IO, no clock, no environment, no unrecorded randomness. Events and commands are the
game's own objects; generic code handles them only through the codecs (``parse_*`` / ``encode_*``) and the
two attributes every event and command has: ``type`` (a string) and, for events, ``rulings`` (the ruling ids
that produced it). A command also has ``seat``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

import orjson

from events.base import Rejection
from services.rules import fair
from services.rules.reference import Ruling, load_reference

if TYPE_CHECKING:
    from services.rules.table import Table, TablePresenter

State = TypeVar("State")
Event = Any
"""A game's event object: has ``type: str`` and ``rulings: tuple[str, ...]``; JSON through the codecs."""
Command = Any
"""A game's command object: has ``type: str`` and ``seat: int``; JSON through the codecs."""
JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a game declares about itself (OpenSpiel's ``GameType`` in spirit); callers read, never probe."""

    min_players: int
    max_players: int
    hidden_information: bool = False
    """Hands, decks or sealed choices exist: the presenter's ``redact``/``view`` must hide them per seat."""
    simultaneous: bool = False
    """Some decisions await several seats at once (e.g. a sealed vote)."""
    fast_execute: bool = False
    """``execute`` is a real fast path (decide and evolve in one pass), not the default composition."""
    fast_sample: bool = False
    """``sample_legal`` draws without listing every legal command."""
    chance: bool = False
    """The rules draw from the seed (a shuffle, a deal, a draw): the seed decides part of the game."""
    determinizes: bool = False
    """``determinize`` re-samples what a seat cannot see (a game with ``hidden_information`` must implement it
    before a search bot may play it: the default is honest only for a game without secrets)."""


@dataclass(frozen=True, slots=True)
class Secret:
    """Something only seat ``owner`` may know now, as a presenter's output would show it (for the conformance
    suite's secrecy check, tests/conformance/).

    In JSON output it would show as ``key`` holding ``value``: either in an object with ``"seat": owner`` (an
    event, a seat's row of a scoreboard), or as item ``owner`` of a list under ``key`` in an object without a
    ``seat`` field (a view's per-seat list, e.g. ``victory_points``). ``key`` None: a value unique to the secret
    (a card's id in a hand) that shows wherever it appears, under any key or in any list. In text or a picture it
    would show as ``text``, when that string is distinctive enough to search for (None: not searched)."""

    owner: int
    key: str | None
    value: Any
    text: str | None = None


SharedWin = Literal["each", "split", "none"]
"""How a leaderboard counts a shared victory (several winners): ``each`` winner a whole win, a ``split`` win
(1/k each of k winners), or ``none`` (only a victory alone is a win)."""


@dataclass(frozen=True, slots=True)
class LeaderboardSpec:
    """What a game's leaderboard means (declared by its presenter; generic code shows it, never names it)."""

    score_label: str = "score"
    """What the ``score`` of :meth:`Presenter.scoreboard` is, in words (a column heading: "victory points")."""
    shared_win: SharedWin = "each"
    """How a shared victory counts in a player's wins."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat at the end of a game, as a leaderboard counts it."""

    score: int | float | None
    """The seat's final ``score`` (what the leaderboard averages; None: unknown)."""
    won: bool
    """Whether the seat is among the winners (alone or shared)."""


@dataclass(frozen=True, slots=True)
class TableRulings:
    """A game's ruling ids for the rules of the table around it ("": the game has no such ruling)."""

    clock: str = ""
    """Its clocks and timeouts (what ``ClockStamped`` and ``SeatTimedOut`` cite)."""
    bot: str = ""
    """A seat handed to a bot after repeated timeouts, and taken back (``SeatHandedOver``, ``TakeSeat``)."""
    leave: str = ""
    """A player who leaves a running game (``SeatLeft``)."""
    fair: str = ""
    """The fair shuffle (``SeedCommitted``, ``SeedRevealed``)."""
    practice: str = ""
    """A seed chosen by the table's creator (a practice table)."""


class GameRules(ABC, Generic[State]):
    """The pure rules of one game (the decider). Subclasses set ``name``, ``rules_version``, ``capabilities``."""

    name: str
    rules_version: str
    capabilities: Capabilities
    table_rulings: TableRulings = TableRulings()
    """The game's ruling ids for the table's rules (clocks, seats to bots, leaving, the fair shuffle): what the
    table's facts and refusals cite (services/rules/table/)."""

    # --- the decider -------------------------------------------------------------------------------------------
    @abstractmethod
    def start(self, players: Sequence[str], settings: Mapping[str, Any], seed: int) -> list[Event]:
        """The events that open a game; the first records players, settings and seed. Raises ValueError on a
        table the game cannot be played at (player count, settings)."""

    @abstractmethod
    def initial_state(self) -> State:
        """The state before the first event (folding starts here)."""

    @abstractmethod
    def evolve(self, state: State, event: Event) -> State:
        """Apply one recorded fact. Never re-runs a rule or draws at random."""

    @abstractmethod
    def decide(self, state: State, command: Command) -> list[Event] | Rejection:
        """The events a command causes, or a typed rejection (the state is unchanged either way)."""

    @abstractmethod
    def legal_commands(self, state: State, seat: int) -> list[Command]:
        """Every command ``seat`` may send now; each is accepted by :meth:`decide`, and nothing else is."""

    @abstractmethod
    def awaited(self, state: State) -> tuple[int, ...]:
        """The seats whose command the game waits for now (several during a simultaneous decision)."""

    @abstractmethod
    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def result(self, state: State) -> JSON | None:
        """Once over: ``{"players", "scores", "winners", "shared", ...}``; else None."""

    # --- codecs -----------------------------------------------------------------------------------------------
    @abstractmethod
    def parse_command(self, raw: bytes | str | JSON) -> Command:
        """A command from JSON; raises ``ValueError`` (pydantic's ValidationError is one) on bad input."""

    @abstractmethod
    def parse_event(self, raw: bytes | str | JSON) -> Event:
        """A recorded event from JSON."""

    @abstractmethod
    def encode_event(self, event: Event) -> JSON:
        """An event as JSON-ready data (with ``type`` and ``rulings``); ``parse_event`` inverts it."""

    @abstractmethod
    def encode_command(self, command: Command) -> JSON:
        """A command as JSON-ready data (with ``type`` and ``seat``); ``parse_command`` inverts it."""

    @abstractmethod
    def snapshot(self, state: State) -> bytes:
        """A state as bytes; ``restore(snapshot(s))`` equals ``s``."""

    @abstractmethod
    def restore(self, data: bytes) -> State:
        """The state a snapshot was taken of."""

    # --- optional abilities, with their defaults (declared in ``capabilities``) -----------------------------
    def execute(self, state: State, command: Command) -> tuple[list[Event], State] | Rejection:
        """``decide`` and fold its events in one call (a game may do it in one pass: ``fast_execute``)."""
        outcome = self.decide(state, command)
        if isinstance(outcome, Rejection):
            return outcome
        for event in outcome:
            state = self.evolve(state, event)
        return outcome, state

    def sample_legal(self, state: State, seat: int, rng: random.Random) -> Command | None:
        """A uniformly random legal command of ``seat`` (None: it has none)."""
        options = self.legal_commands(state, seat)
        return rng.choice(options) if options else None

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """A state ``seat`` cannot tell from ``state``: everything it may see is kept, everything hidden from it
        (other seats' hands and sealed choices, hidden scores, the order of decks) re-drawn from ``rng``.

        What a search bot plays on instead of the real state (services/bots/search.py), so that it never reads
        what its seat may not know. It must not read the hidden parts of ``state`` itself: two states that
        differ only in what ``seat`` cannot see give the same result for the same ``rng`` (and draw the same
        number of values from it). The default returns ``state`` unchanged, which is honest only for a game
        without secrets (``capabilities.hidden_information`` False); a game with secrets overrides it and
        declares ``capabilities.determinizes``."""
        return state

    def encode_event_bytes(self, event: Event) -> bytes:
        """An event as compact JSON bytes (a game may serialize faster)."""
        return orjson.dumps(self.encode_event(event))

    # --- the table around the game: what only the game knows ---------------------------------------------------
    @property
    def commits_seed(self) -> bool:
        """Whether the seed decides something a seat could profit from knowing (hidden information or chance): such
        a game's seed is committed at the start and revealed at the end by the table (``services/rules/fair.py``)."""
        return self.capabilities.hidden_information or self.capabilities.chance

    def default_command(self, state: State, seat: int) -> tuple[Command, str] | None:
        """The documented default move of awaited ``seat`` for the decision at hand (what the referee plays when its
        time runs out) and the ruling id that names that default; None: the game has none."""
        return None

    def decision_of(self, state: State, seat: int) -> str:
        """The name of the decision the game awaits of ``seat`` (recorded with a timeout)."""
        return "decision"

    def count_table_event(self, state: State) -> State:
        """The game's state after a table fact (a clock stamp, a timeout, a seat handed over or left, the seed's
        commitment or reveal) was recorded between its own events: the table folds the fact, the game never sees
        it. The default keeps ``state``; a game whose state counts the events of its log (a version) counts it
        here, on a copy."""
        return state

    def fold(self, events: Sequence[Event], state: State | None = None) -> State:
        """The state after ``events``, from ``state`` (or the initial state)."""
        current = self.initial_state() if state is None else state
        for event in events:
            current = self.evolve(current, event)
        return current


class Presenter(Generic[State]):
    """How a game shows itself: per-seat views and redaction, words, labels, boards, scoreboard.

    Every method has a plain default here; a game overrides what it can say better. Anything that may carry a
    secret (``view``, ``redact``, ``replay_view``, the boards) must show ``seat`` only what that seat may know
    (``None`` is a spectator).
    """

    quiet_events: frozenset[str] = frozenset()
    """Event types a move-by-move narration (demo, terminal) may leave out: they only move the game along."""
    leaderboard: LeaderboardSpec = LeaderboardSpec()
    """What the game's leaderboard averages (``score_label``) and how it counts a shared victory."""
    flow_events: frozenset[str] = frozenset()
    """Event types the game's own flow records by itself (a phase or round opening, a tally, an automatic step):
    no seat chose them, though they are committed with the command after which the game ran on."""

    def __init__(self, rules: GameRules[State]) -> None:
        self.rules = rules

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every game's ``redact`` is sealed here, once for all games: whatever a game shows of an event, its
        ``seed`` and ``salt`` stay null until the game is over (the fair shuffle, ``services/rules/fair.py``)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("redact")
        if own is not None and not getattr(own, "sealed", False):
            cls.redact = _sealed(own)  # type: ignore[method-assign]

    def over(self, state: State | None) -> bool:
        """Whether the game at ``state`` is over (None: no game yet)."""
        return state is not None and self.rules.is_over(state)

    # --- secrets -------------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> JSON:
        """The game as ``seat`` may see it now, JSON-ready. The default shows only what is always public."""
        return {
            "awaited": list(self.rules.awaited(state)),
            "over": self.rules.is_over(state),
            "result": self.rules.result(state),
        }

    def views(self, state: State, seats: Sequence[int | None]) -> list[JSON]:
        """:meth:`view` for several seats (a game may build the shared part once)."""
        return [self.view(state, seat) for seat in seats]

    def redact(self, event: Event, seat: int | None, state: State) -> JSON | None:
        """``event`` as ``seat`` may see it, or None to withhold it. ``state`` is the game at the reader's moment
        (at or after the event): a secret revealed by then may be shown, and everything once the game is over.
        The default shows every event but the seed and the salt: right only for a game without secrets in its
        events."""
        return fair.seal_json(self.rules.encode_event(event), self.over(state))

    def secrets(self, state: State) -> Sequence[Secret]:
        """Everything some seat alone may know at ``state``, each marked with its owner. No output of this
        presenter for another seat or a spectator may show it (tests/conformance/ checks every game for it).
        The default: no secrets."""
        return ()

    def default_is_secret(self, decision: str, seat: int, viewer: int | None, state: State) -> bool:
        """Whether the default move the referee played for ``seat``'s ``decision`` when its time ran out is
        secret from ``viewer`` at ``state`` (a sealed vote, a card kept): the table then shows that the seat timed
        out, not the move. The default: no default move is secret."""
        return False

    def replay_view(self, state: State, seat: int | None, final: State) -> JSON:
        """The view of a past position ``state``, for a replay made when the game has reached ``final``.
        The default is ``view(state, seat)``; a game whose secrets become public at the end overrides it."""
        return self.view(state, seat)

    # --- words -----------------------------------------------------------------------------------------------
    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """One event in plain words (for narration)."""
        data = self.rules.encode_event(event)
        details = ", ".join(f"{k}={v}" for k, v in data.items() if k not in ("type", "rulings"))
        return f"{data.get('type', '?')}" + (f" ({details})" if details else "")

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """Why an event happened, for a referee: the decision, its deciding inputs, the rulings cited."""
        rulings = ", ".join(getattr(event, "rulings", ()) or ()) or "none"
        return f"{self.describe(event, players)} [rulings: {rulings}]"

    def flow_event(self, event: Event) -> bool:
        """Whether the game's own flow recorded ``event`` (an automatic step no seat chose, such as an old-age death
        or a phase opening) rather than the command it was committed with; the audit words the two differently.
        The default: its type is one of :attr:`flow_events`."""
        return str(getattr(event, "type", "")) in self.flow_events

    def narrate(self, event: Event, seat: int | None, state: State, players: Sequence[str] = ()) -> str | None:
        """``event`` in plain words as ``seat`` (None: a spectator) may know it at ``state`` (the reader's moment,
        as in :meth:`redact`); None when :meth:`redact` withholds it. A narration never tells what ``redact``
        masks: the default describes the event only when ``redact`` shows it whole, and a masked one by the
        ``summary`` ``redact`` gave it, else by its type alone. A game whose :meth:`describe` never tells a
        secret overrides this to describe masked events in full words."""
        shown = self.redact(event, seat, state)
        if shown is None:
            return None
        if shown == fair.seal_json(self.rules.encode_event(event), self.over(state)):
            return self.describe(event, players)
        summary = shown.get("summary")
        return summary if isinstance(summary, str) and summary else f"{shown.get('type', 'Event')} (details hidden)"

    def prompt(self, state: State, seat: int) -> str | None:
        """What the game asks ``seat`` now and where, in a sentence addressed to that seat ("Break the tie for
        the elector seat of Köln ..."); None when the game does not wait for ``seat``. The default says only
        that it is the seat's turn."""
        if seat not in self.rules.awaited(state):
            return None
        return "Your turn: choose one of your legal commands."

    def label(self, command: Command, state: State | None = None) -> str:
        """A short readable label of a legal command (buttons, menus)."""
        data = self.rules.encode_command(command)
        details = " ".join(f"{k}={v}" for k, v in data.items() if k not in ("type", "seat"))
        return f"{data.get('type', '?')}" + (f" {details}" if details else "")

    def menu_groups(self, commands: Sequence[Command], state: State | None = None) -> list[tuple[str, list[int]]]:
        """Legal ``commands`` grouped for a menu: ``(title, indexes into commands)``, the groups partitioning the
        indexes in order. A title may have levels separated by `` > `` that a menu may nest on. The default is
        one group."""
        return [("Commands", list(range(len(commands))))] if commands else []

    # --- pictures and standings --------------------------------------------------------------------------------
    def scoreboard(self, state: State) -> JSON:
        """The public standing: ``{"seats": [{"score": int | None, ...}], ...}``; ``score`` is what a leaderboard
        averages (None while hidden), its meaning in words ``leaderboard.score_label``."""
        result = self.rules.result(state)
        scores = (result or {}).get("scores") or []
        return {"seats": [{"score": s} for s in scores], "over": self.rules.is_over(state)}

    def final_standings(self, state: State) -> list[Standing] | None:
        """Once the game is over, each seat's final score and whether it won (None while it runs): what the
        leaderboard counts. The default: ``score`` of each seat of :meth:`scoreboard` and ``winners`` of the
        rules' ``result``."""
        result = self.rules.result(state) if self.rules.is_over(state) else None
        if result is None:
            return None
        winners = set(result.get("winners") or ())
        seats = self.scoreboard(state).get("seats") or []
        count = len(result.get("players") or seats)
        return [
            Standing(score=seats[seat].get("score") if seat < len(seats) else None, won=seat in winners)
            for seat in range(count)
        ]

    def render_text(self, state: State, seat: int | None, final: State | None = None) -> str:
        """The board as plain text, as ``seat`` may see it (``final`` as in :meth:`replay_view`)."""
        shown = self.view(state, seat) if final is None else self.replay_view(state, seat, final)
        return orjson.dumps(shown, option=orjson.OPT_INDENT_2).decode()

    def render_svg(self, state: State, seat: int | None, final: State | None = None) -> str:
        """The board as a standalone SVG document, as ``seat`` may see it."""
        from html import escape

        lines = self.render_text(state, seat, final).splitlines()
        height = 16 * len(lines) + 20
        body = "".join(
            f'<text x="10" y="{20 + 16 * i}" font-family="monospace" font-size="13">{escape(line)}</text>'
            for i, line in enumerate(lines)
        )
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{height}">{body}</svg>'


def _sealed(redact: Callable[..., JSON | None]) -> Callable[..., JSON | None]:
    """``redact`` with the seed and the salt of every event it shows sealed until the game is over."""

    def sealed(self: Presenter[Any], event: Event, seat: int | None, state: Any) -> JSON | None:
        shown = redact(self, event, seat, state)
        return None if shown is None else fair.seal_json(shown, self.over(state))

    sealed.__doc__ = redact.__doc__
    sealed.__name__ = redact.__name__
    sealed.sealed = True  # type: ignore[attr-defined]
    return sealed


class Bot(Protocol):
    """A player program for one seat of one game."""

    def choose(self, rules: GameRules[Any], state: Any, seat: int) -> Command | None:
        """The bot's command for ``seat`` now (None: it has none)."""
        ...


BotFactory = Callable[[int], Bot]
"""Makes a bot from a seed (cheap: a bot may be made per decision)."""


@dataclass(frozen=True)
class GamePlugin:
    """One game, whole: what the service loads through the ``throne.games`` entry point group.

    A game supplies its own rules, presenter and bots; the service holds them with the table around them
    (:attr:`rules`, :attr:`presenter`: services/rules/table/), so clocks, seats and the committed seed are the
    table's, written once."""

    game_rules: GameRules[Any]
    """The game's own rules (its state holds no clock, no seal, no left seat)."""
    game_presenter: Presenter[Any]
    """The game's own presenter, over its own state."""
    bots: Mapping[str, BotFactory] = field(default_factory=dict)
    """Bot kinds by name, over the game's own state; ``random`` is always offered (from ``sample_legal``) unless
    the game overrides it. The first one listed is the one a person plays against by default (``throne play``)."""
    rules_reference: Path | None = None
    """The game's own rules reference (Markdown, ruling ids as headings or bold ids)."""
    settings_schema: JSON | None = None
    """JSON Schema of the table settings (for clients and validation at the edge)."""
    command_schema: JSON | None = None
    event_schema: JSON | None = None
    view_schema: JSON | None = None
    """JSON Schema of what ``Presenter.view`` returns (the gateway's OpenAPI document types views with it)."""
    bench_sections: tuple[Callable[[Any], JSON], ...] = ()
    """The game's own ``make bench`` sections (``(ctx) -> figures``, see services/bench/), e.g. a bot's
    win rate."""

    def __post_init__(self) -> None:
        from services.rules.table.schemas import with_table_events

        # Every game's log holds the table's facts: its published event schema lists them.
        object.__setattr__(self, "event_schema", with_table_events(self.event_schema))

    @cached_property
    def rules(self) -> Table:
        """The game's rules with the table around them: what the service decides and folds with."""
        from services.rules.table import Table

        return Table(self.game_rules)

    @cached_property
    def presenter(self) -> TablePresenter:
        """The game's presenter with the table around it: what the service shows with."""
        from services.rules.table import TablePresenter

        return TablePresenter(self.game_presenter, self.rules)

    @property
    def name(self) -> str:
        """The game's registry name."""
        return self.game_rules.name

    def rulings(self) -> Mapping[str, Ruling]:
        """The rulings of :attr:`rules_reference` by id (title and text, the project's own words), parsed once per
        process; empty for a game without a reference."""
        return load_reference(self.rules_reference)

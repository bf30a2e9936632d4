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
from typing import TYPE_CHECKING, Any, Generic, Protocol

import orjson

from events.base import Rejection
from services.rules.presenter import Presenter
from services.rules.reference import Ruling, load_reference
from services.rules.values import (
    JSON,
    Capabilities,
    Command,
    Event,
    LeaderboardSpec,
    Secret,
    SharedWin,
    Standing,
    State,
    TableRulings,
)

if TYPE_CHECKING:
    from services.rules.table import Table, TablePresenter

__all__ = [
    "JSON",
    "Bot",
    "BotFactory",
    "Capabilities",
    "Command",
    "Event",
    "GamePlugin",
    "GameRules",
    "LeaderboardSpec",
    "Presenter",
    "Secret",
    "SharedWin",
    "Standing",
    "State",
    "TableRulings",
]


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

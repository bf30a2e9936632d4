"""The plain values of the game contract (services/rules/contract.py): what a game declares about itself
(capabilities, its ruling ids for the table's rules, its leaderboard) and what it reports (secrets, standings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeVar

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

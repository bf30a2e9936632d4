"""How a game shows itself (a part of the game contract, services/rules/contract.py): the :class:`Presenter`,
whose every method has a plain default a game overrides where it can say better."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any, Generic

import orjson

from services.rules import fair
from services.rules.values import JSON, Command, Event, LeaderboardSpec, Secret, Standing, State

if TYPE_CHECKING:
    from services.rules.contract import GameRules


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
        if shown is None or ("seed" not in shown and "salt" not in shown):  # most events: nothing to seal
            return shown
        return fair.seal_json(shown, self.over(state))

    sealed.__doc__ = redact.__doc__
    sealed.__name__ = redact.__name__
    sealed.sealed = True  # type: ignore[attr-defined]
    return sealed

"""How In the Shadow of the Emperor shows itself: views and redaction per seat, words, labels, boards and the
scoreboard, behind the game contract's :class:`~services.rules.contract.Presenter`.

The secrets are the sealed votes until they are revealed [E2] and, with the table setting
``hidden_victory_points`` [B6], every seat's victory points until the end [X14]; once the game is over
everything is public.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.base import Command, Event
from services.games.shadow.presentation import audit, labels, menus, redact, render
from services.games.shadow.presentation.prompts import ask
from services.games.shadow.presentation.view import view
from services.games.shadow.presentation.words import PHASES, describe
from services.games.shadow.rules.actions import awaited
from services.games.shadow.rules.state import GameState
from services.rules.contract import JSON, LeaderboardSpec, Presenter, Secret


class ShadowPresenter(Presenter[GameState | None]):
    """Views, redaction, words and pictures of a Shadow game (services/games/shadow/{view,redact,describe,
    audit,labels,render}.py)."""

    quiet_events = frozenset({"DecisionRequested"})
    """A request for the next decision: the next command shows who answered it."""
    leaderboard = LeaderboardSpec(score_label="victory points", shared_win="each")
    """A leaderboard averages victory points; players tied for the win all win together [G3]."""
    flow_events = frozenset(
        {
            "GameStarted", "ElectoratesClosed", "DecisionRequested", "PhaseStarted", "GameEnded", "IncomeCollected",
            "AristocratsAged", "DescendantsCounted", "CardsReturned", "ElectionCalled",
            "VotesRevealed", "EmperorElected", "EmperorRetained",
        }
    )  # fmt: skip
    """What the round's flow records by itself: openings, phase I income, phase II aging, the phase III count,
    the settling of electorates and the election once every vote is in, the end of the game."""

    def flow_event(self, event: Event) -> bool:
        """The flow's own events, and the old-age deaths of phase II [A1] and the elector seats settled without a
        tie to break [V2] (a Doctor's death or a tie the Emperor broke came from a seat's command)."""
        kind = event.type
        if kind == "AristocratDied":
            return bool(event.cause == "old_age")
        if kind in ("ElectorChanged", "ElectorRetained"):
            return event.tie_broken_by is None
        return kind in self.flow_events

    def view(self, state: GameState | None, seat: int | None) -> JSON:
        """The game as one seat or a spectator sees it (before GameStarted: that there is no table yet)."""
        return redact.replay_view(state, seat, None) if state is None else view(state, seat)

    def views(self, state: GameState | None, seats: Sequence[int | None]) -> list[JSON]:
        """``view`` for several seats, the shared part built once (the parts are shared: do not mutate)."""
        if state is None:
            return [self.view(None, seat) for seat in seats]
        return redact.views(state, list(seats))

    def redact(self, event: Event, seat: int | None, state: GameState | None) -> JSON | None:
        """``event`` as ``seat`` may see it at ``state``: others' sealed votes masked [E2], others' victory
        points withheld while hidden [B6, X14]."""
        return redact.redact(event, seat, state)

    def default_is_secret(self, decision: str, seat: int, viewer: int | None, state: GameState | None) -> bool:
        """A default vote is a sealed vote too [X19]: that the seat timed out is public, its candidate is not,
        while the vote is open."""
        return decision == "vote" and state is not None and not state.over and redact.vote_open(state)

    def replay_view(self, state: GameState | None, seat: int | None, final: GameState | None) -> JSON:
        """The view of a past position; every secret of the past is public once the game (``final``) is over."""
        return redact.replay_view(state, seat, final)

    def secrets(self, state: GameState | None) -> Sequence[Secret]:
        """The sealed votes while the vote is open [E2]; with hidden victory points, each seat's total and its
        scoring events [B6, X14]."""
        if state is None or state.over:
            return ()
        found: list[Secret] = []
        # Sealed votes, while some vote is still to come: the last one reveals them all in the same command.
        if state.pending is not None and state.pending.decision == "vote" and awaited(state):
            for seat, vote in enumerate(state.votes):
                if vote is not None:
                    name = state.players[seat]
                    found.append(Secret(seat, "candidate", vote, text=f"{name} {vote}"))
                    found.append(Secret(seat, "votes", vote, text=f"{name} {vote}"))
        if state.settings.hidden_victory_points:
            for seat, points in enumerate(state.vp):
                found.append(Secret(seat, "victory_points", points))
                found.append(Secret(seat, "score", points))
                found.append(Secret(seat, "type", "VictoryPointsScored"))
        return found

    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """One event in plain words."""
        return describe(event, players)

    def explain_event(self, event: Event, players: Sequence[str] = ()) -> str:
        """Why an event happened, with its deciding inputs and rulings, for a referee."""
        return audit.explain_event(event, players)

    def label(self, command: Command, state: GameState | Sequence[str] | None = None) -> str:
        """A readable label of a command (``state``, or just the player names, adds costs and names)."""
        return labels.label(command, state)

    def menu_groups(self, commands: Sequence[Command], state: GameState | None = None) -> list[tuple[str, list[int]]]:
        """Legal commands grouped by action, then (long ones) by electorate: "Permit > Köln"."""
        return menus.menu_groups(commands, state)

    def prompt(self, state: GameState | None, seat: int) -> str | None:
        """What the game asks ``seat`` now and where: "Round 2, phase V New electors. Your turn: break the tie
        for the elector seat of Köln between you and Cid."; None when it does not wait for ``seat``."""
        if state is None or state.over or state.pending is None or seat not in awaited(state):
            return None
        when = "Setup" if state.phase == 0 else f"Round {state.round}, phase {PHASES[state.phase]}"
        return f"{when}. Your turn: {ask(state.pending, state.players, seat, state.emperor, state.rival)}."

    def scoreboard(self, state: GameState | None) -> JSON:
        """VP (None while hidden), thalers and electorates per seat; Emperor, round, phase."""
        return render.scoreboard(state)

    def render_text(self, state: GameState | None, seat: int | None, final: GameState | None = None) -> str:
        """The board as text, as ``seat`` may see it."""
        return render.render_text(state, seat, final)

    def render_svg(self, state: GameState | None, seat: int | None, final: GameState | None = None) -> str:
        """The board as SVG, as ``seat`` may see it."""
        return render.render_svg(state, seat, final)

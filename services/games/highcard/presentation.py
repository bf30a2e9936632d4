"""How High Card shows itself (the ``Presenter``): per-seat views, the redaction of dealt hands, words, a text
board and the scoreboard.

The one secret is a seat's hand: only that seat sees its cards (``view``, ``redact``), and ``secrets`` declares
them so that the conformance suite can check no other reader is ever shown one. Played cards are public.
Everything the contract's defaults already say well (menus, the SVG board, replays) is left to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter

from events.base import Event
from events.fair import SeedCommitted, SeedRevealed
from services.games.highcard.messages import CardPlayed, GameEnded, GameStarted, HandDealt, PlayCard, TrickWon
from services.games.highcard.rules import HighCardState
from services.rules import fair
from services.rules.contract import JSON, Command, LeaderboardSpec, Presenter, Secret


class PlayedCard(BaseModel):
    """A card face up on the trick."""

    seat: int
    card: str


class SeatView(BaseModel):
    """The game as one reader may see it (a spectator: ``seat`` null, no hand)."""

    seat: int | None
    players: list[str]
    hand: list[str] | None
    """The reader's own cards; null for a spectator."""
    hand_sizes: list[int]
    trick: list[PlayedCard]
    trick_number: int
    tricks: int
    leader: int
    lowest_wins: bool
    scores: list[int]
    awaited: list[int]
    over: bool
    result: dict[str, Any] | None


VIEW_ADAPTER: TypeAdapter[SeatView] = TypeAdapter(SeatView)


class HighCardPresenter(Presenter[HighCardState]):
    """High Card's presentation; its ``redact`` hides a dealt hand from every reader but its seat [H1]."""

    leaderboard = LeaderboardSpec(score_label="tricks won", shared_win="split")
    flow_events = frozenset({"TrickWon", "GameEnded"})
    """Taking a trick and ending the game follow from the last card played: no seat chooses them."""

    # --- secrets ---------------------------------------------------------------------------------------------
    def view(self, state: HighCardState, seat: int | None) -> JSON:
        """The table, the trick, the scores and, for a seat, its own hand."""
        own = seat is not None and 0 <= seat < len(state.hands)
        shown = SeatView(
            seat=seat,
            players=list(state.players),
            hand=list(state.hands[seat]) if own and seat is not None else None,
            hand_sizes=[len(hand) for hand in state.hands],
            trick=[PlayedCard(seat=s, card=c) for s, c in state.trick],
            trick_number=min(state.tricks_taken + 1, state.settings.hand_size),
            tricks=state.settings.hand_size,
            leader=state.leader,
            lowest_wins=state.settings.lowest_wins,
            scores=list(state.scores),
            awaited=list(self.rules.awaited(state)),
            over=state.over,
            result=self.rules.result(state),
        )
        return shown.model_dump(mode="json")

    def redact(self, event: Event, seat: int | None, state: HighCardState) -> JSON | None:
        """``event`` as ``seat`` may see it: another seat's dealt hand shows only its size [H1]."""
        data = self.rules.encode_event(event)
        if isinstance(event, HandDealt) and event.seat != seat and not state.over:
            summary = self.describe(event, state.players)  # says how many cards, never which
            return {**data, "cards": None, "count": len(event.cards), "redacted": True, "summary": summary}
        return data

    def secrets(self, state: HighCardState) -> Sequence[Secret]:
        """Every card still in a hand belongs to its seat alone (a card's name is unique in the deck)."""
        return [Secret(owner=seat, key=None, value=card) for seat, hand in enumerate(state.hands) for card in hand]

    # --- words -----------------------------------------------------------------------------------------------
    def describe(self, event: Event, players: Sequence[str] = ()) -> str:
        """One event in plain words; a dealt hand by its size only (the words go to every reader)."""

        def who(seat: int) -> str:
            return players[seat] if seat < len(players) else f"seat {seat}"

        if isinstance(event, GameStarted):
            rule = "lowest" if event.settings.lowest_wins else "highest"
            table = f"{event.settings.hand_size} tricks, the {rule} card takes each"
            return f"A game of High Card for {', '.join(event.players)}: {table}."
        if isinstance(event, HandDealt):
            return f"{who(event.seat)} is dealt {len(event.cards)} cards."
        if isinstance(event, CardPlayed):
            return f"{who(event.seat)} plays {event.card}."
        if isinstance(event, TrickWon):
            return f"{who(event.seat)} takes trick {event.trick} with {event.card}."
        if isinstance(event, GameEnded):
            *others, last = [who(seat) for seat in event.winners]
            names = f"{', '.join(others)} and {last}" if others else last
            verb = "share the victory" if len(event.winners) > 1 else "wins"
            return f"The game ends {'-'.join(str(s) for s in event.scores)}: {names} {verb}."
        if isinstance(event, SeedCommitted | SeedRevealed):
            return fair.describe_fact(event.to_dict())
        return super().describe(event, players)

    def prompt(self, state: HighCardState, seat: int) -> str | None:
        """What the game asks the seat to move; None for everyone else."""
        if seat not in self.rules.awaited(state):
            return None
        on_table = ", ".join(f"{state.players[s]} {c}" for s, c in state.trick) or "nothing yet: you lead"
        return f"Play a card from your hand ({', '.join(state.hands[seat])}). On the trick: {on_table}."

    def label(self, command: Command, state: HighCardState | None = None) -> str:
        """A button's label: the card."""
        return f"Play {command.card}" if isinstance(command, PlayCard) else super().label(command, state)

    # --- pictures and standings ------------------------------------------------------------------------------
    def scoreboard(self, state: HighCardState) -> JSON:
        """Tricks won per seat: public all game long."""
        seats = [{"seat": i, "name": name, "score": state.scores[i]} for i, name in enumerate(state.players)]
        return {"seats": seats, "over": state.over, "winners": None if state.winners is None else list(state.winners)}

    def render_text(self, state: HighCardState, seat: int | None, final: HighCardState | None = None) -> str:
        """The table in a few lines, as ``seat`` may see it (the hand is the reader's own)."""
        shown = self.view(state, seat)
        lines = [f"High Card: trick {shown['trick_number']} of {shown['tricks']}"]
        lines += [f"  {name}: {score} trick(s)" for name, score in zip(state.players, state.scores, strict=True)]
        on_table = ", ".join(f"{state.players[played['seat']]} {played['card']}" for played in shown["trick"])
        lines.append(f"On the trick: {on_table or '-'}")
        if shown["hand"] is not None:
            lines.append("Your hand: " + (" ".join(shown["hand"]) or "-"))
        return "\n".join(lines)

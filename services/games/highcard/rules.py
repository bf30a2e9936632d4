"""High Card's rules: the pure decider (``GameRules``) and the state it folds.

Pure: no IO, no clock, no randomness but the seed's. ``decide`` checks a command against the state and returns
the facts it causes (or a typed refusal); ``evolve`` applies one fact and never re-runs a rule, so folding the
recorded events always rebuilds the same state. Every fact and refusal cites the rulings of RULES.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from events.base import Event, Rejection, parse_json
from services.games.highcard.messages import (
    COMMAND_ADAPTER,
    EVENT_ADAPTER,
    RANKS,
    CardPlayed,
    GameEnded,
    GameStarted,
    HandDealt,
    HighCardSettings,
    PlayCard,
    TrickWon,
)
from services.rules.contract import JSON, Capabilities, Command, GameRules, TableRulings

NAME = "highcard"
DEFAULT_SETTINGS = HighCardSettings()
"""The table when no option is chosen (an immutable model, shared)."""


@dataclass(frozen=True, slots=True)
class HighCardState:
    """Everything the rules need, and nothing derived twice (immutable: ``evolve`` returns a new one)."""

    players: tuple[str, ...] = ()
    settings: HighCardSettings = DEFAULT_SETTINGS
    hands: tuple[tuple[str, ...], ...] = ()
    """Each seat's cards, lowest first [H1]."""
    trick: tuple[tuple[int, str], ...] = ()
    """The trick on the table: (seat, card) in the order played [H3]."""
    leader: int = 0
    """The seat that leads the trick [H2]."""
    scores: tuple[int, ...] = ()
    """Tricks won per seat [H4]."""
    tricks_taken: int = 0
    winners: tuple[int, ...] | None = None
    """Set when the game ends [H5]."""

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.winners is not None

    def to_move(self) -> int | None:
        """The seat whose card the trick waits for (None before the start or after the end) [H2]."""
        if not self.players or self.over:
            return None
        return (self.leader + len(self.trick)) % len(self.players)


def rank(card: str) -> int:
    """A card's strength: its place in the deck, lowest first [H1]."""
    return RANKS.index(card)


def trick_winner(trick: Sequence[tuple[int, str]], lowest_wins: bool) -> tuple[int, str]:
    """The (seat, card) that takes a full trick: the highest card, or the lowest with ``lowest_wins`` [H4]."""
    best = min if lowest_wins else max
    return best(trick, key=lambda played: rank(played[1]))


class HighCardRules(GameRules[HighCardState]):
    """2-4 players, a shuffled hand each, one card per seat per trick, the best card takes it (RULES.md)."""

    name = NAME
    rules_version = "1"
    capabilities = Capabilities(min_players=2, max_players=4, hidden_information=True, chance=True)
    table_rulings = TableRulings(leave="HX3", fair="HX1", practice="HX2")
    """The table commits the seed [HX1] (a practice table's too [HX2]) and records a player who leaves [HX3]; High
    Card has no clocks."""

    # --- the decider -----------------------------------------------------------------------------------------
    def start(self, players: Sequence[str], settings: Mapping[str, Any], seed: int) -> list[Event]:
        """The table and one dealt hand per seat, from the deck shuffled with ``seed`` [H1, H6]."""
        table = HighCardSettings.model_validate(dict(settings))  # a ValidationError is a ValueError
        if not self.capabilities.min_players <= len(players) <= self.capabilities.max_players:
            raise ValueError(f"High Card takes 2 to 4 players, not {len(players)} [H6]")
        if table.hand_size * len(players) > len(RANKS):
            raise ValueError(f"{len(players)} hands of {table.hand_size} do not fit in {len(RANKS)} cards [H6]")
        deck = list(RANKS)
        random.Random(seed).shuffle(deck)  # the only draw of the game: the seed decides it, so replays agree
        size = table.hand_size
        hands = [sorted(deck[seat * size : (seat + 1) * size], key=rank) for seat in range(len(players))]
        opening: list[Event] = [GameStarted(players=tuple(players), settings=table, seed=seed, rulings=("H6", "H1"))]
        opening += [HandDealt(seat=seat, cards=tuple(hand), rulings=("H1",)) for seat, hand in enumerate(hands)]
        return opening

    def initial_state(self) -> HighCardState:
        """No table yet."""
        return HighCardState()

    def evolve(self, state: HighCardState, event: Event) -> HighCardState:
        """Apply one recorded fact."""
        if isinstance(event, GameStarted):
            count = len(event.players)
            return replace(
                state, players=event.players, settings=event.settings, hands=((),) * count, scores=(0,) * count
            )
        if isinstance(event, HandDealt):
            return replace(state, hands=_with(state.hands, event.seat, event.cards))
        if isinstance(event, CardPlayed):
            hand = tuple(card for card in state.hands[event.seat] if card != event.card)
            return replace(
                state, hands=_with(state.hands, event.seat, hand), trick=(*state.trick, (event.seat, event.card))
            )
        if isinstance(event, TrickWon):
            scores = _with(state.scores, event.seat, state.scores[event.seat] + 1)
            return replace(state, scores=scores, trick=(), leader=event.seat, tricks_taken=state.tricks_taken + 1)
        if isinstance(event, GameEnded):
            return replace(state, winners=event.winners)
        raise ValueError(f"High Card has no event {event!r}")

    def decide(self, state: HighCardState, command: Command) -> list[Event] | Rejection:
        """The card played and, when it completes the trick, who takes it and perhaps the end [H2-H5]."""
        if not state.players:
            return Rejection(code="no_game", message="There is no game yet.", rulings=("H6",))
        if state.over:
            return Rejection(code="game_over", message="The game is over.", rulings=("H5",))
        seat = state.to_move()
        if command.seat != seat:
            message = f"It is seat {seat}'s turn to play, not seat {command.seat}'s."
            return Rejection(code="not_your_turn", message=message, rulings=("H2",))
        if command.card not in state.hands[seat]:
            message = f"Seat {seat} holds no {command.card}: it holds {', '.join(state.hands[seat])}."
            return Rejection(code="not_in_hand", message=message, rulings=("H3",))
        events: list[Event] = [CardPlayed(seat=seat, card=command.card, rulings=("H2", "H3"))]
        trick = (*state.trick, (seat, command.card))
        if len(trick) < len(state.players):
            return events
        winner, card = trick_winner(trick, state.settings.lowest_wins)
        number = state.tricks_taken + 1
        events.append(TrickWon(seat=winner, card=card, trick=number, rulings=("H4", "H2")))
        if number == state.settings.hand_size:
            scores = _with(state.scores, winner, state.scores[winner] + 1)
            best = max(scores)
            winners = tuple(s for s, score in enumerate(scores) if score == best)
            events.append(GameEnded(scores=scores, winners=winners, rulings=("H5",)))
        return events

    def legal_commands(self, state: HighCardState, seat: int) -> list[Command]:
        """Any card of the hand of the seat to move [H3]; nothing for the others."""
        if seat != state.to_move():
            return []
        return [PlayCard(seat=seat, card=card) for card in state.hands[seat]]

    def awaited(self, state: HighCardState) -> tuple[int, ...]:
        """The seat to move, alone: High Card has no simultaneous decision [H2]."""
        seat = state.to_move()
        return () if seat is None else (seat,)

    def is_over(self, state: HighCardState) -> bool:
        """Whether the last trick is taken [H5]."""
        return state.over

    def result(self, state: HighCardState) -> JSON | None:
        """Players, tricks won, the winners and whether they share the victory [H5]; None while it runs."""
        if state.winners is None:
            return None
        return {
            "players": list(state.players),
            "scores": list(state.scores),
            "winners": list(state.winners),
            "shared": len(state.winners) > 1,
        }

    # --- codecs ----------------------------------------------------------------------------------------------
    def parse_command(self, raw: bytes | str | JSON) -> Command:
        """A command from JSON (a ValidationError, so a ValueError, on bad input)."""
        return parse_json(COMMAND_ADAPTER, raw)

    def parse_event(self, raw: bytes | str | JSON) -> Event:
        """A recorded event from JSON."""
        return parse_json(EVENT_ADAPTER, raw)

    def encode_event(self, event: Event) -> JSON:
        """An event as JSON-ready data."""
        return event.to_dict()

    def encode_command(self, command: Command) -> JSON:
        """A command as JSON-ready data."""
        return command.to_dict()

    def snapshot(self, state: HighCardState) -> bytes:
        """The state as JSON bytes."""
        return orjson.dumps(
            {
                "players": state.players,
                "settings": state.settings.model_dump(),
                "hands": state.hands,
                "trick": state.trick,
                "leader": state.leader,
                "scores": state.scores,
                "tricks_taken": state.tricks_taken,
                "winners": state.winners,
            }
        )

    def restore(self, data: bytes) -> HighCardState:
        """The state a snapshot was taken of."""
        raw = orjson.loads(data)
        return HighCardState(
            players=tuple(raw["players"]),
            settings=HighCardSettings.model_validate(raw["settings"]),
            hands=tuple(tuple(hand) for hand in raw["hands"]),
            trick=tuple((seat, card) for seat, card in raw["trick"]),
            leader=raw["leader"],
            scores=tuple(raw["scores"]),
            tricks_taken=raw["tricks_taken"],
            winners=None if raw["winners"] is None else tuple(raw["winners"]),
        )


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """``values`` with item ``index`` replaced."""
    return (*values[:index], value, *values[index + 1 :])

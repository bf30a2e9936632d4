"""The rules of In the Shadow of the Emperor behind the game contract: the decider and its codecs.

Pure: no IO, no clock, no environment; the only randomness is drawn from the seed recorded in GameStarted.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from events.base import Command, Event, Rejection, parse_json
from services.games.shadow.messages import events as ev
from services.games.shadow.messages.commands import COMMAND_ADAPTER
from services.games.shadow.messages.settings import ShadowSettings
from services.games.shadow.rules import actions, defaults, flow
from services.games.shadow.rules.board import default_layout_record
from services.games.shadow.rules.decide import decide, execute
from services.games.shadow.rules.determinize import determinize
from services.games.shadow.rules.effects import Tx
from services.games.shadow.rules.evolve import evolve, fold_into
from services.games.shadow.rules.facts import E, encode, is_core, to_model
from services.games.shadow.rules.snapshot import restore, snapshot
from services.games.shadow.rules.state import GameState
from services.rules.contract import JSON, Capabilities, GameRules, TableRulings

NAME = "shadow"
RULES_VERSION = "shadow-3"
"""shadow-3: Trier's privilege records ``CardEffectCopied`` (no card is taken) where shadow-2 recorded a
``CardTaken`` with ``via_trier``; taking Rival records ``ActionsEnded`` where shadow-2 recorded a ``Passed``
with ``reason: "rival"``; an empty elector seat that stays empty records ``ElectorSeatStaysEmpty`` where
shadow-2 recorded an ``ElectorRetained`` without owner or an ``ElectorChanged`` without previous and new owner.
``parse_event`` still reads the older forms (see :func:`upcast`).
shadow-2: PhaseStarted cites G3 (the five rounds of eight phases); shadow-1 recorded it without rulings."""


class ShadowRules(GameRules[GameState | None]):
    """In the Shadow of the Emperor, for 2 to 4 players. The state before GameStarted is None."""

    name = NAME
    rules_version = RULES_VERSION
    capabilities = Capabilities(
        min_players=2,
        max_players=4,
        hidden_information=True,
        chance=True,
        simultaneous=True,
        fast_execute=True,
        fast_sample=True,
        determinizes=True,
    )
    table_rulings = TableRulings(clock="X16", bot="X22", leave="X21", fair="X23", practice="X24")

    def start(self, players: Sequence[str], settings: Mapping[str, Any] | None, seed: int) -> list[Event]:
        """GameStarted (players, settings, seed, board), the two-player draw [G4, T1], the first request."""
        if not 2 <= len(players) <= 4:
            raise ValueError("In the Shadow of the Emperor is played by 2, 3 or 4 players.")
        table = ShadowSettings(**(settings or {}))
        if table.start_player >= len(players):
            raise ValueError("start_player must be one of the seats.")
        recorded = table.model_dump()
        if table.clock is None:
            del recorded["clock"]  # a table without clocks records the settings it always did
        started = ev.GameStarted(
            players=tuple(players),
            settings=recorded,
            seed=seed,
            emperor=table.start_player,
            layout=default_layout_record(),
            rules_version=RULES_VERSION,
            rulings=("S1", "S3", "B1", "B2"),
        )
        tx = Tx(evolve(None, started))
        if len(players) == 2:
            tx.emit(draw_closed_electorates(tx.state, seed))
        flow.begin_setup(tx)
        return [started, *map(to_model, tx.events)]

    def initial_state(self) -> None:
        """No game before GameStarted."""
        return None

    def evolve(self, state: GameState | None, event: Event) -> GameState:
        """Apply one recorded event."""
        return evolve(state, event)

    def fold(self, events: Sequence[Event], state: GameState | None = None) -> GameState:
        """The state after ``events`` (one copy, then every event applied in place)."""
        events = list(events)
        if not events:
            return state  # type: ignore[return-value]
        current = evolve(state, events[0])  # a new state: the given one stays untouched
        fold_into(current, events[1:])
        return current

    def decide(self, state: GameState | None, command: Command) -> list[Event] | Rejection:
        """The events a command causes, or a typed rejection."""
        return decide(state, command)

    # The calls of every command are the rules' own functions, not methods around them: a method is one more
    # Python frame per call, and the random games of the bench run them a few hundred times a game.
    execute = staticmethod(execute)
    """decide + evolve in one pass (the state is folded while deciding)."""

    def legal_commands(self, state: GameState | None, seat: int) -> list[Command]:
        """Every command ``seat`` may send now."""
        if state is None:
            return []
        return [actions.command_of(seat, k) for k in actions.legal_keys(state, seat)]

    sample_legal = staticmethod(actions.sample_command)
    """A uniformly random legal command of ``seat`` (counts the legal keys, builds only the one drawn)."""

    def determinize(self, state: GameState | None, seat: int, rng: random.Random) -> GameState | None:
        """``state`` with what ``seat`` cannot see (others' sealed votes, hidden victory points) re-drawn."""
        return determinize(state, seat, rng)

    awaited = staticmethod(actions.awaited)
    """Seats the game waits for."""

    def default_command(self, state: GameState | None, seat: int) -> tuple[Command, str] | None:
        """The referee's default move of ``seat`` when its time runs out, with its ruling [X17-X20]."""
        return None if state is None else defaults.default_command(state, seat)

    def decision_of(self, state: GameState | None, seat: int) -> str:
        """The decision awaited now (``Prompt.decision``)."""
        return "none" if state is None or state.pending is None else state.pending.decision

    def count_table_event(self, state: GameState | None) -> GameState | None:
        """The version counts every event of the log, the table's too (a new state; ``state`` untouched)."""
        if state is None:
            return None
        after = state.copy()
        after.version += 1
        return after

    @staticmethod
    def is_over(state: GameState | None) -> bool:
        """Whether the game has ended."""
        return state is not None and state.winners is not None

    def result(self, state: GameState | None) -> JSON | None:
        """Scores, thalers and winners once the game is over."""
        if state is None or not state.over:
            return None
        return {
            "scores": list(state.vp),
            "thalers": list(state.thalers),
            "winners": list(state.winners or ()),
            "players": list(state.players),
            "shared": len(state.winners or ()) > 1,
        }

    # --- codecs ---------------------------------------------------------------------------------------------
    def parse_command(self, raw: bytes | str | JSON) -> Command:
        """Validate a command from JSON (pydantic's ValidationError, a ValueError, on bad input)."""
        return parse_json(COMMAND_ADAPTER, raw)

    def parse_event(self, raw: bytes | str | JSON) -> Event:
        """Validate a recorded event from JSON (events recorded by older rules versions are read as today's)."""
        return parse_json(ev.EVENT_ADAPTER, upcast(raw))

    def encode_event(self, event: Event) -> JSON:
        """An event as JSON-ready data."""
        return to_model(event).to_dict() if is_core(event) else event.to_dict()

    def encode_command(self, command: Command) -> JSON:
        """A command as JSON-ready data."""
        return command.to_dict()

    def encode_event_bytes(self, event: Event) -> bytes:
        """An event as compact JSON bytes (a core tuple without a model on the way)."""
        return encode(event) if is_core(event) else event.to_json()

    def snapshot(self, state: GameState) -> bytes:
        """Serialize a state."""
        return snapshot(state)

    def restore(self, data: bytes) -> GameState:
        """Deserialize a state."""
        return restore(data)


_MARKERS = (
    ('"CardTaken"', '"via_trier"'),
    ('"Passed"', '"reason"'),
    ('"ElectorRetained"', "null"),
    ('"ElectorChanged"', "null"),
)
_MARKERS_BYTES = tuple((kind.encode(), field.encode()) for kind, field in _MARKERS)
"""A recorded event that may need :func:`upcast` holds one of these pairs (a cheap test before parsing twice)."""


def upcast(raw: bytes | str | JSON) -> bytes | str | JSON:
    """A recorded event in today's vocabulary: shadow-1/2 logs name some facts by a field of another event
    [P1, P6, V2, V4].

    - A Trier copy was a ``CardTaken`` with ``via_trier: true``: now ``CardEffectCopied`` (the flag is gone).
    - Taking Rival ended phase IV with a ``Passed`` with ``reason: "rival"``: now ``ActionsEnded`` (a pass had
      ``reason: "pass"``, gone).
    - An empty seat staying empty was an ``ElectorRetained`` with ``owner: null`` (nobody had power) or an
      ``ElectorChanged`` with no previous and no new owner (the winner had no aristocrat that may sit): now
      ``ElectorSeatStaysEmpty``.
    """
    if isinstance(raw, bytes | str):
        markers = _MARKERS if isinstance(raw, str) else _MARKERS_BYTES
        if not any(kind in raw and field in raw for kind, field in markers):  # type: ignore[operator]
            return raw  # the common case: nothing to rewrite, no second parse
        raw = orjson.loads(raw)
    if not isinstance(raw, dict):
        return raw
    kind = raw.get("type")
    if kind == "CardTaken" and "via_trier" in raw:
        event = {k: v for k, v in raw.items() if k != "via_trier"}
        if raw["via_trier"]:
            event.pop("without_effect", None)
            event["type"] = "CardEffectCopied"
        return event
    if kind == "Passed" and "reason" in raw:
        event = {k: v for k, v in raw.items() if k != "reason"}
        if raw["reason"] == "rival":
            event["type"] = "ActionsEnded"
        return event
    if kind == "ElectorRetained" and raw.get("owner") is None:
        event = {k: v for k, v in raw.items() if k != "owner"}
        return {**event, "type": "ElectorSeatStaysEmpty", "winner": None}
    if kind == "ElectorChanged" and raw.get("previous_owner") is None and raw.get("new_owner") is None:
        event = {k: v for k, v in raw.items() if k not in ("previous_owner", "new_owner")}
        return {**event, "type": "ElectorSeatStaysEmpty"}
    return raw


def draw_closed_electorates(state: GameState, seed: int) -> Any:
    """Two players: one archdiocese and one secular electorate closed at random from the seed [T1, G4]."""
    rng = random.Random(f"closed-electorates:{seed}")
    spiritual = tuple(e.key for e in state.layout.electorates if e.spiritual)
    secular = tuple(e.key for e in state.layout.electorates if not e.spiritual)
    return E.ElectoratesClosed(
        electorates=(rng.choice(spiritual), rng.choice(secular)), drawn_from=(spiritual, secular), rulings=("T1", "G4")
    )

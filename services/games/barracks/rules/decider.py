"""BarracksRules: The Barracks Emperors behind the game contract (services/rules/contract.py)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from events.base import Rejection
from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.rules import defaults, listing
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS, default_record
from services.games.barracks.rules.decide import awaited, execute
from services.games.barracks.rules.determinize import determinize
from services.games.barracks.rules.evolve import apply, evolve
from services.games.barracks.rules.flow import Tx
from services.games.barracks.rules.rounds import open_game
from services.games.barracks.rules.snapshot import restore, snapshot
from services.games.barracks.rules.state import OVER, PHASE_NAMES, Game
from services.rules.contract import JSON, Capabilities, GameRules, TableRulings

RULES_VERSION = "barracks-1"


def seating(players: int, settings: BarracksSettings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The factions of each seat and the rival claimants' factions [K10, K40-K42]."""
    if settings.players is not None and settings.players != players:
        raise ValueError(f"settings.players is {settings.players} but {players} players are seated [K42]")
    if not 1 <= players <= 4:
        raise ValueError("The Barracks Emperors is played by 1 to 4 players [K41]")
    if players == 2:
        if settings.rival_claimants:
            raise ValueError("two players hold all four factions: no rival claimant [K40]")
        if settings.two_player_sides == "opposite":
            return (("north", "south"), ("east", "west")), ()
        return (("north", "east"), ("south", "west")), ()
    default = {1: ("east", "south", "west"), 3: ("west",), 4: ()}[players]
    rivals = settings.rival_claimants if settings.rival_claimants is not None else default
    if len(rivals) != 4 - players:
        raise ValueError(f"{players} players leave {4 - players} faction(s) to rival claimants [K41, K42]")
    seats = tuple((f,) for f in FACTIONS if f not in rivals)
    return seats, tuple(f for f in FACTIONS if f in rivals)


class BarracksRules(GameRules[Game]):
    """The pure rules of The Barracks Emperors for 1 to 4 players (solo and three players with rival claimants)."""

    name = "barracks"
    rules_version = RULES_VERSION
    capabilities = Capabilities(
        min_players=1,
        max_players=4,
        hidden_information=True,
        chance=True,
        simultaneous=False,
        fast_execute=True,
        fast_sample=True,
        determinizes=True,
    )
    table_rulings = TableRulings(clock="KX17", bot="KX22", leave="KX21", fair="KX23", practice="KX24")

    # --- the decider -----------------------------------------------------------------------------------------
    def start(self, players: Sequence[str], settings: Mapping[str, Any], seed: int) -> list[Any]:
        """GameStarted, the Emperor deck's shuffle, round 1's setup and the turns up to the first decision."""
        table = BarracksSettings.model_validate(dict(settings or {}))
        seats, rivals = seating(len(players), table)
        recorded = table.model_dump(mode="json")
        if table.clock is None:
            del recorded["clock"]  # a table without clocks records the settings it always did
        size = table.hand_size * len(players) + table.forum_size
        if size > 42 + 10:
            raise ValueError("hand_size and forum_size deal more cards than the deck holds [K11]")
        started = F.GameStarted(
            players=tuple(players),
            settings=recorded,
            seed=seed,
            seats=seats,
            rivals=rivals,
            data=default_record(),
            rules_version=RULES_VERSION,
            rulings=("K10", "K11", "K13", "K40", "K41", "K42", "KX13", "KX14"),
        )
        g = evolve(None, started)
        tx = Tx(g)
        tx.events.append(started)
        open_game(tx)
        return tx.events

    def initial_state(self) -> None:
        """No game before GameStarted."""
        return None

    def evolve(self, state: Game | None, event: Any) -> Game:
        """The state after one recorded event."""
        return evolve(state, event)

    def decide(self, state: Game | None, command: Any) -> list[Any] | Rejection:
        """The events of a command, or its typed rejection (the state is unchanged either way)."""
        result = execute(state, command)
        return result if isinstance(result, Rejection) else result[0]

    # The calls of every command are the rules' own functions, not methods around them: a method is one more
    # Python frame per call, and the random games of the bench run them a few hundred times a game.
    execute = staticmethod(execute)
    """decide and evolve in one pass (the working copy is the state after the events)."""

    def legal_commands(self, state: Game | None, seat: int) -> list[Any]:
        """Every command ``seat`` may send now."""
        return listing.legal_commands(state, seat)

    def determinize(self, state: Game | None, seat: int, rng: random.Random) -> Game | None:
        """``state`` with what ``seat`` cannot see (others' unknown cards, deck orders, the seed) re-drawn."""
        return determinize(state, seat, rng)

    sample_legal = staticmethod(listing.sample_legal)
    """A uniformly random legal command of ``seat``."""
    awaited = staticmethod(awaited)
    """The seat the game waits for."""

    def default_command(self, state: Game | None, seat: int) -> tuple[Any, str] | None:
        """The referee's default move of ``seat`` when its time runs out, with its ruling [KX18-KX20]."""
        return None if state is None else defaults.default_command(state, seat)

    def decision_of(self, state: Game | None, seat: int) -> str:
        """The decision awaited now (the phase's name: action, order, keep, pick, rival_place)."""
        return "none" if state is None else PHASE_NAMES[state.phase]

    def count_table_event(self, state: Game | None) -> Game | None:
        """The version counts every event of the log, the table's too (it seeds the shuffle of a tribute): a
        new state, ``state`` untouched."""
        if state is None:
            return None
        after = state.copy()
        after.version += 1
        return after

    @staticmethod
    def is_over(state: Game | None) -> bool:
        """Whether the game has ended."""
        return state is not None and state.phase == OVER

    def result(self, state: Game | None) -> JSON | None:
        """Once over: players, scores, winners, shared, and the scoring details [K39, K41]."""
        if state is None or state.final is None:
            return None
        final = state.final
        result = {"players": list(state.players), **final}
        if state.solo:
            result["outcome"] = "won" if final["winners"] else "lost"
        return result

    # --- codecs ------------------------------------------------------------------------------------------------
    def parse_command(self, raw: bytes | str | JSON) -> Any:
        """A command from JSON (raises ValueError on bad input)."""
        return F.parse_command(raw)

    def parse_event(self, raw: bytes | str | JSON) -> Any:
        """A recorded event from JSON."""
        return F.parse_event(raw)

    def encode_event(self, event: Any) -> JSON:
        """An event as JSON-ready data."""
        return F.json_ready(F.to_dict(F.as_core(event)))

    def encode_command(self, command: Any) -> JSON:
        """A command as JSON-ready data."""
        return F.json_ready(F.to_dict(F.as_core(command)))

    def encode_event_bytes(self, event: Any) -> bytes:
        """An event as compact JSON bytes."""
        return orjson.dumps(F.to_dict(F.as_core(event)))  # orjson writes tuples as arrays: no conversion

    def snapshot(self, state: Game) -> bytes:
        """A state as bytes."""
        return snapshot(state)

    def restore(self, data: bytes) -> Game:
        """The state a snapshot was taken of."""
        return restore(data)

    def fold(self, events: Sequence[Any], state: Game | None = None) -> Game:
        """The state after ``events`` (one copy, then every event applied in place)."""
        current = state
        events = list(events)
        if not events:
            return current  # type: ignore[return-value]
        i = 0
        if current is None:
            current = evolve(None, events[0])
            i = 1
        else:
            current = current.copy()
        for event in events[i:]:
            apply(current, F.as_core(event))
        return current

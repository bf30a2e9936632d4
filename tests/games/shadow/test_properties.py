"""Properties of whole games: random legal games for 2, 3 and 4 players, played to the end, checked after
every event and every command.

Hypothesis draws the seed, the table settings and, at every step, an index into the list of legal commands
(and, while several seats are awaited, which of them acts). Runtime is bounded by the profile picked with the
environment variable ``HYPOTHESIS_PROFILE``: ``ci`` (default, a few games per player count), ``dev`` or
``long`` (many more).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import orjson
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as for_all
from pydantic import ValidationError

from events.base import Command, Event, Rejection
from services.games.shadow.messages import events as ev
from services.games.shadow.messages.commands import COMMAND_TYPES
from services.games.shadow.rules.board import AGES, ARISTOCRAT, ASIDE, CASTLE, CITY, ELECTOR, ELECTORATE_KEYS, THRONE
from services.games.shadow.rules.state import EMPIRE, City, GameState, Knight, Tile
from tests.games.shadow.support import NAMES, PRESENTER, RULES

# --- profiles ---------------------------------------------------------------------------------------------
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile("ci", max_examples=15, deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("long", max_examples=300, deadline=None, suppress_health_check=_QUIET)
try:
    PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except Exception:  # an unknown name (another suite's profile): keep the bounded default
    PROFILE = settings.get_profile("ci")

PLAYERS = [2, 3, 4]
SAMPLE = 20  # legal commands tried per step (all of them when there are fewer)
REFOLD_EVERY = 25  # steps between two complete refolds of the log (and always at the end)

MAX_THALERS = 12
TILES, KNIGHTS, CITIES, EMPIRE_CITIES = 7, 3, 3, 3
TILE_KINDS = {THRONE, ASIDE, ELECTOR, "eminence", ARISTOCRAT}
KNIGHT_KINDS = {ARISTOCRAT, CASTLE}
HOLDING_ASIDE = {"choose_elector", "place_displaced", "choose_throne", "place_dethroned"}


# --- playing a game -----------------------------------------------------------------------------------------
@dataclass
class Step:
    """One command of a game: the state before it, the seat that sent it, its legal alternatives."""

    before: GameState
    seat: int
    legal: list[Command]
    command: Command
    events: list[Event]
    after: GameState
    number: int


@dataclass
class Game:
    players: int
    table: dict[str, Any]
    seed: int
    log: list[Event] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    state: GameState | None = None


EventCheck = Callable[[GameState | None, Event, GameState], None]
StepCheck = Callable[[Game, Step, random.Random], None]


def tables(players: int) -> st.SearchStrategy[dict[str, Any]]:
    """Every table setting, drawn."""
    return st.fixed_dictionaries(
        {
            "hidden_victory_points": st.booleans(),
            "thaler_tiebreak": st.booleans(),
            "mainz_bonus": st.sampled_from(["seat_holder_after_phase_v", "elector_at_phase_v_start"]),
            "backer_vp_requires_votes": st.booleans(),
            "start_player": st.integers(0, players - 1),
        }
    )


def fold_one_by_one(state: GameState | None, events: list[Event], checks: list[EventCheck]) -> GameState:
    """Fold ``events`` one at a time, running every event check after each."""
    for event in events:
        after = RULES.evolve(state, event)
        for check in checks:
            check(state, event, after)
        state = after
    assert state is not None
    return state


def play(
    data: st.DataObject,
    players: int,
    event_checks: list[EventCheck] | None = None,
    step_checks: list[StepCheck] | None = None,
    table: dict[str, Any] | None = None,
    rival_bias: bool = False,
) -> Game:
    """A random legal game to the end, every choice drawn by hypothesis. ``table`` overrides drawn settings;
    ``rival_bias`` makes a drawn quarter of the turns take the Rival when it is legal (more elections)."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    drawn = {**data.draw(tables(players), label="table"), **(table or {})}
    game = Game(players, drawn, seed)
    rng = random.Random(seed)  # picks which commands the step checks try: the game itself is hypothesis's
    event_checks = event_checks or []
    game.log = RULES.start(NAMES[:players], drawn, seed)
    state = fold_one_by_one(None, game.log, event_checks)
    number = 0
    while not RULES.is_over(state):
        awaited = RULES.awaited(state)
        assert awaited, f"the game waits for nobody at round {state.round}, phase {state.phase}"
        seat = awaited[data.draw(st.integers(0, len(awaited) - 1))] if len(awaited) > 1 else awaited[0]
        legal = RULES.legal_commands(state, seat)
        assert legal, f"seat {seat} is awaited for {state.pending} but has no legal command"
        rivals = [c for c in legal if c.type == "BuyRival"] if rival_bias else []  # type: ignore[attr-defined]
        if rivals and data.draw(st.integers(0, 3)) == 0:
            command = rivals[0]
        else:
            command = legal[data.draw(st.integers(0, len(legal) - 1))]
        events = RULES.decide(state, command)
        assert not isinstance(events, Rejection), f"legal {command} was rejected: {events}"
        assert events, f"{command} caused no event"
        after = fold_one_by_one(state, events, event_checks)
        step = Step(state, seat, legal, command, events, after, number)
        game.log.extend(events)
        game.steps.append(step)
        for check in step_checks or []:
            check(game, step, rng)
        state = after
        number += 1
        assert number < 5000, "the game does not end"
    game.state = state
    return game


# --- checks after every event -----------------------------------------------------------------------------
def pieces(s: GameState) -> Iterator[tuple[str, Any]]:
    """(space kind, piece) of every occupied space (throne, elector, eminence and aside count as board)."""
    spaces = s.layout.spaces
    for i, piece in enumerate(s.board):
        if piece is not None:
            yield spaces[i].kind, piece


def check_thalers(before: GameState | None, event: Event, s: GameState) -> None:
    """[G2] Thalers stay within 0..12 for every player."""
    for seat, thalers in enumerate(s.thalers):
        assert 0 <= thalers <= MAX_THALERS, f"seat {seat} has {thalers} thalers after {event}"


def check_piece_counts(before: GameState | None, event: Event, s: GameState) -> None:
    """[B3] Per colour 7 tiles, 3 knights, 3 cities and 3 empire cities, each on the board or in supply."""
    assert (
        s.layout.constants["tiles_per_colour"],
        s.layout.constants["knights_per_colour"],
        s.layout.constants["cities_per_colour"],
        s.layout.constants["empire_cities"],
    ) == (TILES, KNIGHTS, CITIES, EMPIRE_CITIES)
    tiles, knights, cities = [0] * s.n, [0] * s.n, [0] * s.n
    empire = 0
    for _, piece in pieces(s):
        if isinstance(piece, Tile):
            tiles[piece.owner] += 1
        elif isinstance(piece, Knight):
            knights[piece.owner] += 1
        elif piece.owner == EMPIRE:
            empire += 1
        else:
            cities[piece.owner] += 1
    for seat in range(s.n):
        assert s.tiles_in_supply[seat] >= 0 and s.knights_in_supply[seat] >= 0 and s.cities_in_supply[seat] >= 0
        assert tiles[seat] + s.tiles_in_supply[seat] == TILES, f"seat {seat} tiles after {event}"
        assert knights[seat] + s.knights_in_supply[seat] == KNIGHTS, f"seat {seat} knights after {event}"
        assert cities[seat] + s.cities_in_supply[seat] == CITIES, f"seat {seat} cities after {event}"
    assert s.empire_cities_in_supply >= 0 and empire + s.empire_cities_in_supply == EMPIRE_CITIES


def check_spaces(before: GameState | None, event: Event, s: GameState) -> None:
    """[B1, P1, P5, T1, A1] Cities only on city spaces, knights only on aristocrat or castle spaces,
    tiles never on city or castle spaces; tiles aged 15, 25, 35 or 45; closed electorates hold nothing."""
    spaces = s.layout.spaces
    for i, piece in enumerate(s.board):
        if piece is None:
            continue
        space = spaces[i]
        if isinstance(piece, City):
            assert space.kind == CITY, f"a city on {space.id} after {event}"
        elif isinstance(piece, Knight):
            assert space.kind in KNIGHT_KINDS, f"a knight on {space.id} after {event}"
        else:
            assert isinstance(piece, Tile)
            assert space.kind in TILE_KINDS, f"a tile on {space.id} after {event}"
            assert piece.age in AGES, f"a tile aged {piece.age} on {space.id} after {event}"
        assert space.electorate not in s.closed, f"a piece in closed {space.id} after {event}"
        assert 0 <= piece.owner < s.n or piece.owner == EMPIRE


def check_archdiocese_electors(before: GameState | None, event: Event, s: GameState) -> None:
    """[B1, S3, V4] The elector of an archdiocese is a Baron."""
    for info in s.layout.electorates:
        elector = s.board[info.elector]
        if info.spiritual and elector is not None:
            assert isinstance(elector, Tile) and not elector.couple, f"{info.key} elector {elector} after {event}"
        if elector is not None:
            assert isinstance(elector, Tile)


def check_scores(before: GameState | None, event: Event, s: GameState) -> None:
    """[B6, G2] VP never decrease; recorded balances add up."""
    if before is None:
        return
    for seat in range(s.n):
        assert s.vp[seat] >= before.vp[seat], f"seat {seat} lost VP by {event}"
    if isinstance(event, ev.VictoryPointsScored):
        assert event.points > 0 and event.total == before.vp[event.seat] + event.points
    if isinstance(event, ev.ThalersChanged):
        assert event.balance == before.thalers[event.seat] + event.delta
        assert event.lost_to_cap >= 0 and (event.lost_to_cap == 0 or event.balance == MAX_THALERS)


def check_recorded_decisions(before: GameState | None, event: Event, s: GameState) -> None:
    """[I1, V2, E2, P1, X12] Events that record a decision agree with the inputs they carry: income adds up and
    stops at 12, the seat goes to most power (at least 1), the Rival needs strictly more votes, the Emperor
    never takes the Rival and only one Rival is taken per round."""
    if before is None:
        return
    if isinstance(event, ev.IncomeCollected):
        total = before.thalers[event.seat] + event.basic + event.own_cities + event.controlled_cities + event.saxony
        assert event.basic == 6 and event.saxony in (0, 2)
        assert (event.balance, event.lost_to_cap) == (min(total, MAX_THALERS), max(0, total - MAX_THALERS))
    elif isinstance(event, ev.ElectorChanged):
        assert event.power[event.winner] == max(event.power) > 0, f"{event}"
        assert event.new_owner in (event.winner, None)
        tied = [seat for seat, p in enumerate(event.power) if p == max(event.power)]
        assert (len(tied) > 1) == (event.tie_broken_by is not None), f"{event}"
    elif isinstance(event, ev.ElectorRetained):
        assert event.power[event.owner] == max(event.power) > 0, f"{event}"
        assert before.board[before.layout.electorates[ELECTORATE_KEYS.index(event.electorate)].elector] is not None
    elif isinstance(event, ev.ElectorSeatStaysEmpty):
        assert before.board[before.layout.electorates[ELECTORATE_KEYS.index(event.electorate)].elector] is None
        if event.winner is None:
            assert max(event.power) == 0, f"{event}"
        else:
            assert event.power[event.winner] == max(event.power) > 0, f"{event}"
    elif isinstance(event, ev.VotesRevealed):
        for side, total in (("emperor", event.emperor_votes), ("rival", event.rival_votes)):
            assert total == sum(b.votes for b in event.ballots if b.candidate == side)
        assert event.winner == (event.rival if event.rival_votes > event.emperor_votes else event.emperor)
    elif isinstance(event, ev.CardTaken) and event.card == "rival":
        assert event.seat != before.emperor, "the Emperor took the Rival"
        assert before.rival is None, "a second Rival in one round"


EVENT_INVARIANTS: list[EventCheck] = [
    check_thalers,
    check_piece_counts,
    check_spaces,
    check_archdiocese_electors,
    check_scores,
    check_recorded_decisions,
]


def check_aside(game: Game, step: Step, rng: random.Random) -> None:
    """[V4, E4] Between commands, a tile is set aside only while its placement (or the choice that displaced
    it) is pending."""
    s = step.after
    if s.board[s.layout.aside] is not None:
        assert s.pending is not None and s.pending.decision in HOLDING_ASIDE, (
            f"a tile is left aside after {step.command} while the game waits for {s.pending}"
        )


def check_game_end(game: Game) -> None:
    """[G3] The game ends after phase VII of round 5 with a winner or a shared victory."""
    s = game.state
    assert s is not None and s.over
    last = game.log[-1]
    assert isinstance(last, ev.GameEnded)
    assert sum(isinstance(e, ev.GameEnded) for e in game.log) == 1
    assert (s.round, s.phase) == (5, 7)
    assert last.winners and last.shared == (len(last.winners) > 1)
    best = max(s.vp)
    tied = [seat for seat in range(s.n) if s.vp[seat] == best]
    if game.table["thaler_tiebreak"]:
        most = max(s.thalers[seat] for seat in tied)
        tied = [seat for seat in tied if s.thalers[seat] == most]
    assert list(last.winners) == tied
    assert tuple(last.scores) == s.vp and tuple(last.thalers) == s.thalers
    result = RULES.result(s)
    assert result is not None and result["winners"] == tied and result["shared"] == last.shared
    assert RULES.awaited(s) == ()
    phases = [(e.round, e.phase) for e in game.log if isinstance(e, ev.PhaseStarted)]
    expected = [(1, p) for p in range(4, 9)] + [(r, p) for r in range(2, 5) for p in range(1, 9)]
    assert phases == [*expected, *((5, p) for p in range(1, 8))], "rounds and phases out of order [S2, G3]"


# --- commands: legal ones accepted, constructed illegal ones rejected -------------------------------------
SPACE_FIELDS = ("space", "target", "source", "knight", "baron", "from_space", "push")
SPACE_KINDS = {"PlacePiece": ("elector", "aristocrat", "castle", "eminence")}
KNIGHT_SPACE_KINDS = ("aristocrat", "castle")
CARDS = ("doctor", "move", "indulgence", "permit", "ordinance", "promotion", "foreign_kings_daughter")


def rebuilt(command: Command, **update: Any) -> Command | None:
    """The command with some fields changed, validated like one from the wire (None if not a valid model)."""
    try:
        return type(command).model_validate({**command.model_dump(), **update})
    except ValidationError:
        return None


def mutations(s: GameState, command: Command, rng: random.Random) -> Iterator[Command | None]:
    """Legal-looking neighbours of a legal command: another electorate, space, kind, push, trier flag, ..."""
    space_ids = [space.id for space in s.layout.spaces]
    for name, value in command.model_dump().items():
        if name in ("type", "seat"):
            continue
        if name == "electorate":
            yield rebuilt(command, electorate=rng.choice([k for k in ELECTORATE_KEYS if k != value]))
        elif name in SPACE_FIELDS:
            yield rebuilt(command, **{name: rng.choice([i for i in space_ids if i != value])})
            yield rebuilt(command, **{name: "atlantis.aristocrat.0"})
            if name == "push":
                yield rebuilt(command, push=None)
        elif name == "space_kind":
            kinds = SPACE_KINDS.get(command.type, KNIGHT_SPACE_KINDS)  # type: ignore[attr-defined]
            yield rebuilt(command, space_kind=rng.choice([k for k in kinds if k != value]))
        elif isinstance(value, bool):  # trier, couple, accept
            yield rebuilt(command, **{name: not value})
        elif name == "winner":
            yield rebuilt(command, winner=rng.randrange(-1, s.n + 1))
        elif name == "candidate":
            yield rebuilt(command, candidate="rival" if value == "emperor" else "emperor")
        elif name == "card":
            yield rebuilt(command, card=rng.choice([c for c in CARDS if c != value]))


def illegal_candidates(game: Game, step: Step, rng: random.Random, seen: dict[str, list[Command]]) -> Iterator[Command]:
    """Commands built to be wrong now (each is kept only if it is really absent from the sender's list)."""
    s, seat, legal = step.before, step.seat, step.legal
    for other in range(-1, s.n + 1):  # other seats, and seats that do not exist
        if other != seat:
            yield rng.choice(legal).model_copy(update={"seat": other})
    decision = s.pending.decision  # type: ignore[union-attr]
    for other_decision, commands in seen.items():  # commands that were legal for another decision
        if other_decision != decision:
            yield rng.choice(commands).model_copy(update={"seat": seat})
    for command in rng.sample(legal, min(5, len(legal))):
        for mutated in mutations(s, command, rng):
            if mutated is not None:
                yield mutated
    for kind in rng.sample(sorted(COMMAND_TYPES), 3):  # bare commands of random types
        bare = _bare(kind, seat)
        if bare is not None:
            yield bare


def _bare(kind: str, seat: int) -> Command | None:
    defaults = {
        "electorate": "mainz",
        "space": "throne",
        "target": "throne",
        "source": "mainz.aristocrat.0",
        "knight": "mainz.aristocrat.0",
        "baron": "throne",
        "from_space": "mainz.aristocrat.0",
        "winner": seat,
        "accept": True,
        "candidate": "rival",
        "card": "doctor",
        "space_kind": "aristocrat",
    }
    cls = COMMAND_TYPES[kind]
    fields = {k: v for k, v in defaults.items() if k in cls.model_fields}
    try:
        return cls(seat=seat, **fields)
    except ValidationError:
        return None


def legal_of(s: GameState, seat: int, cache: dict[int, set[bytes]]) -> set[bytes]:
    if seat not in cache:
        cache[seat] = {c.to_json() for c in RULES.legal_commands(s, seat)}
    return cache[seat]


class CommandChecker:
    """After each command: a sample of the legal list is accepted, constructed illegal commands are refused."""

    def __init__(self) -> None:
        self.seen: dict[str, list[Command]] = {}
        self.rejected: dict[str, int] = {}

    def __call__(self, game: Game, step: Step, rng: random.Random) -> None:
        s = step.before
        before = RULES.snapshot(s)
        assert len({c.to_json() for c in step.legal}) == len(step.legal), "the legal list repeats a command"
        tried = step.legal if len(step.legal) <= SAMPLE else rng.sample(step.legal, SAMPLE)
        for command in tried:
            result = RULES.decide(s, command)
            assert not isinstance(result, Rejection), f"listed {command} was rejected: {result}"
            assert result, f"listed {command} caused no event"
        cache: dict[int, set[bytes]] = {step.seat: {c.to_json() for c in step.legal}}
        for command in illegal_candidates(game, step, rng, self.seen):
            if command.to_json() in legal_of(s, command.seat, cache):
                continue
            result = RULES.decide(s, command)
            assert isinstance(result, Rejection), f"{command} is not in the legal list but was accepted: {result}"
            assert result.code and result.message, f"rejection without code or message: {result}"
            self.rejected[result.code] = self.rejected.get(result.code, 0) + 1
        assert RULES.snapshot(s) == before, "deciding changed the state"
        self.seen.setdefault(s.pending.decision, []).append(step.command)  # type: ignore[union-attr]


# --- replay: the log is the truth ---------------------------------------------------------------------------
def check_replay(game: Game, step: Step, rng: random.Random) -> None:
    """[G4] Folding the recorded events from scratch gives the live state; snapshots round-trip."""
    live = step.after
    executed = RULES.execute(step.before, step.command)
    assert not isinstance(executed, Rejection)
    events, state = executed
    assert events == step.events, "execute and decide disagree on the events"
    assert RULES.snapshot(state) == RULES.snapshot(live), "execute's state differs from the folded one"
    data = RULES.snapshot(live)
    restored = RULES.restore(data)
    assert restored == live and RULES.snapshot(restored) == data
    assert live.version == len(game.log), "the version is not the number of events folded"
    if step.number % REFOLD_EVERY == 0 or RULES.is_over(live):
        assert RULES.snapshot(RULES.fold(game.log)) == data, f"refold differs at step {step.number}"


# --- secrecy: sealed votes are nobody else's business ------------------------------------------------------
class SecrecyChecker:
    """[E2, B6] No seat (and no spectator) sees another seat's sealed vote before VotesRevealed; hidden VP
    stay hidden until the end."""

    def __init__(self, hidden_vp: bool) -> None:
        self.hidden_vp = hidden_vp
        self.revealed = False
        self.checked = 0

    def __call__(self, before: GameState | None, event: Event, s: GameState) -> None:
        if isinstance(event, ev.ElectionCalled):
            self.revealed = False
        elif isinstance(event, ev.VotesRevealed):
            self.revealed = True
        votes_at_stake = not self.revealed and any(v is not None for v in s.votes)
        scores_at_stake = self.hidden_vp and isinstance(event, ev.VictoryPointsScored)
        if s.over or not (votes_at_stake or scores_at_stake):
            return
        self.checked += 1
        for viewer in (*range(s.n), None):
            seen = PRESENTER.view(s, viewer)
            orjson.dumps(seen)  # JSON-ready
            for other in range(s.n):
                if other == viewer:
                    assert seen["votes"][other] == s.votes[other]
                    assert seen["victory_points"][other] == s.vp[other]
                    continue
                if votes_at_stake:
                    assert seen["votes"][other] in (None, "sealed"), f"{viewer} sees seat {other}'s vote: {event}"
                if self.hidden_vp:
                    assert seen["victory_points"][other] is None, f"{viewer} sees seat {other}'s VP"
                else:
                    assert seen["victory_points"][other] == s.vp[other]


# =============================================================================================================
# The tests
# =============================================================================================================
@pytest.mark.parametrize("players", PLAYERS)
@settings(PROFILE)
@for_all(data=st.data())
def test_given_random_legal_games_when_every_event_is_folded_then_the_table_stays_consistent(
    players: int, data: st.DataObject
) -> None:
    """[G2, B3, B1, P1, P5, T1, B6, G3, S2] After every event: thalers within 0..12, every piece on the board or
    in supply, pieces only on spaces of their kind, archdiocese electors are Barons, VP never decrease, recorded
    decisions agree with their inputs [I1, V2, E2, X12]; nothing is left aside between commands; the phases run
    in order from phase IV of round 1 and the game ends after round 5 with a winner or a shared victory."""
    game = play(data, players, EVENT_INVARIANTS, [check_aside])
    check_game_end(game)


@pytest.mark.parametrize("players", PLAYERS)
@settings(PROFILE)
@for_all(data=st.data())
def test_given_random_legal_games_when_commands_are_tried_then_exactly_the_listed_ones_are_accepted(
    players: int, data: st.DataObject
) -> None:
    """[G1] Every listed legal command is accepted; commands of other seats, of other decisions and mutated
    legal ones are refused with a code and a message, and the state does not change."""
    checker = CommandChecker()
    game = play(data, players, step_checks=[checker])
    assert checker.rejected, "no illegal command was constructed"
    assert "not_your_turn" in checker.rejected and "wrong_decision" in checker.rejected
    over = game.state
    assert over is not None
    refused = RULES.decide(over, game.steps[-1].command)
    assert isinstance(refused, Rejection) and refused.code == "game_over"
    assert RULES.legal_commands(over, game.steps[-1].seat) == []


@pytest.mark.parametrize("players", PLAYERS)
@settings(PROFILE)
@for_all(data=st.data())
def test_given_random_legal_games_when_the_log_is_refolded_then_it_equals_the_live_state(
    players: int, data: st.DataObject
) -> None:
    """[G4] Folding the recorded events from scratch equals the live state; snapshot/restore round-trips;
    execute (decide and fold in one pass) agrees with decide."""
    game = play(data, players, step_checks=[check_replay])
    assert RULES.snapshot(RULES.fold(game.log)) == RULES.snapshot(game.state)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", PLAYERS)
@settings(PROFILE)
@for_all(data=st.data())
def test_given_random_legal_games_when_votes_are_sealed_then_no_other_seat_sees_them(
    players: int, data: st.DataObject
) -> None:
    """[E2, B6] Before VotesRevealed, no seat's view (nor the spectator's) shows another seat's sealed vote;
    with hidden victory points, no other seat's total is shown before the end."""
    hidden = data.draw(st.booleans(), label="hidden_vp")
    checker = SecrecyChecker(hidden)
    game = play(data, players, [checker], table={"hidden_victory_points": hidden}, rival_bias=True)
    final = PRESENTER.view(game.state, 0)  # type: ignore[arg-type]
    assert final["over"] and None not in final["victory_points"]


@pytest.mark.parametrize("players", PLAYERS)
@settings(PROFILE)
@for_all(seed=st.integers(0, 2**32 - 1), choices=st.randoms(use_true_random=False))
def test_given_a_recorded_game_when_its_events_go_through_json_then_the_refold_is_identical(
    players: int, seed: int, choices: random.Random
) -> None:
    """[G4] Every event survives JSON (to_json, then parse_event) unchanged, and folding the parsed log gives
    the same state."""
    log = RULES.start(NAMES[:players], {}, seed)
    state = RULES.fold(log)
    while not RULES.is_over(state):
        seat = choices.choice(RULES.awaited(state))
        events = RULES.decide(state, choices.choice(RULES.legal_commands(state, seat)))
        assert isinstance(events, list)
        log.extend(events)
        state = RULES.fold(events, state)
    parsed = [RULES.parse_event(e.to_json()) for e in log]
    assert parsed == log
    assert [type(p) for p in parsed] == [type(e) for e in log]
    assert RULES.snapshot(RULES.fold(parsed)) == RULES.snapshot(state)
    assert RULES.snapshot(RULES.fold([RULES.parse_event(orjson.loads(e.to_json())) for e in log])) == (
        RULES.snapshot(state)
    )

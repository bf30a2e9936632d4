"""The state of one game: small integer-coded lists, mutated in place while one command is decided (on a copy made
once per command) and by ``apply`` while events are folded. Nothing here is derived from a clock or a random
generator: every shuffle arrives as an event.

Who acts: the turn order is a cycle of *actors*. With 3 or 4 players (and solo) an actor is a faction (K10,
K41); with 2 players an actor is a seat holding two factions, and turns alternate (K40). An actor is either a
player's seat or a rival claimant (seat -1, K43).
"""

from __future__ import annotations

from typing import Any

from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.rules.board import Tables

# Where a card is (``Game.loc``): a container code, or HAND + seat, or WON + actor (a barbarian won by Triumph).
POOL, DECK, FORUM, BOARD, DISCARD, BOX, LIMBO = range(7)
HAND = 10
WON = 20
# Where an Emperor is (``Game.eloc``).
E_DECK, E_BOARD, E_ASIDE, E_OUT, E_UNDEALT = range(5)
E_WON = 10

# The decision the game waits for (``Game.phase``).
PHASE_NAMES = ("none", "action", "order", "keep", "pick", "rival_place", "over")
NONE, ACTION, ORDER, KEEP, PICK, RIVAL_PLACE, OVER = range(7)

_LISTS = ("top", "under", "played_by", "pos", "loc", "emp", "deck", "forum", "filled")  # copied for each command
# Rarely changed: tuples, shared by copies and replaced whole when they change (apply.py).
_TUPLES = (
    "counters",
    "face_down",
    "eloc",
    "discard",
    "box",
    "pool",
    "emperor_deck",
    "aside",
    "out",
    "surrounded",
    "looked",
)
_NESTED = ("hands",)
assert _LISTS == ("top", "under", "played_by", "pos", "loc", "emp", "deck", "forum", "filled")  # Game.copy copies these
_NESTED_TUPLES = ("known", "won", "won_barbarians")
_SCALARS = (
    "round", "turn", "first_actor", "active", "phase", "passes", "demagogue", "demagogue_card", "played_value",
    "pending_draw", "pending_look", "limbo", "chooser", "alive", "full", "version",
)  # fmt: skip
_FIXED = (
    "T", "players", "settings", "seed", "actor_seat", "actor_factions", "faction_actor", "seat_actor", "solo",
    "actor_mask",
)  # fmt: skip


_new = object.__new__


class Game:
    """One game in progress. Lists are indexed by the integer codes of tables.py. (No ``__slots__``: ``copy`` copies
    the instance dict in one call.)"""

    T: Tables
    players: tuple[str, ...]
    settings: BarracksSettings
    seed: int
    actor_seat: tuple[int, ...]  # per actor: its seat, or -1 for a rival claimant
    actor_factions: tuple[tuple[int, ...], ...]  # per actor: the factions it plays
    faction_actor: tuple[int, ...]  # per faction: the actor playing it
    seat_actor: tuple[int, ...]  # per seat: its actor
    solo: bool
    actor_mask: tuple[tuple[int, ...], ...]  # per actor, per space: bits of the Emperor spaces it is a side of
    top: list[int]  # per influence space: the card on top, -1 empty
    under: list[int]  # per influence space: the influence card a barbarian covers, -1 none
    counters: tuple[int, ...]  # per card: counters on it
    face_down: tuple[bool, ...]  # per card
    played_by: list[int]  # per card on the board: the actor that played it (-1 for barbarians)
    pos: list[int]  # per card: its space, -1 off the board
    loc: list[int]  # per card: where it is (POOL, DECK, ..., HAND + seat, WON + actor)
    emp: list[int]  # per Emperor space: the Emperor there, -1 empty
    eloc: tuple[int, ...]  # per Emperor: where it is (E_DECK, ..., E_WON + actor)
    deck: list[int]  # the draw deck, top card LAST
    forum: list[int]  # leftmost first
    discard: tuple[int, ...]
    box: tuple[int, ...]  # barbarians in the holding box
    pool: tuple[int, ...]  # cards gathered at the end of a round, before the next setup
    emperor_deck: tuple[int, ...]  # the Emperor round deck, top LAST
    aside: tuple[int, ...]  # set-aside Pretenders, next to place first
    out: tuple[int, ...]  # Emperors out of the game
    surrounded: tuple[int, ...]  # Emperor spaces the active player must order (phase ORDER)
    looked: tuple[int, ...]  # the cards Frumentarii looks at (phase KEEP)
    filled: list[int]  # per Emperor space: how many of its four sides hold a card
    hands: list[list[int]]  # per seat
    known: tuple[
        tuple[int, ...], ...
    ]  # per seat: cards of its hand every seat knows (Forum picks, a passing hand) [K14]
    won: tuple[tuple[int, ...], ...]  # per actor: captured Emperors (scoring area)
    won_barbarians: tuple[tuple[int, ...], ...]  # per actor: barbarians won through Triumph [K28]
    round: int
    turn: int
    first_actor: int
    active: int  # the actor whose turn it is
    phase: int
    passes: int  # passes in succession [K38]
    demagogue: int  # the actor whose Demagogue suppresses the others' abilities, -1 none [K37]
    demagogue_card: int
    played_value: int  # printed value of the card played this turn: the Forum limit [K29]
    pending_draw: bool  # Princeps Senatus' draw to come [K31]
    pending_look: bool  # Frumentarii's look to come [K31]
    limbo: int  # a rival claimant's drawn card on its way [K43]
    chooser: int  # the seat that chose the resolution order, -1 none (for the record) [K22]
    alive: int  # bit e set: Emperor space e holds an Emperor
    full: int  # bit e set: all four sides of Emperor space e hold a card (surrounded if it holds an Emperor) [K22]
    version: int  # events applied
    final: dict[str, Any] | None  # the result, once over

    def copy(self) -> Game:
        """A working copy: lists copied; tuples, tables, settings and seating shared (it runs once per command: one
        C-level dict copy, then the few lists that change)."""
        new = _new(Game)
        new.__dict__ = d = self.__dict__.copy()
        d["top"], d["under"], d["played_by"], d["pos"], d["loc"] = (
            self.top[:],
            self.under[:],
            self.played_by[:],
            self.pos[:],
            self.loc[:],
        )
        d["emp"], d["deck"], d["forum"], d["filled"] = self.emp[:], self.deck[:], self.forum[:], self.filled[:]
        d["hands"] = list(map(list.copy, self.hands))  # C-level: no comprehension frame
        return new

    @property
    def n_seats(self) -> int:
        """Number of players."""
        return len(self.players)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == OVER

    def record(self) -> dict[str, Any]:
        """Every field as JSON-ready data (snapshots, equality)."""
        data: dict[str, Any] = {
            "data": self.T.record,
            "players": list(self.players),
            "settings": self.settings.model_dump(mode="json"),
            "seed": self.seed,
            "final": self.final,
        }
        for name in (*_LISTS, *_TUPLES, *_NESTED, *_NESTED_TUPLES, *_SCALARS):
            data[name] = getattr(self, name)
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        if self.T is not other.T and self.T.record != other.T.record:
            return False
        fields = (*_FIXED[1:], *_LISTS, *_TUPLES, *_NESTED, *_NESTED_TUPLES, *_SCALARS)
        return all(getattr(self, n) == getattr(other, n) for n in fields)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Game round={self.round} turn={self.turn} phase={PHASE_NAMES[self.phase]} v{self.version}>"


def new_game(
    T: Tables, players: tuple[str, ...], settings: BarracksSettings, seed: int, seats: tuple[tuple[int, ...], ...]
) -> Game:
    """The game as GameStarted leaves it: every card in the pool, every Emperor undealt [K11]."""
    g = Game.__new__(Game)
    g.T, g.players, g.settings, g.seed = T, players, settings, seed
    two = len(players) == 2
    if two:  # K40: an actor per seat, holding two factions
        g.actor_factions = seats
        g.actor_seat = (0, 1)
        g.faction_actor = tuple(next(a for a, fs in enumerate(seats) if f in fs) for f in range(4))
        g.seat_actor = (0, 1)
    else:  # K10, K41: an actor per faction, clockwise
        g.actor_factions = ((0,), (1,), (2,), (3,))
        seat_of = {fs[0]: seat for seat, fs in enumerate(seats)}
        g.actor_seat = tuple(seat_of.get(f, -1) for f in range(4))
        g.faction_actor = (0, 1, 2, 3)
        g.seat_actor = tuple(fs[0] for fs in seats)
    g.solo = len(players) == 1
    g.actor_mask = actor_masks(T, g.actor_factions)
    n_actors = len(g.actor_seat)
    g.top = [-1] * T.n_spaces
    g.under = [-1] * T.n_spaces
    g.counters = (0,) * T.n_cards
    g.face_down = (False,) * T.n_cards
    g.played_by = [-1] * T.n_cards
    g.pos = [-1] * T.n_cards
    g.loc = [POOL] * T.n_cards
    g.emp = [-1] * T.n_emp_spaces
    g.eloc = tuple(E_ASIDE if x in T.pretenders else E_UNDEALT for x in range(T.n_emperors))
    g.deck, g.forum = [], []
    g.discard, g.box = (), ()
    g.pool = tuple(range(T.n_cards))
    g.emperor_deck, g.aside, g.out = (), tuple(T.pretenders), ()
    g.surrounded, g.looked = (), ()
    g.hands = [[] for _ in players]
    g.known = tuple(() for _ in players)
    g.won = tuple(() for _ in range(n_actors))
    g.won_barbarians = tuple(() for _ in range(n_actors))
    g.round = g.turn = 0
    g.first_actor = g.active = 0
    g.phase = NONE
    g.passes = 0
    g.demagogue = g.demagogue_card = -1
    g.played_value = -1
    g.pending_draw = g.pending_look = False
    g.limbo = -1
    g.chooser = -1
    g.alive = 0
    g.filled = [0] * T.n_emp_spaces
    g.full = 0
    g.version = 0
    g.final = None
    return g


def awaited(g: Game | None) -> tuple[int, ...]:
    """The seat the game waits for (solo: the player also decides for a rival under their Demagogue) [K21, K43];
    none before the game."""
    if g is None:
        return ()
    phase = g.phase
    if phase in (OVER, NONE):
        return ()
    if phase == RIVAL_PLACE:
        return (0,)
    return (g.actor_seat[g.active],)


def actor_masks(T: Tables, actor_factions: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """Per actor and space: the bits of the Emperor spaces whose side of one of its factions the space is [K10]
    (kept per tables and seating: every game and every fold of one starts with them)."""
    key = (id(T), actor_factions)
    found = _MASKS.get(key)
    if found is None or found[0] is not T:
        found = _MASKS[key] = (T, _masks(T, actor_factions))
    return found[1]


_MASKS: dict[tuple[int, tuple[tuple[int, ...], ...]], tuple[Tables, tuple[tuple[int, ...], ...]]] = {}


def _masks(T: Tables, actor_factions: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(sum(1 << e for e, f in T.sides_of[s] if f in factions) for s in range(T.n_spaces))
        for factions in actor_factions
    )

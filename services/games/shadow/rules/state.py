"""The state of one game: an integer-coded board with the indexes legality asks about (the census), kept up to date
by ``evolve`` (evolve.py).

A state is changed in place only while it is being made: ``evolve`` and a command's Tx (effects.py) work on a
copy (``copy``, one per command), and the state they hand back is never changed again. Everything but the board
and the census is held in immutable values (ints, tuples, frozensets), which copies share.

The board (``cells``) holds one int per space: 0 empty, a knight, a city or a tile, coded below; the tables
``OWNER``, ``KIND``, ``AGE``, ``COUPLE``, ``POWER`` read a code. ``board`` shows it as the piece objects
``Tile``, ``Knight``, ``City`` (what the presenter, the bots and the tests read).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.games.shadow.messages.settings import ShadowSettings
from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, CITY, Layout
from services.games.shadow.rules.facts import is_core, to_model

EMPIRE = -1  # owner of an empire city


@dataclass(frozen=True, slots=True)
class Tile:
    """An aristocrat tile: Baron (1 power) or Couple (2 power) at one life stage."""

    owner: int
    couple: bool
    age: int

    @property
    def power(self) -> int:
        return 2 if self.couple else 1


@dataclass(frozen=True, slots=True)
class Knight:
    owner: int


@dataclass(frozen=True, slots=True)
class City:
    owner: int  # EMPIRE for an empire city


Piece = Tile | Knight | City

# --- the codes of the board --------------------------------------------------------------------------------
EMPTY = 0
KNIGHT = 1  # KNIGHT + owner: 1..4
CITY_CODE = 8  # CITY_CODE + 1 + owner: 8 the empire's, 9..12 the players'
TILE = 16  # TILE + (owner << 8 | couple << 7 | age)
MAX_SEATS = 4
MAX_AGE = 127
_CODES = TILE + (MAX_SEATS << 8)

NO_KIND, KNIGHT_KIND, CITY_KIND, TILE_KIND = range(4)
KIND: list[int] = [NO_KIND] * _CODES
OWNER: list[int] = [-2] * _CODES  # -2: empty (no owner), -1: the empire
AGE: list[int] = [0] * _CODES
COUPLE: list[bool] = [False] * _CODES
POWER: list[int] = [0] * _CODES  # a tile's power, 1 for a knight or a city
PIECE: list[Piece | None] = [None] * _CODES
IS_KNIGHT: list[bool] = [False] * _CODES


def knight_code(owner: int) -> int:
    """The code of a knight."""
    return KNIGHT + owner


def city_code(owner: int) -> int:
    """The code of a city (``EMPIRE``: an empire city)."""
    return CITY_CODE + 1 + owner


def tile_code(owner: int, couple: bool, age: int) -> int:
    """The code of a tile."""
    if not 0 <= age <= MAX_AGE:
        raise ValueError(f"a tile's age must be 0..{MAX_AGE}: {age}")
    return TILE + (owner << 8 | couple << 7 | age)


for _o in range(MAX_SEATS):
    _c = knight_code(_o)
    KIND[_c], OWNER[_c], POWER[_c], PIECE[_c], IS_KNIGHT[_c] = KNIGHT_KIND, _o, 1, Knight(_o), True
for _o in range(-1, MAX_SEATS):
    _c = city_code(_o)
    KIND[_c], OWNER[_c], POWER[_c], PIECE[_c] = CITY_KIND, _o, 1, City(_o)
for _o in range(MAX_SEATS):
    for _couple in (False, True):
        for _age in range(MAX_AGE + 1):
            _c = tile_code(_o, _couple, _age)
            KIND[_c], OWNER[_c], AGE[_c], COUPLE[_c] = TILE_KIND, _o, _age, _couple
            POWER[_c], PIECE[_c] = 2 if _couple else 1, Tile(_o, _couple, _age)


def code_of(piece: Piece | None) -> int:
    """The code of a piece object (None: empty)."""
    if piece is None:
        return EMPTY
    if isinstance(piece, Tile):
        return tile_code(piece.owner, piece.couple, piece.age)
    if isinstance(piece, Knight):
        return knight_code(piece.owner)
    return city_code(piece.owner)


class GameState:
    """Everything the rules need; no field is derived from the clock or a random generator.

    The census follows the board (``free``: the empty spaces of each electorate's aristocrat, castle and city
    spaces; ``tiles``, ``knights``: the spaces holding one): evolve.py's ``_put`` and ``_clear`` change them
    together. ``copy`` makes the working copy of one command."""

    # No ``__slots__``: ``copy`` copies the instance dict in one call.

    layout: Layout
    players: tuple[str, ...]
    settings: ShadowSettings
    seed: int
    n: int
    cells: list[int]
    free: list[int]  # per space group (see ``groups``): the empty spaces left in it
    tiles: list[int]  # the spaces holding a tile, in board order
    knights: list[int]  # the spaces holding a knight, in board order
    group: tuple[int, ...]  # per space: its group (-1: none)
    thalers: tuple[int, ...]
    vp: tuple[int, ...]
    tiles_in_supply: tuple[int, ...]
    knights_in_supply: tuple[int, ...]
    cities_in_supply: tuple[int, ...]
    empire_cities_in_supply: int
    emperor: int
    closed: frozenset[int]
    round: int
    phase: int
    privilege_used: tuple[bool, ...]
    play_areas: tuple[tuple[str, ...], ...]
    taken: dict[str, int]  # cards lying in play areas, by type (shared by copies: replaced whole on change)
    passed: frozenset[int]
    rival: int | None
    aims: tuple[tuple[str, int], ...]
    votes: tuple[str | None, ...]
    prompt: Any  # what the game waits for: the core's Prompt tuple, or a Prompt model folded from a model event
    turn: int | None
    winners: tuple[int, ...] | None
    version: int
    shape: Any  # what the phase IV counts ask of the board (turn_counts.shape), None until asked or after a change

    def __init__(
        self,
        layout: Layout,
        players: tuple[str, ...],
        settings: ShadowSettings,
        seed: int,
        board: tuple[Piece | None, ...] | list[int],
        thalers: tuple[int, ...],
        vp: tuple[int, ...],
        tiles_in_supply: tuple[int, ...],
        knights_in_supply: tuple[int, ...],
        cities_in_supply: tuple[int, ...],
        empire_cities_in_supply: int,
        emperor: int,
        closed: frozenset[int] = frozenset(),
        round: int = 1,
        phase: int = 0,
        privilege_used: tuple[bool, ...] = (False,) * 7,
        play_areas: tuple[tuple[str, ...], ...] = (),
        passed: frozenset[int] = frozenset(),
        rival: int | None = None,
        aims: tuple[tuple[str, int], ...] = (),
        votes: tuple[str | None, ...] = (),
        pending: Any = None,
        turn: int | None = None,
        winners: tuple[int, ...] | None = None,
        version: int = 0,
    ) -> None:
        self.layout, self.players, self.settings, self.seed = layout, tuple(players), settings, seed
        self.n = len(self.players)
        cells = board if isinstance(board, list) else [code_of(p) for p in board]
        self.cells = list(cells)
        self.group = groups(layout)
        self.free = census_of(layout, self.cells)
        self.tiles = [i for i, code in enumerate(self.cells) if code >= TILE]
        self.knights = [i for i, code in enumerate(self.cells) if IS_KNIGHT[code]]
        self.thalers, self.vp = tuple(thalers), tuple(vp)
        self.tiles_in_supply, self.knights_in_supply = tuple(tiles_in_supply), tuple(knights_in_supply)
        self.cities_in_supply, self.empire_cities_in_supply = tuple(cities_in_supply), empire_cities_in_supply
        self.emperor, self.closed, self.round, self.phase = emperor, frozenset(closed), round, phase
        self.privilege_used, self.play_areas = tuple(privilege_used), tuple(tuple(a) for a in play_areas)
        self.taken = taken_of(self.play_areas)
        self.passed, self.rival, self.aims, self.votes = frozenset(passed), rival, tuple(aims), tuple(votes)
        self.prompt, self.turn, self.winners, self.version = pending, turn, winners, version
        self.shape = None

    # --- copies ---------------------------------------------------------------------------------------------
    def copy(self) -> GameState:
        """A working copy: its own board and census, every other value shared (immutable)."""
        twin = _new(GameState)
        fields = twin.__dict__ = self.__dict__.copy()
        fields["cells"] = self.cells.copy()
        fields["free"] = self.free.copy()
        fields["tiles"] = self.tiles.copy()
        fields["knights"] = self.knights.copy()
        return twin

    def _replace(self, **changes: Any) -> GameState:
        """A copy with fields replaced (``board``: piece objects or codes), census recomputed."""
        fields = {name: getattr(self, name) for name in _PUBLIC}
        fields.update(changes)
        return GameState(**fields)

    # --- views ----------------------------------------------------------------------------------------------
    @property
    def board(self) -> tuple[Piece | None, ...]:
        """The piece on each space (None: empty), as objects."""
        return tuple(map(PIECE.__getitem__, self.cells))

    @property
    def pending(self) -> Any:
        """What the game waits for, as the Prompt model (None: nothing)."""
        prompt = self.prompt
        if prompt is None or not is_core(prompt):
            return prompt
        model = _prompts.get(prompt)
        if model is None:
            if len(_prompts) >= 4096:
                _prompts.clear()
            model = _prompts[prompt] = to_model(prompt)
        return model

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.winners is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _COMPARED)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GameState(round={self.round}, phase={self.phase}, version={self.version}, pending={self.pending})"


_new = object.__new__
_PUBLIC = (
    "layout", "players", "settings", "seed", "thalers", "vp", "tiles_in_supply", "knights_in_supply",
    "cities_in_supply", "empire_cities_in_supply", "emperor", "closed", "round", "phase", "privilege_used",
    "play_areas", "passed", "rival", "aims", "votes", "pending", "turn", "winners", "version",
)  # fmt: skip
_COMPARED = (*_PUBLIC[:-4], "prompt", *_PUBLIC[-3:], "cells")
assert _PUBLIC[-4] == "pending"
_prompts: dict[Any, Any] = {}  # the Prompt model of each core Prompt (prompts repeat: requests are shared)
_PUBLIC = ("board", *_PUBLIC)


def awaited(s: GameState | None) -> tuple[int, ...]:
    """Seats the game waits for; during a vote, those who have not sealed theirs [E2]; none before the game."""
    if s is None:
        return ()
    p = s.prompt
    if p is None:
        return ()
    if p.decision == "vote":
        return tuple(seat for seat in p.seats if s.votes[seat] is None)
    return p.seats


# --- the census -----------------------------------------------------------------------------------------------
# Space groups: per electorate, its aristocrat spaces (group 3e), castle spaces (3e + 1) and city spaces
# (3e + 2); ``free[g]`` counts the empty spaces of group g. Other spaces belong to no group (-1).
_GROUPS: dict[int, tuple[Layout, tuple[int, ...]]] = {}


def groups(layout: Layout) -> tuple[int, ...]:
    """The group of each space of ``layout`` (kept per layout object: layouts are immutable and shared)."""
    known = _GROUPS.get(id(layout))
    if known is not None and known[0] is layout:
        return known[1]
    offset = {ARISTOCRAT: 0, CASTLE: 1, CITY: 2}
    found = tuple(3 * sp.electorate + offset[sp.kind] if sp.kind in offset else -1 for sp in layout.spaces)
    _GROUPS[id(layout)] = (layout, found)
    return found


def census_of(layout: Layout, cells: list[int]) -> list[int]:
    """The free spaces of each group, counted from the board."""
    free = [0] * (3 * len(layout.electorates))
    for g, code in zip(groups(layout), cells, strict=True):
        if g >= 0 and code == EMPTY:
            free[g] += 1
    return free


def taken_of(play_areas: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    """Cards of each type lying in play areas."""
    taken: dict[str, int] = {}
    for area in play_areas:
        for card in area:
            taken[card] = taken.get(card, 0) + 1
    return taken

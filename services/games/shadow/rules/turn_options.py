"""The legal keys of a phase IV turn (``decision == "actions"``): the option functions by command type
(``PHASE_IV``), each listing blocks of keys from one :class:`Turn` worked out once per listing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

from services.games.shadow.rules.board import ARISTOCRAT
from services.games.shadow.rules.command_keys import (
    CARDS_WITHOUT_EFFECT,
    TRIER_CARDS,
    Key,
)
from services.games.shadow.rules.options import OPTIONS
from services.games.shadow.rules.queries import (
    BRANDENBURG,
    KOELN,
    PALATINATE,
    TRIER,
    census,
    holds_privilege,
)
from services.games.shadow.rules.state import GameState

# --- phase IV -----------------------------------------------------------------------------------------------
# The phase IV options are listed at every turn, ~50 keys by 18 functions: they return lists (or () for none)
# rather than generators, take names from the layout tables, and take a Turn instead of (state, seat, prompt):
# what several of them ask (the seat's thalers, the cards left, Trier's privilege, the census), worked out once
# per listing. OPTIONS["actions"] holds each of them behind the common signature.
_BY_STACK = (False,)
_BY_TRIER = (True,)


class Turn:
    """What the phase IV options of ``seat`` ask of the state ``s``, worked out once (see :func:`turn`)."""

    __slots__ = ("c", "cards", "s", "seat", "sizes", "t", "taken", "thalers", "trier", "version")

    def __init__(self, s: GameState, seat: int) -> None:
        c = self.c = census(s)
        self.t = c.t
        self.s, self.seat, self.version = s, seat, s.version
        self.cards = s.layout.cards
        self.thalers = s.thalers[seat]
        self.sizes = c.t.stacks.get(len(s.players)) or {card: i.stack_size(s.n) for card, i in self.cards.items()}
        self.taken = s.taken
        self.trier = holds_privilege(s, seat, TRIER)

    def available(self, card: str) -> bool:
        """Whether a card of this type is left in its stack this round (``stack_available``) [B5]."""
        return self.taken.get(card, 0) < self.sizes[card]

    def modes(self, card: str, cost: int) -> tuple[bool, ...]:
        """How the seat can get a card's effect now: from the stack (False) or by Trier's privilege (True), if
        it can pay ``cost`` [P2, P6]."""
        if self.thalers < cost:
            return ()
        if self.taken.get(card, 0) < self.sizes[card]:
            return _BY_STACK
        if self.trier and card in TRIER_CARDS:
            return _BY_TRIER
        return ()


_last_turn: Turn | None = None


def turn(s: GameState, seat: int) -> Turn:
    """The Turn of ``seat`` at ``s``; the latest one is kept (a state is immutable and the Turn holds it, so the
    same identity means the same state)."""
    global _last_turn
    found = _last_turn
    if found is None or found.s is not s or found.seat != seat or found.version != s.version:
        found = _last_turn = Turn(s, seat)
    return found


def _modes(s: GameState, seat: int, card: str, cost: int) -> tuple[bool, ...]:
    """How the seat can get a card's effect now: from the stack (False) or by Trier's privilege (True)
    [P2, P6]."""
    return turn(s, seat).modes(card, cost)


# A phase IV option function returns *blocks* of keys: ``(head, factors, tail)`` stands for the keys
# ``head + a + b + tail`` for ``a, b`` in the product of the factors (zero to two sequences of tuples, parts made
# once in the census and the layout tables), in that order. Listing expands them; the random bot's sampling counts
# them and builds the one key it falls on: both read the same functions, so the sample is drawn from exactly the
# legal keys, in the same order.
Block = tuple[int, Key, tuple[Sequence[Key], ...], Key]  # (how many keys, head, factors, tail)
TurnOptionsFn = Callable[[Turn], Sequence[Block]]
PHASE_IV: dict[str, TurnOptionsFn] = {}
"""The phase IV option functions by command type, in OPTIONS order."""


block_size: Callable[[Block], int] = itemgetter(0)
"""How many keys a block stands for."""


def block_keys(block: Block) -> list[Key]:
    """The keys of a block, in order."""
    _, head, factors, tail = block
    if not factors:
        return [head + tail]
    if len(factors) == 1:
        return [head + a + tail for a in factors[0]]
    return [head + a + b + tail for a in factors[0] for b in factors[1]]


def block_key(block: Block, r: int) -> Key:
    """The key number ``r`` of a block."""
    _, head, factors, tail = block
    if not factors:
        return head + tail
    if len(factors) == 1:
        return head + factors[0][r] + tail
    i, j = divmod(r, len(factors[1]))
    return head + factors[0][i] + factors[1][j] + tail


def _action(command_type: str) -> Callable[[TurnOptionsFn], TurnOptionsFn]:
    """Register a phase IV option function: in PHASE_IV, and in OPTIONS behind (state, seat, prompt)."""

    def register(fn: TurnOptionsFn) -> TurnOptionsFn:
        PHASE_IV[command_type] = fn
        OPTIONS.setdefault("actions", {})[command_type] = lambda s, seat, p: [
            key for block in fn(Turn(s, seat)) for key in block_keys(block)
        ]
        return fn

    return register


_NO_PARTS: tuple[Sequence[Key], ...] = ()
_NO_TAIL: Key = ()


def _single(command_type: str) -> tuple[Block, ...]:
    """The one block of a command without fields."""
    return ((1, (command_type,), _NO_PARTS, _NO_TAIL),)


_PASS = _single("Pass")


@_action("Pass")
def _opt_pass(x: Turn) -> Sequence[Block]:
    return _PASS


_PLACE_KNIGHT = ("PlaceKnight",)


@_action("PlaceKnight")
def _opt_place_knight(x: Turn) -> Sequence[Block]:
    s, seat = x.s, x.seat
    if not (s.knights_in_supply[seat] > 0 and x.thalers >= s.layout.constants["knight_cost"]):
        return ()
    pairs = x.c.knight_pairs
    return ((len(pairs), _PLACE_KNIGHT, (pairs,), _NO_TAIL),)


@_action("MoveKnight")
def _opt_move_knight(x: Turn) -> Sequence[Block]:
    if x.thalers < x.s.layout.constants["knight_cost"]:
        return ()
    pairs = x.c.knight_pairs
    if not pairs:
        return ()
    t = x.t
    sids, kinds, ekeys, electorate_of = t.sids, t.kinds, t.ekeys, t.electorate_of
    out = []
    for src in x.c.knights_of(x.seat):
        here = (ekeys[electorate_of[src]], kinds[src])  # X2: not to its own kind of space in its electorate
        targets = [pair for pair in pairs if pair != here] if here in pairs else pairs
        out.append((len(targets), ("MoveKnight", sids[src]), (targets,), _NO_TAIL))
    return out


_DOCTOR = ("BuyDoctor",)


@_action("BuyDoctor")
def _opt_doctor(x: Turn) -> Sequence[Block]:
    modes = x.modes("doctor", x.cards["doctor"].cost)
    if not modes:
        return ()
    sid1 = x.t.sid1
    targets = [sid1[i] for i in x.c.doctor_targets(x.seat)]
    return ((len(targets), _DOCTOR, (targets,), modes),)


_MOVE = ("BuyMove",)


@_action("BuyMove")
def _opt_move(x: Turn) -> Sequence[Block]:
    modes = x.modes("move", x.cards["move"].cost)
    if not modes:
        return ()
    sources = x.c.tiles_of(x.seat, (ARISTOCRAT,))
    if not sources:
        return ()
    sid1, electorate_of = x.t.sid1, x.t.electorate_of
    pairs_in = x.c.pairs_in
    out = []
    for e in x.c.open:
        pairs = pairs_in[e]
        if pairs:
            moved = [sid1[src] for src in sources if electorate_of[src] != e]
            out.append((len(moved) * len(pairs), _MOVE, (moved, pairs), modes))
    return out


def _simple_card(command_type: str, card: str) -> None:
    block = _single(command_type)

    @_action(command_type)
    def _opt(x: Turn) -> Sequence[Block]:
        if x.thalers >= x.cards[card].cost and x.available(card):
            return block
        return ()


_simple_card("BuyPope", "pope")
_simple_card("BuyChurchInfluence", "church_influence")
_simple_card("BuyExcommunication", "excommunication")

_INDULGENCE = ("BuyIndulgence",)


@_action("BuyIndulgence")
def _opt_indulgence(x: Turn) -> Sequence[Block]:
    modes = x.modes("indulgence", x.cards["indulgence"].cost)
    return ((1, _INDULGENCE, _NO_PARTS, modes),) if modes else ()


def permit_cost(s: GameState, couple: bool) -> int:
    """A Permit costs 3 for a Baron, 5 for a Couple [P5]."""
    return s.layout.constants["permit_couple_cost"] if couple else s.layout.cards["permit"].cost


_PERMIT = (("BuyPermit", False), ("BuyPermit", True))


@_action("BuyPermit")
def _opt_permit(x: Turn) -> Sequence[Block]:
    if x.s.tiles_in_supply[x.seat] == 0:
        return ()
    out = []
    for couple in (False, True):
        modes = x.modes("permit", permit_cost(x.s, couple))
        if modes:
            out.append((len(x.c.place_pairs), _PERMIT[couple], (x.c.place_pairs,), modes))
    return out


_ORDINANCE = ("BuyOrdinance",)


@_action("BuyOrdinance")
def _opt_ordinance(x: Turn) -> Sequence[Block]:
    if x.s.cities_in_supply[x.seat] == 0:
        return ()
    modes = x.modes("ordinance", x.cards["ordinance"].cost)
    return ((len(x.c.city_keys), _ORDINANCE, (x.c.city_keys,), modes),) if modes else ()


_PROMOTION = ("BuyPromotion",)


@_action("BuyPromotion")
def _opt_promotion(x: Turn) -> Sequence[Block]:
    if x.s.tiles_in_supply[x.seat] == 0:
        return ()
    modes = x.modes("promotion", x.cards["promotion"].cost)
    if not modes:
        return ()
    sid1 = x.t.sid1
    knights = [sid1[i] for i in x.c.knights_of(x.seat, (ARISTOCRAT,))]
    return ((len(knights), _PROMOTION, (knights,), modes),)


_FKD = ("BuyForeignKingsDaughter",)


@_action("BuyForeignKingsDaughter")
def _opt_fkd(x: Turn) -> Sequence[Block]:
    modes = x.modes("foreign_kings_daughter", x.cards["foreign_kings_daughter"].cost)
    if not modes:
        return ()
    sid1 = x.t.sid1
    barons = [sid1[i] for i in x.c.own_barons_for_marriage(x.seat)]
    return ((len(barons), _FKD, (barons,), modes),)


_RIVAL = _single("BuyRival")


@_action("BuyRival")
def _opt_rival(x: Turn) -> Sequence[Block]:
    if x.seat != x.s.emperor and x.available("rival") and x.thalers >= x.cards["rival"].cost:
        return _RIVAL
    return ()


_WITHOUT_EFFECT = ("BuyCardWithoutEffect",)
_CARD1 = {card: (card,) for card in CARDS_WITHOUT_EFFECT}


@_action("BuyCardWithoutEffect")
def _opt_without_effect(x: Turn) -> Sequence[Block]:
    if len(x.s.players) != 2:
        return ()
    cards = [_CARD1[card] for card in CARDS_WITHOUT_EFFECT if x.available(card) and x.thalers >= x.cards[card].cost]
    return ((len(cards), _WITHOUT_EFFECT, (cards,), _NO_TAIL),)


_GRAY = _single("TakeGrayEminence")


@_action("TakeGrayEminence")
def _opt_gray(x: Turn) -> Sequence[Block]:
    if holds_privilege(x.s, x.seat, BRANDENBURG) and x.available("gray_eminence"):
        return _GRAY
    return ()


_KOELN = ("UseKoelnPrivilege",)


@_action("UseKoelnPrivilege")
def _opt_koeln(x: Turn) -> Sequence[Block]:
    if not holds_privilege(x.s, x.seat, KOELN):
        return ()
    sid1 = x.t.sid1
    targets = [sid1[i] for i in x.c.doctor_targets(x.seat)]
    return ((len(targets), _KOELN, (targets,), _NO_TAIL),)


_PALATINATE = ("UsePalatinatePrivilege",)


@_action("UsePalatinatePrivilege")
def _opt_palatinate(x: Turn) -> Sequence[Block]:
    if not (holds_privilege(x.s, x.seat, PALATINATE) and x.s.tiles_in_supply[x.seat] > 0):
        return ()
    return ((len(x.c.place_pairs), _PALATINATE, (x.c.place_pairs,), _NO_TAIL),)


_PHASE_IV_FNS = tuple(PHASE_IV.values())

"""Commands: for each decision the game can wait for, which commands are legal (as compact keys) and what
each one does.

A command's *key* is ``(type, *fields)`` in the order of ``FIELDS[type]``. ``options`` lists the keys that
are legal now; ``decide`` accepts a command exactly when its key is among them, so the list of legal
commands and the accepted commands can never disagree.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter, itemgetter
from typing import Any

from events.base import Command
from services.games.shadow.messages import events as ev
from services.games.shadow.messages.commands import COMMAND_TYPES
from services.games.shadow.rules import flow
from services.games.shadow.rules.board import ARISTOCRAT, ELECTORATE_KEYS
from services.games.shadow.rules.effects import (
    E,
    Tx,
    kill,
    move_tile,
    pay,
    place_from_supply,
    request,
    score,
)
from services.games.shadow.rules.queries import (
    BRANDENBURG,
    KOELN,
    PALATINATE,
    TRIER,
    census,
    cities_of,
    elector_candidates,
    empire_city_spaces,
    first_free,
    free_city_electorates,
    holds_privilege,
    marriageable_barons,
    open_electorates,
    placement_target,
    throne_candidates,
)
from services.games.shadow.rules.state import AGE, EMPTY, OWNER, GameState, awaited

Key = tuple[Any, ...]

FIELDS: dict[str, tuple[str, ...]] = {
    "PlaceEmpireCity": ("electorate",),
    "MoveEmpireCity": ("from_space", "electorate"),
    "PlacePiece": ("electorate", "space_kind", "push"),
    "ChooseAristocrat": ("space",),
    "BreakTie": ("winner",),
    "Decline": (),
    "OfferDaughter": ("space",),
    "SendDaughterToConvent": (),
    "AnswerMarriage": ("accept",),
    "Pass": (),
    "PlaceKnight": ("electorate", "space_kind"),
    "MoveKnight": ("from_space", "electorate", "space_kind"),
    "BuyDoctor": ("target", "trier"),
    "BuyMove": ("source", "electorate", "push", "trier"),
    "BuyPope": (),
    "BuyChurchInfluence": (),
    "BuyExcommunication": (),
    "BuyIndulgence": ("trier",),
    "BuyPermit": ("couple", "electorate", "push", "trier"),
    "BuyOrdinance": ("electorate", "trier"),
    "BuyPromotion": ("knight", "trier"),
    "BuyForeignKingsDaughter": ("baron", "trier"),
    "BuyRival": (),
    "BuyCardWithoutEffect": ("card",),
    "TakeGrayEminence": (),
    "UseKoelnPrivilege": ("target",),
    "UsePalatinatePrivilege": ("electorate", "push"),
    "AimChurchInfluence": ("electorate",),
    "AimExcommunication": ("electorate",),
    "CastVote": ("candidate",),
}
assert set(FIELDS) == set(COMMAND_TYPES)

TRIER_CARDS = ("doctor", "move", "indulgence", "permit", "ordinance", "promotion", "foreign_kings_daughter")
CARDS_WITHOUT_EFFECT = TRIER_CARDS
CARD_OF_COMMAND = {
    "BuyDoctor": "doctor",
    "BuyMove": "move",
    "BuyPope": "pope",
    "BuyChurchInfluence": "church_influence",
    "BuyExcommunication": "excommunication",
    "BuyIndulgence": "indulgence",
    "BuyPermit": "permit",
    "BuyOrdinance": "ordinance",
    "BuyPromotion": "promotion",
    "BuyForeignKingsDaughter": "foreign_kings_daughter",
    "BuyRival": "rival",
}


def _key_getter(command_type: str) -> Callable[[Any], Key]:
    fields = FIELDS[command_type]
    if not fields:
        key = (command_type,)
        return lambda c: key
    if len(fields) == 1:
        get = attrgetter(fields[0])
        return lambda c: (command_type, get(c))
    return attrgetter("type", *fields)


_KEY_OF: dict[str, Callable[[Any], Key]] = {t: _key_getter(t) for t in FIELDS}


def key_of(command: Command) -> Key:
    """The compact key of a command: ``(type, *fields)`` in the order of ``FIELDS[type]``."""
    return _KEY_OF[command.type](command)  # type: ignore[attr-defined]


# Commands are immutable: one instance per (seat, key) is shared. Bounded: cleared when full.
_commands: dict[tuple[int, Key], Command] = {}
_COMMANDS_KEPT = 16384
_new = object.__new__
_set = object.__setattr__


def _template(kind: str) -> dict[str, Any]:
    """Every field of a command model in declaration order, with its default (a required one: None until
    given)."""
    return {name: None if f.is_required() else f.default for name, f in COMMAND_TYPES[kind].model_fields.items()}


_TEMPLATES = {kind: _template(kind) for kind in FIELDS}


def command_of(seat: int, key: Key) -> Command:
    """The command model of a legal key: the instance validation would build from the same values (a legal key
    holds values of the declared types, so it is built without validating again)."""
    command = _commands.get((seat, key))
    if command is None:
        kind = key[0]
        given = dict(zip(FIELDS[kind], key[1:], strict=True))
        command = _new(COMMAND_TYPES[kind])
        _set(command, "__dict__", {**_TEMPLATES[kind], "seat": seat, **given})
        _set(command, "__pydantic_fields_set__", {"seat", *given})
        _set(command, "__pydantic_extra__", None)
        _set(command, "__pydantic_private__", None)
        if len(_commands) >= _COMMANDS_KEPT:
            _commands.clear()
        _commands[(seat, key)] = command
    return command


def _sid(s: GameState, i: int | None) -> str | None:
    return None if i is None else s.layout.spaces[i].id


def _ekey(s: GameState, e: int) -> str:
    return s.layout.electorates[e].key


def _eidx(key: str) -> int:
    return ELECTORATE_KEYS.index(key)


def _space(s: GameState, space_id: str | None) -> int | None:
    return None if space_id is None else s.layout.by_id[space_id]


# =============================================================================================================
# Options: the legal keys per decision and command type
# =============================================================================================================
OptionsFn = Callable[[GameState, int, ev.Prompt], Iterable[Key]]
OPTIONS: dict[str, dict[str, OptionsFn]] = {}


def options(decision: str, command_type: str) -> Callable[[OptionsFn], OptionsFn]:
    def register(fn: OptionsFn) -> OptionsFn:
        OPTIONS.setdefault(decision, {})[command_type] = fn
        return fn

    return register


def _placements(s: GameState, electorates: Iterable[int], kind: str = "aristocrat") -> Iterator[Key]:
    pairs_in = census(s).pairs_in  # (electorate, push) of each way to place an aristocrat, per open electorate
    for e in electorates:
        for ekey, push in pairs_in[e]:
            yield ("PlacePiece", ekey, kind, push)


@options("setup_empire_city", "PlaceEmpireCity")
@options("emperor_place_city", "PlaceEmpireCity")
def _opt_empire_city(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in free_city_electorates(s):
        yield ("PlaceEmpireCity", _ekey(s, e))


@options("setup_elector", "PlacePiece")
def _opt_setup_elector(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.cells[s.layout.electorates[e].elector] == EMPTY:
            yield ("PlacePiece", _ekey(s, e), "elector", None)


@options("setup_aristocrat", "PlacePiece")
def _opt_setup_aristocrat(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if first_free(s, s.layout.electorates[e].aristocrats) is not None:
            yield ("PlacePiece", _ekey(s, e), "aristocrat", None)


@options("setup_knight", "PlacePiece")
def _opt_setup_knight(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for kind, e in _free_knight_spaces(s):
        yield ("PlacePiece", _ekey(s, e), kind, None)


def _free_knight_spaces(s: GameState) -> tuple[tuple[str, int], ...]:
    return census(s).knight_spaces


@options("replace_emperor", "ChooseAristocrat")
def _opt_replace_emperor(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in throne_candidates(s, seat, include_eminence=False):
        yield ("ChooseAristocrat", _sid(s, i))


@options("choose_throne", "ChooseAristocrat")
def _opt_choose_throne(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in throne_candidates(s, seat, include_eminence=True):
        yield ("ChooseAristocrat", _sid(s, i))


@options("choose_elector", "ChooseAristocrat")
def _opt_choose_elector(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in elector_candidates(s, seat, _eidx(p.electorate)):  # type: ignore[arg-type]
        yield ("ChooseAristocrat", _sid(s, i))


@options("place_son", "PlacePiece")
@options("place_dethroned", "PlacePiece")
def _opt_place_anywhere(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield from _placements(s, census(s).open)


@options("place_displaced", "PlacePiece")
def _opt_place_displaced(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield from _placements(s, [_eidx(p.electorate)])  # type: ignore[arg-type]


@options("daughter", "OfferDaughter")
def _opt_offer(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in marriageable_barons(s, seat):
        yield ("OfferDaughter", _sid(s, i))


@options("daughter", "SendDaughterToConvent")
def _opt_convent(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("SendDaughterToConvent",)


@options("marriage_answer", "AnswerMarriage")
def _opt_answer(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("AnswerMarriage", True)
    yield ("AnswerMarriage", False)


@options("gray_eminence", "PlacePiece")
def _opt_gray_eminence(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.cells[s.layout.electorates[e].eminence] == EMPTY:
            yield ("PlacePiece", _ekey(s, e), "eminence", None)


@options("gray_eminence", "Decline")
def _opt_decline(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("Decline",)


@options("break_tie", "BreakTie")
def _opt_break_tie(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for w in p.tied:
        yield ("BreakTie", w)


@options("aim_church_influence", "AimChurchInfluence")
def _opt_aim_church(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.layout.electorates[e].spiritual:
            yield ("AimChurchInfluence", _ekey(s, e))


@options("aim_excommunication", "AimExcommunication")
def _opt_aim_excom(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if not s.layout.electorates[e].spiritual:
            yield ("AimExcommunication", _ekey(s, e))


@options("vote", "CastVote")
def _opt_vote(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("CastVote", "emperor")
    yield ("CastVote", "rival")


@options("emperor_move_city", "MoveEmpireCity")
def _opt_move_city(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in empire_city_spaces(s):
        for e in flow.movable_empire_city_targets(s, i):
            yield ("MoveEmpireCity", _sid(s, i), _ekey(s, e))


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


# What is known legal without listing again: the latest full listing (state, its version, seat, keys, end of each
# command type's keys in OPTIONS order), and the latest sampled key (state, version, seat, key). A state handed
# back is never changed again, and these hold it, so the same identity at the same version is the same position:
# ``is_legal`` answers from them (the random bot and the rules worker list or sample the very state they execute).
_last_keys: tuple[GameState, int, int, list[Key], list[int]] | None = None
_last_sample: tuple[GameState, int, int, Key] | None = None
# Per decision, each command type's position in OPTIONS order.
_POSITION: dict[str, dict[str, int]] = {}


def legal_keys(s: GameState, seat: int) -> list[Key]:
    """Every legal key of ``seat`` now."""
    global _last_keys
    p = s.prompt
    if p is None or seat not in awaited(s):
        return []
    keys: list[Key] = []
    ends: list[int] = []
    if p.decision == "actions":  # the same functions as OPTIONS["actions"], sharing one Turn
        x = turn(s, seat)
        for phase_iv_fn in PHASE_IV.values():
            for block in phase_iv_fn(x):
                keys += block_keys(block)
            ends.append(len(keys))
    else:
        for fn in OPTIONS[p.decision].values():
            keys += fn(s, seat, p)
            ends.append(len(keys))
    _last_keys = (s, s.version, seat, keys, ends)
    return keys.copy()


def sample_key(s: GameState, seat: int, rng: random.Random) -> Key | None:
    """A uniformly random legal key of ``seat`` (None: it has none): ``rng.choice(legal_keys(s, seat))``, the
    same draw from the generator, but in phase IV counting the keys and building only the one drawn."""
    global _last_sample
    p = s.prompt
    if p is None or seat not in awaited(s):
        return None
    if p.decision != "actions":
        keys = legal_keys(s, seat)
        return rng.choice(keys) if keys else None
    x = turn(s, seat)
    blocks = [block for fn in _PHASE_IV_FNS for block in fn(x)]
    total = sum(map(block_size, blocks))
    if not total:
        return None
    r = rng.randrange(total)  # as rng.choice(keys): one draw below the number of keys
    for block in blocks:
        size = block[0]
        if r < size:
            key = block_key(block, r)
            _last_sample = (s, s.version, seat, key)
            return key
        r -= size
    raise AssertionError("unreachable: r < total")


def is_legal(s: GameState, seat: int, p: Any, command_type: str, key: Key) -> bool:
    """Whether ``key`` (of ``command_type``, one of the decision's types) is among the legal options of the
    awaited ``seat`` now: exactly ``key in OPTIONS[p.decision][command_type](s, seat, p)``."""
    sampled = _last_sample
    if sampled is not None and sampled[0] is s and sampled[1] == s.version and sampled[2] == seat and sampled[3] == key:
        return True
    last = _last_keys
    if last is not None and last[0] is s and last[1] == s.version and last[2] == seat:
        positions = _POSITION.get(p.decision)
        if positions is None:
            positions = _POSITION[p.decision] = {t: i for i, t in enumerate(OPTIONS[p.decision])}
        i = positions[command_type]
        ends = last[4]
        try:
            last[3].index(key, ends[i - 1] if i else 0, ends[i])
        except ValueError:
            return False
        return True
    return key in OPTIONS[p.decision][command_type](s, seat, p)


# =============================================================================================================
# Effects: what an accepted command does, then where the flow goes
# =============================================================================================================
ApplyFn = Callable[[Tx, Any, ev.Prompt], None]
APPLY: dict[tuple[str, str], ApplyFn] = {}


def applies(decision: str, command_type: str) -> Callable[[ApplyFn], ApplyFn]:
    def register(fn: ApplyFn) -> ApplyFn:
        APPLY[(decision, command_type)] = fn
        return fn

    return register


def _target_of(s: GameState, electorate: str, push: str | None) -> tuple[int, int | None]:
    push_i = _space(s, push)
    target = placement_target(s, _eidx(electorate), push_i)
    assert target is not None
    return target, push_i


@applies("setup_empire_city", "PlaceEmpireCity")
def _setup_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    _place_empire_city(tx, c, ("S1",))
    flow.setup_next(tx, 0)


@applies("emperor_place_city", "PlaceEmpireCity")
def _emperor_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    _place_empire_city(tx, c, ("R1",))
    flow.end_round(tx)


def _place_empire_city(tx: Tx, c: Any, rulings: tuple[str, ...]) -> None:
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(E.EmpireCityPlaced(seat=c.seat, space=tx.sid(space), rulings=(*rulings, "X1")))  # type: ignore[arg-type]


@applies("emperor_move_city", "MoveEmpireCity")
def _move_city(tx: Tx, c: Any, p: ev.Prompt) -> None:
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(
        E.EmpireCityMoved(
            seat=c.seat,
            from_space=c.from_space,
            to_space=tx.sid(space),  # type: ignore[arg-type]
            rulings=("R1", "X3"),
        )
    )
    flow.end_round(tx)


@applies("setup_elector", "PlacePiece")
@applies("setup_aristocrat", "PlacePiece")
@applies("setup_knight", "PlacePiece")
def _setup_piece(tx: Tx, c: Any, p: ev.Prompt) -> None:
    s = tx.state
    info = s.layout.electorates[_eidx(c.electorate)]
    if p.decision == "setup_elector":
        tx.emit(
            E.AristocratPlaced(
                owner=c.seat, space=tx.sid(info.elector), couple=False, age=45, reason="setup", rulings=("S2", "S3")
            )
        )
    elif p.decision == "setup_aristocrat":
        space = first_free(s, info.aristocrats)
        tx.emit(
            E.AristocratPlaced(
                owner=c.seat,
                space=tx.sid(space),
                couple=bool(p.couple),
                age=p.age or 15,  # type: ignore[arg-type]
                reason="setup",
                rulings=("S2", "X1"),
            )
        )
    else:
        space = first_free(s, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
        tx.emit(E.KnightPlaced(owner=c.seat, space=tx.sid(space), rulings=("S2", "X1")))  # type: ignore[arg-type]
    flow.setup_next(tx, (p.step or 0) + 1)


@applies("replace_emperor", "ChooseAristocrat")
def _replace_emperor(tx: Tx, c: Any, p: ev.Prompt) -> None:
    rulings = ("A2",) if p.after == "phase_iii" else ("A2", "X11")
    flow.put_on_throne(tx, c.seat, _space(tx.state, c.space), rulings, "emperor_replaced")
    if p.after == "phase_iii":
        flow.begin_phase(tx, tx.state.round, 3)
    else:
        flow.next_turn(tx)


@applies("place_son", "PlacePiece")
def _son(tx: Tx, c: Any, p: ev.Prompt) -> None:
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, False, 15, "son", ("D2", "X1"))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("daughter", "OfferDaughter")
def _offer(tx: Tx, c: Any, p: ev.Prompt) -> None:
    owner = OWNER[tx.state.cells[_space(tx.state, c.space)]]  # type: ignore[index]
    tx.emit(E.DaughterOffered(seat=c.seat, to_seat=owner, space=c.space, rulings=("D3",)))
    request(tx, "marriage_answer", (owner,), ("D3",), offer_from=c.seat, space=c.space, step=p.step)


@applies("daughter", "SendDaughterToConvent")
def _convent(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.convent(tx, c.seat, ("D3",))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("marriage_answer", "AnswerMarriage")
def _answer(tx: Tx, c: Any, p: ev.Prompt) -> None:
    offer_from = p.offer_from
    assert offer_from is not None and p.space is not None
    tx.emit(E.MarriageAnswered(seat=c.seat, offer_from=offer_from, space=p.space, accepted=c.accept, rulings=("D3",)))
    if c.accept:
        tx.emit(E.AristocratMarried(owner=c.seat, space=p.space, reason="marriage", rulings=("D3",)))
        score(tx, offer_from, 1, "daughter married", ("D3",))
    else:
        flow.convent(tx, offer_from, ("D3",))
    flow.descendants_next(tx, (p.step or 0) + 1)


@applies("gray_eminence", "PlacePiece")
def _gray_place(tx: Tx, c: Any, p: ev.Prompt) -> None:
    slot = tx.state.layout.electorates[_eidx(c.electorate)].eminence
    place_from_supply(tx, c.seat, slot, None, False, 45, "gray_eminence", ("P8",))
    flow.electorates_from(tx, 0)


@applies("gray_eminence", "Decline")
def _gray_decline(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.electorates_from(tx, 0)


@applies("break_tie", "BreakTie")
def _break_tie(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    if not flow.resolve_winner(tx, e, c.winner, c.seat):
        flow.electorates_from(tx, e + 1)


@applies("choose_elector", "ChooseAristocrat")
def _choose_elector(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    flow.seat_elector(tx, e, _space(tx.state, c.space))  # type: ignore[arg-type]
    if not flow.settle_displaced(tx, e):
        flow.electorates_from(tx, e + 1)


@applies("place_displaced", "PlacePiece")
def _displaced(tx: Tx, c: Any, p: ev.Prompt) -> None:
    e = p.step or 0
    flow.place_aside(tx, e, _space(tx.state, c.push), True, ("V4", "D2", "X6"))
    flow.finish_electorate(tx, e)
    flow.electorates_from(tx, e + 1)


@applies("aim_church_influence", "AimChurchInfluence")
@applies("aim_excommunication", "AimExcommunication")
def _aim(tx: Tx, c: Any, p: ev.Prompt) -> None:
    card = "church_influence" if c.type == "AimChurchInfluence" else "excommunication"
    tx.emit(E.CardAimed(seat=c.seat, card=card, electorate=c.electorate, rulings=("E1", "X8")))
    flow.aims_next(tx)


@applies("vote", "CastVote")
def _vote(tx: Tx, c: Any, p: ev.Prompt) -> None:
    tx.emit(E.VoteSealed(seat=c.seat, candidate=c.candidate, rulings=("E2",)))
    if not awaited(tx.state):
        flow.reveal_votes(tx)


@applies("choose_throne", "ChooseAristocrat")
def _choose_throne(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.put_on_throne(tx, c.seat, _space(tx.state, c.space), ("E4",), "new_emperor")
    flow.settle_dethroned(tx)


@applies("place_dethroned", "PlacePiece")
def _dethroned(tx: Tx, c: Any, p: ev.Prompt) -> None:
    flow.place_aside(tx, _eidx(c.electorate), _space(tx.state, c.push), True, ("E4", "D2"))
    flow.begin_phase(tx, tx.state.round, 7)


# --- phase IV -----------------------------------------------------------------------------------------------
def _turn(command_type: str) -> Callable[[Callable[[Tx, Any], bool | None]], Callable[[Tx, Any], bool | None]]:
    """Register a phase IV action; after it, the next player's turn unless the action asked for a decision."""

    def register(fn: Callable[[Tx, Any], bool | None]) -> Callable[[Tx, Any], bool | None]:
        def apply(tx: Tx, c: Any, p: ev.Prompt) -> None:
            if not fn(tx, c):
                flow.next_turn(tx)

        APPLY[("actions", command_type)] = apply
        return fn

    return register


def _take_card(tx: Tx, seat: int, card: str, cost: int, trier: bool, rulings: tuple[str, ...]) -> None:
    """The card from its stack, or (``trier``) only its effect by Trier's privilege: no card is taken [P6]."""
    if trier:
        tx.emit(E.CardEffectCopied(seat=seat, card=card, cost=cost, rulings=(*rulings, "P6")))
    else:
        tx.emit(E.CardTaken(seat=seat, card=card, cost=cost, rulings=rulings))
    pay(tx, seat, cost, card, rulings)
    if trier:
        tx.emit(E.PrivilegeUsed(seat=seat, electorate="trier", rulings=("P6", "P7")))


@_turn("Pass")
def _pass(tx: Tx, c: Any) -> None:
    tx.emit(E.Passed(seat=c.seat, rulings=("P1",)))


@_turn("PlaceKnight")
def _place_knight(tx: Tx, c: Any) -> None:
    info = tx.state.layout.electorates[_eidx(c.electorate)]
    space = first_free(tx.state, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
    pay(tx, c.seat, tx.state.layout.constants["knight_cost"], "knight", ("P1",))
    tx.emit(E.KnightPlaced(owner=c.seat, space=tx.sid(space), rulings=("P1", "X1")))  # type: ignore[arg-type]


@_turn("MoveKnight")
def _move_knight(tx: Tx, c: Any) -> None:
    info = tx.state.layout.electorates[_eidx(c.electorate)]
    space = first_free(tx.state, info.aristocrats if c.space_kind == ARISTOCRAT else info.castles)
    pay(tx, c.seat, tx.state.layout.constants["knight_cost"], "knight", ("P1",))
    tx.emit(
        E.KnightMoved(
            owner=c.seat,
            from_space=c.from_space,
            to_space=tx.sid(space),  # type: ignore[arg-type]
            rulings=("P1", "X1", "X2"),
        )
    )


def doctor_effect(tx: Tx, seat: int, target: int, cause: str, rulings: tuple[str, ...]) -> bool:
    """One step younger for an own tile, one step older for an opponent's; past 45 it dies; a dead Emperor
    is replaced at once [P3, A2, A3, X10, X11]. True when that replacement waits for a decision."""
    code = tx.state.cells[target]
    owner, age = OWNER[code], AGE[code]
    if owner == seat:
        tx.emit(
            E.AristocratAgeChanged(
                owner=seat,
                space=tx.sid(target),
                age_before=age,
                age_after=age - 10,
                by=seat,
                cause=cause,
                rulings=rulings,
            )
        )  # type: ignore[arg-type]
        return False
    if age < 45:
        tx.emit(
            E.AristocratAgeChanged(
                owner=owner,
                space=tx.sid(target),
                age_before=age,
                age_after=age + 10,
                by=seat,
                cause=cause,
                rulings=rulings,
            )
        )  # type: ignore[arg-type]
        return False
    kill(tx, target, cause, (*rulings, "A3"))
    if target == tx.state.layout.throne:
        return flow.fill_empty_throne(tx, after="actions")
    return False


@_turn("BuyDoctor")
def _doctor(tx: Tx, c: Any) -> bool:
    _take_card(tx, c.seat, "doctor", tx.state.layout.cards["doctor"].cost, c.trier, ("P2", "P3"))
    return doctor_effect(tx, c.seat, _space(tx.state, c.target), "doctor", ("P3",))  # type: ignore[arg-type]


@_turn("BuyMove")
def _move(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "move", tx.state.layout.cards["move"].cost, c.trier, ("P2", "P4"))
    target, push = _target_of(tx.state, c.electorate, c.push)
    move_tile(tx, _space(tx.state, c.source), target, push, "move_card", ("P4", "D2", "X1"))  # type: ignore[arg-type]


def _simple_apply(command_type: str, card: str, rulings: tuple[str, ...]) -> None:
    @_turn(command_type)
    def _apply(tx: Tx, c: Any) -> None:
        _take_card(tx, c.seat, card, tx.state.layout.cards[card].cost, False, rulings)


_simple_apply("BuyPope", "pope", ("P2", "E1"))
_simple_apply("BuyChurchInfluence", "church_influence", ("P2", "E1"))
_simple_apply("BuyExcommunication", "excommunication", ("P2", "E1"))


@_turn("BuyIndulgence")
def _indulgence(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "indulgence", tx.state.layout.cards["indulgence"].cost, c.trier, ("P2", "P5"))
    score(tx, c.seat, 1, "indulgence", ("P5",))


@_turn("BuyPermit")
def _permit(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "permit", permit_cost(tx.state, c.couple), c.trier, ("P2", "P5"))
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, c.couple, 15, "permit", ("P5", "D2", "X1"))


@_turn("BuyOrdinance")
def _ordinance(tx: Tx, c: Any) -> None:
    s = tx.state
    _take_card(tx, c.seat, "ordinance", s.layout.cards["ordinance"].cost, c.trier, ("P2", "P5"))
    space = first_free(tx.state, tx.state.layout.electorates[_eidx(c.electorate)].cities)
    tx.emit(E.CityPlaced(owner=c.seat, space=tx.sid(space), rulings=("P5", "X1")))  # type: ignore[arg-type]
    placed = cities_of(tx.state, c.seat)
    score(tx, c.seat, 2 if placed == 3 else 1, f"city number {placed}", ("P5",))


@_turn("BuyPromotion")
def _promotion(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "promotion", tx.state.layout.cards["promotion"].cost, c.trier, ("P2", "P5"))
    tx.emit(E.KnightPromoted(owner=c.seat, space=c.knight, rulings=("P5",)))


@_turn("BuyForeignKingsDaughter")
def _fkd(tx: Tx, c: Any) -> None:
    cost = tx.state.layout.cards["foreign_kings_daughter"].cost
    _take_card(tx, c.seat, "foreign_kings_daughter", cost, c.trier, ("P2", "P5"))
    tx.emit(E.AristocratMarried(owner=c.seat, space=c.baron, reason="foreign_kings_daughter", rulings=("P5",)))


@_turn("BuyRival")
def _rival(tx: Tx, c: Any) -> None:
    _take_card(tx, c.seat, "rival", tx.state.layout.cards["rival"].cost, False, ("P1", "X12"))
    tx.emit(E.ActionsEnded(seat=c.seat, rulings=("P1",)))


@_turn("BuyCardWithoutEffect")
def _without_effect(tx: Tx, c: Any) -> None:
    cost = tx.state.layout.cards[c.card].cost
    tx.emit(E.CardTaken(seat=c.seat, card=c.card, cost=cost, without_effect=True, rulings=("P2", "X9")))
    pay(tx, c.seat, cost, c.card, ("P2", "X9"))


@_turn("TakeGrayEminence")
def _gray(tx: Tx, c: Any) -> None:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="brandenburg", rulings=("P7", "P8")))
    tx.emit(E.CardTaken(seat=c.seat, card="gray_eminence", cost=0, rulings=("P8",)))


@_turn("UseKoelnPrivilege")
def _koeln(tx: Tx, c: Any) -> bool:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="koeln", rulings=("P3", "P7")))
    return doctor_effect(tx, c.seat, _space(tx.state, c.target), "koeln", ("P3",))  # type: ignore[arg-type]


@_turn("UsePalatinatePrivilege")
def _palatinate(tx: Tx, c: Any) -> None:
    tx.emit(E.PrivilegeUsed(seat=c.seat, electorate="palatinate", rulings=("P7",)))
    target, push = _target_of(tx.state, c.electorate, c.push)
    place_from_supply(tx, c.seat, target, push, False, 15, "palatinate", ("P7", "D2", "X1"))


missing = {(d, t) for d, fns in OPTIONS.items() for t in fns} - set(APPLY)
assert not missing, f"options without effects: {missing}"

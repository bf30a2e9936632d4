"""How many legal keys each phase IV command type has now, counted without listing them.

The random bot's draw (``actions.sample_key``) is ``rng.choice`` over the whole phase IV listing: it needs the
number of keys, then builds the one it falls on. :func:`counts` gives, per command type in ``PHASE_IV`` order,
``sum(map(block_size, PHASE_IV[type](turn(s, seat))))`` from one pass over the tiles and one over the knights of
the board, without the census's key parts, the Turn or the blocks (what the listing builds, and the draw then
throws away but for one key). tests/games/shadow/test_fast_paths.py checks it against the listing on every phase
IV position of seeded games and their variants.
"""

from __future__ import annotations

from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, Layout
from services.games.shadow.rules.census import tables
from services.games.shadow.rules.command_keys import CARDS_WITHOUT_EFFECT, TRIER_CARDS
from services.games.shadow.rules.queries import BRANDENBURG, KOELN, PALATINATE, TRIER
from services.games.shadow.rules.state import AGE, COUPLE, KNIGHT, OWNER, GameState


class Costs:
    """What the counts read of a layout, by index: its census tables, per space whether it is an aristocrat or a
    castle space, the elector space of each electorate, and the costs of the knights and the cards."""

    __slots__ = (
        "aristocrat", "castle", "church", "doctor", "elector_of", "excommunication", "fkd", "indulgence", "knight",
        "layout", "move", "ordinance", "permit", "permit_couple", "pope", "promotion", "rival", "t",
        "without_effect",
    )  # fmt: skip

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        t = self.t = tables(layout)
        self.aristocrat: tuple[bool, ...] = tuple(kind == ARISTOCRAT for kind in t.kinds)
        self.castle: tuple[bool, ...] = tuple(kind == CASTLE for kind in t.kinds)
        self.elector_of: tuple[int, ...] = tuple(e.elector for e in layout.electorates)
        cost = {key: card.cost for key, card in layout.cards.items()}
        self.knight = layout.constants["knight_cost"]
        self.doctor, self.move, self.pope = cost["doctor"], cost["move"], cost["pope"]
        self.church, self.excommunication = cost["church_influence"], cost["excommunication"]
        self.indulgence, self.permit = cost["indulgence"], cost["permit"]
        self.permit_couple = layout.constants["permit_couple_cost"]
        self.ordinance, self.promotion = cost["ordinance"], cost["promotion"]
        self.fkd, self.rival = cost["foreign_kings_daughter"], cost["rival"]
        self.without_effect: tuple[tuple[str, int], ...] = tuple((card, cost[card]) for card in CARDS_WITHOUT_EFFECT)


_costs: dict[int, Costs] = {}
assert set(TRIER_CARDS) == {
    "doctor",
    "move",
    "indulgence",
    "permit",
    "ordinance",
    "promotion",
    "foreign_kings_daughter",
}


def costs(layout: Layout) -> Costs:
    """The costs of a layout (kept per layout object; layouts are immutable and shared by games)."""
    found = _costs.get(id(layout))
    if found is None or found.layout is not layout:
        found = _costs[id(layout)] = Costs(layout)
    return found


Shape = tuple[int, int, int, tuple[int, ...]]
"""(free knight spaces, ways to place an aristocrat, free city spaces, per electorate its ways to place one)."""


def shape(s: GameState, k: Costs) -> Shape:
    """What the counts ask of the board whoever's turn it is, from the census ``evolve`` keeps: the open
    electorates' free knight spaces (aristocrat and castle), their ways to place an aristocrat (a free aristocrat
    space, else a push of each knight on one [D2]; 0 in a closed electorate) and their free city spaces.

    Worked out once per board: kept on the state (``GameState.shape``), shared by its copies until a piece is
    put or cleared (evolve.py forgets it then), so the turns of a round that leave the board as it is count
    without it."""
    found: Shape | None = s.shape
    if found is not None:
        return found
    free, closed = s.free, s.closed
    aristocrat, electorate_of = k.aristocrat, k.t.electorate_of
    pushable = [0] * len(k.elector_of)  # knights on the aristocrat spaces of each electorate
    for i in s.knights:
        if aristocrat[i]:
            pushable[electorate_of[i]] += 1
    knight_spaces = placements = cities = 0
    for e in range(len(pushable)):
        if e in closed:
            pushable[e] = 0
            continue
        g = 3 * e
        if free[g]:
            knight_spaces += 1
            pushable[e] = 1
        knight_spaces += free[g + 1] > 0
        cities += free[g + 2] > 0
        placements += pushable[e]
    found = s.shape = (knight_spaces, placements, cities, tuple(pushable))
    return found


# Which cards are left in their stack this round, in the order of ``_STOCK``: the latest answer is kept with the
# cards taken it was worked out from (``GameState.taken`` is replaced whole when it changes, and shared by copies).
_STOCK = (
    "doctor", "move", "pope", "church_influence", "excommunication", "indulgence", "permit", "ordinance",
    "promotion", "foreign_kings_daughter", "rival", "gray_eminence",
)  # fmt: skip
_last_stock: tuple[dict[str, int], dict[str, int], tuple[bool, ...]] | None = None


def stock(taken: dict[str, int], sizes: dict[str, int]) -> tuple[bool, ...]:
    """Whether a card of each type of ``_STOCK`` is left in its stack [B5]."""
    global _last_stock
    last = _last_stock
    if last is not None and last[0] is taken and last[1] is sizes:
        return last[2]
    get = taken.get
    found = tuple([get(card, 0) < sizes[card] for card in _STOCK])  # a list first: no generator to resume
    _last_stock = (taken, sizes, found)
    return found


def counts(s: GameState, seat: int) -> list[int]:
    """The number of legal phase IV keys of ``seat`` of each command type, in ``PHASE_IV`` order [P1-P8, X2, X9].

    Each count is the listing's (turn_options.py), rule for rule: the option functions' conditions, and the
    lengths of the census's key parts (free knight spaces, ways to place an aristocrat, free city spaces) and of
    the seat's pieces they combine, counted here instead of built."""
    k = costs(s.layout)
    t = k.t
    knight_spaces, placements, cities, ways = shape(s, k)
    cells = s.cells
    electorate_of, aristocrat = t.electorate_of, k.aristocrat

    # The seat's tiles: on aristocrat spaces (the Move card's sources), Barons the Foreign king's daughter may
    # marry (Tables.marriage), and the Doctor's targets (own above 15, any opponent's; Tables.doctor). A source
    # moves to any other electorate: ``placements`` ways, less those of its own electorate.
    doctor, marriage = t.doctor, t.marriage
    sources = barons = targets = moves = 0
    for i in s.tiles:
        code = cells[i]
        if OWNER[code] == seat:
            if aristocrat[i]:
                sources += 1
                moves += placements - ways[electorate_of[i]]
            if marriage[i] and not COUPLE[code]:
                barons += 1
            if doctor[i] and AGE[code] > 15:
                targets += 1
        elif doctor[i]:
            targets += 1

    # The seat's knights on aristocrat and castle spaces (MoveKnight's sources; on aristocrat spaces Promotion's),
    # less, for each, the free space of its own kind in its own electorate (MoveKnight leaves it out [X2]).
    own_code = KNIGHT + seat
    knights = promotable = stay = 0
    castle, free, group, closed = k.castle, s.free, s.group, s.closed
    for i in s.knights:
        if cells[i] == own_code:
            if aristocrat[i]:
                promotable += 1
            elif not castle[i]:
                continue
            knights += 1
            if free[group[i]] and electorate_of[i] not in closed:
                stay += 1

    # The cards: affordable, and left in their stack this round, or (the Trier cards: every card with a choice of
    # how to get it here) by Trier's privilege [P2, P6].
    thalers = s.thalers[seat]
    sizes = t.stacks.get(len(s.players)) or {card: info.stack_size(s.n) for card, info in s.layout.cards.items()}
    doctor_, move, pope, church, excommunication, indulgence, permit, ordinance, promotion, fkd, rival, gray = stock(
        s.taken, sizes
    )
    used = s.privilege_used
    elector_of = k.elector_of
    if not used[TRIER] and OWNER[cells[elector_of[TRIER]]] == seat:
        doctor_ = move = indulgence = permit = ordinance = promotion = fkd = True
    supply_tiles = s.tiles_in_supply[seat] > 0
    without_effect = 0
    if len(s.players) == 2:
        get = s.taken.get
        without_effect = sum(1 for card, cost in k.without_effect if get(card, 0) < sizes[card] and thalers >= cost)
    can_knight = thalers >= k.knight
    return [
        1,  # Pass
        knight_spaces if can_knight and s.knights_in_supply[seat] > 0 else 0,  # PlaceKnight
        knights * knight_spaces - stay if can_knight and knight_spaces else 0,  # MoveKnight
        targets if doctor_ and thalers >= k.doctor else 0,  # BuyDoctor
        moves if move and thalers >= k.move else 0,  # BuyMove
        int(pope and thalers >= k.pope),  # BuyPope
        int(church and thalers >= k.church),  # BuyChurchInfluence
        int(excommunication and thalers >= k.excommunication),  # BuyExcommunication
        int(indulgence and thalers >= k.indulgence),  # BuyIndulgence
        ((thalers >= k.permit) + (thalers >= k.permit_couple)) * placements if permit and supply_tiles else 0,
        cities if ordinance and thalers >= k.ordinance and s.cities_in_supply[seat] > 0 else 0,  # BuyOrdinance
        promotable if promotion and supply_tiles and thalers >= k.promotion else 0,  # BuyPromotion
        barons if fkd and thalers >= k.fkd else 0,  # BuyForeignKingsDaughter
        int(rival and seat != s.emperor and thalers >= k.rival),  # BuyRival
        without_effect,  # BuyCardWithoutEffect
        int(gray and not used[BRANDENBURG] and OWNER[cells[elector_of[BRANDENBURG]]] == seat),  # TakeGrayEminence
        targets if not used[KOELN] and OWNER[cells[elector_of[KOELN]]] == seat else 0,  # UseKoelnPrivilege
        placements if supply_tiles and not used[PALATINATE] and OWNER[cells[elector_of[PALATINATE]]] == seat else 0,
    ]

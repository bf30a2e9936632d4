"""The flow of a game: what happens on its own between two decisions, and which decision comes next.

Each function runs automatic steps (emitting events) until the game needs a player's decision, which it
requests with a DecisionRequested event, or until the game ends. Functions that may stop at a request return
True when they did. Phases V and VI have their own modules (new_electors.py, election.py).
"""

from __future__ import annotations

from services.games.shadow.rules import election, new_electors
from services.games.shadow.rules.effects import (
    E,
    Tx,
    gain_thalers,
    kill,
    move_tile,
    place_from_supply,
    request,
    score,
)
from services.games.shadow.rules.queries import (
    SAXONY,
    distinct_pushes,
    distinct_spaces,
    elector_owner,
    empire_city_spaces,
    first_free,
    free_city_electorates,
    marriageable_barons,
    open_electorates,
    push_options,
    throne_candidates,
)
from services.games.shadow.rules.state import AGE, CITY_CODE, EMPTY, MAX_SEATS, OWNER, TILE, GameState
from services.rules.facts import maker

SETUP_STEPS = (
    ("setup_elector", False, 45),
    ("setup_aristocrat", True, 35),
    ("setup_aristocrat", False, 25),
    ("setup_aristocrat", True, 15),
    ("setup_knight", None, None),
)
# The most frequent events of the flow, from one tuple in the mirror's order (services/rules/facts.py: ``maker``).
_PHASE = maker(E.PhaseStarted, "round phase rulings type")
_INCOME = maker(E.IncomeCollected, "seat basic own_cities controlled_cities saxony balance lost_to_cap rulings type")
_COUNTED = maker(E.DescendantsCounted, "seat pink blue outcome rulings type")
_G3 = ("G3",)
# The request of a phase IV turn, per seat: one after almost every command of the phase.
_TURNS = tuple(
    E.DecisionRequested(prompt=E.Prompt(decision="actions", seats=(seat,)), rulings=("P1",))
    for seat in range(MAX_SEATS)
)
EMPEROR_ACTIONS = {1: (2, 0, "place"), 2: (2, 0, "place"), 3: (2, 1, "move"), 4: (1, 2, None), 5: (1, 2, None)}
LAST_ROUND = 5


# --- setup ------------------------------------------------------------------------------------------------
def begin_setup(tx: Tx) -> None:
    """The Emperor places the first empire city [S1]."""
    request(tx, "setup_empire_city", (tx.state.emperor,), ("S1",))


def setup_next(tx: Tx, i: int) -> None:
    """Continue the setup placements from placement number ``i`` (five steps, clockwise) [S2]."""
    s = tx.state
    while i < 5 * s.n:
        step, offset = divmod(i, s.n)
        seat = (s.emperor + offset) % s.n
        decision, couple, age = SETUP_STEPS[step]
        if step == 0 and seat == s.emperor:
            tx.emit(
                E.AristocratPlaced(
                    owner=seat, space="throne", couple=False, age=45, reason="setup", rulings=("S2", "X5")
                )
            )
            i += 1
            continue
        request(tx, decision, (seat,), ("S2",), couple=couple, age=age, step=i)
        return
    begin_phase(tx, 1, 4)


# --- phases -------------------------------------------------------------------------------------------------
def begin_phase(tx: Tx, round_: int, phase: int) -> None:
    """Start a phase and run it until a decision is needed: five rounds of phases I to VIII [G3]."""
    tx.emit(_PHASE((round_, phase, _G3, "PhaseStarted")))
    if phase == 1:
        collect_income(tx)
        begin_phase(tx, round_, 2)
    elif phase == 2:
        age_aristocrats(tx)
        if not fill_empty_throne(tx, after="phase_iii"):
            begin_phase(tx, round_, 3)
    elif phase == 3:
        descendants_next(tx, 0)
    elif phase == 4:
        next_turn(tx)
    elif phase == 5:
        new_electors.begin_new_electors(tx)
    elif phase == 6:
        election.begin_election(tx)
    elif phase == 7:
        emperor_actions(tx)
    elif phase == 8:
        begin_phase(tx, round_ + 1, 1)


def collect_income(tx: Tx) -> None:
    """Phase I: 6 + own cities + other players' cities where the player holds the elector, Saxony +2,
    capped at 12 [I1, G2]."""
    s = tx.state
    k = s.layout.constants
    own = [0] * s.n
    controlled = [0] * s.n
    for e in open_electorates(s):
        holder = elector_owner(s, e)
        for i in s.layout.electorates[e].cities:
            code = s.cells[i]
            if CITY_CODE < code < TILE:  # a player's city (not the empire's)
                owner = OWNER[code]
                own[owner] += 1
                if holder is not None and holder != owner:
                    controlled[holder] += 1
    saxony_holder = elector_owner(s, SAXONY) if SAXONY not in s.closed else None
    for seat in range(s.n):
        saxony = k["saxony_income"] if seat == saxony_holder else 0
        total = s.thalers[seat] + k["basic_income"] + own[seat] + controlled[seat] + saxony
        balance = min(total, k["max_thalers"])
        basic, cities, controls, lost = k["basic_income"], own[seat], controlled[seat], total - balance
        tx.emit(_INCOME((seat, basic, cities, controls, saxony, balance, lost, ("I1", "G2"), "IncomeCollected")))


def age_aristocrats(tx: Tx) -> None:
    """Phase II: every tile aged 45 dies, then every other tile ages one step [A1]."""
    s = tx.state
    cells = s.cells
    tiles = [i for i, code in enumerate(cells) if code >= TILE]
    for i in tiles:
        if AGE[cells[i]] == 45:
            kill(tx, i, "old_age", ("A1",))
    cells = tx.state.cells
    survivors = tuple(tx.sid(i) for i in tiles if cells[i] != EMPTY)
    if survivors:
        tx.emit(E.AristocratsAged(spaces=survivors, rulings=("A1",)))


def fill_empty_throne(tx: Tx, after: str) -> bool:
    """The Emperor's player replaces a dead Emperor with one of his aristocrats on an aristocrat space,
    keeping its age, else a Baron aged 45 from supply [A2, X4, X5]."""
    s = tx.state
    if s.cells[s.layout.throne] != EMPTY:
        return False
    candidates = throne_candidates(s, s.emperor, include_eminence=False)
    options = distinct_spaces(s, candidates)
    rulings = ("A2",) if after == "phase_iii" else ("A2", "X11")
    if len(options) > 1:
        request(tx, "replace_emperor", (s.emperor,), rulings, after=after)
        return True
    if options:
        put_on_throne(tx, s.emperor, options[0], (*rulings, "X5"), "emperor_replaced")
    else:
        put_on_throne(tx, s.emperor, None, rulings, "emperor_replaced")
    return False


def put_on_throne(tx: Tx, seat: int, source: int | None, rulings: tuple[str, ...], reason: str) -> None:
    """Move ``source`` to the throne, or with no source a Baron aged 45 from supply; with an empty supply the
    throne stays empty and the player stays Emperor [X4]."""
    s = tx.state
    if source is not None:
        move_tile(tx, source, s.layout.throne, None, reason, rulings)
    elif s.tiles_in_supply[seat] > 0:
        place_from_supply(tx, seat, s.layout.throne, None, False, 45, reason, rulings)
    else:
        tx.emit(
            E.ThroneLeftEmpty(seat=seat, reason="no eligible aristocrat and an empty supply", rulings=(*rulings, "X4"))
        )


# --- phase III ----------------------------------------------------------------------------------------------
def descendants_next(tx: Tx, offset: int) -> None:
    """Resolve descendants one player at a time from the Emperor [D1, G1]; then the cards go back."""
    s = tx.state
    colours = {k: c.colour for k, c in s.layout.cards.items()}
    while offset < s.n:
        seat = (s.emperor + offset) % s.n
        area = s.play_areas[seat]
        pink = sum(1 for c in area if colours.get(c) == "pink")
        blue = sum(1 for c in area if colours.get(c) == "blue")
        outcome = "son" if blue > pink else ("daughter" if pink >= 1 else "none")
        tx.emit(_COUNTED((seat, pink, blue, outcome, ("D1", "B4"), "DescendantsCounted")))
        if outcome == "son" and place_son(tx, seat, offset):
            return
        if outcome == "daughter" and offer_daughter(tx, seat, offset):
            return
        offset += 1
        s = tx.state
    tx.emit(E.CardsReturned(rulings=("D1",)))
    begin_phase(tx, tx.state.round, 4)


def place_son(tx: Tx, seat: int, offset: int) -> bool:
    """A Baron aged 15 from supply onto an aristocrat space of the player's choice [D2, B3]."""
    s = tx.state
    if s.tiles_in_supply[seat] == 0:
        tx.emit(E.SonLost(seat=seat, reason="no tile in supply", rulings=("D2", "B3")))
        return False
    options = [(e, p) for e in open_electorates(s) for p in distinct_pushes(s, push_options(s, e))]
    if not options:
        tx.emit(E.SonLost(seat=seat, reason="no free aristocrat space", rulings=("D2",)))
        return False
    if len(options) == 1:
        e, push = options[0]
        target = first_free(s, s.layout.electorates[e].aristocrats) if push is None else push
        place_from_supply(tx, seat, target, push, False, 15, "son", ("D2", "X5"))  # type: ignore[arg-type]
        return False
    request(tx, "place_son", (seat,), ("D2",), couple=False, age=15, step=offset)
    return True


def offer_daughter(tx: Tx, seat: int, offset: int) -> bool:
    """The player offers the daughter to an opponent's Baron or sends her to the convent [D3]."""
    s = tx.state
    if next(marriageable_barons(s, seat), None) is None:
        convent(tx, seat, ("D3",))
        return False
    request(tx, "daughter", (seat,), ("D3",), step=offset)
    return True


def convent(tx: Tx, seat: int, rulings: tuple[str, ...]) -> None:
    """The daughter joins the convent: +1 thaler [D3, G2]."""
    tx.emit(E.DaughterEnteredConvent(seat=seat, rulings=rulings))
    gain_thalers(tx, seat, 1, "convent", rulings)


# --- phase IV -----------------------------------------------------------------------------------------------
def next_turn(tx: Tx) -> None:
    """The next player clockwise who has not passed takes a turn; when all passed, phase V [P1, G1]."""
    s = tx.state
    n = s.n
    start = s.emperor if s.turn is None else (s.turn + 1) % n
    for offset in range(n):  # clockwise from ``start``
        seat = (start + offset) % n
        if seat not in s.passed:
            tx.emit(_TURNS[seat])  # request(tx, "actions", (seat,), ("P1",)), made once per seat
            return
    begin_phase(tx, s.round, 5)


# --- phase VII and the end ----------------------------------------------------------------------------------
def emperor_actions(tx: Tx) -> None:
    """The Emperor's round action: VP, thalers, and an empire city to place or move [R1, X3]."""
    s = tx.state
    points, thalers, city = EMPEROR_ACTIONS[s.round]
    score(tx, s.emperor, points, f"Emperor in round {s.round}", ("R1",))
    if thalers:
        gain_thalers(tx, s.emperor, thalers, f"Emperor in round {s.round}", ("R1",))
    if city == "place" and s.empire_cities_in_supply > 0 and free_city_electorates(s):
        request(tx, "emperor_place_city", (s.emperor,), ("R1", "X3"))
        return
    if city == "move" and any(movable_empire_city_targets(s, i) for i in empire_city_spaces(s)):
        request(tx, "emperor_move_city", (s.emperor,), ("R1", "X3"))
        return
    end_round(tx)


def movable_empire_city_targets(s: GameState, source: int) -> list[int]:
    """Electorates an empire city on ``source`` may move to: another open electorate with a free city
    space [X3]."""
    here = s.layout.spaces[source].electorate
    return [e for e in free_city_electorates(s) if e != here]


def end_round(tx: Tx) -> None:
    """Phase VIII, or the end after phase VII of round 5 [G3]."""
    s = tx.state
    if s.round < LAST_ROUND:
        begin_phase(tx, s.round, 8)
        return
    best = max(s.vp)
    winners = [seat for seat in range(s.n) if s.vp[seat] == best]
    rulings = ("G3",)
    if len(winners) > 1 and s.settings.thaler_tiebreak:
        most = max(s.thalers[seat] for seat in winners)
        winners = [seat for seat in winners if s.thalers[seat] == most]
    tx.emit(
        E.GameEnded(scores=s.vp, thalers=s.thalers, winners=tuple(winners), shared=len(winners) > 1, rulings=rulings)
    )

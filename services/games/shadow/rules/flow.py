"""The flow of a game: what happens on its own between two decisions, and which decision comes next.

Each function runs automatic steps (emitting events) until the game needs a player's decision, which it
requests with a DecisionRequested event, or until the game ends. Functions that may stop at a request return
True when they did.
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.effects import (
    E,
    Tx,
    gain_thalers,
    kill,
    move_tile,
    place_from_supply,
    request,
    return_to_supply,
    score,
)
from services.games.shadow.rules.queries import (
    MAINZ,
    SAXONY,
    clockwise_from,
    distinct_pushes,
    distinct_spaces,
    elector_candidates,
    elector_owner,
    empire_city_spaces,
    first_free,
    free_city_electorates,
    marriageable_barons,
    open_electorates,
    power_in,
    push_options,
    throne_candidates,
)
from services.games.shadow.rules.state import AGE, CITY_CODE, EMPTY, OWNER, TILE, GameState

SETUP_STEPS = (
    ("setup_elector", False, 45),
    ("setup_aristocrat", True, 35),
    ("setup_aristocrat", False, 25),
    ("setup_aristocrat", True, 15),
    ("setup_knight", None, None),
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
    tx.emit(E.PhaseStarted(round=round_, phase=phase, rulings=("G3",)))
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
        begin_new_electors(tx)
    elif phase == 6:
        begin_election(tx)
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
        tx.emit(
            E.IncomeCollected(
                seat=seat,
                basic=k["basic_income"],
                own_cities=own[seat],
                controlled_cities=controlled[seat],
                saxony=saxony,
                balance=balance,
                lost_to_cap=total - balance,
                rulings=("I1", "G2"),
            )
        )


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
        tx.emit(E.DescendantsCounted(seat=seat, pink=pink, blue=blue, outcome=outcome, rulings=("D1", "B4")))
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
            request(tx, "actions", (seat,), ("P1",))
            return
    begin_phase(tx, s.round, 5)


# --- phase V ------------------------------------------------------------------------------------------------
def begin_new_electors(tx: Tx) -> None:
    """Phase V: optional Mainz bonus for the elector at the start, the Gray eminence, then each electorate."""
    s = tx.state
    if s.settings.mainz_bonus == "elector_at_phase_v_start" and MAINZ not in s.closed:
        holder = elector_owner(s, MAINZ)
        if holder is not None:
            score(tx, holder, 1, "mainz", ("V5",))
    holder = next((seat for seat in range(s.n) if "gray_eminence" in s.play_areas[seat]), None)
    if holder is not None and s.tiles_in_supply[holder] > 0:
        request(tx, "gray_eminence", (holder,), ("P8", "X13"))
        return
    electorates_from(tx, 0)


def electorates_from(tx: Tx, e: int) -> None:
    """Decide the seats of electorates ``e``.. in board order [V1-V5]; then phase VI."""
    s = tx.state
    while e < len(s.layout.electorates):
        if e in s.closed:
            e += 1
            continue
        power = power_in(s, e)
        top = max(power)
        if top == 0:  # nobody has power (so no elector either, V1): the empty seat stays empty [V2]
            tx.emit(
                E.ElectorSeatStaysEmpty(
                    electorate=s.layout.electorates[e].key, winner=None, power=power, rulings=("V1", "V2")
                )
            )
            finish_electorate(tx, e)
            e += 1
            s = tx.state
            continue
        tied = tuple(seat for seat in range(s.n) if power[seat] == top)
        if len(tied) > 1:
            request(tx, "break_tie", (s.emperor,), ("V2",), electorate=s.layout.electorates[e].key, tied=tied, step=e)
            return
        if resolve_winner(tx, e, tied[0], None):
            return
        e += 1
        s = tx.state
    begin_phase(tx, s.round, 6)


def resolve_winner(tx: Tx, e: int, winner: int, tie_broken_by: int | None) -> bool:
    """Seat the winner's aristocrat (or keep the incumbent), place the displaced elector [V3, V4]."""
    s = tx.state
    info = s.layout.electorates[e]
    incumbent = elector_owner(s, e)
    power = power_in(s, e)
    rulings = ("V1", "V2") if tie_broken_by is None else ("V1", "V2", "G1")
    if winner == incumbent:
        tx.emit(
            E.ElectorRetained(
                electorate=info.key, owner=incumbent, power=power, tie_broken_by=tie_broken_by, rulings=rulings
            )
        )
        finish_electorate(tx, e)
        return False
    candidates = elector_candidates(s, winner, e)
    if incumbent is None and not candidates:  # nothing changes: the empty seat stays empty, nobody scores [V4]
        tx.emit(
            E.ElectorSeatStaysEmpty(
                electorate=info.key, winner=winner, power=power, tie_broken_by=tie_broken_by, rulings=(*rulings, "V4")
            )
        )
        return settle_displaced(tx, e)
    tx.emit(
        E.ElectorChanged(
            electorate=info.key,
            previous_owner=incumbent,
            new_owner=winner if candidates else None,
            winner=winner,
            power=power,
            tie_broken_by=tie_broken_by,
            rulings=(*rulings, "V3", "V4"),
        )
    )
    if incumbent is not None:
        move_tile(tx, info.elector, s.layout.aside, None, "elector_displaced", ("V4",))
    options = distinct_spaces(tx.state, candidates)
    if len(options) > 1:
        request(tx, "choose_elector", (winner,), ("V4",), electorate=info.key, step=e)
        return True
    if options:
        seat_elector(tx, e, options[0])
    return settle_displaced(tx, e)


def seat_elector(tx: Tx, e: int, source: int) -> None:
    """The chosen tile takes the seat and its owner scores 2 VP [V3, V4]."""
    s = tx.state
    owner = OWNER[s.cells[source]]
    move_tile(tx, source, s.layout.electorates[e].elector, None, "new_elector", ("V4",))
    score(tx, owner, 2, f"new elector in {s.layout.electorates[e].name}", ("V3",))


def settle_displaced(tx: Tx, e: int) -> bool:
    """The displaced elector goes to a free aristocrat space of the electorate, pushing a knight if there is
    none (its owner chooses which), else to supply [V4, D2, X6]; then the electorate is finished."""
    s = tx.state
    aside = s.cells[s.layout.aside]
    if aside != EMPTY:
        pushes = push_options(s, e)
        distinct = distinct_pushes(s, pushes)
        if len(distinct) > 1:
            request(
                tx,
                "place_displaced",
                (OWNER[aside],),
                ("V4", "D2", "X6"),
                electorate=s.layout.electorates[e].key,
                step=e,
            )
            return True
        place_aside(tx, e, distinct[0] if distinct else None, bool(distinct), ("V4",))
    finish_electorate(tx, e)
    return False


def place_aside(tx: Tx, e: int, push: int | None, has_room: bool, rulings: tuple[str, ...]) -> None:
    """Put the set-aside tile on an aristocrat space of ``e`` (or back to supply if there is no room)."""
    s = tx.state
    if not has_room:
        return_to_supply(tx, s.layout.aside, "no free aristocrat space", rulings)
        return
    target = first_free(s, s.layout.electorates[e].aristocrats) if push is None else push
    move_tile(tx, s.layout.aside, target, push, "placed_aside_tile", rulings)  # type: ignore[arg-type]


def finish_electorate(tx: Tx, e: int) -> None:
    """Mainz's elector takes 1 VP once its seat is decided [V5]."""
    s = tx.state
    if e == MAINZ and s.settings.mainz_bonus == "seat_holder_after_phase_v":
        holder = elector_owner(s, MAINZ)
        if holder is not None:
            score(tx, holder, 1, "elector of Mainz", ("V5",))


# --- phase VI -----------------------------------------------------------------------------------------------
def begin_election(tx: Tx) -> None:
    """Phase VI happens only when a Rival was taken [E1]."""
    s = tx.state
    if s.rival is None:
        begin_phase(tx, s.round, 7)
        return
    tx.emit(E.ElectionCalled(emperor=s.emperor, rival=s.rival, rulings=("E1",)))
    aims_next(tx)


def aims_next(tx: Tx) -> None:
    """Church influence and Excommunication are aimed clockwise from the Emperor [E1, X8]; then votes."""
    s = tx.state
    aimed = {card for card, _ in s.aims}
    for seat in clockwise_from(s, s.emperor):
        for card, decision in (
            ("church_influence", "aim_church_influence"),
            ("excommunication", "aim_excommunication"),
        ):
            if card in s.play_areas[seat] and card not in aimed:
                request(tx, decision, (seat,), ("E1", "X8"))
                return
    open_votes(tx)


def open_votes(tx: Tx) -> None:
    """Every player other than the candidates votes in secret [E2]."""
    s = tx.state
    voters = tuple(seat for seat in clockwise_from(s, s.emperor) if seat not in (s.emperor, s.rival))
    if voters:
        request(tx, "vote", voters, ("E2",))
    else:
        reveal_votes(tx)


def vote_tally(s: GameState) -> list[list[Any]]:
    """Each player's votes and their sources [E1]."""
    sources: list[list[Any]] = [[] for _ in range(s.n)]
    aims = dict(s.aims)
    excommunicated = aims.get("excommunication")
    for e in open_electorates(s):
        holder = elector_owner(s, e)
        if holder is None:
            continue
        info = s.layout.electorates[e]
        votes = 2 if info.key == "bohemia" else 1
        if e == excommunicated:
            sources[holder].append(E.VoteSource(source=f"elector of {info.name} (excommunicated)", votes=0))
        else:
            sources[holder].append(E.VoteSource(source=f"elector of {info.name}", votes=votes))
    for seat in range(s.n):
        if "pope" in s.play_areas[seat]:
            sources[seat].append(E.VoteSource(source="Pope", votes=s.play_areas[seat].count("pope")))
    church = aims.get("church_influence")
    if church is not None:
        holder = elector_owner(s, church)
        if holder is not None:
            info = s.layout.electorates[church]
            pieces = sum(
                1
                for i in (info.elector, info.eminence, *info.aristocrats, *info.castles)
                if s.cells[i] != EMPTY and not CITY_CODE <= s.cells[i] < TILE and OWNER[s.cells[i]] == holder
            )
            sources[holder].append(E.VoteSource(source=f"Church influence in {info.name}", votes=pieces))
    return sources


def reveal_votes(tx: Tx) -> None:
    """All votes are revealed together; the Emperor wins ties; backers of the winner score [E2, E3]."""
    s = tx.state
    emperor, rival = s.emperor, s.rival
    assert rival is not None
    sources = vote_tally(s)
    ballots = []
    totals = {"emperor": 0, "rival": 0}
    for seat in range(s.n):
        candidate = "emperor" if seat == emperor else "rival" if seat == rival else s.votes[seat]
        votes = sum(src.votes for src in sources[seat])
        totals[candidate] += votes  # type: ignore[index]
        ballots.append(E.SeatVotes(seat=seat, candidate=candidate, votes=votes, sources=tuple(sources[seat])))  # type: ignore[arg-type]
    winner_side = "rival" if totals["rival"] > totals["emperor"] else "emperor"
    winner = rival if winner_side == "rival" else emperor
    tx.emit(
        E.VotesRevealed(
            emperor=emperor,
            rival=rival,
            ballots=tuple(ballots),
            emperor_votes=totals["emperor"],
            rival_votes=totals["rival"],
            winner=winner,
            rulings=("E1", "E2"),
        )
    )
    for ballot in ballots:
        if ballot.seat in (emperor, rival) or ballot.candidate != winner_side:
            continue
        if s.settings.backer_vp_requires_votes and ballot.votes == 0:
            continue
        score(tx, ballot.seat, 1, "voted for the winner", ("E3",))
    if winner == emperor:
        tx.emit(
            E.EmperorRetained(
                seat=emperor, emperor_votes=totals["emperor"], rival_votes=totals["rival"], rulings=("E2",)
            )
        )
        begin_phase(tx, s.round, 7)
        return
    tx.emit(
        E.EmperorElected(
            seat=rival,
            previous=emperor,
            emperor_votes=totals["emperor"],
            rival_votes=totals["rival"],
            rulings=("E2", "E4"),
        )
    )
    if tx.state.cells[s.layout.throne] != EMPTY:
        move_tile(tx, s.layout.throne, s.layout.aside, None, "dethroned", ("E4",))
    options = distinct_spaces(tx.state, throne_candidates(tx.state, rival, include_eminence=True))
    if len(options) > 1:
        request(tx, "choose_throne", (rival,), ("E4",))
        return
    put_on_throne(tx, rival, options[0] if options else None, ("E4",), "new_emperor")
    settle_dethroned(tx)


def settle_dethroned(tx: Tx) -> None:
    """The old Emperor's tile goes to a free aristocrat space of an electorate of his choice (push per D2),
    else to supply [E4]; then phase VII."""
    s = tx.state
    aside = s.cells[s.layout.aside]
    if aside != EMPTY:
        options = [(e, p) for e in open_electorates(s) for p in distinct_pushes(s, push_options(s, e))]
        if len(options) > 1:
            request(tx, "place_dethroned", (OWNER[aside],), ("E4", "D2"))
            return
        if options:
            place_aside(tx, options[0][0], options[0][1], True, ("E4", "X5"))
        else:
            place_aside(tx, 0, None, False, ("E4",))
    begin_phase(tx, s.round, 7)


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

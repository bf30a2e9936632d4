"""Phase V, new electors: each open electorate in turn goes to the strongest, ties broken, the displaced piece
settled; then phase VI. ``flow`` (imported as a module: it dispatches here) starts the next phase.
"""

from __future__ import annotations

from services.games.shadow.rules import flow
from services.games.shadow.rules.effects import (
    E,
    Tx,
    move_tile,
    request,
    return_to_supply,
    score,
)
from services.games.shadow.rules.queries import (
    MAINZ,
    distinct_pushes,
    distinct_spaces,
    elector_candidates,
    elector_owner,
    first_free,
    power_in,
    push_options,
)
from services.games.shadow.rules.state import EMPTY, OWNER
from services.rules.facts import maker

# Phase V's most frequent events, from one tuple in the mirror's order (services/rules/facts.py: ``maker``).
_RETAINED = maker(E.ElectorRetained, "electorate owner power rulings type tie_broken_by")
_CHANGED = maker(E.ElectorChanged, "electorate previous_owner new_owner winner power rulings type tie_broken_by")


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
        if resolve_winner(tx, e, tied[0], None, power):
            return
        e += 1
        s = tx.state
    flow.begin_phase(tx, s.round, 6)


def resolve_winner(
    tx: Tx, e: int, winner: int, tie_broken_by: int | None, power: tuple[int, ...] | None = None
) -> bool:
    """Seat the winner's aristocrat (or keep the incumbent), place the displaced elector [V3, V4]; ``power``: the
    seats' power in ``e`` when the caller has it (:func:`power_in`)."""
    s = tx.state
    info = s.layout.electorates[e]
    incumbent = elector_owner(s, e)
    if power is None:
        power = power_in(s, e)
    rulings = ("V1", "V2") if tie_broken_by is None else ("V1", "V2", "G1")
    if winner == incumbent:
        tx.emit(_RETAINED((info.key, incumbent, power, rulings, "ElectorRetained", tie_broken_by)))
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
    new_owner = winner if candidates else None
    cite = (*rulings, "V3", "V4")
    tx.emit(_CHANGED((info.key, incumbent, new_owner, winner, power, cite, "ElectorChanged", tie_broken_by)))
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

"""Phase VI, the election: aims, sealed votes revealed and tallied, the throne won and the dethroned settled;
then phase VII. ``flow`` (imported as a module: it dispatches here) starts the next phase.
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules import flow, new_electors
from services.games.shadow.rules.effects import (
    E,
    Tx,
    move_tile,
    request,
    score,
)
from services.games.shadow.rules.queries import (
    clockwise_from,
    distinct_pushes,
    distinct_spaces,
    elector_owner,
    open_electorates,
    push_options,
    throne_candidates,
)
from services.games.shadow.rules.state import CITY_CODE, EMPTY, OWNER, TILE, GameState


# --- phase VI -----------------------------------------------------------------------------------------------
def begin_election(tx: Tx) -> None:
    """Phase VI happens only when a Rival was taken [E1]."""
    s = tx.state
    if s.rival is None:
        flow.begin_phase(tx, s.round, 7)
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
        flow.begin_phase(tx, s.round, 7)
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
    flow.put_on_throne(tx, rival, options[0] if options else None, ("E4",), "new_emperor")
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
            new_electors.place_aside(tx, options[0][0], options[0][1], True, ("E4", "X5"))
        else:
            new_electors.place_aside(tx, 0, None, False, ("E4",))
    flow.begin_phase(tx, s.round, 7)

"""Why an event happened, told for a referee: the decision, the inputs that decided it (power tallies, vote
sources, income parts) and the ruling ids it cites (see RULES.md). Read-only: it never re-runs a rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from events.base import Event
from services.games.shadow.messages import events as ev
from services.games.shadow.presentation.labels import electorate_name
from services.games.shadow.presentation.words import describe


def _names(players: Sequence[str]) -> Callable[[int | None], str]:
    def name(i: int | None) -> str:
        if i is None:
            return "nobody"
        return players[i] if 0 <= i < len(players) else f"seat {i}"

    return name


def _tally(power: Sequence[int], p: Callable[[int | None], str]) -> str:
    return ", ".join(f"{p(i)} {v}" for i, v in enumerate(power))


def _elector_changed(e: ev.ElectorChanged, p: Callable[[int | None], str]) -> str:
    top = max(e.power) if e.power else 0
    tied = [i for i, v in enumerate(e.power) if v == top]
    why = f"the power in {electorate_name(e.electorate)} was {_tally(e.power, p)}"
    if e.tie_broken_by is not None:
        tied_names = ", ".join(p(i) for i in tied)
        why += f"; {tied_names} tied with {top} and the Emperor {p(e.tie_broken_by)} chose {p(e.winner)}"
    else:
        why += f"; {p(e.winner)} had the most ({top})"
    if e.new_owner is None:
        outcome = (
            f"{p(e.previous_owner)}'s elector leaves and the seat is empty: {p(e.winner)} had no aristocrat there "
            "that may sit as elector"
        )
    else:
        outcome = f"{p(e.new_owner)} takes the elector seat"
        if e.previous_owner is not None:
            outcome += f" from {p(e.previous_owner)}"
    return f"Phase V: {why}, so {outcome}."


def _elector_retained(e: ev.ElectorRetained, p: Callable[[int | None], str]) -> str:
    who = f"{p(e.owner)} keeps the seat"
    tie = f" (tie broken by the Emperor {p(e.tie_broken_by)})" if e.tie_broken_by is not None else ""
    return (
        f"Phase V: the power in {electorate_name(e.electorate)} was {_tally(e.power, p)}; nobody else had more, "
        f"so {who}{tie}."
    )


def _seat_stays_empty(e: ev.ElectorSeatStaysEmpty, p: Callable[[int | None], str]) -> str:
    why = f"the power in {electorate_name(e.electorate)} was {_tally(e.power, p)}"
    if e.winner is None:
        return f"Phase V: {why}; nobody had any, so the empty seat stays empty."
    tie = f" (tie broken by the Emperor {p(e.tie_broken_by)})" if e.tie_broken_by is not None else ""
    return (
        f"Phase V: {why}; {p(e.winner)} had the most{tie} but no aristocrat there that may sit as elector, "
        "so the empty seat stays empty and nobody scores."
    )


def _votes_revealed(e: ev.VotesRevealed, p: Callable[[int | None], str]) -> str:
    ballots = []
    for b in e.ballots:
        sources = ", ".join(f"{s.source}: {s.votes}" for s in b.sources) or "no source of votes"
        ballots.append(f"{p(b.seat)} gave {b.votes} to the {b.candidate} ({sources})")
    tie = " (a tie, which the Emperor wins)" if e.emperor_votes == e.rival_votes else ""
    return (
        f"Election between the Emperor {p(e.emperor)} and the Rival {p(e.rival)}: " + "; ".join(ballots)
        + f". Totals: Emperor {e.emperor_votes}, Rival {e.rival_votes}{tie}, so {p(e.winner)} wins."
    )  # fmt: skip


def _income(e: ev.IncomeCollected, p: Callable[[int | None], str]) -> str:
    total = e.basic + e.own_cities + e.controlled_cities + e.saxony
    cap = f"; {e.lost_to_cap} lost to the 12-thaler cap" if e.lost_to_cap else ""
    return (
        f"Phase I: {p(e.seat)} earns {e.basic} basic + {e.own_cities} for own cities + {e.controlled_cities} for "
        f"controlled cities + {e.saxony} from Saxony = {total}{cap}; balance {e.balance}."
    )


def _ended(e: ev.GameEnded, p: Callable[[int | None], str]) -> str:
    scores = ", ".join(f"{p(i)} {v} VP ({e.thalers[i]} thalers)" for i, v in enumerate(e.scores))
    how = "shared between the players tied on VP" if e.shared else "to the most victory points"
    return f"The game ends: {scores}; victory goes {how}: {', '.join(p(w) for w in e.winners)}."


def _descendants(e: ev.DescendantsCounted, p: Callable[[int | None], str]) -> str:
    result = {"son": "a son", "daughter": "a daughter", "none": "no descendant"}[e.outcome]
    return f"Phase III: {p(e.seat)}'s cards show {e.pink} pink and {e.blue} blue, which gives {result}."


_WHY: dict[str, Callable[[Any, Callable[[int | None], str]], str]] = {
    "ElectorChanged": _elector_changed,
    "ElectorRetained": _elector_retained,
    "ElectorSeatStaysEmpty": _seat_stays_empty,
    "VotesRevealed": _votes_revealed,
    "IncomeCollected": _income,
    "GameEnded": _ended,
    "DescendantsCounted": _descendants,
}


def explain_event(event: Event, players: Sequence[str] = ()) -> str:
    """One or two sentences: what the event records, the inputs that decided it, and its rulings."""
    fn = _WHY.get(event.type)  # type: ignore[attr-defined]
    text = fn(event, _names(players)) if fn is not None else describe(event, players)
    rulings = ", ".join(event.rulings)
    return f"{text} Rulings: {rulings}." if rulings else f"{text} (no ruling cited)"


def deciding_inputs(event: Event) -> dict[str, Any]:
    """The recorded inputs of a decision event (every field but its type and rulings), JSON-ready."""
    data = event.to_dict()
    data.pop("type", None)
    data.pop("rulings", None)
    return data

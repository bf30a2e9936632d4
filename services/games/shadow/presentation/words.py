"""Events in plain words, for logs, replays, chat-bots and referees."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from events.base import Event
from services.games.shadow.messages import events as ev
from services.games.shadow.presentation.names import electorate_name as _e
from services.games.shadow.presentation.names import space_name as _sp
from services.games.shadow.presentation.prompts import waiting

PHASES = {
    1: "I Income",
    2: "II Aging",
    3: "III Descendants",
    4: "IV Actions",
    5: "V New electors",
    6: "VI Elect Emperor",
    7: "VII Emperor action",
    8: "VIII Move round marker",
}
CARD_NAMES = {
    "doctor": "Doctor",
    "move": "Move",
    "pope": "Pope",
    "church_influence": "Church influence",
    "excommunication": "Excommunication",
    "indulgence": "Indulgence",
    "permit": "Permit",
    "ordinance": "Ordinance",
    "promotion": "Promotion",
    "foreign_kings_daughter": "Foreign king's daughter",
    "rival": "Rival",
    "gray_eminence": "Gray eminence",
}


def _tile(couple: bool) -> str:
    return "Couple" if couple else "Baron"


def describe(event: Event, players: Sequence[str]) -> str:
    """One sentence for one event."""
    if event.type == "DecisionRequested":  # type: ignore[attr-defined]
        return waiting(event.prompt, players)  # type: ignore[attr-defined]
    fn = _TEXT.get(event.type)  # type: ignore[attr-defined]
    text = fn(event, lambda i: players[i] if i is not None and 0 <= i < len(players) else "nobody") if fn else ""
    return text or event.type  # type: ignore[attr-defined]


def _votes(e: ev.VotesRevealed, p: Callable[[int], str]) -> str:
    parts = []
    for b in e.ballots:
        src = ", ".join(f"{s.source} {s.votes}" for s in b.sources) or "no votes"
        parts.append(f"{p(b.seat)} {b.votes} for the {b.candidate} ({src})")
    return (
        f"Votes revealed: Emperor {e.emperor_votes}, Rival {e.rival_votes}; "
        + "; ".join(parts)
        + f". {p(e.winner)} wins."
    )


_TEXT: dict[str, Callable[[Any, Callable[[int | None], str]], str]] = {
    "GameStarted": lambda e, p: f"A game starts: {', '.join(e.players)}; {p(e.emperor)} is the first Emperor.",
    "ElectoratesClosed": lambda e, p: f"Closed for this two-player game: {', '.join(_e(k) for k in e.electorates)}.",
    "PhaseStarted": lambda e, p: f"Round {e.round}, phase {PHASES[e.phase]}.",
    "GameEnded": lambda e, p: (
        f"The game ends. Scores: {', '.join(f'{p(i)} {v}' for i, v in enumerate(e.scores))}. "
        + ("Shared victory: " if e.shared else "Winner: ")
        + ", ".join(p(w) for w in e.winners)
        + "."
    ),
    "EmpireCityPlaced": lambda e, p: f"{p(e.seat)} places an empire city on {_sp(e.space)}.",
    "EmpireCityMoved": lambda e, p: f"{p(e.seat)} moves an empire city from {_sp(e.from_space)} to {_sp(e.to_space)}.",
    "AristocratPlaced": lambda e, p: (
        f"{p(e.owner)} places a {_tile(e.couple)} aged {e.age} on {_sp(e.space)} ({e.reason.replace('_', ' ')})."
    ),
    "AristocratMoved": lambda e, p: (
        f"{p(e.owner)}'s aristocrat moves from {_sp(e.from_space)} to {_sp(e.to_space)} ({e.reason.replace('_', ' ')})."
    ),
    "AristocratReturned": lambda e, p: f"{p(e.owner)}'s aristocrat on {_sp(e.space)} goes back to supply ({e.reason}).",
    "AristocratDied": lambda e, p: (
        f"{p(e.owner)}'s {_tile(e.couple)} on {_sp(e.space)} dies ({e.cause.replace('_', ' ')})."
    ),
    "AristocratsAged": lambda e, p: f"{len(e.spaces)} aristocrats grow one life stage older.",
    "AristocratAgeChanged": lambda e, p: (
        f"{p(e.by)} uses {'the Doctor' if e.cause == 'doctor' else 'the privilege of Köln'}: "
        f"{p(e.owner)}'s aristocrat on {_sp(e.space)} goes from {e.age_before} to {e.age_after}."
    ),
    "ThroneLeftEmpty": lambda e, p: f"{p(e.seat)} has no tile for the throne: it stays empty ({e.reason}).",
    "AristocratMarried": lambda e, p: f"{p(e.owner)}'s Baron on {_sp(e.space)} marries and becomes a Couple.",
    "KnightPlaced": lambda e, p: f"{p(e.owner)} places a knight on {_sp(e.space)}.",
    "KnightMoved": lambda e, p: f"{p(e.owner)} moves a knight from {_sp(e.from_space)} to {_sp(e.to_space)}.",
    "KnightPushed": lambda e, p: f"{p(e.owner)}'s knight on {_sp(e.space)} is pushed back to supply by {p(e.by)}.",
    "KnightPromoted": lambda e, p: f"{p(e.owner)}'s knight on {_sp(e.space)} is promoted to a Baron aged 15.",
    "CityPlaced": lambda e, p: f"{p(e.owner)} builds a city on {_sp(e.space)}.",
    "IncomeCollected": lambda e, p: f"{p(e.seat)} collects income: {_income(e)}.",
    "ThalersChanged": lambda e, p: (
        f"{p(e.seat)} {'gains' if e.delta >= 0 else 'pays'} {abs(e.delta)} "
        f"thaler(s) for {e.reason.replace('_', ' ')}: now {e.balance}."
    ),
    "VictoryPointsScored": lambda e, p: f"{p(e.seat)} scores {e.points} VP ({e.reason}): total {e.total}.",
    "DescendantsCounted": lambda e, p: (
        f"{p(e.seat)} has {e.pink} pink and {e.blue} blue cards: "
        + {"son": "a son", "daughter": "a daughter", "none": "no descendants"}[e.outcome]
        + "."
    ),
    "SonLost": lambda e, p: f"{p(e.seat)}'s son can not be placed ({e.reason}).",
    "DaughterOffered": lambda e, p: f"{p(e.seat)} offers a daughter to {p(e.to_seat)}'s Baron on {_sp(e.space)}.",
    "MarriageAnswered": lambda e, p: f"{p(e.seat)} {'accepts' if e.accepted else 'declines'} the marriage.",
    "DaughterEnteredConvent": lambda e, p: f"{p(e.seat)}'s daughter enters the convent.",
    "CardsReturned": lambda e, p: "The action cards go back to their stacks.",
    "CardTaken": lambda e, p: (
        f"{p(e.seat)} takes {CARD_NAMES.get(e.card, e.card)}" + (" without effect" if e.without_effect else "") + "."
    ),
    "CardEffectCopied": lambda e, p: (
        f"{p(e.seat)} uses Trier's privilege for the effect of {CARD_NAMES.get(e.card, e.card)} (no card taken)."
    ),
    "PrivilegeUsed": lambda e, p: f"{p(e.seat)} uses the privilege of {_e(e.electorate)}.",
    "Passed": lambda e, p: f"{p(e.seat)} passes.",
    "ActionsEnded": lambda e, p: f"{p(e.seat)} took Rival and is done for phase IV.",
    "ElectorChanged": lambda e, p: (
        f"Power in {_e(e.electorate)}: {', '.join(f'{p(i)} {v}' for i, v in enumerate(e.power))}. "
        + (
            f"{p(e.new_owner)} becomes elector"
            if e.new_owner is not None
            else f"{p(e.winner)} wins but has no suitable aristocrat; the seat is empty"
        )
        + (f", replacing {p(e.previous_owner)}" if e.previous_owner is not None else "")
        + (f" (tie broken by the Emperor {p(e.tie_broken_by)})" if e.tie_broken_by is not None else "")
        + "."
    ),
    "ElectorRetained": lambda e, p: (
        f"Power in {_e(e.electorate)}: {', '.join(f'{p(i)} {v}' for i, v in enumerate(e.power))}. "
        + f"{p(e.owner)} stays elector"
        + (f" (tie broken by the Emperor {p(e.tie_broken_by)})" if e.tie_broken_by is not None else "")
        + "."
    ),
    "ElectorSeatStaysEmpty": lambda e, p: (
        f"Power in {_e(e.electorate)}: {', '.join(f'{p(i)} {v}' for i, v in enumerate(e.power))}. "
        + (
            "Nobody has power there"
            if e.winner is None
            else f"{p(e.winner)} wins but has no aristocrat that may sit as elector"
        )
        + (f" (tie broken by the Emperor {p(e.tie_broken_by)})" if e.tie_broken_by is not None else "")
        + "; the seat stays empty."
    ),
    "ElectionCalled": lambda e, p: f"{p(e.rival)} challenges the Emperor {p(e.emperor)}: an election.",
    "CardAimed": lambda e, p: f"{p(e.seat)} aims {CARD_NAMES[e.card]} at {_e(e.electorate)}.",
    "VoteSealed": lambda e, p: f"{p(e.seat)} seals a vote.",
    "VotesRevealed": _votes,
    "EmperorElected": lambda e, p: f"{p(e.seat)} is elected Emperor ({e.rival_votes} to {e.emperor_votes}).",
    "EmperorRetained": lambda e, p: f"{p(e.seat)} remains Emperor ({e.emperor_votes} to {e.rival_votes}).",
}


def _income(e: ev.IncomeCollected) -> str:
    """Income as arithmetic: ``6 (basic) + 1 (own cities) + 0 (controlled cities) = 7, now 10 thalers``; the
    Saxony term only when it counts, the cap's cut only when it cut."""
    terms = [f"{e.basic} (basic)", f"{e.own_cities} (own cities)", f"{e.controlled_cities} (controlled cities)"]
    if e.saxony:
        terms.append(f"{e.saxony} (Saxony)")
    total = e.basic + e.own_cities + e.controlled_cities + e.saxony
    capped = f" ({e.lost_to_cap} lost to the cap)" if e.lost_to_cap else ""
    return f"{' + '.join(terms)} = {total}, now {e.balance} thalers{capped}"

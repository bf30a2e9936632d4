"""Plain words for events, citing the rulings [K1-K44, KX1-KX13]; spaces, cards and Emperors by the names of
names.py (command labels and menus are in menus.py). Nothing here reveals a secret: a hand, a draw, what
Frumentarii showed and the deck orders are described by their sizes only [K14]."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.games.barracks.presentation.names import card_words, emperor_words, space_name
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS, SUITS

__all__ = ["FACTIONS", "SUITS", "card_words", "describe", "explain"]


def _who(seat: int | None, players: Sequence[str], rival: str | None = None) -> str:
    if seat is None:
        return f"the rival claimant {rival}" if rival else "no one"
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def _emperors(ids: Sequence[str]) -> str:
    return ", ".join(emperor_words(x) for x in ids)


def _cards(ids: Sequence[str]) -> str:
    return ", ".join(card_words(c) for c in ids) or "nothing"


_PLACEMENT = {
    "faction": "",
    "force_march": " off its faction's sides (Force March)",
    "praetorian_guard": ", displacing the card there",
    "foederati": ", replacing the barbarian there",
    "triumph": ", taking the barbarian there",
    "rival": ", by the rival claimant's priorities",
    "rival_chosen": ", where the solo player chose",
}
_ABILITY = {
    "none": "", "always_on": "; its ability is always on", "used": "; ability used", "declined": "; ability declined",
    "no_target": "; its ability has no legal target", "suppressed": "; its ability is suppressed by a Demagogue",
}  # fmt: skip


def _describers() -> dict[Any, Callable[[Any, Sequence[str]], str]]:
    return {
        F.GameStarted: lambda e, p: (
            "A game of The Barracks Emperors begins: "
            + ", ".join(f"{name} ({'+'.join(fs)})" for name, fs in zip(e.players, e.seats, strict=True))
            + (f"; rival claimants: {', '.join(e.rivals)}" if e.rivals else "")
            + "."
        ),
        F.EmperorDeckShuffled: lambda e, p: f"The {len(e.order)} Emperors of the round deck are shuffled.",
        F.RoundStarted: lambda e, p: (
            f"Round {e.round} begins; {_who(e.first_seat, p, e.first_faction)} ({e.first_faction}) plays first."
        ),
        F.BarbariansSet: lambda e, p: (
            f"{len(e.placed)} barbarians start on "
            + ", ".join(space_name(s) for s, _ in e.placed)
            + f"; {len(e.holding_box)} wait in the holding box."
        ),
        F.EmperorsDealt: lambda e, p: (
            f"{len(e.placed)} Emperors are dealt: "
            + ", ".join(f"{emperor_words(x)} on {space_name(s)}" for s, x in e.placed)
            + "."
        ),
        F.DeckShuffled: lambda e, p: (
            f"The draw deck ({len(e.order)} cards) is shuffled"
            + (" with a barbarian returned by Tribute." if e.reason == "tribute" else ".")
        ),
        F.HandDealt: lambda e, p: f"{_who(e.seat, p)} is dealt {len(e.cards)} cards.",
        F.ForumDealt: lambda e, p: f"The Forum is laid out: {_cards(e.cards)}.",
        F.TurnStarted: lambda e, p: (
            f"Turn {e.turn}: {_who(e.seat, p, e.factions[0])} ({'+'.join(e.factions)}) to play."
        ),
        F.DecisionRequested: _decision,
        F.RoundEnded: lambda e, p: (
            f"Round {e.round} ends ("
            + ("no Emperor is left" if e.reason == "no_emperors" else "every seat passed in succession")
            + (f"); {len(e.emperors_out)} Emperors left on the board are out of the game." if e.emperors_out else ").")
        ),
        F.GameEnded: _ended,
        F.InfluencePlayed: lambda e, p: (
            f"{_who(e.seat, p, e.rival)} plays {card_words(e.card)} on {space_name(e.space)}"
            + (f" beside {_emperors(e.emperors)}" if e.emperors else "")
            + _PLACEMENT[e.placement]
            + (f" (discarding {_cards(e.discarded)})" if e.discarded else "")
            + _ABILITY[e.ability]
            + "."
        ),
        F.BarbarianPlaced: lambda e, p: (
            f"{_who(e.seat, p, 'from the holding box') if e.seat is not None else 'The holding box'}"
            f" puts a barbarian on {space_name(e.space)}"
            + (f", covering {card_words(e.covers)}" if e.covers else "")
            + "."
        ),
        F.BarbarianMoved: lambda e, p: (
            f"{_who(e.seat, p)} discards a barbarian card to move the barbarian on "
            f"{space_name(e.from_space)} to {space_name(e.to_space)}"
            + (f", covering {card_words(e.covers)}" if e.covers else "")
            + (f", uncovering {card_words(e.uncovered)}" if e.uncovered else "")
            + "."
        ),
        F.CastraOverrun: lambda e, p: (
            f"The barbarian lands on Castra at {space_name(e.space)}: Castra is discarded and the "
            "barbarian returns to the holding box."
        ),
        F.Passed: lambda e, p: (
            f"{_who(e.seat, p, e.rival)} passes"
            + (f", showing {_cards(e.hand)}" if e.seat is not None else "")
            + (" (no play was possible)" if e.automatic else "")
            + "."
        ),
        F.RivalDrew: lambda e, p: f"The rival claimant {e.rival} draws {card_words(e.card)}.",
        F.CounterPlaced: lambda e, p: (
            f"{_who(e.seat, p)} puts a +{e.amount} counter on {card_words(e.target)} at {space_name(e.space)}"
            f" (now +{e.total})."
        ),
        F.CardsSwapped: lambda e, p: (
            f"{_who(e.seat, p)}'s Flanking Maneuver swaps with {card_words(e.target)}: it moves "
            f"to {space_name(e.card_space)}, the other to {space_name(e.target_space)}."
        ),
        F.CardFlipped: lambda e, p: (
            f"{_who(e.seat, p)}'s Mob flips {card_words(e.target)} on {space_name(e.space)} face down"
            + (f" ({e.counters_lost} counters lost)" if e.counters_lost else "")
            + "."
        ),
        F.CardsDiscarded: _discarded,
        F.BarbarianReturned: lambda e, p: (
            f"{_who(e.seat, p)}'s Tribute returns the barbarian on {space_name(e.space)} (closest to Roma)"
            " to the draw deck."
        ),
        F.PretenderPlaced: lambda e, p: (
            f"{_who(e.seat, p)}'s Pretender puts {emperor_words(e.emperor)} on {space_name(e.space)}."
        ),
        F.EmperorRemoved: lambda e, p: (
            f"{_who(e.seat, p)}'s Damnatio Memoriae removes {emperor_words(e.emperor)} from {space_name(e.space)}: "
            "out of the game, no one captures it."
        ),
        F.DemagogueActive: lambda e, p: (
            f"{_who(e.seat, p)}'s Demagogue: the other seats' triggered abilities are ignored until their next turn."
        ),
        F.DemagogueEnded: lambda e, p: (
            f"{_who(e.seat, p)}'s Demagogue ends"
            + (" (their turn begins)." if e.reason == "next_turn" else " with the round.")
        ),
        F.EmperorResolved: _resolved,
        F.ForumTaken: lambda e, p: (
            f"{_who(e.seat, p)} takes {card_words(e.card)} from the Forum (slot {e.slot + 1})"
            + (f"; {card_words(e.refill)} fills the row." if e.refill else "; the deck is empty, the Forum shrinks.")
        ),
        F.CardDrawn: lambda e, p: (
            f"{_who(e.seat, p)} draws "
            + ("the top card of the deck (Princeps Senatus)." if e.card else "nothing: the deck is empty.")
        ),
        F.CardsLooked: lambda e, p: (
            f"{_who(e.seat, p)} looks at the top {len(e.cards)} cards of the deck (Frumentarii)."
        ),
        F.CardKept: lambda e, p: f"{_who(e.seat, p)} keeps one card and puts {len(e.bottom)} under the deck.",
    }


def _decision(e: Any, p: Sequence[str]) -> str:
    who = _who(e.seat, p)
    if e.decision == "order":
        return f"{who} chooses which surrounded Emperor on the board resolves next: {_emperors(e.emperors)}."
    if e.decision == "keep":
        return f"{who} chooses which of the cards Frumentarii showed from the top of the draw deck to keep."
    if e.decision == "pick":
        limit = {0: "any card", 1: "the leftmost card"}.get(e.allowed, f"one of the {e.allowed} leftmost cards")
        return f"{who} takes a card from the Forum: {limit}."
    return f"{who} chooses where on the board the rival claimant's {card_words(e.card)} goes."


def _ended(e: Any, p: Sequence[str]) -> str:
    scores = "; ".join(f"{_who(i, p)}: {_score_sum(e, i)}" for i in range(len(e.scores)))
    rivals = (" Rival claimants: " + ", ".join(f"{f} {s}" for f, s in e.rival_scores) + ".") if e.rival_scores else ""
    if not e.winners:
        outcome = "the rival claimants prevail."
    elif e.shared:
        outcome = "shared victory of " + " and ".join(_who(i, p) for i in e.winners) + "."
    else:
        outcome = f"{_who(e.winners[0], p)} wins" + (" on the tiebreak." if e.tiebreak_used else ".")
    return f"The game ends. Scores: {scores}.{rivals} Result: {outcome}"


def _score_sum(e: Any, seat: int) -> str:
    """A seat's final score as arithmetic: ``12 (Emperors) + 9 (3 sets, 0 Triumph barbarians) = 21``; what the
    sets and barbarians are worth follows from the table's settings, so the event's own numbers give their sum."""
    emperors = sum(e.emperors[seat])
    rest = e.scores[seat] - emperors
    sets, barbarians = e.sets[seat], e.barbarians[seat]
    parts = f"{sets} set{'s' if sets != 1 else ''}, {barbarians} Triumph barbarian{'s' if barbarians != 1 else ''}"
    return f"{emperors} (Emperors) + {rest} ({parts}) = {e.scores[seat]}"


def _discarded(e: Any, p: Sequence[str]) -> str:
    why = {
        "winning_card": f"the winning card of {emperor_words(e.emperor)} is discarded",
        "orphaned": "cards touching no Emperor any more are discarded",
        "spiculum": f"Spiculum discards it from {emperor_words(e.emperor)}", "tribute": "Tribute discards it",
        "mobile_vulgus": "Mobile Vulgus discards it", "rival_no_space": "the rival claimant has no legal space",
        "rival_barbarian": "a rival claimant discards a barbarian it draws",
    }[e.reason]  # fmt: skip
    return f"{_cards(e.cards)}: {why}."


def _resolved(e: Any, p: Sequence[str]) -> str:
    sides = "; ".join(
        f"{s.side} ({space_name(s.space)}) "
        + (card_words(s.card) if s.kind == "influence" else s.kind.replace("_", " "))
        + f" = {s.value}"
        + (" (ignored)" if s.ignored else "")
        + (" (trump)" if s.trump else "")
        for s in e.sides
    )
    trump = f"trump {e.trump}" if e.trump else "no trump (Quaestor)"
    if e.outcome == "died":
        reason = {"all_ignored": "every card cancels", "no_card_can_win": "no card can win", "tie": "two cards tie"}[
            e.reason
        ]
        ending = f"it dies: {reason}"
    else:
        taker = _who(e.captured_by_seat, p, e.captured_by_rival)
        ending = f"{card_words(e.winner)} on the {e.winning_side} side wins; {taker} captures it"
        if e.outcome == "out_of_game":
            ending += ", so it is out of the game"
    return f"{emperor_words(e.emperor)} on {space_name(e.space)} is resolved: {sides}; {trump}; {ending}."


DESCRIBE = _describers()


def describe(event: Any, players: Sequence[str] = ()) -> str:
    """One event in plain words (a sentence: its first letter capitalised)."""
    text = DESCRIBE[type(event)](event, players)
    return text[:1].upper() + text[1:]


def explain(event: Any, players: Sequence[str] = ()) -> str:
    """The event, its deciding inputs, and the rulings cited."""
    return f"{describe(event, players)} [{', '.join(event.rulings) or 'no ruling'}]"

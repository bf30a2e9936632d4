"""Resolving a surrounded Emperor [K22-K27, K41]: values, cancelling, trump, the winner, the capture, and the
clean-up of the board that follows every Emperor leaving it."""

from __future__ import annotations

from typing import Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import AMBITUS, CAVALRY, FACTIONS, QUAESTOR, SUITS
from services.games.barracks.rules.state import Game
from services.rules.facts import maker

KINDS = ("influence", "face_down", "barbarian")


def outcome(g: Game, e: int, chooser: int | None) -> tuple[Any, int]:
    """The EmperorResolved event of Emperor space ``e`` (surrounded) and the winning card (-1: none)."""
    T = g.T
    emperor = g.emp[e]
    colour = T.colour[emperor]
    sides = T.sides[e]
    top, face_down, counters = g.top, g.face_down, g.counters
    cards = [top[s] for s in sides]
    values = [0, 0, 0, 0]
    suits = [-1, -1, -1, -1]
    kinds = [0, 0, 0, 0]
    text = [-1, -1, -1, -1]  # the ability of a face-up card; -1: a barbarian or a face-down card has no text
    for i, c in enumerate(cards):
        if T.is_barbarian[c]:  # K3, K23: a barbarian is 0 and has no suit
            kinds[i] = 2
        elif face_down[c]:  # K23, K33: a face-down card is 0, with no suit and no text
            kinds[i] = 1
        else:  # K23: printed value plus counters
            values[i] = T.value[c] + counters[c]
            suits[i] = T.suit[c]
            text[i] = T.ability[c]
    quaestors = tuple(T.card_ids[cards[i]] for i in range(4) if text[i] == QUAESTOR)
    trump = -1 if quaestors else colour  # K25: any Quaestor on the Emperor means no trump
    # K24: equal values cancel, whatever their suit; Cavalry never does.
    ignored = [values.count(v) > 1 and text[i] != CAVALRY for i, v in enumerate(values)]
    is_trump = [trump >= 0 and (suits[i] == trump or text[i] == AMBITUS) for i in range(4)]  # K25
    rulings = ["K22", "K23", "K24", "K25"]
    winner_i = -1
    if all(ignored):
        reason = "all_ignored"  # K24
    else:
        able = [i for i in range(4) if not ignored[i] and values[i] > 0]  # K26: a value-0 card never wins
        trumps = [i for i in able if is_trump[i]]
        pool = trumps or able
        if not pool:
            reason = "no_card_can_win"
            rulings.append("K26")
        else:
            best = max(values[i] for i in pool)
            top_cards = [i for i in pool if values[i] == best]
            if len(top_cards) > 1:
                reason = "tie"  # K26: only two Cavalry can tie
                rulings.append("K26")
            else:
                winner_i = top_cards[0]
                reason = "highest_trump" if trumps else "highest_card"
    captured_seat: int | None = None
    captured_rival: str | None = None
    winner = cards[winner_i] if winner_i >= 0 else -1
    if winner_i < 0:
        result = "died"
    else:
        rulings.append("K27")
        # K27: the faction whose side the winning card is on (option capture=side), or the card's player.
        actor = g.faction_actor[winner_i] if g.settings.capture == "side" else g.played_by[winner]
        seat = g.actor_seat[actor]
        if seat >= 0:
            result, captured_seat = "captured", seat
        else:  # K41, KX2: a rival claimant's capture is out of the game, except in solo, where it is scored
            captured_rival = FACTIONS[g.actor_factions[actor][0]]
            result = "captured" if g.solo else "out_of_game"
            rulings.append("K41")
            if g.settings.capture == "player":
                rulings.append("KX11")
            if g.solo:
                rulings.append("KX2")
    ids = T.card_ids
    side_cards = tuple(  # a list first: no generator to resume
        [
            _side(
                (
                    FACTIONS[i], T.space_ids[sides[i]], ids[c], KINDS[kinds[i]],
                    SUITS[suits[i]] if suits[i] >= 0 else None, T.value[c] if kinds[i] == 0 else 0,
                    counters[c] if kinds[i] == 0 else 0, values[i], ignored[i], is_trump[i], *_players(g, c),
                )
            )
            for i, c in enumerate(cards)
        ]
    )  # fmt: skip
    if chooser is not None:
        rulings.append("K22")
    event = _RESOLVED(
        (
            T.emperor_ids[emperor],  # emperor
            T.emp_ids[e],  # space
            SUITS[colour],  # colour
            side_cards,  # sides
            SUITS[trump] if trump >= 0 else None,  # trump
            "quaestor" if quaestors else "emperor_colour",  # trump_reason
            quaestors,
            tuple([ids[cards[i]] for i in range(4) if text[i] == AMBITUS]),  # ambitus
            ids[winner] if winner >= 0 else None,  # winner
            FACTIONS[winner_i] if winner_i >= 0 else None,  # winning_side
            result,  # outcome
            reason,
            captured_seat,  # captured_by_seat
            captured_rival,  # captured_by_rival
            chooser,  # chosen_by
            tuple(dict.fromkeys(rulings)),  # rulings
            "EmperorResolved",  # type
        )
    )
    return event, winner


# Built from one tuple in the mirror's order (services/rules/facts.py: ``maker``): one per resolution.
_RESOLVED = maker(
    F.EmperorResolved,
    "emperor space colour sides trump trump_reason quaestors ambitus winner winning_side outcome reason "
    "captured_by_seat captured_by_rival chosen_by rulings type",
)
_side = maker(F.SideCard, "side space card kind suit printed counters value ignored trump player rival")


def _players(g: Game, c: int) -> tuple[int | None, str | None]:
    """(seat, rival faction) that played card ``c`` (both None for a barbarian)."""
    actor = g.played_by[c]
    if actor < 0:
        return None, None
    seat = g.actor_seat[actor]
    if seat >= 0:
        return seat, None
    return None, FACTIONS[g.actor_factions[actor][0]]


def orphans(g: Game, e: int) -> list[int]:
    """After the Emperor of space ``e`` left: the cards on its sides that touch no Emperor any more, each with the
    card it covers [K27]."""
    T = g.T
    emp = g.emp
    found = []
    for s in T.sides[e]:
        top = g.top[s]
        if top >= 0 and not any(emp[x] >= 0 for x in T.touches[s]):
            found.append(top)
            if g.under[s] >= 0:
                found.append(g.under[s])
    return found

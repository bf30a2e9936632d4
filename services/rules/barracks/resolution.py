"""Resolving a surrounded Emperor [K22-K27, K41]: values, cancelling, trump, the winner, the capture, and the
clean-up of the board that follows every Emperor leaving it."""

from __future__ import annotations

from typing import Any

from services.rules.barracks import facts as F
from services.rules.barracks.state import Game
from services.rules.barracks.tables import AMBITUS, CAVALRY, FACTIONS, QUAESTOR, SUITS

KINDS = ("influence", "face_down", "barbarian")


def outcome(g: Game, e: int, chooser: int | None) -> tuple[Any, int]:
    """The EmperorResolved event of Emperor space ``e`` (surrounded) and the winning card (-1: none)."""
    T = g.T
    emperor = g.emp[e]
    colour = T.colour[emperor]
    sides = T.sides[e]
    cards = [g.top[s] for s in sides]
    values, suits, kinds, live_text = [], [], [], []
    for c in cards:
        if T.is_barbarian[c]:  # K3, K23: a barbarian is 0 and has no suit
            values.append(0), suits.append(-1), kinds.append(2), live_text.append(-1)
        elif g.face_down[c]:  # K23, K33: a face-down card is 0, with no suit and no text
            values.append(0), suits.append(-1), kinds.append(1), live_text.append(-1)
        else:  # K23: printed value plus counters
            values.append(T.value[c] + g.counters[c]), suits.append(T.suit[c]), kinds.append(0)
            live_text.append(T.ability[c])
    quaestors = [c for c, a in zip(cards, live_text, strict=True) if a == QUAESTOR]
    ambitus = [c for c, a in zip(cards, live_text, strict=True) if a == AMBITUS]
    trump = -1 if quaestors else colour  # K25: any Quaestor on the Emperor means no trump
    ignored = [
        values.count(v) > 1 and live_text[i] != CAVALRY  # K24: equal values cancel; Cavalry never does
        for i, v in enumerate(values)
    ]
    is_trump = [trump >= 0 and (suits[i] == trump or live_text[i] == AMBITUS) for i in range(4)]  # K25
    rulings = ["K22", "K23", "K24", "K25"]
    if quaestors:
        rulings.append("K25")
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
    side_cards = tuple(
        F.SideCard(
            side=FACTIONS[i],
            space=T.space_ids[sides[i]],
            card=T.card_ids[c],
            kind=KINDS[kinds[i]],
            suit=SUITS[suits[i]] if suits[i] >= 0 else None,
            printed=T.value[c] if kinds[i] == 0 else 0,
            counters=g.counters[c] if kinds[i] == 0 else 0,
            value=values[i],
            ignored=ignored[i],
            trump=is_trump[i],
            player=_player(g, c),
            rival=_rival(g, c),
        )
        for i, c in enumerate(cards)
    )
    if chooser is not None:
        rulings.append("K22")
    event = F.EmperorResolved(
        emperor=T.emperor_ids[emperor],
        space=T.emp_ids[e],
        colour=SUITS[colour],
        sides=side_cards,
        trump=SUITS[trump] if trump >= 0 else None,
        trump_reason="quaestor" if quaestors else "emperor_colour",
        quaestors=tuple(T.card_ids[c] for c in quaestors),
        ambitus=tuple(T.card_ids[c] for c in ambitus),
        winner=T.card_ids[winner] if winner >= 0 else None,
        winning_side=FACTIONS[winner_i] if winner_i >= 0 else None,
        outcome=result,
        reason=reason,
        captured_by_seat=captured_seat,
        captured_by_rival=captured_rival,
        chosen_by=chooser,
        rulings=tuple(dict.fromkeys(rulings)),
    )
    return event, winner


def _player(g: Game, c: int) -> int | None:
    actor = g.played_by[c]
    if actor < 0:
        return None
    seat = g.actor_seat[actor]
    return seat if seat >= 0 else None


def _rival(g: Game, c: int) -> str | None:
    actor = g.played_by[c]
    if actor < 0 or g.actor_seat[actor] >= 0:
        return None
    return FACTIONS[g.actor_factions[actor][0]]


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

"""Folding the events of play, in place: influence and barbarians placed, counters and swaps, Emperors resolved,
the forum taken and cards drawn (the half of evolve.py's handlers that move cards on the board during a turn).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS, FRUMENTARII, PRINCEPS
from services.games.barracks.rules.places import put, replaced, take, take_emperor, to_discard
from services.games.barracks.rules.state import (
    BOX,
    DECK,
    E_BOARD,
    E_OUT,
    E_WON,
    FORUM,
    HAND,
    LIMBO,
    NONE,
    WON,
    Game,
)

FACTION_INDEX = {name: i for i, name in enumerate(FACTIONS)}


def _actor(g: Game, seat: int | None, rival: str | None) -> int:
    return g.seat_actor[seat] if seat is not None else g.faction_actor[FACTION_INDEX[rival]]  # type: ignore[index]


def _influence_played(g: Game, e: Any) -> None:
    T = g.T
    actor = _actor(g, e.seat, e.rival)
    for cid in e.discarded:
        to_discard(g, T.card_index[cid])
    if e.barbarian_taken is not None:  # K28, K35: Triumph
        b = T.card_index[e.barbarian_taken]
        take(g, b)
        g.won_barbarians = replaced(g.won_barbarians, actor, (*g.won_barbarians[actor], b))
        g.loc[b] = WON + actor
    c = T.card_index[e.card]
    take(g, c)
    put(g, c, T.space_index[e.space], actor)
    g.passes = 0
    if e.seat is not None:
        g.played_value = T.value[c]
        if e.ability == "used":  # K31: the draw and the look come after the resolutions
            ability = T.ability[c]
            if ability == PRINCEPS:
                g.pending_draw = True
            elif ability == FRUMENTARII:
                g.pending_look = True


def _barbarian_placed(g: Game, e: Any) -> None:
    c = g.T.card_index[e.card]
    take(g, c)
    put(g, c, g.T.space_index[e.space], -1)
    if e.seat is not None and e.source == "hand":
        g.passes = 0
        g.played_value = 0


def _barbarian_moved(g: Game, e: Any) -> None:
    T = g.T
    to_discard(g, T.card_index[e.card])
    b = T.card_index[e.barbarian]
    take(g, b)
    put(g, b, T.space_index[e.to_space], -1)
    g.passes = 0
    g.played_value = 0


def _castra_overrun(g: Game, e: Any) -> None:
    to_discard(g, g.T.card_index[e.castra])
    b = g.T.card_index[e.barbarian]
    take(g, b)
    g.box += (b,)
    g.loc[b] = BOX


def _passed(g: Game, e: Any) -> None:
    g.passes += 1
    if e.seat is not None:
        g.known = replaced(g.known, e.seat, tuple(g.hands[e.seat]))  # K14, K20: a passing hand is shown


def _rival_drew(g: Game, e: Any) -> None:
    c = g.T.card_index[e.card]
    take(g, c)
    g.limbo = c
    g.loc[c] = LIMBO
    g.passes = 0


def _counter_placed(g: Game, e: Any) -> None:
    g.counters = replaced(g.counters, g.T.card_index[e.target], e.total)


def _cards_swapped(g: Game, e: Any) -> None:
    T = g.T
    a, b = T.card_index[e.card], T.card_index[e.target]
    sa, sb = T.space_index[e.card_space], T.space_index[e.target_space]
    g.top[sa], g.pos[a] = a, sa
    g.top[sb], g.pos[b] = b, sb


def _card_flipped(g: Game, e: Any) -> None:
    c = g.T.card_index[e.target]
    g.face_down = replaced(g.face_down, c, True)
    g.counters = replaced(g.counters, c, 0)  # K18, K33


def _cards_discarded(g: Game, e: Any) -> None:
    index = g.T.card_index
    for cid in e.cards:
        to_discard(g, index[cid])


def _barbarian_returned(g: Game, e: Any) -> None:
    b = g.T.card_index[e.barbarian]
    take(g, b)
    g.deck.append(b)  # shuffled in by the DeckShuffled that follows [K41]
    g.loc[b] = DECK


def _pretender_placed(g: Game, e: Any) -> None:
    x = g.T.emperor_index[e.emperor]
    take_emperor(g, x)
    es = g.T.emp_index[e.space]
    g.emp[es] = x
    g.alive |= 1 << es
    g.eloc = replaced(g.eloc, x, E_BOARD)


def _emperor_removed(g: Game, e: Any) -> None:
    x = g.T.emperor_index[e.emperor]
    take_emperor(g, x)
    g.eloc = replaced(g.eloc, x, E_OUT)
    g.out += (x,)


def _demagogue_active(g: Game, e: Any) -> None:
    g.demagogue = g.seat_actor[e.seat]
    g.demagogue_card = g.T.card_index[e.card]


def _demagogue_ended(g: Game, e: Any) -> None:
    g.demagogue = g.demagogue_card = -1


def _emperor_resolved(g: Game, e: Any) -> None:
    x = g.T.emperor_index[e.emperor]
    take_emperor(g, x)
    if e.outcome == "captured":
        actor = _actor(g, e.captured_by_seat, e.captured_by_rival)
        g.won = replaced(g.won, actor, (*g.won[actor], x))
        g.eloc = replaced(g.eloc, x, E_WON + actor)
    else:
        g.out += (x,)
        g.eloc = replaced(g.eloc, x, E_OUT)
    g.surrounded = ()
    g.phase = NONE


def _forum_taken(g: Game, e: Any) -> None:
    index = g.T.card_index
    c = index[e.card]
    take(g, c)
    g.hands[e.seat].append(c)
    g.known = replaced(g.known, e.seat, (*g.known[e.seat], c))  # K14: which card a pick takes is public
    g.loc[c] = HAND + e.seat
    if e.refill is not None:  # K30
        r = index[e.refill]
        take(g, r)
        g.forum.append(r)
        g.loc[r] = FORUM
    g.phase = NONE


def _card_drawn(g: Game, e: Any) -> None:
    if e.card is not None:
        c = g.T.card_index[e.card]
        take(g, c)
        g.hands[e.seat].append(c)
        g.loc[c] = HAND + e.seat
    g.pending_draw = False


def _cards_looked(g: Game, e: Any) -> None:
    g.looked = tuple(g.T.card_index[x] for x in e.cards)
    g.pending_look = False


def _card_kept(g: Game, e: Any) -> None:
    index = g.T.card_index
    c = index[e.card]
    take(g, c)
    g.hands[e.seat].append(c)
    g.loc[c] = HAND + e.seat
    bottom = [index[x] for x in e.bottom]
    for b in bottom:
        g.deck.remove(b)
    g.deck[:0] = bottom[::-1]  # K31, KX7: the last listed is the bottom card (the deck's top is its end)
    g.looked = ()
    g.phase = NONE


PLAY_HANDLERS: dict[type, Callable[[Game, Any], None]] = {
    F.InfluencePlayed: _influence_played,
    F.BarbarianPlaced: _barbarian_placed,
    F.BarbarianMoved: _barbarian_moved,
    F.CastraOverrun: _castra_overrun,
    F.Passed: _passed,
    F.RivalDrew: _rival_drew,
    F.CounterPlaced: _counter_placed,
    F.CardsSwapped: _cards_swapped,
    F.CardFlipped: _card_flipped,
    F.CardsDiscarded: _cards_discarded,
    F.BarbarianReturned: _barbarian_returned,
    F.PretenderPlaced: _pretender_placed,
    F.EmperorRemoved: _emperor_removed,
    F.DemagogueActive: _demagogue_active,
    F.DemagogueEnded: _demagogue_ended,
    F.EmperorResolved: _emperor_resolved,
    F.ForumTaken: _forum_taken,
    F.CardDrawn: _card_drawn,
    F.CardsLooked: _cards_looked,
    F.CardKept: _card_kept,
}
"""The handlers of this module by core event class (evolve.APPLY holds them with the others)."""

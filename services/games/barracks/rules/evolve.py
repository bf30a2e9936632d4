"""Applying one event to a game in place: the mechanical half of evolve, shared by the fold and by the decider's
working copy, so the state a command leaves is by construction the state its events fold to.

Handlers only move pieces as the event says; they never decide or draw. A card named by an event is taken from
wherever it is (``take``), which also lets tests arrange any position with ordinary events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS, FRUMENTARII, PRINCEPS, tables_for
from services.games.barracks.rules.places import put, replaced, take, take_emperor, to_discard
from services.games.barracks.rules.state import (
    ACTION,
    BOX,
    DECK,
    E_BOARD,
    E_DECK,
    E_OUT,
    E_WON,
    FORUM,
    HAND,
    KEEP,
    LIMBO,
    NONE,
    ORDER,
    OVER,
    PICK,
    POOL,
    RIVAL_PLACE,
    WON,
    Game,
    awaited,
    new_game,
)
from services.rules import clock, fair

FACTION_INDEX = {name: i for i, name in enumerate(FACTIONS)}
DECISION_PHASE = {"order": ORDER, "keep": KEEP, "pick": PICK, "rival_place": RIVAL_PLACE}


def _actor(g: Game, seat: int | None, rival: str | None) -> int:
    return g.seat_actor[seat] if seat is not None else g.faction_actor[FACTION_INDEX[rival]]  # type: ignore[index]


# --- handlers ------------------------------------------------------------------------------------------------------
def _game_started(g: Any, e: Any) -> Game:
    T = tables_for(e.data)
    seats = tuple(tuple(FACTION_INDEX[f] for f in fs) for fs in e.seats)
    settings = BarracksSettings.model_validate(e.settings)
    g = new_game(T, tuple(e.players), settings, e.seed, seats)
    if settings.clock is not None:
        g.clocks = clock.initial(settings.clock, len(e.players))
    return g


def _sealed(g: Game, e: Any) -> None:  # [KX23]
    g.seal = fair.fold(g.seal, e)


def _clock_stamped(g: Game, e: Any) -> None:  # [KX17]
    assert g.settings.clock is not None and g.clocks is not None
    g.clocks = clock.stamp(g.settings.clock, g.clocks, e.at_ms, e.seat, awaited(g), e.timed_out)


def _seat_timed_out(g: Game, e: Any) -> None:  # [KX17]
    assert g.clocks is not None
    g.clocks = clock.timed_out(g.clocks, e.seat)


def _seat_handed_over(g: Game, e: Any) -> None:  # [KX22]
    assert g.clocks is not None
    g.clocks = clock.hand_over(g.clocks, e.seat, e.bot)


def _emperor_deck_shuffled(g: Game, e: Any) -> None:
    index = g.T.emperor_index
    codes = [index[x] for x in e.order]
    for x in codes:
        take_emperor(g, x)
        g.eloc = replaced(g.eloc, x, E_DECK)
    g.emperor_deck = tuple(codes[::-1])


def _round_started(g: Game, e: Any) -> None:
    g.round = e.round
    g.turn = 0
    g.first_actor = g.active = g.faction_actor[FACTION_INDEX[e.first_faction]]
    g.passes = 0
    g.phase = NONE


def _barbarians_set(g: Game, e: Any) -> None:
    T = g.T
    for cid in e.holding_box:
        c = T.card_index[cid]
        take(g, c)
        g.box += (c,)
        g.loc[c] = BOX
    for sid, cid in e.placed:
        c = T.card_index[cid]
        take(g, c)
        put(g, c, T.space_index[sid], -1)


def _emperors_dealt(g: Game, e: Any) -> None:
    T = g.T
    for sid, eid in e.placed:
        x = T.emperor_index[eid]
        take_emperor(g, x)
        es = T.emp_index[sid]
        g.emp[es] = x
        g.alive |= 1 << es
        g.eloc = replaced(g.eloc, x, E_BOARD)


def _deck_shuffled(g: Game, e: Any) -> None:
    index = g.T.card_index
    codes = [index[x] for x in e.order]
    for c in codes:
        if g.loc[c] != DECK:
            take(g, c)
            g.loc[c] = DECK
    g.deck = codes[::-1]


def _hand_dealt(g: Game, e: Any) -> None:
    index = g.T.card_index
    hand = g.hands[e.seat]
    for cid in e.cards:
        c = index[cid]
        take(g, c)
        hand.append(c)
        g.loc[c] = HAND + e.seat


def _forum_dealt(g: Game, e: Any) -> None:
    index = g.T.card_index
    for cid in e.cards:
        c = index[cid]
        take(g, c)
        g.forum.append(c)
        g.loc[c] = FORUM


def _turn_started(g: Game, e: Any) -> None:
    g.turn = e.turn
    g.active = g.faction_actor[FACTION_INDEX[e.factions[0]]]
    g.phase = ACTION if e.seat is not None else NONE  # ACTION for a player; a rival claimant's turn runs by itself
    g.played_value = -1
    g.pending_draw = g.pending_look = False
    g.surrounded = ()
    g.chooser = -1


def _decision_requested(g: Game, e: Any) -> None:
    g.phase = DECISION_PHASE[e.decision]
    if e.decision == "order":
        g.surrounded = tuple(g.emp.index(g.T.emperor_index[x]) for x in e.emperors)
        g.chooser = e.seat


def _round_ended(g: Game, e: Any) -> None:
    for eid in e.emperors_out:  # K38: Emperors left on the board are out of the game, unscored
        x = g.T.emperor_index[eid]
        take_emperor(g, x)
        g.eloc = replaced(g.eloc, x, E_OUT)
        g.out += (x,)
    loc = g.loc
    g.pool = tuple(c for c in range(g.T.n_cards) if loc[c] < WON)  # K38: every card not in a scoring area returns
    for c in g.pool:
        loc[c] = POOL
    n = g.T.n_cards
    g.top = [-1] * g.T.n_spaces
    g.under = [-1] * g.T.n_spaces
    g.filled = [0] * g.T.n_emp_spaces
    g.full = 0
    g.counters, g.face_down, g.played_by, g.pos = (0,) * n, (False,) * n, [-1] * n, [-1] * n
    g.deck, g.forum, g.discard, g.box = [], [], (), ()
    g.hands = [[] for _ in g.hands]
    g.known = tuple(() for _ in g.known)
    g.limbo = g.demagogue = g.demagogue_card = -1
    g.surrounded, g.looked = (), ()
    g.passes = 0
    g.phase = NONE


def _game_ended(g: Game, e: Any) -> None:
    g.phase = OVER
    g.final = {
        "scores": list(e.scores),
        "emperors": [list(x) for x in e.emperors],
        "sets": list(e.sets),
        "barbarians": list(e.barbarians),
        "winners": list(e.winners),
        "shared": e.shared,
        "tiebreak_used": e.tiebreak_used,
        "rival_scores": {f: s for f, s in e.rival_scores},
    }


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


APPLY: dict[type, Callable[[Game, Any], None]] = {
    F.EmperorDeckShuffled: _emperor_deck_shuffled,
    F.RoundStarted: _round_started,
    F.BarbariansSet: _barbarians_set,
    F.EmperorsDealt: _emperors_dealt,
    F.DeckShuffled: _deck_shuffled,
    F.HandDealt: _hand_dealt,
    F.ForumDealt: _forum_dealt,
    F.TurnStarted: _turn_started,
    F.DecisionRequested: _decision_requested,
    F.RoundEnded: _round_ended,
    F.GameEnded: _game_ended,
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
    F.ClockStamped: _clock_stamped,
    F.SeatTimedOut: _seat_timed_out,
    F.SeatHandedOver: _seat_handed_over,
    F.SeedCommitted: _sealed,
    F.SeedRevealed: _sealed,
}
assert set(APPLY) | {F.GameStarted} == set(F.EVENT_CLASSES.values())


def apply(g: Game, event: Any) -> None:
    """Apply one core event to ``g`` in place."""
    APPLY[type(event)](g, event)
    g.version += 1


def evolve(g: Game | None, event: Any) -> Game:
    """The state after one event (a new object; ``g`` is unchanged)."""
    event = F.as_core(event)
    if type(event) is F.GameStarted:
        new = _game_started(g, event)
        new.version = 1
        return new
    if g is None:
        raise ValueError("no game yet: the first event must be GameStarted")
    new = g.copy()
    apply(new, event)
    return new

"""Applying one event to a game in place: the mechanical half of evolve, shared by the fold and by the decider's
working copy, so the state a command leaves is by construction the state its events fold to.

Handlers only move pieces as the event says; they never decide or draw. A card named by an event is taken from
wherever it is (``take``), which also lets tests arrange any position with ordinary events.
The handlers of play (the board during a turn) are in evolve_plays.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.barracks.messages.settings import BarracksSettings
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import tables_for
from services.games.barracks.rules.evolve_plays import FACTION_INDEX, PLAY_HANDLERS
from services.games.barracks.rules.places import put, replaced, take, take_emperor
from services.games.barracks.rules.state import (
    ACTION,
    BOX,
    DECK,
    E_BOARD,
    E_DECK,
    E_OUT,
    E_UNDEALT,
    FORUM,
    HAND,
    KEEP,
    NONE,
    ORDER,
    OVER,
    PICK,
    POOL,
    RIVAL_PLACE,
    WON,
    Game,
    new_game,
)

DECISION_PHASE = {"order": ORDER, "keep": KEEP, "pick": PICK, "rival_place": RIVAL_PLACE}


# --- handlers ------------------------------------------------------------------------------------------------------
def _game_started(g: Any, e: Any) -> Game:
    T = tables_for(e.data)
    seats = tuple(tuple(FACTION_INDEX[f] for f in fs) for fs in e.seats)
    settings = BarracksSettings.model_validate(e.settings)
    g = new_game(T, tuple(e.players), settings, e.seed, seats)
    return g


def _emperor_deck_shuffled(g: Game, e: Any) -> None:
    index = g.T.emperor_index
    codes = [index[x] for x in e.order]
    for x in codes:
        if g.eloc[x] != E_UNDEALT:  # an undealt Emperor is nowhere yet: nothing to take (the game's first shuffle)
            take_emperor(g, x)
    eloc = list(g.eloc)  # one new tuple, not one per Emperor
    for x in codes:
        eloc[x] = E_DECK
    g.eloc = tuple(eloc)
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
    loc = g.loc
    pooled = {c for c in codes if loc[c] == POOL}  # a round's deck comes from the pool: taken from it at once
    if pooled:
        g.pool = tuple([c for c in g.pool if c not in pooled])
    for c in codes:
        if loc[c] == POOL:
            loc[c] = DECK
        elif loc[c] != DECK:
            take(g, c)
            loc[c] = DECK
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
    **PLAY_HANDLERS,
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

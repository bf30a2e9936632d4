"""The flow of a turn after its action [K15, K20-K22, K27, K29-K31, K43, K44]: resolving surrounded Emperors,
the post-resolution steps (Princeps' draw, Frumentarii's look, the Forum pick), the next turns (automatic
passes, rival claimants), until a player's decision is awaited or the game is over.

Every step emits events through a ``Tx``, which applies each to the working state at once, so the next step sees
its result.
"""

from __future__ import annotations

from typing import Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules import legality as L
from services.games.barracks.rules import rounds
from services.games.barracks.rules.board import CASTRA, FACTIONS
from services.games.barracks.rules.evolve import APPLY
from services.games.barracks.rules.resolution import orphans, outcome
from services.games.barracks.rules.state import Game
from services.rules.facts import maker

# The most frequent events, from one tuple in the mirror's order (services/rules/facts.py: ``maker``): a keyword
# call runs the tuple's Python ``__new__``, several times the cost of the C-level construction.
_TURN = maker(F.TurnStarted, "round turn factions seat rulings type")
_REQUEST = maker(F.DecisionRequested, "seat decision rulings type emperors allowed card")
_DISCARDED = maker(F.CardsDiscarded, "cards spaces reason rulings type by_card emperor")
_PICK_RULINGS, _K27 = ("K29", "K21"), ("K27",)


class Tx:
    """The events of one decision, applied to the working state as they are emitted."""

    __slots__ = ("events", "g")

    def __init__(self, g: Game) -> None:
        self.g = g
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        """Record an event and apply it."""
        self.events.append(event)
        APPLY[type(event)](self.g, event)
        self.g.version += 1


# --- resolving -----------------------------------------------------------------------------------------------------
def settle(tx: Tx) -> bool:
    """Resolve surrounded Emperors one at a time [K22]. True: the turn goes on; False: it stops here (the active
    player must order several, or the round ended and the game moved on)."""
    g = tx.g
    while True:
        if not g.alive:  # K21, K38: no Emperor left: the round ends at once
            rounds.end_round(tx, "no_emperors")
            return False
        ready = L.surrounded(g)
        if not ready:
            return True
        seat = g.actor_seat[g.active]
        if len(ready) == 1 or seat < 0:  # K22: on a rival claimant's turn, lowest row, then lowest column
            resolve(tx, ready[0], None)
        else:
            T = g.T
            tx.emit(
                F.DecisionRequested(
                    seat=seat,
                    decision="order",
                    emperors=tuple(T.emperor_ids[g.emp[e]] for e in ready),
                    rulings=("K22", "K21"),
                )
            )
            return False


def resolve(tx: Tx, e: int, chooser: int | None) -> None:
    """Resolve Emperor space ``e`` and clean the board up [K22-K27]."""
    g = tx.g
    event, winner = outcome(g, e, chooser)
    tx.emit(event)
    if winner >= 0:
        T = g.T
        cards, spaces = (T.card_ids[winner],), (T.space_ids[g.pos[winner]],)
        tx.emit(_DISCARDED((cards, spaces, "winning_card", _K27, "CardsDiscarded", None, event.emperor)))
    clean_up(tx, e, event.emperor)


def clean_up(tx: Tx, e: int, emperor: str) -> None:
    """Discard every card left touching no Emperor after the one of space ``e`` left, with what it covers [K27]."""
    g = tx.g
    gone = orphans(g, e)
    if gone:
        T = g.T
        cards = tuple([T.card_ids[c] for c in gone])
        spaces = tuple([T.space_ids[g.pos[c]] for c in gone])
        tx.emit(_DISCARDED((cards, spaces, "orphaned", _K27, "CardsDiscarded", None, emperor)))


# --- the rest of a turn ------------------------------------------------------------------------------------------
def continue_turn(tx: Tx) -> None:
    """After the action or an ordering decision: resolve, then the post-resolution steps [K21]."""
    if settle(tx):
        after_resolution(tx)


def after_resolution(tx: Tx) -> None:
    """Princeps' draw, then Frumentarii's look or the Forum pick, then the next turn [K21, K29-K31]."""
    g = tx.g
    seat = g.actor_seat[g.active]
    if seat < 0:  # K43: a rival claimant takes no Forum card
        next_turn(tx)
        return
    T = g.T
    if g.pending_draw:  # K31: lost if the deck is empty
        card = T.card_ids[g.deck[-1]] if g.deck else None
        tx.emit(F.CardDrawn(seat=seat, card=card, reason="princeps_senatus", rulings=("K31", "K21")))
    if g.pending_look:
        looked = g.deck[-4:][::-1]  # K31: the top 4 cards (or fewer), top first
        tx.emit(F.CardsLooked(seat=seat, cards=tuple(T.card_ids[c] for c in looked), rulings=("K31", "K14")))
        tx.emit(F.DecisionRequested(seat=seat, decision="keep", rulings=("K31", "K21")))
        return
    if g.played_value >= 0 and g.forum:  # K29: the pick is compulsory while the Forum holds a card
        allowed = L.forum_allowed(g.played_value)
        tx.emit(_REQUEST((seat, "pick", _PICK_RULINGS, "DecisionRequested", (), allowed, None)))
        return
    next_turn(tx)


def next_turn(tx: Tx) -> None:
    """The active actor's turn is over: the next turns run until a decision is awaited [K15, K38]."""
    g = tx.g
    if g.passes >= len(g.actor_seat):  # K38: every seat passed in succession
        rounds.end_round(tx, "all_passed")
        return
    start_turns(tx, (g.active + 1) % len(g.actor_seat))


def start_turns(tx: Tx, actor: int) -> None:
    """Start ``actor``'s turn and those after it while they need no decision (automatic passes, rival claimants)."""
    g = tx.g
    n = len(g.actor_seat)
    while True:
        seat = g.actor_seat[actor]
        factions, rulings = _names(g.actor_factions[actor]), _TURN_RULINGS[len(g.players) == 2]
        tx.emit(_TURN((g.round, g.turn + 1, factions, seat if seat >= 0 else None, rulings, "TurnStarted")))
        if g.demagogue == actor:  # K37: until the start of its player's next turn
            _end_demagogue(tx, "next_turn")
        if seat >= 0:
            if L.can_play(g, actor):
                return
            hand = tuple(g.T.card_ids[c] for c in g.hands[seat])
            tx.emit(F.Passed(seat=seat, rival=None, hand=hand, automatic=True, rulings=("K20", "K14")))
        elif not rival_turn(tx, actor):
            return
        if g.passes >= n:
            rounds.end_round(tx, "all_passed")
            return
        actor = (actor + 1) % n


_TURN_RULINGS = {False: ("K15",), True: ("K15", "K40")}
_NAMES: dict[tuple[int, ...], tuple[str, ...]] = {}


def _names(factions: tuple[int, ...]) -> tuple[str, ...]:
    """The names of factions (cached: a turn starts after almost every command)."""
    names = _NAMES.get(factions)
    if names is None:
        names = _NAMES[factions] = tuple(FACTIONS[f] for f in factions)
    return names


def _end_demagogue(tx: Tx, reason: str) -> None:
    g = tx.g
    tx.emit(
        F.DemagogueEnded(
            seat=g.actor_seat[g.demagogue], card=g.T.card_ids[g.demagogue_card], reason=reason, rulings=("K37",)
        )
    )


# --- rival claimants -----------------------------------------------------------------------------------------------
def rival_turn(tx: Tx, actor: int) -> bool:
    """A rival claimant's turn [K43, K44]. True: it is over and the next turn may start; False: stop (the solo
    player is awaited, or the round ended)."""
    g = tx.g
    T = g.T
    faction = FACTIONS[g.actor_factions[actor][0]]
    if not g.deck:  # K43: empty deck: it passes
        tx.emit(F.Passed(seat=None, rival=faction, hand=(), automatic=True, rulings=("K43", "K20")))
        return True
    c = g.deck[-1]
    tx.emit(F.RivalDrew(rival=faction, card=T.card_ids[c], rulings=("K43",)))
    if T.is_barbarian[c]:
        tx.emit(
            F.CardsDiscarded(cards=(T.card_ids[c],), spaces=(None,), reason="rival_barbarian", rulings=("K44", "KX10"))
        )
        if g.solo and g.box:
            _box_barbarian(tx)
    else:
        free = L.free_spaces(g, actor)
        if not free:
            tx.emit(
                F.CardsDiscarded(
                    cards=(T.card_ids[c],), spaces=(None,), reason="rival_no_space", rulings=("K43", "KX10")
                )
            )
            return True
        if g.solo and g.demagogue == g.seat_actor[0]:  # K43: the solo player chooses under their Demagogue
            tx.emit(F.DecisionRequested(seat=0, decision="rival_place", card=T.card_ids[c], rulings=("K43", "K37")))
            return False
        place_rival_card(tx, actor, c, rival_space(g, actor, free), "rival")
    return settle(tx)


def rival_space(g: Game, actor: int, free: list[int]) -> int:
    """K43: the space that would surround most Emperors, then touches most Emperors, then lowest row and column."""
    T = g.T
    top, emp = g.top, g.emp

    def key(s: int) -> tuple[int, int, int]:
        closing = 0
        touching = 0
        for e in T.touches[s]:
            if emp[e] < 0:
                continue
            touching += 1
            if all(top[x] >= 0 for x in T.sides[e] if x != s):
                closing += 1
        return (-closing, -touching, s)  # space indices are row-major

    return min(free, key=key)


def place_rival_card(tx: Tx, actor: int, c: int, s: int, how: str) -> None:
    """A rival claimant's influence card goes face up on ``s``, without its triggered ability [K43]."""
    g = tx.g
    T = g.T
    tx.emit(
        F.InfluencePlayed(
            seat=None,
            rival=FACTIONS[g.actor_factions[actor][0]],
            card=T.card_ids[c],
            space=T.space_ids[s],
            emperors=tuple(T.emperor_ids[g.emp[e]] for e in L.played_on(g, actor, s)),
            placement=how,
            ability="always_on" if L.ability_kind(g, actor, c) == L.ALWAYS else "none",
            rulings=("K43", "K37") if how == "rival_chosen" else ("K43",),
        )
    )


def _box_barbarian(tx: Tx) -> None:
    """Solo: a barbarian from the holding box onto the first open homeland in K8's order [K44, K41]."""
    g = tx.g
    T = g.T
    for h in T.homelands:
        top = g.top[h]
        if (top < 0 or not T.is_barbarian[top]) and L.adjacent(g, h):
            b = g.box[0]
            covers = T.card_ids[top] if top >= 0 else None
            tx.emit(
                F.BarbarianPlaced(
                    seat=None, card=T.card_ids[b], space=T.space_ids[h], source="holding_box", covers=covers,
                    rulings=("K44", "K8"),
                )
            )  # fmt: skip
            if top >= 0 and T.ability[top] == CASTRA and not g.face_down[top]:
                overrun(tx, b, top, h)
            return


def overrun(tx: Tx, b: int, castra: int, s: int) -> None:
    """Solo: a barbarian landing on Castra discards it and goes back to the holding box [K41]."""
    T = tx.g.T
    tx.emit(
        F.CastraOverrun(
            barbarian=T.card_ids[b], castra=T.card_ids[castra], space=T.space_ids[s], rulings=("K41", "K32")
        )
    )


def end_demagogue_for_round(tx: Tx) -> None:
    """K38: lasting effects end with the round."""
    if tx.g.demagogue >= 0:
        _end_demagogue(tx, "round_end")

"""The effects of accepted commands: the action of a turn with its card abilities [K16-K19, K32-K37, K41], and the
later decisions of a turn (order, keep, pick) and the solo player's placement for a rival [K22, K29-K31, K43].

Each handler runs on a validated command (decide.py checked it against legality.py) and emits its events
through the Tx; then the flow takes over."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from services.games.barracks.rules import flow
from services.games.barracks.rules import legality as L
from services.games.barracks.rules.board import (
    DAMNATIO,
    DEMAGOGUE,
    FLANKING,
    FRUMENTARII,
    MOB,
    MOBILE_VULGUS,
    PEDDLING,
    POPULARITY,
    PRETENDER,
    PRINCEPS,
    REINFORCEMENTS,
    SPICULUM,
    TRIBUTE,
)
from services.games.barracks.rules.flow import Tx
from services.games.barracks.rules.rounds import rng
from services.rules.facts import maker

ABILITY_RULINGS = {
    REINFORCEMENTS: ("K18", "K2"),
    PEDDLING: ("K18", "K2"),
    POPULARITY: ("K18", "K2"),
    FLANKING: ("K7", "K32", "KX15"),
    SPICULUM: ("K34", "K16", "KX1"),
    MOB: ("K33", "K16", "KX1"),
    TRIBUTE: ("K34",),
    MOBILE_VULGUS: ("K33",),
    DAMNATIO: ("K36", "K27"),
    PRETENDER: ("K36",),
    DEMAGOGUE: ("K37",),
}
# The most frequent events, from one tuple in the mirror's order (services/rules/facts.py: ``maker``).
_PLAYED = maker(
    F.InfluencePlayed, "seat rival card space emperors placement ability rulings type discarded barbarian_taken"
)
_TAKEN = maker(F.ForumTaken, "seat card slot allowed played_value refill rulings type")
_PICK_RULINGS = ("K29", "K30", "K14")
PLACEMENT_RULINGS = {
    L.FACTION: ("K16", "K10"),
    L.FORCE: ("K16",),
    L.PRAETORIAN_P: ("K16", "K35"),
    L.FOEDERATI_P: ("K16", "K35"),
    L.TRIUMPH_P: ("K16", "K35", "K28"),
}


def play_influence(tx: Tx, seat: int, c: int, s: int, kind: str, choice: str | None, target: int) -> None:
    """An influence card onto ``s`` (reached as ``kind``), its ability used with ``target`` or not [K15-K17]."""
    g = tx.g
    T = g.T
    actor = g.seat_actor[seat]
    top, under = g.top[s], g.under[s]
    discarded: tuple[int, ...] = ()
    taken = None
    if kind == L.PRAETORIAN_P:  # K35: the influence card there is discarded
        discarded = (top,)
    elif kind == L.FOEDERATI_P:  # K35: the barbarian and the card it covered are discarded
        discarded = (top, under) if under >= 0 else (top,)
    elif kind == L.TRIUMPH_P:  # K35, K28: the barbarian is won, the card it covered discarded
        taken = top
        discarded = (under,) if under >= 0 else ()
    rulings = ["K15", *PLACEMENT_RULINGS[kind]]
    ability = L.ability_kind(g, actor, c)
    if ability == L.ALWAYS:
        state = "always_on"
        rulings.append("K17")
    elif ability == L.SUPPRESSED:
        state = "suppressed"
        rulings.append("K37")
    elif ability == L.NO_ABILITY:
        state = "used" if kind != L.FACTION else "none"
    elif choice is None:
        state = "no_target"
        rulings += ["K17", "KX8"] if T.ability[c] in (PRINCEPS, FRUMENTARII) else ["K17"]
    else:
        state = "declined" if choice == "decline" else "used"
        rulings.append("K17")
    emperors = L.touching(g, s) if kind == L.FORCE else L.played_on(g, actor, s)
    ids, emp, emperor_ids = T.card_ids, g.emp, T.emperor_ids
    tx.emit(
        _PLAYED(
            (
                seat, None, ids[c], T.space_ids[s], tuple([emperor_ids[emp[e]] for e in emperors]), kind, state,
                tuple(rulings), "InfluencePlayed", tuple([ids[x] for x in discarded]),
                ids[taken] if taken is not None else None,
            )
        )
    )  # fmt: skip
    if state == "used" and ability == L.CHOICE:
        _use(tx, seat, c, s, choice, target)
    flow.continue_turn(tx)


def _use(tx: Tx, seat: int, c: int, s: int, choice: str | None, x: int) -> None:
    """The effect of a triggered ability on its target [K18, K33, K34, K36, K37, K41]."""
    g = tx.g
    T = g.T
    ability = T.ability[c]
    card = T.card_ids[c]
    rulings = ABILITY_RULINGS.get(ability, ("K17",))
    if ability in L.COUNTERS:
        amount = T.counter[c]
        tx.emit(
            F.CounterPlaced(
                seat=seat, card=card, target=T.card_ids[x], space=T.space_ids[g.pos[x]], amount=amount,
                total=g.counters[x] + amount, rulings=rulings,
            )
        )  # fmt: skip
    elif ability == FLANKING:
        tx.emit(
            F.CardsSwapped(
                seat=seat, card=card, target=T.card_ids[x], card_space=T.space_ids[g.pos[x]],
                target_space=T.space_ids[s], rulings=rulings,
            )
        )  # fmt: skip
    elif ability in (SPICULUM, MOB):
        e = L.emperor_of_target(g, g.seat_actor[seat], s, x)
        if ability == SPICULUM:
            tx.emit(
                F.CardsDiscarded(
                    cards=(T.card_ids[x],), spaces=(T.space_ids[g.pos[x]],), reason="spiculum", by_card=card,
                    emperor=T.emperor_ids[g.emp[e]], rulings=rulings,
                )
            )  # fmt: skip
        else:
            tx.emit(
                F.CardFlipped(
                    seat=seat, card=card, target=T.card_ids[x], space=T.space_ids[g.pos[x]],
                    counters_lost=g.counters[x], rulings=rulings,
                )
            )  # fmt: skip
    elif ability == TRIBUTE and choice == "to_deck":  # K41: solo, back into the deck, shuffled in
        sx = g.pos[x]
        uncovered = g.under[sx]
        tx.emit(
            F.BarbarianReturned(
                seat=seat, card=card, barbarian=T.card_ids[x], space=T.space_ids[sx],
                uncovered=T.card_ids[uncovered] if uncovered >= 0 else None, rulings=("K41", "KX6"),
            )
        )  # fmt: skip
        order = g.deck[::-1]
        rng(g, "tribute", g.round, g.version).shuffle(order)
        tx.emit(
            F.DeckShuffled(
                round=g.round,
                order=tuple(T.card_ids[d] for d in order),
                reason="tribute",
                rulings=("K41", "K13", "KX6"),
            )
        )
    elif ability in (TRIBUTE, MOBILE_VULGUS):
        tx.emit(
            F.CardsDiscarded(
                cards=(T.card_ids[x],), spaces=(T.space_ids[g.pos[x]],),
                reason="tribute" if ability == TRIBUTE else "mobile_vulgus", by_card=card, rulings=rulings,
            )
        )  # fmt: skip
    elif ability == DAMNATIO:  # K36: removed before the resolution loop; K27: the board is cleaned up
        e = g.emp.index(x)
        eid = T.emperor_ids[x]
        tx.emit(F.EmperorRemoved(seat=seat, card=card, emperor=eid, space=T.emp_ids[e], rulings=rulings))
        flow.clean_up(tx, e, eid)
    elif ability == PRETENDER:
        tx.emit(
            F.PretenderPlaced(
                seat=seat, card=card, emperor=T.emperor_ids[g.aside[0]], space=T.emp_ids[x], rulings=rulings
            )
        )
    elif ability == DEMAGOGUE:
        tx.emit(F.DemagogueActive(seat=seat, card=card, rulings=rulings))
    # Princeps Senatus and Frumentarii act after the resolutions (InfluencePlayed records their use) [K31].


def place_barbarian(tx: Tx, seat: int, b: int, h: int) -> None:
    """A barbarian card from hand onto a homeland [K19a]."""
    g = tx.g
    T = g.T
    top = g.top[h]
    tx.emit(
        F.BarbarianPlaced(
            seat=seat, card=T.card_ids[b], space=T.space_ids[h], source="hand",
            covers=T.card_ids[top] if top >= 0 else None, rulings=("K15", "K19", "K8"),
        )
    )  # fmt: skip
    if top >= 0 and L.is_castra(g, top):  # only in solo may a barbarian land on Castra [K41]
        flow.overrun(tx, b, top, h)
    flow.continue_turn(tx)


def move_barbarian(tx: Tx, seat: int, card: int, frm: int, to: int) -> None:
    """A barbarian card from hand discarded to move the barbarian on ``frm`` to ``to`` [K19b, K7]."""
    g = tx.g
    T = g.T
    b = g.top[frm]
    uncovered = g.under[frm]
    top = g.top[to]
    tx.emit(
        F.BarbarianMoved(
            seat=seat, card=T.card_ids[card], barbarian=T.card_ids[b], from_space=T.space_ids[frm],
            to_space=T.space_ids[to], covers=T.card_ids[top] if top >= 0 else None,
            uncovered=T.card_ids[uncovered] if uncovered >= 0 else None, rulings=("K15", "K19", "K7"),
        )
    )  # fmt: skip
    if top >= 0 and L.is_castra(g, top):
        flow.overrun(tx, b, top, to)
    flow.continue_turn(tx)


def pass_turn(tx: Tx, seat: int) -> None:
    """Show the hand and end the turn [K20, K14]."""
    g = tx.g
    hand = tuple(g.T.card_ids[c] for c in g.hands[seat])
    tx.emit(F.Passed(seat=seat, rival=None, hand=hand, automatic=False, rulings=("K20", "K14")))
    flow.next_turn(tx)


def order(tx: Tx, seat: int, e: int) -> None:
    """The surrounded Emperor the active player resolves next [K22]."""
    flow.resolve(tx, e, seat)
    flow.continue_turn(tx)


def keep(tx: Tx, seat: int, c: int, bottom: tuple[int, ...]) -> None:
    """Frumentarii: the card kept, the others under the deck in the chosen order [K31, KX7]."""
    T = tx.g.T
    tx.emit(
        F.CardKept(
            seat=seat, card=T.card_ids[c], bottom=tuple(T.card_ids[x] for x in bottom), rulings=("K31", "KX7", "K14")
        )
    )
    flow.next_turn(tx)


def pick(tx: Tx, seat: int, c: int) -> None:
    """A Forum card into the hand; the row slides left and is refilled from the deck [K29, K30]."""
    g = tx.g
    T = g.T
    refill = T.card_ids[g.deck[-1]] if g.deck else None
    value = g.played_value
    allowed = L.forum_allowed(value)
    tx.emit(_TAKEN((seat, T.card_ids[c], g.forum.index(c), allowed, value, refill, _PICK_RULINGS, "ForumTaken")))
    flow.next_turn(tx)


def place_for_rival(tx: Tx, s: int) -> None:
    """Solo under the player's Demagogue: the rival claimant's card where the player chose [K43]."""
    g = tx.g
    flow.place_rival_card(tx, g.active, g.limbo, s, "rival_chosen")
    if flow.settle(tx):
        flow.next_turn(tx)

"""Rounds: the opening of a game and of each round (shuffles and deals from the seed, recorded as events), the
end of a round, and the final scoring [K3, K9, K11-K13, K38, K39, K41]."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules import flow
from services.games.barracks.rules.board import FACTIONS

if TYPE_CHECKING:
    from services.games.barracks.rules.flow import Tx
    from services.games.barracks.rules.state import Game


def rng(g: Game, *purpose: object) -> random.Random:
    """The generator of one recorded draw: a function of the seed and of what is drawn [K13]."""
    return random.Random(":".join(["barracks", str(g.seed), *map(str, purpose)]))


def open_game(tx: Tx) -> None:
    """After GameStarted: the Emperor round deck is shuffled once, then round 1 begins [K11, K13]."""
    g = tx.g
    T = g.T
    order = list(range(T.n_round_deck))
    rng(g, "emperors").shuffle(order)
    tx.emit(F.EmperorDeckShuffled(order=tuple(T.emperor_ids[x] for x in order), rulings=("K11", "K13", "K4")))
    begin_round(tx)


def begin_round(tx: Tx) -> None:
    """Setup of a round [K11, K12, K3, K9], then its first turns."""
    g = tx.g
    T = g.T
    number = g.round + 1
    humans = tuple(a for a, seat in enumerate(g.actor_seat) if seat >= 0)
    if number == 1:  # K12: drawn from the seed among the players' seats
        first = rng(g, "first").choice(humans)
        drawn_from = tuple(g.actor_seat[a] for a in humans)
    else:  # K12: the next faction clockwise (two players: the other seat)
        first = (g.first_actor + 1) % len(g.actor_seat)
        drawn_from = ()
    seat = g.actor_seat[first]
    tx.emit(
        F.RoundStarted(
            round=number,
            first_faction=FACTIONS[g.actor_factions[first][0]],
            first_seat=seat if seat >= 0 else None,
            drawn_from=drawn_from,
            rulings=("K12", "K13") if number == 1 else ("K12",),
        )
    )
    barbarians = sorted(c for c in g.pool if T.is_barbarian[c])  # KX4: all alike; the lowest ids set out first
    box = barbarians[: T.barbarians_in_box]
    starting = barbarians[T.barbarians_in_box : T.barbarians_in_box + T.barbarians_starting]
    tx.emit(
        F.BarbariansSet(
            round=number,
            holding_box=tuple(T.card_ids[b] for b in box),
            placed=tuple((T.space_ids[s], T.card_ids[b]) for s, b in zip(T.starting_spaces, starting, strict=False)),
            rulings=("K3", "K9", "K11", "KX4"),
        )
    )
    dealt = g.emperor_deck[-T.per_round :][::-1]  # top first
    tx.emit(
        F.EmperorsDealt(
            round=number,
            placed=tuple((T.emp_ids[e], T.emperor_ids[x]) for e, x in enumerate(dealt)),
            rulings=("K11", "K5", "KX9"),
        )
    )
    deck = sorted(g.pool)  # K11: the 42 influence cards and the remaining barbarians
    rng(g, "deck", number).shuffle(deck)
    tx.emit(
        F.DeckShuffled(round=number, order=tuple(T.card_ids[c] for c in deck), reason="round", rulings=("K11", "K13"))
    )
    size = g.settings.hand_size
    for s in range(len(g.players)):
        cards = g.deck[-size:][::-1]
        tx.emit(F.HandDealt(seat=s, cards=tuple(T.card_ids[c] for c in cards), rulings=("K11", "K14", "KX9")))
    forum = g.deck[-g.settings.forum_size :][::-1]
    tx.emit(F.ForumDealt(cards=tuple(T.card_ids[c] for c in forum), rulings=("K11",)))
    flow.start_turns(tx, first)


def end_round(tx: Tx, reason: str) -> None:
    """K38: the round ends; after round 3 the game ends [K39], else the next round begins."""
    g = tx.g
    T = g.T
    flow.end_demagogue_for_round(tx)
    left = tuple(T.emperor_ids[x] for x in g.emp if x >= 0)
    tx.emit(
        F.RoundEnded(
            round=g.round,
            reason=reason,
            emperors_out=left,
            rulings=("K38", "K20") if reason == "all_passed" else ("K38",),
        )
    )
    if g.round >= T.rounds:
        tx.emit(final_scores(g))
    else:
        begin_round(tx)


def score_of(g: Game, actor: int) -> tuple[int, tuple[int, int, int], int, int]:
    """K39: (points, Emperors per colour, sets, Triumph barbarians) of one actor's scoring area."""
    T = g.T
    colours = [0, 0, 0]
    for x in g.won[actor]:
        colours[T.colour[x]] += 1
    sets = min(colours)
    barbarians = len(g.won_barbarians[actor])
    s = g.settings
    points = sum(colours) + s.set_bonus * sets + s.barbarian_vp * barbarians
    return points, (colours[0], colours[1], colours[2]), sets, barbarians


def final_scores(g: Game) -> Any:
    """The GameEnded event: scores, winners, a shared victory or the tiebreak [K39, K41]."""
    per_seat = [score_of(g, g.seat_actor[seat]) for seat in range(len(g.players))]
    scores = tuple(p[0] for p in per_seat)
    rulings = ["K39"]
    tiebreak_used = False
    rival_scores: tuple[tuple[str, int], ...] = ()
    if g.solo:  # K41: the player wins when their score exceeds each rival's (KX2: rivals keep their captures)
        rival_scores = tuple(
            (FACTIONS[g.actor_factions[a][0]], score_of(g, a)[0]) for a, seat in enumerate(g.actor_seat) if seat < 0
        )
        winners: tuple[int, ...] = (0,) if all(scores[0] > r for _, r in rival_scores) else ()
        rulings += ["K41", "KX2", "KX12"]
    else:
        best = max(scores)
        winners = tuple(i for i, p in enumerate(scores) if p == best)
        if len(winners) > 1 and g.settings.tiebreak == "sets_then_emperors":
            tiebreak_used = True
            key = {i: (per_seat[i][2], sum(per_seat[i][1])) for i in winners}
            top = max(key.values())
            winners = tuple(i for i in winners if key[i] == top)
    return F.GameEnded(
        scores=scores,
        emperors=tuple(p[1] for p in per_seat),
        sets=tuple(p[2] for p in per_seat),
        barbarians=tuple(p[3] for p in per_seat),
        winners=winners,
        shared=len(winners) > 1,
        tiebreak_used=tiebreak_used,
        rival_scores=rival_scores,
        rulings=tuple(rulings),
    )

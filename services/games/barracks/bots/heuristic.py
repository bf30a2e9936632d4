"""Bots for The Barracks Emperors: ``random`` (a uniformly random legal command) and ``heuristic``.

The heuristic bot looks one decision ahead: it runs each legal command through the rules core (the engine works out
every resolution and clean-up) and scores the position it leads to with :func:`evaluate`:

- points already scored (Emperors, sets, Triumph barbarians), its own against the best opponent's [K39];
- for every Emperor still on the board, who would take it if it resolved now with the cards already around it
  (the same cancelling, trump and Quaestor/Ambitus as the rules [K24-K26]), weighted by how many of its four sides
  are filled and by the set the Emperor would complete;
- a little for the printed values kept in hand (strong cards win later Emperors).

A tiny seeded random term breaks exact ties. It never uses a secret: the simulation stops before the first card it
would draw from the secret deck (a Princeps draw, a Frumentarii look, a rival claimant's draw, a new round's deal)
and the position there is evaluated; the evaluation reads only the board, the scoring areas and its own hand [K14].
"""

from __future__ import annotations

import random
from contextlib import suppress
from typing import Any

from services.games.barracks.rules import facts as F
from services.games.barracks.rules import listing
from services.games.barracks.rules.board import AMBITUS, CAVALRY, QUAESTOR
from services.games.barracks.rules.decide import check
from services.games.barracks.rules.flow import Tx
from services.games.barracks.rules.rounds import score_of
from services.games.barracks.rules.state import ACTION, Game
from services.rules.contract import Bot, GameRules

CONTROL = 0.22  # value of leading an Emperor, per filled side (4 filled: it resolves; the capture counts fully)
THREAT = 0.12  # cost of an opponent leading an Emperor, per filled side
HAND = 0.03  # value of a printed point kept in hand
OPPONENT = 0.8  # weight of the best opponent's score


class RandomBot:
    """A seeded random player: a uniformly random legal command."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, rules: GameRules[Any], state: Any, seat: int) -> Any:
        """The bot's command for ``seat`` (None: it has none)."""
        return rules.sample_legal(state, seat, self.rng)


class HeuristicBot:
    """One decision of lookahead with a hand-written evaluation (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, rules: GameRules[Any], state: Game, seat: int) -> Any:
        """The best-scoring legal command of ``seat``."""
        keys = listing.legal_keys(state, seat)
        if not keys:
            return None
        if len(keys) == 1:
            return listing.command_of(state, seat, keys[0])
        best, best_score = keys[0], float("-inf")
        for key in keys:
            score = self.score(state, seat, key) + self.rng.random() * 1e-6
            if score > best_score:
                best, best_score = key, score
        return listing.command_of(state, seat, best)

    def score(self, g: Game, seat: int, key: tuple[Any, ...]) -> float:
        """The evaluation of the position after the command of ``key``."""
        if key[0] == "F" and g.phase != ACTION:  # a Forum pick: only the hand changes
            return HAND * g.T.value[key[1]] + (0.5 if not g.T.is_barbarian[key[1]] else 0.2)
        plan = check(g, listing.command_of(g, seat, key))
        tx = _Blind(g.copy())
        with suppress(_Secret):  # then the position just before the first card drawn from the secret deck counts
            plan[0](tx, *plan[1])  # type: ignore[index]
        return evaluate(tx.g, seat)


class _Secret(Exception):
    """The simulation reached a draw from the secret deck (or the end of the round, with new deals)."""


_DRAWS = frozenset({F.CardDrawn, F.CardsLooked, F.RivalDrew, F.DeckShuffled, F.RoundEnded})


class _Blind(Tx):
    """A Tx that stops before any event that would draw from the secret deck order [K14]."""

    __slots__ = ()

    def emit(self, event: Any) -> None:
        if type(event) in _DRAWS:
            raise _Secret
        super().emit(event)


def evaluate(g: Game, seat: int) -> float:
    """How good ``g`` looks for ``seat`` (see the module docstring)."""
    T = g.T
    me = g.seat_actor[seat]
    mine = score_of(g, me)[0]
    others = [score_of(g, a)[0] for a in range(len(g.actor_seat)) if a != me and (g.actor_seat[a] >= 0 or g.solo)]
    value = mine - OPPONENT * (max(others) if others else 0)
    colours = [0, 0, 0]
    for x in g.won[me]:
        colours[T.colour[x]] += 1
    for e, x in enumerate(g.emp):
        if x < 0:
            continue
        leader, filled = leading(g, e)
        if leader < 0:
            continue
        weight = filled / 4
        if leader == me:
            colour = T.colour[x]
            set_gain = 0.6 if colours[colour] <= min(colours) else 0.0
            value += (CONTROL * 4 + set_gain) * weight
        else:
            value -= THREAT * 4 * weight
    value += HAND * sum(T.value[c] for c in g.hands[seat])
    return value


def leading(g: Game, e: int) -> tuple[int, int]:
    """The actor who would take the Emperor of space ``e`` with the cards around it now, and how many sides are
    filled (-1: no one leads) [K24-K27]."""
    T = g.T
    colour = T.colour[g.emp[e]]
    cards = []
    quaestor = False
    for side, s in enumerate(T.sides[e]):
        c = g.top[s]
        if c < 0:
            continue
        if T.is_barbarian[c] or g.face_down[c]:
            cards.append((side, c, 0, -1, -1))
            continue
        ability = T.ability[c]
        quaestor = quaestor or ability == QUAESTOR
        cards.append((side, c, T.value[c] + g.counters[c], T.suit[c], ability))
    if not cards:
        return -1, 0
    values = [v for _, _, v, _, _ in cards]
    able = [x for x in cards if x[2] > 0 and (values.count(x[2]) == 1 or x[4] == CAVALRY)]
    if not able:
        return -1, len(cards)
    trumps = [x for x in able if not quaestor and (x[3] == colour or x[4] == AMBITUS)]
    side, c, _, _, _ = max(trumps or able, key=lambda x: x[2])
    actor = g.faction_actor[side] if g.settings.capture == "side" else g.played_by[c]
    return actor, len(cards)


def random_bot(seed: int) -> Bot:
    """Factory of the random bot."""
    return RandomBot(seed)


def heuristic_bot(seed: int) -> Bot:
    """Factory of the heuristic bot."""
    return HeuristicBot(seed)

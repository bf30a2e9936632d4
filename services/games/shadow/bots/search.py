"""Shadow's part of the search bot (services/bots/search.py): the heuristic bot's knowledge as the search's
evaluation, move ordering and opponent model.

- ``evaluate``: the heuristic evaluation (estimated final VP against the opponents', plus thalers;
  heuristic.py), a win or loss counting as such once the game is over;
- ``candidates``: the bot's legal commands ranked by the heuristic's one-ply score, the best ``WIDTH`` kept
  (the heuristic already drops Rival challenges it would lose and paid Doctors on young tiles);
- ``policy``: the heuristic bot itself, seeded from the search's generator, for the other seats' replies (kept
  once computed: it is nearly deterministic, and it is what costs most).

The search sees only determinized positions, and so do these functions.
"""

from __future__ import annotations

import random
from typing import Any

from events.base import Command
from services.bots.search import SearchBot, SearchKit
from services.games.shadow.bots.heuristic import Cache, HeuristicBot, _worth_trying, evaluate
from services.games.shadow.rules import actions
from services.games.shadow.rules.state import GameState
from services.rules.contract import GameRules

WIDTH = 4
"""Candidate commands searched at each of the bot's decisions (the heuristic's best)."""
ITERATIONS = 24
"""Iterations per decision (the budget)."""
DEPTH = 10
"""Decisions played in the tree per iteration at most."""


def ranked(state: GameState, seat: int, width: int = WIDTH, cache: Cache | None = None) -> list[Command]:
    """The ``width`` legal commands of ``seat`` the heuristic scores best, best first."""
    keys = actions.legal_keys(state, seat)
    if state.pending is not None and state.pending.decision == "actions":
        keys = _worth_trying(state, seat, keys)
    if len(keys) <= 1:
        return [actions.command_of(seat, k) for k in keys]
    scorer = HeuristicBot(0)
    scorer._cache = cache if cache is not None else {}
    if state.pending is not None and state.pending.decision == "vote":
        scores = {key: evaluate(_with_vote(state, seat, key[1]), seat) for key in keys}
    else:
        scores = {key: scorer._score(state, seat, key) for key in keys}
    best = sorted(keys, key=lambda k: -scores[k])[:width]
    return [actions.command_of(seat, k) for k in best]


def _with_vote(state: GameState, seat: int, candidate: str) -> GameState:
    votes = list(state.votes)
    votes[seat] = candidate
    return state._replace(votes=tuple(votes))


def kit(iterations: int = ITERATIONS, width: int = WIDTH, depth: int = DEPTH) -> SearchKit:
    """The search's settings for Shadow (one evaluation cache shared by the decision's iterations)."""
    cache: Cache = {}

    def value(rules: GameRules[Any], s: GameState, seat: int) -> float:
        return evaluate(s, seat, cache)

    def candidates(rules: GameRules[Any], s: GameState, seat: int) -> list[Command]:
        return ranked(s, seat, width, cache)

    def policy(rules: GameRules[Any], s: GameState, seat: int, rng: random.Random) -> Command | None:
        return HeuristicBot(rng.getrandbits(32)).choose(rules, s, seat)

    return SearchKit(
        evaluate=value,
        policy=policy,
        candidates=candidates,
        iterations=iterations,
        depth=depth,
        playout=0,
        opponents="policy",
    )


def search_bot(seed: int) -> SearchBot:
    """The ``search`` bot kind of Shadow."""
    return SearchBot(seed, kit())

"""The search bot: information-set Monte-Carlo tree search over any game of the contract.

Each iteration plays on a fresh **determinization** of the position (``GameRules.determinize``: what the bot's
seat cannot see re-drawn at random), so the bot never reads a secret; the statistics of all iterations are
pooled in one tree, as in single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). The tree holds every
decision below the root, keyed by the commands that led to it:

- at the bot's own decisions it picks by UCB1 among the candidate commands (``SearchKit.candidates``: all legal
  commands by default; a game may rank and prune them), trying the untried ones first, in their given order;
- at another seat's decision, by default (``opponents="search"``) the same, on that seat's own value: each
  seat is assumed to play well for itself (multi-player UCT, as in Sturtevant's MP-MCTS); or, with
  ``opponents="policy"``, that seat plays the kit's playout policy (e.g. a game's heuristic bot), computed on
  the first visit and kept: a model of the opponents that costs nothing on later visits.

An iteration goes down the tree until it has tried one new command at a searched decision (and, with
``opponents="policy"``, the others have replied and the game is back to the bot), or ``depth`` decisions are
played, or the game ends; then ``playout`` more decisions are played by the policy alone (every seat) and the
position is scored with ``SearchKit.evaluate`` for the bot and for each seat that searched on the way.
Scores are normalised to [0, 1] by the lowest and highest seen so far, so one exploration constant fits any
scale. The answer is the most visited root command (ties: the better mean, then the earlier candidate).

The budget is a fixed number of iterations (``SearchKit.iterations``), not a time: a seeded bot decides the same
way on any machine. Every random draw comes from the bot's seeded generator.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from events.base import Rejection
from services.rules.contract import Command, GameRules

Evaluate = Callable[[GameRules[Any], Any, int], float]
"""``(rules, state, seat) -> value``: how good ``state`` is for ``seat`` (higher is better, any scale)."""
Policy = Callable[[GameRules[Any], Any, int, random.Random], Command | None]
"""``(rules, state, seat, rng) -> command``: the playout policy of a seat (None: it has no command)."""
Candidates = Callable[[GameRules[Any], Any, int], Sequence[Command]]
"""``(rules, state, seat) -> commands``: the bot's own commands worth searching, best guess first."""


def outcome_value(rules: GameRules[Any], state: Any, seat: int) -> float:
    """A value for any game from its result alone: once over, 1 for a victory alone, 1/k for one shared by k,
    0 for a loss, plus a small share of the score margin over the best other seat; 0.5 while it runs."""
    result = rules.result(state) if rules.is_over(state) else None
    if result is None:
        return 0.5
    winners = list(result.get("winners") or ())
    won = 1.0 / len(winners) if seat in winners else 0.0
    scores = result.get("scores") or []
    margin = 0.0
    if len(scores) > seat and all(isinstance(x, int | float) for x in scores):
        others = [x for i, x in enumerate(scores) if i != seat]
        margin = (scores[seat] - max(others)) / 100.0 if others else 0.0
    return won + margin


def random_policy(rules: GameRules[Any], state: Any, seat: int, rng: random.Random) -> Command | None:
    """A uniformly random legal command (``GameRules.sample_legal``)."""
    return rules.sample_legal(state, seat, rng)


def all_legal(rules: GameRules[Any], state: Any, seat: int) -> Sequence[Command]:
    """Every legal command of ``seat``, in the rules' order."""
    return rules.legal_commands(state, seat)


Opponents = Literal["search", "policy"]
"""``search``: another seat's decision is searched like the bot's own, by UCB1 on that seat's value (it is
assumed to play well for itself). ``policy``: another seat plays the kit's policy, computed on the first visit
and kept (for a costly, near-deterministic policy such as a heuristic bot: later visits cost nothing)."""


@dataclass(frozen=True)
class SearchKit:
    """What the search needs of a game beyond the contract, with defaults that work for any game."""

    evaluate: Evaluate = outcome_value
    policy: Policy = random_policy
    candidates: Candidates = all_legal
    iterations: int = 200
    """The budget: iterations per decision (each one determinization, one walk down the tree, one score)."""
    depth: int = 12
    """At most this many decisions below the root are played in the tree per iteration."""
    playout: int = 200
    """Then at most this many decisions by the policy alone (every seat), before the position is scored."""
    exploration: float = 0.7
    """UCB1's exploration constant, on values normalised to [0, 1]."""
    opponents: Opponents = "search"
    """How other seats' decisions are played in the tree (see :data:`Opponents`)."""


@dataclass(slots=True)
class Node:
    """One decision of the tree: its visits, the summed value for each seat scored, and its children."""

    visits: int = 0
    totals: dict[int, float] = field(default_factory=dict)
    children: dict[bytes, Node] = field(default_factory=dict)
    moves: list[tuple[bytes, Command]] | None = None
    """At a searched decision: the actor's candidate commands, in the kit's order (set on the first visit)."""
    reply: tuple[bytes, Command] | None = None
    """At a decision played by the policy: its command (set on the first visit)."""

    def mean(self, seat: int) -> float:
        """The mean value of this node for ``seat``."""
        return self.totals.get(seat, 0.0) / self.visits if self.visits else 0.0


@dataclass
class SearchStats:
    """What the last decision cost: iterations run and root visits per candidate (for tests and the bench)."""

    iterations: int = 0
    root_visits: dict[bytes, int] = field(default_factory=dict)


class SearchBot:
    """A seeded ISMCTS player for one seat of any game (see the module docstring)."""

    def __init__(self, seed: int, kit: SearchKit | None = None) -> None:
        self.rng = random.Random(seed)
        self.kit = kit or SearchKit()
        self.stats = SearchStats()

    def choose(self, rules: GameRules[Any], state: Any, seat: int) -> Command | None:
        """The bot's command for ``seat`` now (None if it has none).

        ``state`` is read only through ``rules.determinize(state, seat, rng)``: every position the search looks
        at is a determinization, so its choice cannot depend on what ``seat`` may not see."""
        if rules.capabilities.hidden_information and not rules.capabilities.determinizes:
            raise ValueError(f"{rules.name} has secrets but no honest determinize: a search bot cannot play it")
        kit, rng = self.kit, self.rng
        root = Node()
        first = rules.determinize(state, seat, rng)
        root.moves = [(_key(rules, c), c) for c in kit.candidates(rules, first, seat)]
        self.stats = SearchStats()
        if len(root.moves) <= 1:
            return root.moves[0][1] if root.moves else None
        bounds = [math.inf, -math.inf]
        for iteration in range(kit.iterations):
            world = first if iteration == 0 else rules.determinize(state, seat, rng)
            self._iterate(rules, world, seat, root, bounds)
            self.stats.iterations += 1
        self.stats.root_visits = {k: root.children[k].visits if k in root.children else 0 for k, _ in root.moves}
        return _best(root, seat)[1]

    def _iterate(self, rules: GameRules[Any], s: Any, seat: int, root: Node, bounds: list[float]) -> None:
        """One walk down the tree from the root on the determinization ``s``, its playout, and the backup."""
        kit, rng = self.kit, self.rng
        node, path, depth, expanded = root, [root], 0, False
        scored = {seat}
        while depth < kit.depth and not rules.is_over(s):
            awaited = rules.awaited(s)
            if not awaited:
                break
            actor = seat if depth == 0 else awaited[0]
            if actor == seat or kit.opponents == "search":
                if expanded:
                    break  # one new decision per iteration: from here the playout takes over
                if node.moves is None:
                    node.moves = [(_key(rules, c), c) for c in kit.candidates(rules, s, actor)]
                if not node.moves:
                    break
                key, command, expanded = self._select(node, actor, bounds)
                scored.add(actor)
            else:
                if node.reply is None:
                    reply = kit.policy(rules, s, actor, rng)
                    if reply is None:
                        break
                    node.reply = (_key(rules, reply), reply)
                key, command = node.reply
            outcome = rules.execute(s, command)
            if isinstance(outcome, Rejection):
                # Not legal in this determinization (it hid something the command depended on): score here.
                break
            s = outcome[1]
            node = node.children.setdefault(key, Node())
            path.append(node)
            depth += 1
        for _ in range(kit.playout):
            if rules.is_over(s):
                break
            awaited = rules.awaited(s)
            command = kit.policy(rules, s, awaited[0], rng) if awaited else None
            if command is None:
                break
            outcome = rules.execute(s, command)
            if isinstance(outcome, Rejection):
                break
            s = outcome[1]
        values = {who: kit.evaluate(rules, s, who) for who in sorted(scored)}
        bounds[0], bounds[1] = min(bounds[0], *values.values()), max(bounds[1], *values.values())
        for visited in path:
            visited.visits += 1
            for who, value in values.items():
                visited.totals[who] = visited.totals.get(who, 0.0) + value

    def _select(self, node: Node, actor: int, bounds: list[float]) -> tuple[bytes, Command, bool]:
        """``actor``'s command at ``node``: the first untried candidate, else the best for it by UCB1."""
        assert node.moves is not None
        for key, command in node.moves:
            if key not in node.children:
                return key, command, True
        low, high = bounds
        spread = high - low if high > low else 1.0
        log_n = math.log(max(1, node.visits))
        best: tuple[float, bytes, Command] | None = None
        for key, command in node.moves:
            child = node.children[key]
            mean = (child.mean(actor) - low) / spread if child.visits else 1.0
            ucb = mean + self.kit.exploration * math.sqrt(log_n / max(1, child.visits))
            if best is None or ucb > best[0]:
                best = (ucb, key, command)
        assert best is not None
        return best[1], best[2], False


def _best(root: Node, seat: int) -> tuple[bytes, Command]:
    """The most visited root command; ties go to the better mean, then to the earlier candidate."""
    assert root.moves is not None
    best, rank = root.moves[0], (-1, -math.inf)
    for key, command in root.moves:
        child = root.children.get(key)
        here = (child.visits, child.mean(seat)) if child and child.visits else (0, -math.inf)
        if here > rank:
            best, rank = (key, command), here
    return best


def _key(rules: GameRules[Any], command: Command) -> bytes:
    """A command as a dictionary key (its JSON, keys sorted)."""
    return orjson.dumps(rules.encode_command(command), option=orjson.OPT_SORT_KEYS)

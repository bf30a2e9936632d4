"""A heuristic bot for In the Shadow of the Emperor: one-ply lookahead with a hand-written evaluation.

For each legal command (the keys behind ``legal_commands``) the bot runs the engine's own effect of that
command and the automatic flow after it, as ``execute`` does once a command is known to be legal (see
:func:`simulate`; skipping the re-check and the command models keeps a decision around a millisecond), so
the rules engine, not the bot, works out every consequence. It scores the resulting state with
:func:`evaluate`; the best score wins and a tiny seeded random term breaks exact ties. Paid Doctors on young
tiles and a Rival challenge it would probably lose are not tried.

The evaluation (evaluation.py) estimates each player's final victory points and adds the value of the bot's
thalers.

Two decisions are special cases: a secret vote is decided from the tallies (never from the state after the
vote, which would reveal the others' sealed votes), and a daughter offered to an opponent is scored as the
average of his two answers.
"""

from __future__ import annotations

import random
from typing import Any

from events.base import Command
from services.games.shadow.bots.evaluation import Cache, evaluate, rival_chance
from services.games.shadow.rules import actions
from services.games.shadow.rules.effects import Tx
from services.games.shadow.rules.state import GameState
from services.rules.contract import GameRules

__all__ = ["Cache", "HeuristicBot", "evaluate", "simulate"]


class _Draft:
    """A command as plain attributes (``type``, ``seat`` and its fields), for trying out a legal key without
    building and validating a command model; only the chosen key becomes a real command."""

    def __init__(self, seat: int, key: tuple[Any, ...]) -> None:
        self.type = key[0]
        self.seat = seat
        for name, value in zip(actions.FIELDS[key[0]], key[1:], strict=True):
            setattr(self, name, value)


def simulate(state: GameState, seat: int, key: tuple[Any, ...]) -> GameState:
    """The state after ``seat`` plays the legal command ``key`` (the engine's own effect of the command,
    followed by the automatic flow, exactly as ``execute`` runs it once the command is known to be legal)."""
    prompt = state.pending
    assert prompt is not None
    tx = Tx(state)
    actions.APPLY[(prompt.decision, key[0])](tx, _Draft(seat, key), prompt)
    return tx.state


def _worth_trying(s: GameState, seat: int, keys: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Phase IV keys minus two kinds the bot never wants: Rival when it would probably lose the vote (the
    challenge ends its turn for nothing), and paid Doctors on tiles aged 15 or 25 (a step of age there
    changes no seat this round and little later; they are the most numerous options, so this is for speed)."""
    by_id = s.layout.by_id
    board = s.board
    out = [k for k in keys if k[0] != "BuyDoctor" or board[by_id[k[1]]].age >= 35]  # type: ignore[union-attr]
    if ("BuyRival",) in out and rival_chance(s, seat) < 0.5:
        out.remove(("BuyRival",))
    return out


class HeuristicBot:
    """A seeded one-ply lookahead player for In the Shadow of the Emperor.

    ``choose`` tries every legal command of the seat (the keys of ``legal_commands``), scores the state each
    one leads to with :func:`evaluate` and returns the best as a command model."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, rules: GameRules[Any], state: Any, seat: int) -> Command | None:
        """The bot's next command for ``seat`` (None if it has none)."""
        keys = actions.legal_keys(state, seat)
        if state.pending.decision == "actions":
            keys = _worth_trying(state, seat, keys)
        if len(keys) <= 1:
            return actions.command_of(seat, keys[0]) if keys else None
        if state.pending.decision == "vote":
            return actions.command_of(seat, self._vote(state, seat, keys))
        self._cache: Cache = {}
        best = keys[0]
        best_score = -float("inf")
        rng = self.rng.random
        for key in keys:
            score = self._score(state, seat, key) + 1e-6 * rng()
            if score > best_score:
                best, best_score = key, score
        return actions.command_of(seat, best)

    def _score(self, state: GameState, seat: int, key: tuple[Any, ...]) -> float:
        after = simulate(state, seat, key)
        p = after.pending
        if p is not None and p.decision == "marriage_answer" and seat not in p.seats:
            # The opponent answers next: score the offer as the average of acceptance and refusal [D3].
            answers = actions.legal_keys(after, p.seats[0])
            return sum(self._score_as(after, p.seats[0], a, seat) for a in answers) / len(answers)
        return evaluate(after, seat, self._cache)

    def _score_as(self, state: GameState, actor: int, key: tuple[Any, ...], me: int) -> float:
        return evaluate(simulate(state, actor, key), me, self._cache)

    def _vote(self, state: GameState, seat: int, keys: list[tuple[Any, ...]]) -> tuple[Any, ...]:
        """A secret vote, decided on the tallies: the bot's own vote is set, the others stay unknown [E2]."""
        best = keys[0]
        best_score = -float("inf")
        for key in keys:
            votes = list(state.votes)
            votes[seat] = key[1]
            score = evaluate(state._replace(votes=tuple(votes)), seat) + 1e-6 * self.rng.random()
            if score > best_score:
                best, best_score = key, score
        return best

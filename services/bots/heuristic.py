"""A heuristic bot for In the Shadow of the Emperor: one-ply lookahead with a hand-written evaluation.

For each legal command the bot applies it with the decider's ``execute`` (so the rules engine, not the bot,
works out every consequence, including the automatic flow that follows) and scores the resulting state with
:func:`evaluate`. The best score wins; a tiny seeded random term breaks exact ties.

The evaluation estimates each player's final victory points:

- the VP already scored;
- this round's phase V, projected from the power tallies (``power_in`` [V1]): 2 VP for entering a seat [V3],
  1 VP for holding Mainz afterwards [V5]; ties go to the Emperor if he is tied, else are shared out [V2]; a
  narrow lead counts for less while opponents can still act in phase IV;
- this round's election, if a Rival was taken: the chance each candidate wins from the vote tallies (other
  voters' sealed votes are secret, so each is taken as a coin toss), the Emperor's bonus [R1] and 1 VP for the
  bot when it backs the winner [E3];
- later rounds: for every electorate, the chance of leading it (from power that will still be alive, as
  tiles die after 45 [A1]), worth 2 VP for a seat not held and a per-round value of its privilege for one
  held; a share of the Emperor's future bonuses.

The bot's score is its own estimate minus a mix of the best and the average opponent estimate, plus the value
of its thalers: money is worth most up to what can be carried into the next round without losing income to
the 12-thaler cap [G2], little above that, and nothing in the last round.

Two decisions are special cases: a secret vote is decided from the tallies (never from the state after the
vote, which would reveal the others' sealed votes), and a daughter offered to an opponent is scored as the
average of his two answers.
"""

from __future__ import annotations

import random
from typing import Any

from events.base import Command, Rejection
from services.rules.decider import Decider
from services.rules.shadow.flow import EMPEROR_ACTIONS, LAST_ROUND, vote_tally
from services.rules.shadow.queries import BOHEMIA, MAINZ, SAXONY
from services.rules.shadow.state import EMPIRE, GameState, Knight, Tile

# Value of holding each electorate's seat for one round, in VP (Mainz, Köln, Trier, Palatinate, Saxony,
# Brandenburg, Bohemia): Mainz scores 1 VP a round [V5]; the others give thalers, pieces or votes.
PRIVILEGE_VALUE = (1.0, 0.35, 0.25, 0.5, 0.6, 0.3, 0.45)
THALER_VALUE = 0.3  # a thaler that can be carried into the next round
SPARE_THALER_VALUE = 0.04  # a thaler above that (lost to the cap at the next income unless spent)
FUTURE_DISCOUNT = 0.55  # later rounds are uncertain
FUTURE_EMPEROR_SHARE = 0.35  # chance-weighted share of the Emperor's later bonuses
OPPONENT_MAX_WEIGHT = 0.6
OPPONENT_MEAN_WEIGHT = 0.3
WIN_BONUS = 100.0


class _Board:
    """Per-layout index lists used by the evaluation (built once per layout)."""

    __slots__ = ("power_spaces", "candidate_spaces", "city_spaces", "spiritual", "electors")

    def __init__(self, s: GameState) -> None:
        infos = s.layout.electorates
        self.power_spaces = tuple(
            (info.elector, info.eminence, *info.aristocrats, *info.castles, *info.cities) for info in infos
        )
        self.candidate_spaces = tuple((*info.aristocrats, info.eminence) for info in infos)
        self.city_spaces = tuple(info.cities for info in infos)
        self.spiritual = tuple(info.spiritual for info in infos)
        self.electors = tuple(info.elector for info in infos)


_BOARDS: dict[int, _Board] = {}


def _board(s: GameState) -> _Board:
    b = _BOARDS.get(id(s.layout))
    if b is None:
        b = _BOARDS[id(s.layout)] = _Board(s)
    return b


def _alive_weights(future_rounds: int) -> dict[int, float]:
    """Share of the later phases V a tile of each age will see (a tile aged 45 dies in the next phase II)."""
    if future_rounds <= 0:
        return {15: 0.0, 25: 0.0, 35: 0.0, 45: 0.0}
    return {a: min(future_rounds, (45 - a) // 10) / future_rounds for a in (15, 25, 35, 45)}


_ALIVE = {r: _alive_weights(r) for r in range(0, LAST_ROUND + 1)}


def _has_candidate(s: GameState, b: _Board, seat: int, e: int) -> bool:
    """Whether ``seat`` has a tile that may become elector of ``e`` [V4]."""
    board = s.board
    spiritual = b.spiritual[e]
    for i in b.candidate_spaces[e]:
        t = board[i]
        if type(t) is Tile and t.owner == seat and not (spiritual and t.couple):
            return True
    return False


def _unresolved_from(s: GameState) -> int:
    """The first electorate whose phase V seat is still to be settled this round (7: none)."""
    ph = s.phase
    if ph < 5:
        return 0
    if ph > 5:
        return 7
    p = s.pending
    if p is None:
        return 7
    if p.decision == "break_tie":
        return p.step or 0
    if p.decision in ("choose_elector", "place_displaced"):
        return (p.step or 0) + 1
    return 0  # gray eminence: nothing settled yet


def _election_open(s: GameState) -> bool:
    """Whether this round's election is still to be decided."""
    if s.rival is None:
        return False
    if s.phase < 6:
        return True
    if s.phase > 6:
        return False
    p = s.pending
    return p is not None and p.decision in ("aim_church_influence", "aim_excommunication", "vote")


def _rival_win_chance(base_e: float, base_r: float, others: list[float]) -> float:
    """Chance the Rival gets strictly more votes when each of ``others`` backs either side at even odds [E2]."""
    k = len(others)
    wins = 0
    for mask in range(1 << k):
        r = base_r
        e = base_e
        for j in range(k):
            if mask >> j & 1:
                r += others[j]
            else:
                e += others[j]
        if r > e:
            wins += 1
    return wins / (1 << k)


def _votes(s: GameState, holders: list[int | None]) -> list[float]:
    """Each seat's votes: the exact tally in phase VI, else the projected electors after phase V [E1]."""
    if s.phase == 6:
        return [float(sum(src.votes for src in sources)) for sources in vote_tally(s)]
    votes = [0.0] * s.n
    for e, h in enumerate(holders):
        if h is not None:
            votes[h] += 2.0 if e == BOHEMIA else 1.0
    for seat in range(s.n):
        votes[seat] += s.play_areas[seat].count("pope")
    return votes


def election_outlook(s: GameState, me: int, holders: list[int | None]) -> tuple[float, float]:
    """(chance the Rival wins, chance the bot backs the winner) of this round's open election.

    Other voters' choices are unknown (their sealed votes are secret [E2]), each is a coin toss; the bot's own
    vote, if not yet sealed, is assumed to go to the side more likely to win."""
    votes = _votes(s, holders)
    emperor, rival = s.emperor, s.rival
    assert rival is not None
    voters = [seat for seat in range(s.n) if seat not in (emperor, rival)]
    others = [votes[v] for v in voters if v != me]
    base_e, base_r = votes[emperor], votes[rival]
    if me not in voters:
        return _rival_win_chance(base_e, base_r, others), 0.0
    mine = s.votes[me] if s.phase == 6 and s.votes else None
    p_if_rival = _rival_win_chance(base_e, base_r + votes[me], others)
    p_if_emperor = _rival_win_chance(base_e + votes[me], base_r, others)
    if mine == "rival":
        return p_if_rival, p_if_rival
    if mine == "emperor":
        return p_if_emperor, 1.0 - p_if_emperor
    if p_if_rival >= 1.0 - p_if_emperor:
        return p_if_rival, p_if_rival
    return p_if_emperor, 1.0 - p_if_emperor


def estimates(s: GameState, me: int) -> list[float]:
    """Each player's estimated final VP (see the module docstring)."""
    n = s.n
    vp = [float(v) for v in s.vp]
    b = _board(s)
    board = s.board
    rnd = s.round
    future = LAST_ROUND - rnd
    alive = _ALIVE[future]
    emperor = s.emperor
    closed = s.closed
    first = _unresolved_from(s)
    phase_iv_open = s.phase <= 4 and len(s.passed) < n
    # Projected holder of each seat after this round's phase V (None: empty), and chances for later rounds.
    holders: list[int | None] = [None] * 7
    hold_next: list[list[float]] = []
    eff_all: list[list[float]] = []
    for e in range(7):
        if e in closed:
            hold_next.append([0.0] * n)
            eff_all.append([0.0] * n)
            continue
        power = [0] * n
        eff = [0.0] * n
        for i in b.power_spaces[e]:
            piece = board[i]
            if piece is None:
                continue
            t = type(piece)
            if t is Tile:
                power[piece.owner] += piece.power
                eff[piece.owner] += piece.power * alive[piece.age]
            elif t is Knight:
                power[piece.owner] += 1
                eff[piece.owner] += 1.0
            else:
                owner = emperor if piece.owner == EMPIRE else piece.owner
                power[owner] += 1
                eff[owner] += 1.0
        elector = board[b.electors[e]]
        incumbent = elector.owner if elector is not None else None
        dist: dict[int | None, float] = {incumbent: 1.0}
        if e >= first:
            top = max(power)
            if top > 0:
                tied = [seat for seat in range(n) if power[seat] == top]
                if len(tied) == 1:
                    winners = {tied[0]: 1.0}
                    second = max(power[seat] for seat in range(n) if seat != tied[0])
                    margin = top - second
                elif emperor in tied:
                    winners = {emperor: 1.0}
                    margin = 0
                else:
                    winners = {seat: 1.0 / len(tied) for seat in tied}
                    margin = 0
                # While opponents can still act in phase IV, a narrow lead may not hold.
                conf = 1.0 if not phase_iv_open else (0.6, 0.8, 0.92)[min(margin, 2)]
                dist = {}
                for w, q in winners.items():
                    if w == incumbent:
                        dist[w] = dist.get(w, 0.0) + q
                    elif _has_candidate(s, b, w, e):
                        vp[w] += 2.0 * q * conf
                        dist[w] = dist.get(w, 0.0) + q
                    else:
                        dist[None] = dist.get(None, 0.0) + q
            if e == MAINZ:
                for h, q in dist.items():
                    if h is not None:
                        vp[h] += q
        holders[e] = max(dist, key=lambda k: dist[k])
        # Will the holder still hold the seat at the next phase V (an elector aged 45 dies first [A1, A3])?
        keep = [0.0] * n
        for h, q in dist.items():
            if h is None:
                continue
            if h == incumbent and elector is not None and elector.age == 45:
                continue
            keep[h] += q
        hold_next.append(keep)
        eff_all.append(eff)
    # This round's election and the Emperor's bonus [E2, E3, R1].
    emperor_dist = {emperor: 1.0}
    if _election_open(s):
        p_rival, backed = election_outlook(s, me, holders)
        emperor_dist = {emperor: 1.0 - p_rival}
        emperor_dist[s.rival] = emperor_dist.get(s.rival, 0.0) + p_rival  # type: ignore[index]
        vp[me] += backed
    bonus_now = EMPEROR_ACTIONS[rnd][0] if s.phase < 7 else 0
    bonus_later = sum(EMPEROR_ACTIONS[r][0] for r in range(rnd + 1, LAST_ROUND + 1)) * FUTURE_EMPEROR_SHARE
    for seat, q in emperor_dist.items():
        vp[seat] += q * (bonus_now + bonus_later)
    # Later rounds: leading an electorate is worth entering its seat (2 VP) or keeping its privilege.
    if future > 0:
        for e in range(7):
            if e in closed:
                continue
            eff = eff_all[e]
            keep = hold_next[e]
            priv = PRIVILEGE_VALUE[e] * future
            for seat in range(n):
                mine = eff[seat]
                if mine <= 0:
                    continue
                best_other = max(eff[o] for o in range(n) if o != seat)
                lead = min(max(0.5 + 0.3 * (mine - best_other), 0.0), 1.0)
                if lead <= 0.0:
                    continue
                k = keep[seat]
                vp[seat] += FUTURE_DISCOUNT * lead * ((1.0 - k) * 2.0 + priv)
    return vp


def thaler_value(s: GameState, me: int) -> float:
    """What the bot's thalers are worth: full value up to what the next income leaves room for [G2, I1]."""
    t = s.thalers[me]
    if s.round >= LAST_ROUND:
        return 0.001 * t
    b = _board(s)
    cities = 0
    for e in range(7):
        for i in b.city_spaces[e]:
            piece = s.board[i]
            if piece is not None and piece.owner == me:
                cities += 1
    saxony = s.board[b.electors[SAXONY]]
    income = 6 + cities + (2 if saxony is not None and saxony.owner == me else 0)
    room = max(0, 12 - income)
    return THALER_VALUE * min(t, room) + SPARE_THALER_VALUE * max(0, t - room)


def evaluate(s: GameState, me: int) -> float:
    """The bot's score of a state: its VP estimate against the opponents', plus its thalers."""
    if s.winners is not None:
        best_other = max(v for seat, v in enumerate(s.vp) if seat != me)
        return s.vp[me] - best_other + (WIN_BONUS if me in s.winners else -WIN_BONUS)
    est = estimates(s, me)
    others = [v for seat, v in enumerate(est) if seat != me]
    return (
        est[me]
        - OPPONENT_MAX_WEIGHT * max(others)
        - OPPONENT_MEAN_WEIGHT * sum(others) / len(others)
        + thaler_value(s, me)
    )


class HeuristicBot:
    """A seeded one-ply lookahead player for In the Shadow of the Emperor."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, decider: Decider, state: Any, seat: int) -> Command | None:
        """The bot's next command for ``seat`` (None if it has none)."""
        options = decider.legal_commands(state, seat)
        if len(options) <= 1:
            return options[0] if options else None
        if state.pending.decision == "vote":
            return self._vote(state, seat, options)
        best: Command | None = None
        best_score = -float("inf")
        for command in options:
            score = self._score(decider, state, seat, command)
            if score is None:
                continue
            score += 1e-6 * self.rng.random()
            if score > best_score:
                best, best_score = command, score
        return best if best is not None else options[0]

    def _score(self, decider: Decider, state: GameState, seat: int, command: Command) -> float | None:
        result = decider.execute(state, command)
        if isinstance(result, Rejection):
            return None
        after = result[1]
        p = after.pending
        if p is not None and p.decision == "marriage_answer" and seat not in p.seats:
            # The opponent answers next: score the offer as the average of acceptance and refusal [D3].
            answers = decider.legal_commands(after, p.seats[0])
            scores = [self._score(decider, after, seat, a) for a in answers]
            valid = [x for x in scores if x is not None]
            return sum(valid) / len(valid) if valid else evaluate(after, seat)
        return evaluate(after, seat)

    def _vote(self, state: GameState, seat: int, options: list[Command]) -> Command:
        """A secret vote, decided on the tallies: the bot's own vote is set, the others stay unknown [E2]."""
        best = options[0]
        best_score = -float("inf")
        for command in options:
            votes = list(state.votes)
            votes[seat] = command.candidate  # type: ignore[attr-defined]
            score = evaluate(state._replace(votes=tuple(votes)), seat) + 1e-6 * self.rng.random()
            if score > best_score:
                best, best_score = command, score
        return best

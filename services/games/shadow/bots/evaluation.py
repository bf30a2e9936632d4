"""The heuristic bot's evaluation of a position (heuristic.py scores each simulated command with :func:`evaluate`).

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
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.rules.election import vote_tally
from services.games.shadow.rules.flow import EMPEROR_ACTIONS, LAST_ROUND
from services.games.shadow.rules.queries import BOHEMIA, MAINZ, SAXONY, stack_available
from services.games.shadow.rules.state import EMPIRE, GameState, Knight, Tile

# Value of holding each electorate's seat for one round, in VP (Mainz, Köln, Trier, Palatinate, Saxony,
# Brandenburg, Bohemia): Mainz scores 1 VP a round [V5]; the others give thalers, pieces or votes.
PRIVILEGE_VALUE = (1.0, 0.35, 0.25, 0.5, 0.6, 0.3, 0.45)
THALER_VALUE = 0.3  # a thaler that can be carried into the next round
SPARE_THALER_VALUE = 0.04  # a thaler above that (lost to the cap at the next income unless spent)
CITY_INCOME_VALUE = 0.15  # a thaler of income from an own city in a later round (often partly lost to the cap)
FUTURE_DISCOUNT = 0.55  # later rounds are uncertain
FUTURE_EMPEROR_SHARE = 0.35  # chance-weighted share of the Emperor's later bonuses
NO_CANDIDATE_SHARE = 0.4  # later seat value counted for a player with no tile that could take it
OPPONENT_MAX_WEIGHT = 0.6
OPPONENT_MEAN_WEIGHT = 0.3
WIN_BONUS = 100.0
RIVAL_OPTION_SHARE = 0.93  # share of a Rival challenge's value counted before the bot takes the card


class _Board:
    """Per-layout index lists used by the evaluation (built once per layout)."""

    __slots__ = ("candidate_spaces", "city_spaces", "electors", "power_spaces", "slices", "spiritual")

    def __init__(self, s: GameState) -> None:
        infos = s.layout.electorates
        self.power_spaces = tuple(
            (info.elector, info.eminence, *info.aristocrats, *info.castles, *info.cities) for info in infos
        )
        # Each electorate's spaces as one slice of the board when they are contiguous (they are in the layouts
        # built from board data), else the index tuple: a cheap key for the evaluation cache.
        self.slices = tuple(
            slice(min(sp), max(sp) + 1) if sorted(sp) == list(range(min(sp), max(sp) + 1)) else sp
            for sp in self.power_spaces
        )
        self.candidate_spaces = tuple((*info.aristocrats, info.eminence) for info in infos)
        self.city_spaces = tuple(info.cities for info in infos)
        self.spiritual = tuple(info.spiritual for info in infos)
        self.electors = tuple(info.elector for info in infos)


_BOARDS: dict[int, tuple[Any, _Board]] = {}


def _board(s: GameState) -> _Board:
    hit = _BOARDS.get(id(s.layout))
    if hit is None or hit[0] is not s.layout:
        hit = _BOARDS[id(s.layout)] = (s.layout, _Board(s))
    return hit[1]


def _alive_weights(future_rounds: int) -> dict[int, float]:
    """Share of the later phases V a tile of each age will see (a tile aged 45 dies in the next phase II)."""
    if future_rounds <= 0:
        return {15: 0.0, 25: 0.0, 35: 0.0, 45: 0.0}
    return {a: min(future_rounds, (45 - a) // 10) / future_rounds for a in (15, 25, 35, 45)}


_ALIVE = {r: _alive_weights(r) for r in range(0, LAST_ROUND + 1)}


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


def election_outlook(s: GameState, me: int, holders: list[int | None], rival: int | None = None) -> tuple[float, float]:
    """(chance the Rival wins, chance the bot backs the winner) of this round's open election.

    Other voters' choices are unknown (their sealed votes are secret [E2]), each is a coin toss; the bot's own
    vote, if not yet sealed, is assumed to go to the side more likely to win."""
    votes = _votes(s, holders)
    emperor = s.emperor
    rival = s.rival if rival is None else rival
    assert rival is not None
    voters = [seat for seat in range(s.n) if seat not in (emperor, rival)]
    others = [votes[v] for v in voters if v != me]
    base_e, base_r = votes[emperor], votes[rival]
    if me not in voters:
        return _rival_win_chance(base_e, base_r, others), 0.0
    scores = 0.0 if s.settings.backer_vp_requires_votes and votes[me] == 0 else 1.0  # [E3] option
    mine = s.votes[me] if s.phase == 6 and s.votes else None
    p_if_rival = _rival_win_chance(base_e, base_r + votes[me], others)
    p_if_emperor = _rival_win_chance(base_e + votes[me], base_r, others)
    if mine == "rival":
        return p_if_rival, scores * p_if_rival
    if mine == "emperor":
        return p_if_emperor, scores * (1.0 - p_if_emperor)
    if p_if_rival >= 1.0 - p_if_emperor:
        return p_if_rival, scores * p_if_rival
    return p_if_emperor, scores * (1.0 - p_if_emperor)


def _electorate(
    s: GameState, b: _Board, e: int, unresolved: bool, phase_iv_open: bool, future: int
) -> tuple[list[float], int | None]:
    """One electorate's share of every player's VP estimate, and its projected holder after phase V."""
    n = s.n
    board = s.board
    emperor = s.emperor
    alive = _ALIVE[future]
    adds = [0.0] * n
    power = [0] * n
    eff = [0.0] * n
    for i in b.power_spaces[e]:
        piece = board[i]
        if piece is None:
            continue
        t = type(piece)
        if t is Tile:
            power[piece.owner] += piece.power  # type: ignore[union-attr]
            eff[piece.owner] += piece.power * alive[piece.age]  # type: ignore[union-attr]
        elif t is Knight:
            power[piece.owner] += 1
            eff[piece.owner] += 1.0
        else:
            owner = emperor if piece.owner == EMPIRE else piece.owner
            power[owner] += 1
            eff[owner] += 1.0
    spiritual = b.spiritual[e]
    candidates = {
        t.owner  # type: ignore[union-attr]
        for t in (board[i] for i in b.candidate_spaces[e])
        if type(t) is Tile and not (spiritual and t.couple)
    }
    elector = board[b.electors[e]]
    incumbent = elector.owner if elector is not None else None  # type: ignore[union-attr]
    dist: dict[int | None, float] = {incumbent: 1.0}
    if unresolved:
        # This round's phase V: the most power takes the seat, 2 VP for a newcomer [V1-V4].
        top = max(power)
        if top > 0:
            tied = [seat for seat in range(n) if power[seat] == top]
            if len(tied) == 1:
                winners = {tied[0]: 1.0}
                margin = top - max(power[seat] for seat in range(n) if seat != tied[0])
            elif emperor in tied:
                winners = {emperor: 1.0}
                margin = 0
            else:
                winners = {seat: 1.0 / len(tied) for seat in tied}
                margin = 0
            # While opponents can still act in phase IV, a narrow lead may not hold.
            conf = (0.6, 0.8, 0.92)[min(margin, 2)] if phase_iv_open else 1.0
            dist = {}
            for w, q in winners.items():
                if w == incumbent:
                    dist[w] = dist.get(w, 0.0) + q
                elif w in candidates:
                    adds[w] += 2.0 * q * conf
                    dist[w] = dist.get(w, 0.0) + q
                else:
                    dist[None] = dist.get(None, 0.0) + q
        if e == MAINZ:
            if s.settings.mainz_bonus == "elector_at_phase_v_start":  # [V5] option
                if incumbent is not None and s.phase < 5:
                    adds[incumbent] += 1.0
            else:
                for h, q in dist.items():
                    if h is not None:
                        adds[h] += q
    holder = max(dist, key=dist.__getitem__)
    if future > 0:
        # Later rounds: leading here is worth entering the seat (2 VP) or keeping its privilege. An elector
        # aged 45 dies before the next phase V, so its seat is not kept [A1, A3].
        priv = PRIVILEGE_VALUE[e] * future
        ranked = sorted(eff, reverse=True)
        for seat in range(n):
            mine = eff[seat]
            if mine <= 0:
                continue
            best_other = ranked[1] if mine == ranked[0] else ranked[0]
            lead = 0.5 + 0.3 * (mine - best_other)
            if lead <= 0.0:
                continue
            lead = min(lead, 1.0)
            keep = dist.get(seat, 0.0)
            if seat == incumbent and elector.age == 45:  # type: ignore[union-attr]
                keep = 0.0
            # Without a tile that could take the seat, winning it needs another piece first [V4].
            enter = 2.0 if seat in candidates else NO_CANDIDATE_SHARE * 2.0
            adds[seat] += FUTURE_DISCOUNT * lead * ((1.0 - keep) * enter + priv)
    return adds, holder


Cache = dict[int, tuple[tuple[Any, ...], tuple[Any, ...], tuple[list[float], int | None]]]


def estimates(s: GameState, me: int, cache: Cache | None = None) -> list[float]:
    """Each player's estimated final VP (see the module docstring).

    ``cache`` (kept by the caller for one decision) reuses an electorate's share when its pieces and its
    context (Emperor, round, whether its seat is still to be settled, whether phase IV goes on) are the same
    as in the last state evaluated with that cache."""
    return _projection(s, me, cache)[0]


def rival_chance(s: GameState, me: int) -> float:
    """The chance the bot would win this round's election if it took Rival now [E1, E2]."""
    return election_outlook(s, me, _projection(s, me, None)[1], rival=me)[0]


def _projection(s: GameState, me: int, cache: Cache | None) -> tuple[list[float], list[int | None]]:
    """VP estimates and the projected holder of each seat after this round's phase V."""
    n = s.n
    vp = [float(v) for v in s.vp]
    b = _board(s)
    board = s.board
    rnd = s.round
    future = LAST_ROUND - rnd
    first = _unresolved_from(s)
    phase_iv_open = s.phase <= 4 and len(s.passed) < n
    holders: list[int | None] = [None] * 7
    for e in range(7):
        if e in s.closed:
            continue
        ctx = (s.emperor, e >= first, phase_iv_open, rnd)
        where = b.slices[e]
        pieces = board[where] if type(where) is slice else tuple(board[i] for i in where)
        hit = cache.get(e) if cache is not None else None
        if hit is not None and hit[1] == ctx and hit[0] == pieces:
            adds, holder = hit[2]
        else:
            adds, holder = _electorate(s, b, e, e >= first, phase_iv_open, future)
            if cache is not None:
                cache[e] = (pieces, ctx, (adds, holder))
        holders[e] = holder
        for seat in range(n):
            vp[seat] += adds[seat]
    # This round's election and the Emperor's bonus [E2, E3, R1].
    emperor_dist = {s.emperor: 1.0}
    if _election_open(s):
        p_rival, backed = election_outlook(s, me, holders)
        emperor_dist = {s.emperor: 1.0 - p_rival}
        emperor_dist[s.rival] = emperor_dist.get(s.rival, 0.0) + p_rival  # type: ignore[index]
        vp[me] += backed
    elif s.phase == 4 and s.rival is None and me != s.emperor and me not in s.passed and stack_available(s, "rival"):
        # The bot may still take Rival [P1, X12]: most of what it would win is already in reach; taking it
        # is left for when nothing better is (it ends the bot's phase IV).
        p_rival, _ = election_outlook(s, me, holders, rival=me)
        emperor_dist = {s.emperor: 1.0 - RIVAL_OPTION_SHARE * p_rival, me: RIVAL_OPTION_SHARE * p_rival}
    bonus_now = EMPEROR_ACTIONS[rnd][0] if s.phase < 7 else 0
    bonus_later = sum(EMPEROR_ACTIONS[r][0] for r in range(rnd + 1, LAST_ROUND + 1)) * FUTURE_EMPEROR_SHARE
    for seat, q in emperor_dist.items():
        vp[seat] += q * (bonus_now + bonus_later)
    return vp, holders


def thaler_value(s: GameState, me: int) -> float:
    """What the bot's thalers are worth: full value up to what the next income leaves room for [G2, I1]; and
    the income its cities will bring in later rounds [I1]."""
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
    later_income = CITY_INCOME_VALUE * cities * (LAST_ROUND - s.round)
    return THALER_VALUE * min(t, room) + SPARE_THALER_VALUE * max(0, t - room) + later_income


def evaluate(s: GameState, me: int, cache: Cache | None = None) -> float:
    """The bot's score of a state: its VP estimate against the opponents', plus its thalers."""
    if s.winners is not None:
        best_other = max(v for seat, v in enumerate(s.vp) if seat != me)
        return s.vp[me] - best_other + (WIN_BONUS if me in s.winners else -WIN_BONUS)
    est = estimates(s, me, cache)
    others = [v for seat, v in enumerate(est) if seat != me]
    return (
        est[me]
        - OPPONENT_MAX_WEIGHT * max(others)
        - OPPONENT_MEAN_WEIGHT * sum(others) / len(others)
        + thaler_value(s, me)
    )

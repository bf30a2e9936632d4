"""decide: a command checked against the decision the game awaits, then run on a working copy of the state.

Checks come in the order a player learns most from (whose turn, which decision, which card, which space, which
ability use); each refusal is a typed Rejection citing the ruling, and leaves the state untouched (nothing is
mutated before every check passed, and then only a copy).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from pydantic import BaseModel

from events.base import Rejection
from services.games.barracks.rules import facts as F
from services.games.barracks.rules import legality as L
from services.games.barracks.rules import plays
from services.games.barracks.rules.board import (
    ABILITIES,
    DAMNATIO,
    FACTIONS,
    FOEDERATI,
    FORCE_MARCH,
    PRAETORIAN,
    PRETENDER,
    TRIUMPH,
)
from services.games.barracks.rules.flow import Tx
from services.games.barracks.rules.state import (
    ACTION,
    BOARD,
    FORUM,
    HAND,
    KEEP,
    ORDER,
    OVER,
    PHASE_NAMES,
    PICK,
    RIVAL_PLACE,
    Game,
    awaited,
)

EXPECTED = {
    ACTION: ("PlayInfluence", "PlaceBarbarian", "MoveBarbarian", "Pass"),
    ORDER: ("ResolveEmperor",),
    KEEP: ("KeepCard",),
    PICK: ("TakeFromForum",),
    RIVAL_PLACE: ("PlaceForRival",),
}


def reject(code: str, message: str, *rulings: str) -> Rejection:
    """A typed refusal."""
    return Rejection(code=code, message=message, rulings=rulings)


Plan = tuple[Any, tuple[Any, ...]]  # (handler, its arguments after the Tx)
_new = object.__new__


# The random bot's latest draw: (state, its version, the command drawn, its plan). A state handed back is never
# changed again and this holds it, so the same state and the very command drawn from its listing need no checks:
# ``check`` answers with the plan of the key it was built from (listing.py: ``sample_legal``).
_sampled: tuple[Game, int, Any, Plan] | None = None


def remember_sample(g: Game, command: Any, plan: Plan) -> Any:
    """Note that ``command`` was drawn from the legal keys of ``g`` and runs ``plan``; returns ``command``."""
    global _sampled
    _sampled = (g, g.version, command, plan)
    return command


def plan_of(seat: int, key: tuple[Any, ...]) -> Plan:
    """The plan of a legal key (listing.py's keys): what ``check`` gives for its command."""
    kind = key[0]
    if kind == "I":
        return plays.play_influence, (seat, *key[1:])
    if kind == "F":
        return plays.pick, (seat, key[1])
    if kind == "P":
        return plays.place_barbarian, (seat, key[1], key[2])
    if kind == "M":
        return plays.move_barbarian, (seat, *key[1:])
    if kind == "O":
        return plays.order, (seat, key[1])
    if kind == "K":
        return plays.keep, (seat, key[1], key[2])
    if kind == "R":
        return plays.place_for_rival, (key[1],)
    return plays.pass_turn, (seat,)


def check(g: Game | None, command: Any) -> Plan | Rejection:
    """The handler a command runs and its decoded arguments, or why it is refused."""
    sampled = _sampled
    if sampled is not None and sampled[2] is command and sampled[0] is g and sampled[1] == g.version:
        return sampled[3]
    if g is None:
        return reject("no_game", "There is no game yet.", "KX16")
    if g.phase == OVER:
        return reject("game_over", "The game is over.", "K39")
    seat = command.seat
    if not isinstance(seat, int) or not 0 <= seat < len(g.players):
        return reject("unknown_seat", f"Seat {seat} does not exist at a {len(g.players)}-player table.", "K10", "K42")
    waiting = awaited(g)
    if seat not in waiting:
        who = ", ".join(g.players[s] for s in waiting) or "no one"
        return reject("not_your_turn", f"The game is waiting for {who}, not for seat {seat}.", "K15", "K21")
    kind = command.type
    if kind not in EXPECTED[g.phase]:
        return reject(
            "wrong_decision",
            f"The game waits for the decision '{PHASE_NAMES[g.phase]}': {kind} is not possible now "
            f"(expected {', '.join(EXPECTED[g.phase])}).",
            "K21",
        )
    return CHECKS[kind](g, seat, command)


def execute(g: Game | None, command: Any) -> tuple[list[Any], Game] | Rejection:
    """Decide and fold in one pass: the events of ``command`` and the state after them."""
    if isinstance(command, BaseModel):  # F.as_core, inline: a core command (the bots') is taken as it is
        command = F.from_model(command)
    plan = check(g, command)
    if isinstance(plan, Rejection):
        return plan
    assert g is not None
    tx = _new(Tx)  # Tx(g.copy()) without the Python __init__ frame (once per command)
    tx.g, tx.events = g.copy(), []
    handler, args = plan
    handler(tx, *args)
    return tx.events, tx.g


# --- per command ---------------------------------------------------------------------------------------------------
def _card(g: Game, seat: int, cid: str) -> int | Rejection:
    c = g.T.card_index.get(cid, -1)
    if c < 0:
        return reject("unknown_card", f"There is no card '{cid}'.", "K1", "K3")
    if g.loc[c] != HAND + seat:
        return reject("not_in_hand", f"{cid} is not in your hand.", "K15")
    return c


def _space(g: Game, sid: str) -> int | Rejection:
    s = g.T.space_index.get(sid, -1)
    if s < 0:
        return reject("unknown_space", f"'{sid}' is not an influence space (row,column, e.g. '0,1' or '-1,2').", "K5")
    return s


def _play_influence(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    c = _card(g, seat, cmd.card)
    if isinstance(c, Rejection):
        return c
    T = g.T
    if T.is_barbarian[c]:
        return reject("barbarian_card", "A barbarian card is placed or moved, not played as influence.", "K3", "K19")
    s = _space(g, cmd.space)
    if isinstance(s, Rejection):
        return s
    actor = g.seat_actor[seat]
    kind = L.placement(g, actor, c, s)
    if kind is None:
        return _why_not_space(g, actor, c, s)
    ability = L.ability_kind(g, actor, c)
    name = ABILITIES[T.ability[c]]
    if ability != L.CHOICE:
        if cmd.ability is not None or cmd.target is not None:
            why = {
                L.ALWAYS: f"{name} is always on: there is nothing to use or decline",
                L.NO_ABILITY: f"{name} acts through the space it is played on",
                L.SUPPRESSED: "a Demagogue suppresses your triggered abilities",
            }[ability]
            ruling = "K37" if ability == L.SUPPRESSED else "K17"
            return reject("no_ability_choice", f"Leave 'ability' and 'target' out: {why}.", ruling, "KX3")
        return plays.play_influence, (seat, c, s, kind, None, -1)
    uses = L.targets(g, actor, c, s)
    if not uses:
        if cmd.ability is not None or cmd.target is not None:
            return reject(
                "no_ability_choice",
                f"{name} has no legal target now, so it is skipped: leave 'ability' and 'target' out.",
                "K17",
                "KX3",
            )
        return plays.play_influence, (seat, c, s, kind, None, -1)
    if cmd.ability is None:
        return reject("ability_required", f"Say whether {name} is used ('use' with its target) or 'decline'd.", "K17")
    if cmd.ability == "decline":
        if cmd.target is not None:
            return reject("unexpected_target", "A declined ability takes no target.", "K17")
        return plays.play_influence, (seat, c, s, kind, "decline", -1)
    needs_target = uses[0][1] >= 0
    if not needs_target:
        if cmd.target is not None or cmd.ability != "use":
            return reject("unexpected_target", f"{name} is used with ability 'use' and no target.", "K17", "K21")
        return plays.play_influence, (seat, c, s, kind, "use", -1)
    if cmd.target is None:
        return reject("target_required", f"{name} needs a target.", "K17")
    ability_code = T.ability[c]
    if ability_code == DAMNATIO:
        x = T.emperor_index.get(cmd.target, -1)
    elif ability_code == PRETENDER:
        x = T.emp_index.get(cmd.target, -1)
    else:
        x = T.card_index.get(cmd.target, -1)
    if (cmd.ability, x) not in uses:
        return _why_not_target(g, c, cmd, x, uses)
    return plays.play_influence, (seat, c, s, kind, cmd.ability, x)


def _why_not_space(g: Game, actor: int, c: int, s: int) -> Rejection:
    T = g.T
    sid = T.space_ids[s]
    top = g.top[s]
    if not L.adjacent(g, s):
        return reject("illegal_space", f"{sid} touches no Emperor.", "K6", "K10")
    if top >= 0:
        what = "a barbarian" if T.is_barbarian[top] else T.card_ids[top]
        if L.suppressed(g, actor) and T.ability[c] in (PRAETORIAN, FOEDERATI, TRIUMPH):
            return reject("illegal_space", f"{sid} holds {what}; a Demagogue suppresses placement abilities.", "K37")
        if T.ability[c] == PRAETORIAN and L.is_castra(g, top):
            return reject(
                "illegal_space", f"{sid} holds Castra, which Praetorian Guard does not displace.", "K32", "K35"
            )
        return reject("illegal_space", f"{sid} is occupied by {what}.", "K16", "K35")
    mine = "/".join(FACTIONS[f] for f in g.actor_factions[actor])
    if L.suppressed(g, actor) and T.ability[c] == FORCE_MARCH:
        return reject(
            "illegal_space", f"{sid} is not on your ({mine}) side; a Demagogue suppresses Force March.", "K37"
        )
    return reject("illegal_space", f"{sid} is not on your ({mine}) side of an Emperor.", "K10", "K16")


def _why_not_target(g: Game, c: int, cmd: Any, x: int, uses: list[tuple[str, int]]) -> Rejection:
    T = g.T
    name = ABILITIES[T.ability[c]]
    if cmd.ability == "to_deck":
        return reject(
            "illegal_target", "Only in solo, and only the barbarian closest to Roma, goes back to the deck.", "K41"
        )
    if x < 0:
        return reject("illegal_target", f"'{cmd.target}' is not something {name} can target.", "K17")
    rulings = {
        "reinforcements": ("K18",), "influence_peddling": ("K18",), "popularity": ("K18",),
        "flanking_maneuver": ("K7", "K32"), "spiculum": ("K34", "K32"), "mob": ("K33", "K32"),
        "tribute": ("K34",), "mobile_vulgus": ("K33",), "damnatio_memoriae": ("K36",), "pretender": ("K36",),
    }.get(name, ("K17",))  # fmt: skip
    if T.ability[c] not in (DAMNATIO, PRETENDER) and g.loc[x] == BOARD and g.top[g.pos[x]] != x:
        return reject("illegal_target", f"{cmd.target} is covered by a barbarian: it cannot be targeted.", "K19")
    return reject("illegal_target", f"{cmd.target} is not a legal target of {name} here.", *rulings)


def _barbarian(g: Game, seat: int, cid: str) -> int | Rejection:
    b = _card(g, seat, cid)
    if isinstance(b, Rejection):
        return b
    if not g.T.is_barbarian[b]:
        return reject("not_a_barbarian", f"{cid} is an influence card: play it with PlayInfluence.", "K3", "K16")
    return b


def _landing(g: Game, s: int) -> Rejection | None:
    T = g.T
    top = g.top[s]
    sid = T.space_ids[s]
    if top >= 0 and T.is_barbarian[top]:
        return reject("barbarian_there", f"{sid} already holds a barbarian.", "K19")
    if top >= 0 and L.is_castra(g, top) and not g.solo:
        return reject("castra", f"{sid} holds Castra, which a barbarian cannot cover.", "K19", "K32")
    if not L.adjacent(g, s):
        return reject("not_adjacent", f"{sid} touches no Emperor.", "K19")
    return None


def _place_barbarian(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    b = _barbarian(g, seat, cmd.card)
    if isinstance(b, Rejection):
        return b
    h = _space(g, cmd.space)
    if isinstance(h, Rejection):
        return h
    if not g.T.is_homeland[h]:
        return reject("not_a_homeland", f"{cmd.space} is not a barbarian homeland.", "K8", "K19")
    refusal = _landing(g, h)
    return refusal or (plays.place_barbarian, (seat, b, h))


def _move_barbarian(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    b = _barbarian(g, seat, cmd.card)
    if isinstance(b, Rejection):
        return b
    frm = _space(g, cmd.from_space)
    if isinstance(frm, Rejection):
        return frm
    to = _space(g, cmd.to_space)
    if isinstance(to, Rejection):
        return to
    top = g.top[frm]
    if top < 0 or not g.T.is_barbarian[top]:
        return reject("no_barbarian", f"There is no active barbarian on {cmd.from_space}.", "K19")
    if to not in g.T.diagonal[frm]:
        return reject("not_diagonal", f"{cmd.to_space} is not diagonally connected to {cmd.from_space}.", "K7", "K19")
    refusal = _landing(g, to)
    return refusal or (plays.move_barbarian, (seat, b, frm, to))


def _pass(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    if L.can_play(g, g.seat_actor[seat]):
        return reject("play_possible", "You may pass only when no play is possible.", "K20", "KX5")
    return plays.pass_turn, (seat,)


def _resolve(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    x = g.T.emperor_index.get(cmd.emperor, -1)
    options = [g.emp[e] for e in g.surrounded]
    if x not in options:
        names = ", ".join(g.T.emperor_ids[o] for o in options)
        return reject("not_surrounded", f"Choose one of the surrounded Emperors: {names}.", "K22")
    return plays.order, (seat, g.emp.index(x))


def _keep(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    index = g.T.card_index
    c = index.get(cmd.card, -1)
    if c not in g.looked:
        return reject("not_looked", f"{cmd.card} is not among the cards Frumentarii looked at.", "K31")
    rest = [x for x in g.looked if x != c]
    bottom = tuple(index.get(x, -1) for x in cmd.bottom)
    if sorted(bottom) != sorted(rest):
        return reject(
            "bad_bottom", "'bottom' must list each other looked-at card once, in the order chosen.", "K31", "KX7"
        )
    return plays.keep, (seat, c, bottom)


def _pick(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    c = g.T.card_index.get(cmd.card, -1)
    if c < 0 or g.loc[c] != FORUM:
        return reject("not_in_forum", f"{cmd.card} is not in the Forum.", "K29")
    allowed = L.forum_allowed(g.played_value)
    slot = g.forum.index(c)
    if allowed and slot >= allowed:
        return reject(
            "beyond_limit",
            f"A card of value {g.played_value} takes one of the {allowed} leftmost Forum cards; {cmd.card} is "
            f"number {slot + 1}.",
            "K29",
        )
    return plays.pick, (seat, c)


def _place_for_rival(g: Game, seat: int, cmd: Any) -> Plan | Rejection:
    s = _space(g, cmd.space)
    if isinstance(s, Rejection):
        return s
    if s not in L.free_spaces(g, g.active):
        faction = FACTIONS[g.actor_factions[g.active][0]]
        return reject("illegal_space", f"{cmd.space} is not an empty legal space of {faction}.", "K43", "K10")
    return plays.place_for_rival, (s,)


CHECKS = {
    "PlayInfluence": _play_influence,
    "PlaceBarbarian": _place_barbarian,
    "MoveBarbarian": _move_barbarian,
    "Pass": _pass,
    "ResolveEmperor": _resolve,
    "KeepCard": _keep,
    "TakeFromForum": _pick,
    "PlaceForRival": _place_for_rival,
}


def keep_orders(g: Game) -> list[tuple[int, tuple[int, ...]]]:
    """Every (kept card, bottom order) after Frumentarii [K31]."""
    return [(c, p) for c in g.looked for p in permutations([x for x in g.looked if x != c])]

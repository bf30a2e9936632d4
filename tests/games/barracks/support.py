"""Given/when/then helpers for Barracks scenarios.

Given: the events of a real game start plus arranged facts (evolve is mechanical and takes a named card from
wherever it is, so ordinary events such as InfluencePlayed, HandDealt, EmperorsDealt and TurnStarted put any
position together). When: one command. Then: the events it causes, or its typed rejection (and the state
unchanged).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.base import Rejection
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS
from services.games.barracks.rules.decider import BarracksRules
from services.games.barracks.rules.state import Game

RULES = BarracksRules()
NAMES = ("Ann", "Bob", "Cyd", "Dee")


def start(players: int = 4, settings: Mapping[str, Any] | None = None, seed: int = 0) -> list[Any]:
    """The opening events of a new game."""
    return RULES.start(NAMES[:players], dict(settings or {}), seed)


def given(events: Iterable[Any], state: Game | None = None) -> Game:
    """Fold events (from nothing, or on top of ``state``)."""
    return RULES.fold(list(events), state)


def when(state: Game, command: Any) -> list[Any] | Rejection:
    """Decide one command."""
    return RULES.decide(state, command)


def accepted(state: Game, command: Any) -> tuple[list[Any], Game]:
    """A command that must be accepted: its events and the state after them (checked against the fold)."""
    before = RULES.snapshot(state)
    result = RULES.execute(state, command)
    assert not isinstance(result, Rejection), f"{command} was rejected: {result}"
    events, after = result
    assert RULES.snapshot(state) == before, "execute changed the state it was given"
    assert given(events, state) == after, "the events do not fold to the state execute returned"
    return events, after


def rejected(state: Game, command: Any, code: str | None = None, *rulings: str) -> Rejection:
    """A command that must be refused (with ``code`` and citing ``rulings`` if given); the state is unchanged."""
    before = RULES.snapshot(state)
    result = RULES.decide(state, command)
    assert isinstance(result, Rejection), f"{command} was accepted: {result}"
    if code is not None:
        assert result.code == code, f"expected {code}, got {result.code}: {result.message}"
    for ruling in rulings:
        assert ruling in result.rulings, f"{result} does not cite {ruling}"
    assert result.rulings, f"{result} cites no ruling"
    assert RULES.snapshot(state) == before
    assert command not in RULES.legal_commands(state, command.seat)
    return result


def of_type(events: Sequence[Any], kind: Any) -> list[Any]:
    """The events of one type."""
    return [e for e in events if type(e) is kind]


def one(events: Sequence[Any], kind: Any) -> Any:
    """The single event of one type."""
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {[e.type for e in events]}"
    return found[0]


def types(events: Sequence[Any]) -> list[str]:
    """The type names of events, in order."""
    return [e.type for e in events]


def legal(state: Game, seat: int, kind: str | None = None) -> list[Any]:
    """The legal commands of ``seat`` (of one type)."""
    return [c for c in RULES.legal_commands(state, seat) if kind is None or c.type == kind]


# --- commands ------------------------------------------------------------------------------------------------------
def play(seat: int, card: str, space: str, ability: str | None = None, target: str | None = None) -> Any:
    """A PlayInfluence command."""
    return F.PlayInfluence(seat=seat, card=card, space=space, ability=ability, target=target)


def place(seat: int, card: str, space: str) -> Any:
    """A PlaceBarbarian command."""
    return F.PlaceBarbarian(seat=seat, card=card, space=space)


def move(seat: int, card: str, frm: str, to: str) -> Any:
    """A MoveBarbarian command."""
    return F.MoveBarbarian(seat=seat, card=card, from_space=frm, to_space=to)


def pick(seat: int, card: str) -> Any:
    """A TakeFromForum command."""
    return F.TakeFromForum(seat=seat, card=card)


# --- arranged positions ----------------------------------------------------------------------------------------------
def table(
    players: int = 4,
    settings: Mapping[str, Any] | None = None,
    seed: int = 0,
    *,
    turn: int = 0,
    hands: Mapping[int, Sequence[str]] | None = None,
    board: Mapping[str, str | tuple[str, str]] | None = None,
    emperors: Mapping[str, str] | None = None,
    forum: Sequence[str] | None = None,
    deck_top: Sequence[str] | None = None,
    counters: Mapping[str, int] | None = None,
    face_down: Sequence[str] = (),
    owners: Mapping[str, int | str] | None = None,
    demagogue: int | None = None,
    round: int | None = None,
    extra: Sequence[Any] = (),
) -> Game:
    """A started game rearranged: only ``emperors`` (space -> Emperor id) on the board when given, ``board``
    (space -> card, or (barbarian, covered card)), ``hands`` per seat, the Forum, the top of the deck; then the turn
    of seat ``turn`` begins (``turn=None``: no turn is started). ``demagogue``: that seat's Demagogue is in force;
    ``round``: the round number; ``extra``: more arranged events (e.g. :func:`captured`)."""
    state = given(start(players, settings, seed))
    arranged = arrange(
        state, turn=turn, hands=hands, board=board, emperors=emperors, forum=forum, deck_top=deck_top,
        counters=counters, face_down=face_down, owners=owners, demagogue=demagogue, round=round, extra=extra,
    )  # fmt: skip
    return given(arranged, state)


def arrange(state: Game, **kw: Any) -> list[Any]:
    """The events of :func:`table`'s rearrangement of ``state``."""
    T = state.T
    out: list[Any] = []
    if kw.get("round") is not None:
        first = FACTIONS[state.actor_factions[state.first_actor][0]]
        out.append(
            F.RoundStarted(round=kw["round"], first_faction=first, first_seat=None, drawn_from=(), rulings=("K12",))
        )
    on_board = [T.card_ids[c] for s in range(T.n_spaces) for c in (state.top[s], state.under[s]) if c >= 0]
    if on_board:
        out.append(
            F.CardsDiscarded(cards=tuple(on_board), spaces=(None,) * len(on_board), reason="orphaned", rulings=("K27",))
        )
    if kw.get("emperors") is not None:
        for e, x in enumerate(state.emp):
            if x >= 0:
                out.append(
                    F.EmperorRemoved(seat=0, card="-", emperor=T.emperor_ids[x], space=T.emp_ids[e], rulings=("K36",))
                )
        out.append(F.EmperorsDealt(round=state.round, placed=tuple(kw["emperors"].items()), rulings=("K11",)))
    hands = kw.get("hands") or {}
    old = [T.card_ids[c] for seat in hands for c in state.hands[seat]]
    if old:  # every rearranged hand is emptied first, then dealt
        out.append(F.CardsDiscarded(cards=tuple(old), spaces=(None,) * len(old), reason="orphaned", rulings=("K27",)))
    for seat, cards in hands.items():
        out.append(F.HandDealt(seat=seat, cards=tuple(cards), rulings=("K11",)))
    owners = kw.get("owners") or {}
    for space, what in (kw.get("board") or {}).items():
        covered = None
        if isinstance(what, tuple):
            what, covered = what
        for card in (covered, what) if covered else (what,):
            if card.startswith("barbarian"):
                out.append(
                    F.BarbarianPlaced(
                        seat=None, card=card, space=space, source="holding_box", covers=None, rulings=("K19",)
                    )
                )
            else:
                faction = _side_of(state, space, kw.get("emperors"))
                owner = owners.get(card, state.actor_seat[state.faction_actor[faction]])
                seat, rival = (None, owner) if isinstance(owner, str) else (owner, None)
                if seat is not None and seat < 0:  # the side of a rival claimant
                    seat, rival = None, FACTIONS[faction]
                out.append(
                    F.InfluencePlayed(
                        seat=seat, rival=rival, card=card, space=space,
                        emperors=(), placement="faction", ability="none", rulings=("K16",),
                    )
                )  # fmt: skip
    for card, total in (kw.get("counters") or {}).items():
        out.append(
            F.CounterPlaced(seat=0, card="-", target=card, space="-", amount=total, total=total, rulings=("K18",))
        )
    for card in kw.get("face_down") or ():
        out.append(F.CardFlipped(seat=0, card="-", target=card, space="-", counters_lost=0, rulings=("K33",)))
    if kw.get("forum") is not None:
        old = [T.card_ids[c] for c in state.forum]
        if old:
            out.append(
                F.CardsDiscarded(cards=tuple(old), spaces=(None,) * len(old), reason="orphaned", rulings=("K27",))
            )
        out.append(F.ForumDealt(cards=tuple(kw["forum"]), rulings=("K11",)))
    if kw.get("deck_top") is not None:
        probe = given(out, state)
        top = list(kw["deck_top"])
        rest = [T.card_ids[c] for c in reversed(probe.deck) if T.card_ids[c] not in top]
        out.append(F.DeckShuffled(round=state.round, order=tuple(top + rest), reason="round", rulings=("K11",)))
    out += kw.get("extra") or ()
    if kw.get("demagogue") is not None:
        out.append(F.DemagogueActive(seat=kw["demagogue"], card="yellow-7-demagogue", rulings=("K37",)))
    seat = kw.get("turn", 0)
    if seat is not None:
        actor = state.seat_actor[seat]
        out.append(
            F.TurnStarted(
                round=state.round, turn=state.turn + 1,
                factions=tuple(FACTIONS[f] for f in state.actor_factions[actor]), seat=seat, rulings=("K15",),
            )
        )  # fmt: skip
    return out


def _side_of(state: Game, space: str, emperors: Mapping[str, str] | None) -> int:
    """The faction whose side of an Emperor on the arranged board ``space`` is (the first such): its default player."""
    T = state.T
    present = (
        {T.emp_index[e] for e in emperors} if emperors is not None else {e for e, x in enumerate(state.emp) if x >= 0}
    )
    sides = T.sides_of[T.space_index[space]]
    for e, f in sides:
        if e in present:
            return f
    return sides[0][1]


def at(state: Game, space: str) -> str | None:
    """The id of the card on top of ``space`` (None: empty)."""
    c = state.top[state.T.space_index[space]]
    return state.T.card_ids[c] if c >= 0 else None


def covered(state: Game, space: str) -> str | None:
    """The id of the card a barbarian covers on ``space``."""
    c = state.under[state.T.space_index[space]]
    return state.T.card_ids[c] if c >= 0 else None


def hand(state: Game, seat: int) -> list[str]:
    """The ids of a seat's hand."""
    return [state.T.card_ids[c] for c in state.hands[seat]]


def emperor_at(state: Game, space: str) -> str | None:
    """The Emperor on an Emperor space."""
    x = state.emp[state.T.emp_index[space]]
    return state.T.emperor_ids[x] if x >= 0 else None


def won(state: Game, seat: int) -> list[str]:
    """The Emperors in a seat's scoring area."""
    return [state.T.emperor_ids[x] for x in state.won[state.seat_actor[seat]]]


def discard(state: Game) -> list[str]:
    """The discard pile's ids."""
    return [state.T.card_ids[c] for c in state.discard]


# The Emperor space (2,2) and its four sides; a second one next to it.
ROMA = "2,2"
N22, E22, S22, W22 = "1,2", "2,3", "3,2", "2,1"


def captured(seat: int, *emperors: str) -> list[Any]:
    """Arranged facts: ``seat`` captured these Emperors earlier."""
    return [
        F.EmperorResolved(
            emperor=x, space="-", colour="red", sides=(), trump=None, trump_reason="emperor_colour", quaestors=(),
            ambitus=(), winner=None, winning_side=None, outcome="captured", reason="highest_card",
            captured_by_seat=seat, captured_by_rival=None, chosen_by=None, rulings=("K27",),
        )
        for x in emperors
    ]  # fmt: skip

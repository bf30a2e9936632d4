"""What the game asks the seat it waits for, and where [K15-K31, K43]: the prompt a chat-bot shows on that seat's
turn ("Round 2, turn 5 (North). Your turn: play a card ...").

Each decision of the game has its sentence here: a turn's action (``action``), the order of surrounded Emperors
(``order``), Frumentarii's card to keep (``keep``), the Forum pick (``pick``) and, in solo, the space of a rival
claimant's card (``rival_place``). A prompt reads only what the seat may see: its own factions, the board, the
Forum, and the number of cards Frumentarii showed it (never which: the menu lists them to that seat alone).
"""

from __future__ import annotations

from services.games.barracks.presentation.names import card_words, emperor_words, faction_title, rc_name
from services.games.barracks.rules import legality as L
from services.games.barracks.rules.board import FACTIONS
from services.games.barracks.rules.decide import awaited
from services.games.barracks.rules.state import ACTION, KEEP, ORDER, PICK, RIVAL_PLACE, Game


def _factions(g: Game, actor: int) -> str:
    return "+".join(faction_title(FACTIONS[f]) for f in g.actor_factions[actor])


def _emperors(g: Game, spaces: tuple[int, ...] | list[int]) -> str:
    T = g.T
    return ", ".join(f"{emperor_words(T.emperor_ids[g.emp[e]], T)} on {rc_name(*T.emp_rc[e])}" for e in spaces)


def _pick(g: Game) -> str:
    allowed = L.forum_allowed(g.played_value)
    if allowed == 0 or allowed >= len(g.forum):
        limit = "any of its cards"
    elif allowed == 1:
        limit = "its leftmost card (slot 1)"
    else:
        limit = f"one of its {allowed} leftmost cards (slots 1-{allowed})"
    return f"take a card from the Forum into your hand: {limit}"


def _rival(g: Game) -> str:
    card = card_words(g.T.card_ids[g.limbo], g.T) if g.limbo >= 0 else "card"
    return (
        f"place the rival claimant's {card} on a free space of its faction ({_factions(g, g.active)}) beside an "
        "Emperor on the board"
    )


def prompt(g: Game | None, seat: int) -> str | None:
    """What ``seat`` is asked now and where, addressed to it; None when the game does not wait for it."""
    if g is None or seat not in awaited(g):
        return None
    actor = g.seat_actor[seat]
    phase = g.phase
    if phase == ACTION:
        yours = "one of your factions" if len(g.actor_factions[actor]) > 1 else "your faction"
        ask = (
            f"play a card from your hand: an influence card on a free space of the board on a side of {yours} "
            f"({_factions(g, actor)}) beside an Emperor, or a barbarian card on an open homeland (or discarded to "
            "move a barbarian); or pass"
        )
    elif phase == ORDER:
        ask = f"choose which surrounded Emperor on the board resolves next: {_emperors(g, g.surrounded)}"
    elif phase == KEEP:
        ask = (
            f"keep one of the {len(g.looked)} cards Frumentarii showed you from the top of the draw deck; the others "
            "go under the deck, in the order you choose"
        )
    elif phase == PICK:
        ask = _pick(g)
    elif phase == RIVAL_PLACE:
        ask = _rival(g)
    else:
        return None
    return f"Round {g.round}, turn {g.turn} ({_factions(g, g.active)}). Your turn: {ask}."

"""What each decision asks, and where, in words: for the narration of ``DecisionRequested`` ("Waiting for Ann to
break the tie for the elector seat of Köln between Bob and Cid.") and for the prompt a seat reads when the game
waits for it ("Your turn: break the tie ...").

Every decision of the game (services/games/shadow/messages/events.py ``Decision``) has its sentence here; a test
checks that none is missing and that each names its place (an electorate, a space, or the kind of space on the board).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.games.shadow.messages.events import Prompt
from services.games.shadow.presentation.names import electorate_name, names_list, space_name

Who = Callable[[int | None], str]
"""A seat's name (or "you") for the reader."""


class _Words:
    """The words of one prompt for one reader: ``you`` is the seat reading it (None: a third party)."""

    def __init__(self, p: Prompt, players: Sequence[str], you: int | None, emperor: int | None, rival: int | None):
        self.p = p
        self.players = players
        self.you = you
        self.emperor = emperor
        self.rival = rival
        self.actor = p.seats[0] if len(p.seats) == 1 else None

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if seat == self.you:
            return "you"
        return self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"

    @property
    def own(self) -> str:
        """The possessive of the seat asked: "your", or "their" for a third party."""
        return "your" if self.you is not None and self.you in self.p.seats else "their"

    @property
    def where(self) -> str:
        return electorate_name(self.p.electorate)

    def tile(self) -> str:
        kind = "Couple" if self.p.couple else "Baron"
        return f"{kind} aged {self.p.age}" if self.p.age is not None else kind


def _vote(w: _Words) -> str:
    emperor = f" ({w.name(w.emperor)})" if w.emperor is not None else ""
    rival = f" ({w.name(w.rival)})" if w.rival is not None else ""
    return (
        f"vote in secret in the election of the Emperor, for the Emperor{emperor} or the Rival{rival}: the votes "
        "are revealed together"
    )


def _answer(w: _Words) -> str:
    offer = w.name(w.p.offer_from)
    offer = "an" if offer == "nobody" else f"{offer}'s"
    return (
        f"answer {offer} offer of a daughter to {w.own} Baron on {space_name(w.p.space)}: accept (the Baron "
        "becomes a Couple) or decline"
    )


_ASKS: dict[str, Callable[[_Words], str]] = {
    "setup_empire_city": lambda w: "place the first empire city on a free city space of an electorate",
    "setup_elector": lambda w: f"place {w.own} Baron aged 45 on the empty elector seat of an electorate",
    "setup_aristocrat": lambda w: f"place {w.own} {w.tile()} on a free aristocrat space of an electorate",
    "setup_knight": lambda w: f"place {w.own} knight on a free castle or aristocrat space of an electorate",
    "replace_emperor": lambda w: (
        f"choose which of {w.own} aristocrats on the board replaces the dead Emperor on the throne"
    ),
    "place_son": lambda w: (
        f"place {w.own} son (a Baron aged 15) on a free aristocrat space of an electorate, or on one held by a "
        "knight, pushing it"
    ),
    "daughter": lambda w: (
        f"offer {w.own} daughter to another player's Baron on the board, or send her to the convent (+1 thaler)"
    ),
    "marriage_answer": _answer,
    "actions": lambda w: (
        "take a phase IV action anywhere on the board (buy an action card, place or move a knight, use an "
        "elector's privilege) or pass"
    ),
    "gray_eminence": lambda w: (
        "place the Gray eminence Baron on the free Gray eminence slot of an electorate, or decline"
    ),
    "break_tie": lambda w: (
        f"break the tie for the elector seat of {w.where} between {names_list([w.name(t) for t in w.p.tied])}"
    ),
    "choose_elector": lambda w: f"choose which of {w.own} aristocrats in {w.where} becomes the elector of {w.where}",
    "place_displaced": lambda w: (
        f"place {w.own} displaced elector on an aristocrat space of {w.where}, pushing a knight off it"
    ),
    "aim_church_influence": lambda w: "aim Church influence at a spiritual electorate (Mainz, Köln or Trier)",
    "aim_excommunication": lambda w: "aim Excommunication at a secular electorate",
    "vote": _vote,
    "choose_throne": lambda w: f"choose which of {w.own} aristocrats on the board goes on the throne",
    "place_dethroned": lambda w: (
        f"place {w.own} dethroned Emperor on a free aristocrat space of an electorate, or on one held by a knight, "
        "pushing it"
    ),
    "emperor_place_city": lambda w: "place an empire city on a free city space of an electorate (Emperor's action)",
    "emperor_move_city": lambda w: "move an empire city to a free city space of another electorate (Emperor's action)",
}
"""Each decision: what is asked and where, as a phrase that follows "to" (and starts an imperative)."""


def ask(
    p: Prompt,
    players: Sequence[str],
    you: int | None = None,
    emperor: int | None = None,
    rival: int | None = None,
) -> str:
    """What ``p`` asks and where, as a phrase following "to": for the reader ``you`` (None: a third party),
    naming the Emperor and the Rival of a vote when they are known."""
    fn = _ASKS.get(p.decision)
    words = _Words(p, players, you, emperor, rival)
    return fn(words) if fn is not None else p.decision.replace("_", " ")


def waiting(p: Prompt, players: Sequence[str]) -> str:
    """The narration of a request, for everyone: "Waiting for Ann to break the tie for ... of Köln ..."."""
    who = names_list([players[s] if 0 <= s < len(players) else f"seat {s}" for s in p.seats]) or "nobody"
    return f"Waiting for {who} to {ask(p, players)}."


def decisions() -> frozenset[str]:
    """Every decision with its own sentence (a test checks them against the game's list of decisions)."""
    return frozenset(_ASKS)

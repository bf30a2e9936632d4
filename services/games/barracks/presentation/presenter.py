"""BarracksPresenter: what each seat may see [K14], in views, redacted events and replays, plus the scoreboard;
words (describe, explain, labels) live in words.py.

Secrets until the game is over: each hand (a seat sees its own; the others see its size and the cards known to be
in it: Forum picks and a passing hand), a seat's Princeps draw and what Frumentarii showed it, the order of the
draw deck and of the Emperor deck, and the seed. Everything on the board, the Forum, the discard pile, the
holding box, the set-aside Pretenders and the scoring areas are public. Once over, everything is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from services.games.barracks.presentation import menus, prompts, words
from services.games.barracks.presentation import render as boards
from services.games.barracks.presentation import render_svg as board_svg
from services.games.barracks.presentation.names import card_code, card_words
from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import Tables
from services.games.barracks.rules.decide import awaited
from services.games.barracks.rules.legality import forum_allowed
from services.games.barracks.rules.rounds import score_of
from services.games.barracks.rules.state import KEEP, ORDER, PHASE_NAMES, PICK, RIVAL_PLACE, Game
from services.rules.contract import JSON, GameRules, LeaderboardSpec, Presenter, Secret

_SECRET_OF_SEAT = {
    F.HandDealt: ("cards",),
    F.CardDrawn: ("card",),
    F.CardsLooked: ("cards",),
    F.CardKept: ("card", "bottom"),
}
_SECRET_ORDER = {F.DeckShuffled: "order", F.EmperorDeckShuffled: "order"}


@lru_cache(maxsize=8)
def _distinctive_forms(T: Tables) -> dict[str, tuple[str, ...]]:
    """Per card, the forms it takes in text (id, board code, words) that no other card's forms contain, so that
    a text search for one finds only that card (``yellow-6-mob`` is inside ``yellow-6-mobile-vulgus``; a
    barbarian's code is just ``X``)."""
    forms = {cid: {cid, card_code(cid, T), card_words(cid, T)} for cid in T.card_ids}
    return {
        cid: tuple(
            sorted(f for f in own if not any(f in g for other, theirs in forms.items() if other != cid for g in theirs))
        )
        for cid, own in forms.items()
    }


class BarracksPresenter(Presenter[Game]):
    """Views, redaction and words of The Barracks Emperors."""

    quiet_events = frozenset({"DecisionRequested"})
    """A request for the next decision: the command answering it shows who decided."""
    leaderboard = LeaderboardSpec(score_label="points", shared_win="each")
    """A leaderboard averages points; a tie (without the tiebreak option) is a shared victory of each [K39]."""
    flow_events = frozenset(
        {
            "GameStarted", "EmperorDeckShuffled", "RoundStarted", "BarbariansSet", "EmperorsDealt", "DeckShuffled",
            "HandDealt", "ForumDealt", "TurnStarted", "DecisionRequested", "RoundEnded", "GameEnded", "RivalDrew",
            "DemagogueEnded",
        }
    )  # fmt: skip
    """What the rounds' flow records by itself: the deals and shuffles of a round, turn and round boundaries,
    a rival claimant's draw, the end of the game."""

    def flow_event(self, event: Any) -> bool:
        """The flow's own events, and a pass the referee made for a seat without a possible play [KX5]."""
        if event.type == "Passed":
            return bool(event.automatic)
        return event.type in self.flow_events

    def __init__(self, rules: GameRules[Game]) -> None:
        super().__init__(rules)

    # --- secrets -----------------------------------------------------------------------------------------------
    def view(self, state: Game | None, seat: int | None) -> JSON:
        """The game as ``seat`` (None: a spectator) may see it now."""
        if state is None:
            return {"seat": seat, "started": False, "over": False, "version": 0}
        return _view(state, seat, reveal=state.over)

    def replay_view(self, state: Game | None, seat: int | None, final: Game | None) -> JSON:
        """A past position: what ``seat`` could see then, or everything once the game (``final``) is over [K14]."""
        if state is None:
            return self.view(state, seat)
        return _view(state, seat, reveal=state.over or (final is not None and final.over))

    def redact(self, event: Any, seat: int | None, state: Game | None) -> JSON | None:
        """``event`` as ``seat`` may see it while the game is at ``state`` (at or after the event) [K14]."""
        event = F.as_core(event)
        # JSON-ready (lists, not tuples) as ``encode_event`` gives it: the contract's ``narrate`` tells an event in
        # words only when its redaction equals its encoding, so a tuple here hid public events behind "details
        # hidden" (every TurnStarted, the final scores)
        data = F.json_ready(F.to_dict(event))
        if state is not None and state.over:
            return data
        kind = type(event)
        if kind is F.GameStarted:  # the seed is secret; the data record (public, and long) is named by its version
            shown = {k: v for k, v in data.items() if k != "data"}
            summary = words.describe(event)  # names and factions only: no seed, no order
            return {**shown, "seed": None, "data_version": event.data.get("version"), "redacted": True,
                    "summary": summary}  # fmt: skip
        if kind in _SECRET_ORDER:
            summary = words.describe(event)  # the deck's size only
            return {**data, "order": None, "size": len(event.order), "redacted": True, "summary": summary}
        if kind in _SECRET_OF_SEAT and event.seat != seat:
            hidden = dict(data)
            for name in _SECRET_OF_SEAT[kind]:
                value = data[name]
                hidden[name] = None
                if isinstance(value, tuple | list):
                    hidden[f"{name}_count"] = len(value)
            hidden["redacted"] = True
            hidden["summary"] = words.describe(event, state.players if state is not None else ())  # sizes only
            return hidden
        return data

    def secret_cards(self, state: Game | None, seat: int) -> set[str]:
        """The ids only ``seat`` may know now: its cards not publicly known, and what Frumentarii shows it [K14]."""
        if state is None or state.over:
            return set()
        T = state.T
        found = {T.card_ids[c] for c in state.hands[seat] if c not in state.known[seat]}
        if state.phase == KEEP and state.actor_seat[state.active] == seat:
            found |= {T.card_ids[c] for c in state.looked}
        return found

    def default_is_secret(self, decision: str, seat: int, viewer: int | None, state: Game | None) -> bool:
        """Every default move names the card it plays or keeps: hidden from the others; what of it is public,
        the events after it show [KX18-KX20]."""
        return True

    def secrets(self, state: Game | None) -> list[Secret]:
        """Every seat's :meth:`secret_cards`, as the conformance suite searches for them: the id anywhere in JSON,
        and in text each of its forms (id, board code ``R7Sp``, words) that no other card's forms contain [K14]."""
        if state is None or state.over:
            return []
        found = []
        distinctive = _distinctive_forms(state.T)
        for seat in range(len(state.players)):
            for cid in sorted(self.secret_cards(state, seat)):
                found += [Secret(seat, None, cid, text=form) for form in distinctive[cid]]
        return found

    def hidden_order(self, state: Game) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The draw deck and the Emperor deck, top first: known to no seat until the end [K14]."""
        T = state.T
        return tuple(T.card_ids[c] for c in reversed(state.deck)), tuple(
            T.emperor_ids[x] for x in reversed(state.emperor_deck)
        )

    # --- words -------------------------------------------------------------------------------------------------------
    def describe(self, event: Any, players: Sequence[str] = ()) -> str:
        """One event in plain words (never a secret)."""
        return words.describe(F.as_core(event), players)

    def explain_event(self, event: Any, players: Sequence[str] = ()) -> str:
        """Why it happened, with the deciding inputs and the rulings cited (never a secret)."""
        return words.explain(F.as_core(event), players)

    def prompt(self, state: Game | None, seat: int) -> str | None:
        """What ``seat`` is asked now and where (its turn's action, the order of surrounded Emperors, the card to
        keep, the Forum pick, a rival claimant's space); None when the game does not wait for it."""
        return prompts.prompt(state, seat)

    def label(self, command: Any, state: Game | None = None) -> str:
        """A short label of a command: the card, the space by name and where it lies, what the ability does."""
        return menus.label(command, state)

    def menu_groups(self, commands: Sequence[Any], state: Game | None = None) -> list[tuple[str, list[int]]]:
        """The legal ``commands`` grouped for a menu (by action and card, long groups by space): ``(title,
        indexes)``; the groups partition the list."""
        return menus.menu_groups(commands, state)

    # --- pictures ----------------------------------------------------------------------------------------------------
    def render_text(self, state: Game | None, seat: int | None, final: Game | None = None) -> str:
        """The board and the table as plain text, as ``seat`` may see it (``final``: as in :meth:`replay_view`)."""
        if state is None:
            return "The Barracks Emperors: the game has not started yet."
        return boards.render_text(self._shown(state, seat, final), state.T)

    def render_svg(self, state: Game | None, seat: int | None, final: Game | None = None) -> str:
        """The board and the table as a standalone SVG document, as ``seat`` may see it."""
        if state is None:
            return board_svg.empty_svg()
        return board_svg.render_svg(self._shown(state, seat, final), state.T)

    def _shown(self, state: Game, seat: int | None, final: Game | None) -> JSON:
        return self.view(state, seat) if final is None else self.replay_view(state, seat, final)

    # --- standings -------------------------------------------------------------------------------------------------
    def scoreboard(self, state: Game | None) -> JSON:
        """Points so far per seat (captures are public), round, and the result once over [K39]."""
        if state is None:
            return {"seats": [], "over": False}
        seats = []
        for seat in range(len(state.players)):
            points, colours, sets, barbarians = score_of(state, state.seat_actor[seat])
            seats.append(
                {
                    "seat": seat,
                    "name": state.players[seat],
                    "score": points,
                    "emperors": list(colours),
                    "sets": sets,
                    "barbarians": barbarians,
                }
            )
        return {"seats": seats, "round": state.round, "over": state.over, "result": self.rules.result(state)}


def _card(g: Game, c: int) -> JSON:
    T = g.T
    face_down = g.face_down[c]
    if T.is_barbarian[c]:
        return {"card": T.card_ids[c], "barbarian": True}
    data: JSON = {"card": T.card_ids[c], "face_down": face_down}
    if not face_down:
        data["value"] = T.value[c] + g.counters[c]
    if g.counters[c]:
        data["counters"] = g.counters[c]
    actor = g.played_by[c]
    if actor >= 0:
        seat = g.actor_seat[actor]
        data["player"] = seat if seat >= 0 else None
        if seat < 0:
            data["rival"] = words.FACTIONS[g.actor_factions[actor][0]]
    return data


def _scoring(g: Game, actor: int) -> JSON:
    """One scoring area (a seat's, or a rival claimant's in solo) [K39, KX2]."""
    T = g.T
    seat = g.actor_seat[actor]
    return {
        "factions": [words.FACTIONS[f] for f in g.actor_factions[actor]],
        "seat": seat if seat >= 0 else None,
        "emperors": [T.emperor_ids[x] for x in g.won[actor]],
        "barbarians": [T.card_ids[c] for c in g.won_barbarians[actor]],
        "score": score_of(g, actor)[0],
    }


def _view(g: Game, seat: int | None, reveal: bool) -> JSON:
    """The view of ``g`` for ``seat``; ``reveal``: the game is over, nothing is secret any more [K14]."""
    T = g.T
    ids = T.card_ids
    board: JSON = {}
    for s in range(T.n_spaces):
        top = g.top[s]
        if top >= 0:
            entry = _card(g, top)
            if g.under[s] >= 0:
                entry["covers"] = _card(g, g.under[s])
            board[T.space_ids[s]] = entry
    hands = []
    for i, hand in enumerate(g.hands):
        entry = {"seat": i, "size": len(hand), "known": [ids[c] for c in g.known[i]]}
        if reveal or i == seat:
            entry["cards"] = [ids[c] for c in hand]
        hands.append(entry)
    active = g.actor_seat[g.active] if g.actor_seat else -1
    view: JSON = {
        "game": "barracks",
        "seat": seat,
        "players": list(g.players),
        "seats": [
            {"seat": i, "factions": [words.FACTIONS[f] for f in g.actor_factions[g.seat_actor[i]]]}
            for i in range(len(g.players))
        ],
        "rivals": [words.FACTIONS[g.actor_factions[a][0]] for a, s in enumerate(g.actor_seat) if s < 0],
        "round": g.round,
        "turn": g.turn,
        "active": {
            "seat": active if active >= 0 else None,
            "factions": [words.FACTIONS[f] for f in g.actor_factions[g.active]],
        },
        "decision": PHASE_NAMES[g.phase],
        "awaited": list(awaited(g)),
        "emperors": {
            T.emp_ids[e]: {"emperor": T.emperor_ids[x], "colour": words.SUITS[T.colour[x]]}
            for e, x in enumerate(g.emp)
            if x >= 0
        },
        "board": board,
        "forum": [ids[c] for c in g.forum],
        "deck_size": len(g.deck),
        "discard": [ids[c] for c in g.discard],
        "holding_box": [ids[c] for c in g.box],
        "pretenders_aside": [T.emperor_ids[x] for x in g.aside],
        "emperors_out": [T.emperor_ids[x] for x in g.out],
        "emperor_deck_size": len(g.emperor_deck),
        "scoring": [_scoring(g, a) for a in range(len(g.actor_seat))],
        "hands": hands,
        "demagogue": None if g.demagogue < 0 else {"seat": g.actor_seat[g.demagogue], "card": ids[g.demagogue_card]},
        "passes": g.passes,
        "over": g.over,
        "result": None if g.final is None else {"players": list(g.players), **g.final},
        "version": g.version,
    }
    if seat is not None and 0 <= seat < len(g.players):
        view["hand"] = [ids[c] for c in g.hands[seat]]
    if g.phase == ORDER:
        view["surrounded"] = [T.emperor_ids[g.emp[e]] for e in g.surrounded]
    if g.phase == PICK:
        view["forum_allowed"] = forum_allowed(g.played_value) or len(g.forum)
    if g.phase == KEEP:
        view["looked_count"] = len(g.looked)
        if reveal or seat == active:
            view["looked"] = [ids[c] for c in g.looked]
    if g.phase == RIVAL_PLACE and g.limbo >= 0:
        view["rival_card"] = ids[g.limbo]
    if reveal:
        view["seed"] = g.seed
        view["deck"] = [ids[c] for c in reversed(g.deck)]
        view["emperor_deck"] = [T.emperor_ids[x] for x in reversed(g.emperor_deck)]
    return view

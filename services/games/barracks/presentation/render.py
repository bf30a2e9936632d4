"""The board of The Barracks Emperors drawn from one seat's view: the pieces both pictures share (the 7x7 frame of
cells, the status sentences, the scoring areas) and the text board.

Everything is drawn from a view (``BarracksPresenter.view`` / ``replay_view``), never from the state, so a board
shows a seat exactly what its view does: its own hand, the other hands by size and publicly known cards [K14].
The tables (``Game.T``) are used only for public data: the geometry and what a card id means. Spaces, cards and
Emperors are named as in names.py.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.games.barracks.presentation.names import (
    ABILITY_CODES,
    ability_title,
    card_code,
    card_words,
    emperor_words,
    faction_title,
    rc_name,
)
from services.games.barracks.rules.board import ABILITIES, Tables

JSON = dict[str, Any]

NBSP = "\u00a0"
"""Joins the words of one name (a card, a seat) so that wrapping never splits it; :func:`wrap` restores spaces."""
FORUM_RULE = (
    "after a card of printed value 0-2 any card; 3-4 one of the 3 leftmost; 5-6 of the 2 leftmost; 7-8 the leftmost"
)
SUIT_LETTER = {"red": "R", "blue": "B", "yellow": "Y"}


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of the 7x7 frame: an Emperor space, an influence space, or nothing (``kind`` "void")."""

    name: str
    kind: str  # "emperor", "space" or "void"
    roma: bool = False
    homeland: bool = False
    emperor: str | None = None  # the Emperor id on an Emperor space
    colour: str | None = None
    pretender: bool = False
    top: JSON | None = None  # the view's entry for the card on an influence space (with "covers")


def frame(view: JSON, T: Tables) -> list[list[Cell]]:
    """The cells, North row first, West column first, outer spaces included [K5, K8]."""
    emperors = view.get("emperors") or {}
    board = view.get("board") or {}
    roma = T.emp_rc[T.roma]
    homelands = {T.space_rc[s] for s in T.homelands}
    rows = []
    for r in range(-1, T.size + 1):
        row = []
        for c in range(-1, T.size + 1):
            rc, name = (r, c), rc_name(r, c)
            sid = f"{r},{c}"
            if rc in T.emp_at:
                here = emperors.get(sid)
                eid = here["emperor"] if here else None
                row.append(
                    Cell(
                        name,
                        "emperor",
                        roma=rc == roma,
                        emperor=eid,
                        colour=here["colour"] if here else None,
                        pretender=bool(eid) and eid in T.emperor_index and T.emperor_index[eid] in T.pretenders,
                    )
                )
            elif rc in T.space_at:
                row.append(Cell(name, "space", homeland=rc in homelands, top=board.get(sid)))
            else:
                row.append(Cell(name, "void"))
        rows.append(row)
    return rows


# --- words shared by both boards -------------------------------------------------------------------------------
def card_name(cid: str | None, T: Tables) -> str:
    """A card's words ("red 7 Spiculum") as one unbreakable piece for :func:`wrap`."""
    return card_words(cid, T).replace(" ", NBSP)


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` characters (later lines indented), never inside a card's name."""
    lines = textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return [line.replace(NBSP, " ") for line in lines] or [""]


def who(view: JSON, seat: int | None, factions: Sequence[str] = ()) -> str:
    """A seat by name and factions ("Alice (North)"), or a rival claimant ("the rival claimant West")."""
    fs = "+".join(faction_title(f) for f in factions)
    if seat is None:
        return f"the rival claimant {fs}" if fs else "no one"
    players = view.get("players") or []
    name = players[seat] if 0 <= seat < len(players) else f"seat {seat}"
    return f"{name} ({fs})" if fs else name


def seat_factions(view: JSON, seat: int) -> list[str]:
    """The factions a seat plays."""
    for entry in view.get("seats") or []:
        if entry["seat"] == seat:
            return list(entry["factions"])
    return []


def title_line(view: JSON, T: Tables) -> str:
    """Round, turn, and who is looking."""
    seat = view.get("seat")
    players = view.get("players") or []
    if seat is not None and 0 <= seat < len(players):
        you = f"you are {who(view, seat, seat_factions(view, seat))}, seat {seat}"
    else:
        you = "spectator's view"
    return f"The Barracks Emperors - round {view.get('round')} of {T.rounds}, turn {view.get('turn')} - {you}"


def decision_line(view: JSON, T: Tables) -> str:
    """Whose turn it is and what the game waits for (or the result once over)."""
    if view.get("over"):
        return result_line(view)
    active = view.get("active") or {}
    actor = who(view, active.get("seat"), active.get("factions") or ())
    awaited = view.get("awaited") or []
    waiting = ", ".join(who(view, s, seat_factions(view, s)) for s in awaited) or "no one (the game moves on)"
    decision = view.get("decision")
    if decision == "action":
        what = "to play an influence card or a barbarian card (a pass only when nothing can be played)"
    elif decision == "order":
        surrounded = ", ".join(_emperor_here(view, x, T) for x in view.get("surrounded") or ())
        what = f"to choose which surrounded Emperor resolves next: {surrounded}"
    elif decision == "keep":
        what = f"to keep one of the {view.get('looked_count', 0)} cards Frumentarii shows"
        if view.get("looked"):
            what += ": " + ", ".join(card_name(c, T) for c in view["looked"])
    elif decision == "pick":
        allowed = view.get("forum_allowed") or 0
        size = len(view.get("forum") or ())
        what = "to take any Forum card" if allowed >= size else f"to take one of the {allowed} leftmost Forum cards"
        if allowed == 1:
            what = "to take the leftmost Forum card"
    elif decision == "rival_place":
        card = view.get("rival_card")
        what = f"to choose where the rival claimant's {card_name(card, T)} goes (Demagogue)"
    else:
        what = "nothing yet"
    return f"Turn of {actor}. Awaited: {waiting}, {what}."


def demagogue_line(view: JSON, T: Tables) -> str | None:
    """The Demagogue in force, if any [K37]."""
    demagogue = view.get("demagogue")
    if not demagogue:
        return None
    seat = demagogue.get("seat")
    owner = who(view, seat, seat_factions(view, seat)) if seat is not None else "a rival claimant"
    return (
        f"Demagogue in force: {owner}'s {card_name(demagogue['card'], T)} - every other seat's triggered "
        "abilities are ignored until its player's next turn."
    )


def result_line(view: JSON) -> str:
    """The final result [K39, K41]."""
    result = view.get("result") or {}
    players = result.get("players") or view.get("players") or []
    scores = ", ".join(f"{name} {score}" for name, score in zip(players, result.get("scores") or (), strict=False))
    rivals = result.get("rival_scores") or {}
    if rivals:
        scores += "; rival claimants: " + ", ".join(f"{faction_title(f)} {s}" for f, s in rivals.items())
    winners = [players[w] for w in result.get("winners") or () if 0 <= w < len(players)]
    if not winners:
        outcome = "the rival claimants prevail"
    elif result.get("shared"):
        outcome = "shared victory of " + " and ".join(winners)
    else:
        outcome = f"{winners[0]} wins" + (" on the tiebreak" if result.get("tiebreak_used") else "")
    return f"Game over. Scores: {scores}. {capital(outcome)}."


def scoring_lines(view: JSON, T: Tables) -> list[str]:
    """Each scoring area: captured Emperors by colour, sets, Triumph barbarians, points [K39, KX2]."""
    lines = []
    for area in view.get("scoring") or []:
        owner = capital(who(view, area.get("seat"), area.get("factions") or ()))
        counts = emperor_counts(area.get("emperors") or (), T)
        pretenders = sum(1 for x in area.get("emperors") or () if T.emperor_index.get(x, -1) in T.pretenders)
        colours = ", ".join(f"{n} {c}" for c, n in counts.items())
        extra = f" including {plural(pretenders, 'Pretender')}" if pretenders else ""
        barbarians = len(area.get("barbarians") or ())
        lines.append(
            f"{owner}: {plural(sum(counts.values()), 'Emperor')} ({colours}){extra}, "
            f"{plural(min(counts.values()), 'set')}, {plural(barbarians, 'Triumph barbarian')}: "
            f"{plural(area.get('score', 0), 'point')}"
        )
    return lines


def capital(text: str) -> str:
    """The text with its first letter in capitals."""
    return text[:1].upper() + text[1:]


def plural(n: int, noun: str) -> str:
    """``3 points``, ``1 point``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def emperor_counts(emperors: Sequence[str], T: Tables) -> dict[str, int]:
    """Captured Emperors per colour (Pretenders are yellow) [K39]."""
    counts = {"red": 0, "blue": 0, "yellow": 0}
    for x in emperors:
        i = T.emperor_index.get(x, -1)
        if i >= 0:
            counts[("red", "blue", "yellow")[T.colour[i]]] += 1
    return counts


def _emperor_here(view: JSON, eid: str, T: Tables) -> str:
    for sid, here in (view.get("emperors") or {}).items():
        if here["emperor"] == eid:
            r, c = (int(x) for x in sid.split(","))
            return f"{emperor_words(eid, T)} ({rc_name(r, c)})"
    return emperor_words(eid, T)


def card_cell(entry: JSON | None, T: Tables) -> str:
    """A board cell's card in the text board's code: ``R5Fl+1=6``, ``##``, ``X``, ``X/R3Ca``."""
    if entry is None:
        return "."
    if entry.get("barbarian"):
        covers = entry.get("covers")
        return "X" + (f"/{card_cell(covers, T)}" if covers else "")
    if entry.get("face_down"):
        return "##"
    text = card_code(entry["card"], T)
    if entry.get("counters"):
        text += f"+{entry['counters']}={entry.get('value')}"
    return text


def hand_words(cards: Sequence[str], T: Tables) -> str:
    """Cards as "R7Sp red 7 Spiculum, X barbarian 03"."""
    return ", ".join(f"{card_code(c, T)} {card_name(c, T)}" for c in cards) or "none"


def board_cards(view: JSON, T: Tables) -> list[str]:
    """Every influence card on the board in words, by space, with who played it (covered and face-down ones
    too: their identity is public) [K14]."""
    out = []
    for sid in sorted(view.get("board") or {}, key=_space_order):
        entry = view["board"][sid]
        r, c = (int(x) for x in sid.split(","))
        for card in (entry, entry.get("covers")):
            if not card or card.get("barbarian"):
                continue
            state = " face-down" if card.get("face_down") else ""
            state += " covered" if card is not entry else ""
            counters = f" +{card['counters']}" if card.get("counters") else ""
            by = card.get("player")
            player = (
                who(view, by)
                if by is not None
                else (f"the rival {faction_title(card['rival'])}" if card.get("rival") else "")
            )
            out.append(
                f"{rc_name(r, c)}{state} {card_name(card['card'], T)}{counters}" + (f" ({player})" if player else "")
            )
    return out


def _space_order(sid: str) -> tuple[int, int]:
    r, c = sid.split(",")
    return int(r), int(c)


# --- the text board ------------------------------------------------------------------------------------------------
WIDTH = 110


def _wrap(text: str) -> list[str]:
    return wrap(text, WIDTH, "  ")


def render_text(view: JSON, T: Tables) -> str:
    """The board and the table as plain text, from ``view`` (one seat's view)."""
    lines = [title_line(view, T), *_wrap(decision_line(view, T))]
    demagogue = demagogue_line(view, T)
    if demagogue:
        lines += _wrap(demagogue)
    lines.append("")
    codes: set[str] = set()
    texts = [[_cell_text(cell, T, codes) for cell in row] for row in frame(view, T)]
    width = max(6, *(len(t) + 2 for row in texts for t in row))
    lines.append("   " + "".join(f"{c:^{width}}" for c in range(T.size + 2)).rstrip())
    for r, row in enumerate(texts):
        lines.append(f"{chr(ord('A') + r)}  " + "".join(f"{t:^{width}}" for t in row).rstrip())
    lines.append("")
    lines += _legend(codes)
    on_board = board_cards(view, T)
    if on_board:
        lines += _wrap("On the board: " + "; ".join(on_board) + ".")
    lines.append("")
    forum = view.get("forum") or []
    lines += _wrap(
        "Forum (leftmost first): "
        + (" | ".join(f"{i + 1} {card_code(c, T)} {card_name(c, T)}" for i, c in enumerate(forum)) or "empty")
    )
    lines.append(f"  ({FORUM_RULE})")
    discard = view.get("discard") or []
    last = f" (last: {card_name(discard[-1], T)})" if discard else ""
    lines += _wrap(
        f"Deck: {view.get('deck_size', 0)} cards. Discard pile: {len(discard)} cards{last}. "
        f"Holding box: {len(view.get('holding_box') or ())} barbarians. "
        f"Pretenders set aside: {len(view.get('pretenders_aside') or ())}. "
        f"Emperor deck: {view.get('emperor_deck_size', 0)}."
    )
    lines += [line for text in _hand_lines(view, T) for line in _wrap(text)]
    lines.append("Scoring areas:")
    lines += ["  " + line for text in scoring_lines(view, T) for line in _wrap(text)]
    return "\n".join(lines)


def _cell_text(cell: Cell, T: Tables, codes: set[str]) -> str:
    if cell.kind == "void":
        return ""
    if cell.kind == "emperor":
        inner = (SUIT_LETTER.get(cell.colour or "", "?") + ("p" if cell.pretender else "")) if cell.emperor else " "
        return f"{{{inner}}}" if cell.roma else f"[{inner}]"
    top = cell.top
    for entry in (top, (top or {}).get("covers")):
        if entry and not entry.get("barbarian") and not entry.get("face_down"):
            cid = entry["card"]
            if cid in T.card_index:
                codes.add(ABILITIES[T.ability[T.card_index[cid]]])
    return ("^" if cell.homeland else "") + card_cell(top, T)


def _legend(abilities: set[str]) -> list[str]:
    lines = [
        "Legend: [R] [B] [Y] an Emperor: red (Military), blue (Senate), yellow (Populace) - its colour is trump;",
        "  [Yp] a Pretender; {R} the Emperor on Roma (D3); [ ] an empty Emperor space; . an empty space;",
        "  ^ a homeland; a card: suit letter (R, B, Y), printed value, ability code; +n=v after it: its counters and",
        "  effective value; ## a face-down card (value 0, no suit); X a barbarian; X/... a barbarian covering a card.",
        "  Rows A-G run North to South, columns 0-6 West to East (row A, row G, column 0, column 6: outer spaces).",
    ]
    if abilities:
        shown = sorted(abilities, key=ABILITIES.index)
        text = "Abilities: " + ", ".join(f"{ABILITY_CODES[a]} {ability_title(a)}" for a in shown) + "."
        lines += ["  " + line for line in _wrap(text)]
    return lines


def _hand_lines(view: JSON, T: Tables) -> list[str]:
    lines = []
    seat = view.get("seat")
    if "hand" in view:
        lines.append(f"Your hand ({len(view['hand'])}): {hand_words(view['hand'], T)}")
    for entry in view.get("hands") or []:
        i = entry["seat"]
        if i == seat:
            continue
        text = f"{who(view, i, seat_factions(view, i))}: {entry['size']} cards"
        if entry.get("cards"):
            text += f": {hand_words(entry['cards'], T)}"
        elif entry.get("known"):
            text += f" (known: {hand_words(entry['known'], T)})"
        lines.append(text)
    if view.get("rivals"):
        lines.append("Rival claimants (no hand): " + ", ".join(faction_title(f) for f in view["rivals"]))
    return lines

"""The board as a standalone SVG picture, drawn from one seat's view like the text board (boards.py) [K14].

Left: the 7x7 frame with its coordinates (rows A-G, columns 0-6, names.py): Emperor spaces as framed cards in their
colour (Pretenders marked, Roma ringed in gold), influence cards coloured by suit with their value (counters added)
and a counter badge, face-down cards hatched, barbarians dark with what they cover, homelands with crossed axes.
Right: the Forum, the seat's own hand (only its own), every hand's size and its publicly known cards, the piles,
and the scoring areas with the captured Emperors. Only standard SVG 1.1 and generic fonts.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from services.games.barracks.presentation.names import faction_title
from services.games.barracks.presentation.render import (
    FORUM_RULE,
    Cell,
    capital,
    card_name,
    decision_line,
    demagogue_line,
    emperor_counts,
    frame,
    plural,
    result_line,
    seat_factions,
    title_line,
    who,
)
from services.games.barracks.presentation.svg_parts import (
    BARBARIAN,
    BOARD_X,
    BOARD_Y,
    CARD_H,
    CARD_W,
    FACE_DOWN,
    FILL,
    GOLD,
    INK,
    JSON,
    LINE,
    PANEL_X,
    TINT,
    WIDTH,
    S,
    _axes,
    _card,
    _document,
    _text,
    _wrap,
)
from services.games.barracks.rules.board import SUITS, Tables


def empty_svg() -> str:
    """The picture of a game not started yet."""
    return _document(360, 60, [_text(20, 36, "The Barracks Emperors: the game has not started yet.", size=14)])


def render_svg(view: JSON, T: Tables) -> str:
    """The board and the table as an SVG document, from ``view`` (one seat's view)."""
    parts: list[str] = []
    parts.append(_text(BOARD_X, 30, title_line(view, T), size=18, weight="bold"))
    y = 52
    for line in _wrap(decision_line(view, T), 130):
        parts.append(_text(BOARD_X, y, line, size=13))
        y += 17
    demagogue = demagogue_line(view, T)
    if demagogue:
        for line in _wrap(demagogue, 130):
            parts.append(_text(BOARD_X, y, line, size=13, fill="#8e44ad", weight="bold"))
            y += 17
    board_y = max(BOARD_Y, y + 14)
    parts += _board(view, T, board_y)
    bottom = board_y + 7 * S + 10
    legend, bottom = _legend(bottom)
    parts += legend
    panel, panel_bottom = _panel(view, T, board_y)
    parts += panel
    return _document(WIDTH, max(bottom, panel_bottom) + 16, parts)


# --- the board -------------------------------------------------------------------------------------------------
def _board(view: JSON, T: Tables, top: int) -> list[str]:
    parts = [
        f'<rect x="{BOARD_X + S - 6}" y="{top + S - 6}" width="{5 * S + 12}" height="{5 * S + 12}" rx="8" '
        f'fill="#efe6d2" stroke="#a08c64" stroke-width="2"/>'
    ]
    for i in range(7):
        parts.append(_text(BOARD_X + i * S + S / 2, top - 6, str(i), size=12, anchor="middle", fill=LINE))
        parts.append(
            _text(BOARD_X - 14, top + i * S + S / 2 + 4, chr(ord("A") + i), size=12, anchor="middle", fill=LINE)
        )
    surrounded = set(view.get("surrounded") or ())
    for r, row in enumerate(frame(view, T)):
        for c, cell in enumerate(row):
            x, y = BOARD_X + c * S, top + r * S
            if cell.kind == "emperor":
                parts += _emperor(cell, x, y)
                if cell.emperor in surrounded:  # the active player chooses which resolves next [K22]
                    parts.append(
                        f'<rect x="{x + 1}" y="{y}" width="{S - 2}" height="{CARD_H + 8}" rx="9" fill="none" '
                        f'stroke="#e67e22" stroke-width="4" stroke-dasharray="8 4"/>'
                    )
            elif cell.kind == "space":
                parts += _space(cell, x, y, T)
    return parts


def _emperor(cell: Cell, x: float, y: float) -> list[str]:
    parts = []
    bx, by = x + 6, y + 4
    if cell.roma:
        parts.append(
            f'<rect x="{x + 2}" y="{y + 1}" width="{S - 4}" height="{CARD_H + 6}" rx="9" fill="none" '
            f'stroke="{GOLD}" stroke-width="3"/>'
        )
    if cell.emperor is None:
        parts.append(
            f'<rect x="{bx}" y="{by}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="#e2d8c3" '
            f'stroke="{LINE}" stroke-dasharray="4 3"/>'
        )
        parts.append(_text(x + S / 2, by + CARD_H / 2 - 2, "no", size=10, anchor="middle", fill=LINE))
        parts.append(_text(x + S / 2, by + CARD_H / 2 + 10, "Emperor", size=10, anchor="middle", fill=LINE))
    else:
        colour = cell.colour or "yellow"
        parts.append(
            f'<rect x="{bx}" y="{by}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="{TINT[colour]}" '
            f'stroke="{FILL[colour]}" stroke-width="3"/>'
        )
        cx, cy = x + S / 2, by + 22
        parts.append(
            f'<path d="M{cx - 16},{cy + 8} L{cx - 16},{cy - 6} L{cx - 8},{cy + 1} L{cx},{cy - 10} '
            f'L{cx + 8},{cy + 1} L{cx + 16},{cy - 6} L{cx + 16},{cy + 8} Z" fill="{FILL[colour]}"/>'
        )
        label = "Pretender" if cell.pretender else "Emperor"
        parts.append(_text(cx, by + 45, label, size=10, anchor="middle", weight="bold"))
        parts.append(_text(cx, by + 58, f"{colour} trump", size=9, anchor="middle", fill="#444444"))
    name = f"{cell.name} ROMA" if cell.roma else cell.name
    colour = "#8a6d0b" if cell.roma else "#444444"
    parts.append(_text(x + S / 2, y + S - 4, name, size=9, anchor="middle", fill=colour, weight="bold"))
    return parts


def _space(cell: Cell, x: float, y: float, T: Tables) -> list[str]:
    parts = []
    stroke, dash = (BARBARIAN, ' stroke-dasharray="5 3"') if cell.homeland else ("#b7ad98", ' stroke-dasharray="3 3"')
    parts.append(
        f'<rect x="{x + 6}" y="{y + 4}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="none" stroke="{stroke}"{dash}/>'
    )
    if cell.homeland:
        parts += _axes(x + S / 2, y + 4 + CARD_H / 2 - 6, 13, "#bcaaa4")
        parts.append(_text(x + S / 2, y + CARD_H - 4, "homeland", size=9, anchor="middle", fill=BARBARIAN))
    if cell.top is not None:
        parts += _card(cell.top, x + 6, y + 4, CARD_W, CARD_H, T)
    parts.append(_text(x + S / 2, y + S - 4, cell.name, size=9, anchor="middle", fill="#444444"))
    return parts


def _legend(top: float) -> tuple[list[str], float]:
    y = top + 14
    parts = [_text(BOARD_X, y, "Legend", size=12, weight="bold")]
    x = BOARD_X
    y += 10
    items = [
        ("red", "Military"),
        ("blue", "Senate"),
        ("yellow", "Populace"),
    ]
    for suit, word in items:
        parts.append(f'<rect x="{x}" y="{y}" width="14" height="14" rx="2" fill="{FILL[suit]}"/>')
        parts.append(_text(x + 18, y + 11, f"{suit} ({word})", size=10))
        x += 120
    parts.append(f'<rect x="{x}" y="{y}" width="14" height="14" rx="2" fill="{FACE_DOWN}"/>')
    parts.append(f'<rect x="{x}" y="{y}" width="14" height="14" rx="2" fill="url(#hatch)"/>')
    parts.append(_text(x + 18, y + 11, "face down (0)", size=10))
    x += 110
    parts.append(f'<rect x="{x}" y="{y}" width="14" height="14" rx="2" fill="{BARBARIAN}"/>')
    parts.append(_text(x + 18, y + 11, "barbarian (its strip: the card it covers)", size=10))
    y += 30
    for line in (
        "Big number: the card's value (printed value + counters; the badge shows the counters). An Emperor's colour",
        "is its trump suit. Dashed brown frames: homelands. Gold ring: Roma (D3). Dashed orange ring: a surrounded",
        "Emperor waiting to be resolved. Rows A-G run North to South, columns 0-6 West to East; row A, row G,",
        "column 0 and column 6 are the outer spaces.",
    ):
        parts.append(_text(BOARD_X, y, line, size=10, fill="#333333"))
        y += 14
    return parts, y


# --- the panel ---------------------------------------------------------------------------------------------------
def _panel(view: JSON, T: Tables, top: float) -> tuple[list[str], float]:
    x, y = PANEL_X, top - 8
    parts: list[str] = []
    forum = list(view.get("forum") or [])
    parts.append(_text(x, y, "Forum (leftmost first)", size=14, weight="bold"))
    allowed = view.get("forum_allowed") if view.get("decision") == "pick" else None
    parts += _card_row(forum, x, y + 8, T, numbered=True, highlight=allowed)
    y += 8 + 72 + 30
    for line in _wrap(FORUM_RULE, 80):
        parts.append(_text(x, y, line, size=10, fill="#555555"))
        y += 13
    y += 12
    seat = view.get("seat")
    if "hand" in view:
        hand = list(view["hand"])
        parts.append(_text(x, y, f"Your hand ({len(hand)})", size=14, weight="bold"))
        rows = max(1, (len(hand) + 7) // 8)
        for i in range(rows):
            parts += _card_row(hand[i * 8 : (i + 1) * 8], x, y + 8 + i * 80, T)
        y += 8 + rows * 80 + 12
    parts.append(_text(x, y, "Hands", size=14, weight="bold"))
    y += 18
    for entry in view.get("hands") or []:
        i = entry["seat"]
        name = who(view, i, seat_factions(view, i)) + (" (you)" if i == seat else "")
        text = f"{name}: {plural(entry['size'], 'card')}"
        if entry.get("cards") and i != seat:
            text += ": " + ", ".join(card_name(c, T) for c in entry["cards"])
        elif entry.get("known") and i != seat:
            text += "; known: " + ", ".join(card_name(c, T) for c in entry["known"])
        for line in _wrap(text, 84):
            parts.append(_text(x, y, line, size=11))
            y += 14
    if view.get("rivals"):
        rivals = ", ".join(faction_title(f) for f in view["rivals"])
        parts.append(_text(x, y, f"Rival claimants (no hand): {rivals}", size=11))
        y += 14
    y += 8
    discard = view.get("discard") or []
    last = f" (last: {card_name(discard[-1], T)})" if discard else ""
    for line in (
        f"Draw deck: {plural(view.get('deck_size', 0), 'card')}. Discard pile: {plural(len(discard), 'card')}{last}.",
        f"Holding box: {plural(len(view.get('holding_box') or ()), 'barbarian')}. Pretenders set aside: "
        f"{len(view.get('pretenders_aside') or ())}. Emperor deck: {view.get('emperor_deck_size', 0)}.",
    ):
        parts.append(_text(x, y, line, size=11))
        y += 14
    y += 12
    parts.append(_text(x, y, "Scoring areas", size=14, weight="bold"))
    y += 8
    for area in view.get("scoring") or []:
        parts_area, y = _scoring_area(view, area, x, y, T)
        parts += parts_area
    if view.get("over"):
        y += 10
        for line in _wrap(result_line(view), 70):
            parts.append(_text(x, y, line, size=13, weight="bold", fill="#1e6b30"))
            y += 17
    return parts, y


def _scoring_area(view: JSON, area: JSON, x: float, y: float, T: Tables) -> tuple[list[str], float]:
    owner = capital(who(view, area.get("seat"), area.get("factions") or ()))
    emperors = list(area.get("emperors") or ())
    counts = emperor_counts(emperors, T)
    barbarians = len(area.get("barbarians") or ())
    y += 16
    parts = [
        _text(x, y, f"{owner}: {plural(area.get('score', 0), 'point')}", size=12, weight="bold"),
        _text(
            x + 300,
            y,
            f"{counts['red']} red, {counts['blue']} blue, {counts['yellow']} yellow; "
            f"{plural(min(counts.values()), 'set')}",
            size=10,
            fill="#444444",
        ),
    ]
    y += 6
    ex = x
    order = sorted(emperors, key=lambda e: (T.colour[T.emperor_index[e]], e) if e in T.emperor_index else (9, e))
    for eid in order:
        i = T.emperor_index.get(eid, -1)
        colour = SUITS[T.colour[i]] if i >= 0 else "yellow"
        parts.append(
            f'<rect x="{ex}" y="{y}" width="16" height="20" rx="2" fill="{FILL[colour]}" stroke="#333333">'
            f"<title>{escape(eid)}</title></rect>"
        )
        if i in T.pretenders:
            parts.append(_text(ex + 8, y + 14, "P", size=10, anchor="middle", fill=INK[colour], weight="bold"))
        ex += 19
        if ex > x + 480:
            ex = x
            y += 24
    for _ in range(barbarians):
        parts.append(f'<rect x="{ex}" y="{y}" width="16" height="20" rx="2" fill="{BARBARIAN}"/>')
        parts.append(_text(ex + 8, y + 14, "X", size=10, anchor="middle", fill="#ffffff", weight="bold"))
        ex += 19
    if not emperors and not barbarians:
        parts.append(_text(x, y + 14, "nothing captured yet", size=10, fill="#777777"))
    return parts, y + 24


def _card_row(
    cards: Sequence[str], x: float, y: float, T: Tables, numbered: bool = False, highlight: int | None = None
) -> list[str]:
    parts: list[str] = []
    if not cards:
        parts.append(_text(x, y + 30, "empty", size=11, fill="#777777"))
    for i, cid in enumerate(cards):
        cx = x + i * 62
        entry: JSON = {"card": cid, "barbarian": T.card_index.get(cid, 0) >= T.n_influence}
        if highlight is not None and i < highlight:
            parts.append(
                f'<rect x="{cx - 3}" y="{y - 3}" width="62" height="78" rx="7" fill="none" '
                f'stroke="#27ae60" stroke-width="3"/>'
            )
        parts += _card(entry, cx, y, 56, 72, T, small=True)
        if numbered:
            parts.append(_text(cx + 28, y + 86, str(i + 1), size=10, anchor="middle", fill="#555555"))
    return parts


__all__ = ["empty_svg", "render_svg"]

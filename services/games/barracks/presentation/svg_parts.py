"""The drawing parts of the SVG board (render_svg.py lays them out): sizes and colours, a card, a barbarian,
and SVG text (escaped, fitted, wrapped) and the document around it.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from services.games.barracks.presentation.names import ability_title, card_code, card_words
from services.games.barracks.presentation.render import (
    NBSP,
    wrap,
)
from services.games.barracks.rules.board import ABILITIES, SUITS, Tables

JSON = dict[str, Any]

S = 84  # cell size
CARD_W, CARD_H = S - 12, S - 20  # a card in a cell: 6 px each side, 4 above, the space's name in the band below
SHORT = {
    "reinforcements": "Reinforce", "flanking_maneuver": "Flanking", "praetorian_guard": "Praetorian",
    "influence_peddling": "Peddling", "princeps_senatus": "Princeps", "damnatio_memoriae": "Damnatio",
    "mobile_vulgus": "M. Vulgus",
}  # fmt: skip
"""Ability names short enough for a card (the text board and the labels use the full ones)."""
BOARD_X, BOARD_Y = 36, 112
PANEL_X = BOARD_X + 7 * S + 36
WIDTH = PANEL_X + 520
FILL = {"red": "#c0392b", "blue": "#2c6fbb", "yellow": "#e0b000"}
TINT = {"red": "#f6d5d1", "blue": "#d3e3f6", "yellow": "#fbefc0"}
INK = {"red": "#ffffff", "blue": "#ffffff", "yellow": "#2b2b2b"}
SUIT_SHORT = {"red": "Military", "blue": "Senate", "yellow": "Populace"}
BARBARIAN, FACE_DOWN, GOLD, LINE = "#4e342e", "#8d9599", "#c9a227", "#6d6d6d"
FONT = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif"'


def _card(entry: JSON, x: float, y: float, w: float, h: float, T: Tables, small: bool = False) -> list[str]:
    """One card as its view entry shows it, grouped with a tooltip naming it (words and id)."""
    return [f"<g><title>{escape(_tooltip(entry, T))}</title>", *_card_parts(entry, x, y, w, h, T, small), "</g>"]


def _tooltip(entry: JSON, T: Tables) -> str:
    cid = entry.get("card", "")
    words = f"{card_words(cid, T)} ({cid})"
    if not entry.get("barbarian"):
        words = f"{card_code(cid, T)} {words}"
    if entry.get("barbarian"):
        covers = entry.get("covers")
        return words + (f", covering {_tooltip(covers, T)}" if covers else "")
    if entry.get("face_down"):
        return f"face-down {words}"
    return words + (f" with +{entry['counters']} in counters" if entry.get("counters") else "")


def _card_parts(entry: JSON, x: float, y: float, w: float, h: float, T: Tables, small: bool) -> list[str]:
    """One card: suit colour and values, face-down, or a barbarian (and what it covers)."""
    if entry.get("barbarian"):
        return _barbarian(entry, x, y, w, h, T, number=small)
    if entry.get("face_down"):
        parts = [
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{FACE_DOWN}" stroke="#555555"/>',
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="url(#hatch)"/>',
            _text(x + w / 2, y + h / 2 - 2, "face", size=10, anchor="middle", fill="#ffffff", weight="bold"),
            _text(x + w / 2, y + h / 2 + 10, "down 0", size=10, anchor="middle", fill="#ffffff", weight="bold"),
        ]
        return parts
    cid = entry["card"]
    c = T.card_index.get(cid, -1)
    if c < 0:
        return [_text(x, y + h / 2, cid, size=9)]
    suit = SUITS[T.suit[c]]
    printed = T.value[c]
    counters = entry.get("counters") or 0
    value = entry.get("value", printed + counters)
    ink = INK[suit]
    parts = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{FILL[suit]}" stroke="#333333"/>']
    big = 20 if small else 26
    parts.append(_text(x + w / 2, y + h / 2 + big / 3, str(value), size=big, anchor="middle", fill=ink, weight="bold"))
    parts.append(_fit_text(x + w / 2, y + h - 5, _ability(T, c), w - 6, size=9, fill=ink))
    if not small:
        parts.append(_text(x + 4, y + 11, SUIT_SHORT[suit], size=8, fill=ink))
    if counters:
        parts.append(_text(x + 4, y + (21 if not small else 11), f"{printed}+{counters}", size=8, fill=ink))
        bx, by = x + w - 6, y + 6
        parts.append(f'<circle cx="{bx}" cy="{by}" r="10" fill="#ffffff" stroke="#222222" stroke-width="1.5"/>')
        parts.append(_text(bx, by + 4, f"+{counters}", size=10, anchor="middle", weight="bold"))
    return parts


def _barbarian(entry: JSON, x: float, y: float, w: float, h: float, T: Tables, number: bool = False) -> list[str]:
    parts = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{BARBARIAN}" stroke="#222222"/>']
    covers = entry.get("covers")
    parts += _axes(x + w / 2, y + (h / 2 - 10 if covers else h / 2 - 6), 11, "#d7ccc8")
    label = f"Barbarian {entry['card'].rsplit('-', 1)[-1]}" if number else "Barbarian"
    parts.append(_fit_text(x + w / 2, y + (h - 21 if covers else h - 7), label, w - 4, size=9, fill="#ffffff"))
    if covers:
        if covers.get("face_down"):
            colour, text, ink = FACE_DOWN, "face down", "#ffffff"
        else:
            c = T.card_index.get(covers["card"], -1)
            suit = SUITS[T.suit[c]] if c >= 0 else "yellow"
            value = covers.get("value", T.value[c] if c >= 0 else 0)
            colour, ink = FILL[suit], INK[suit]
            text = f"{value} {_ability(T, c)}" if c >= 0 else "a card"
        parts.append(f'<rect x="{x + 2}" y="{y + h - 17}" width="{w - 4}" height="15" rx="3" fill="{colour}"/>')
        parts.append(_fit_text(x + w / 2, y + h - 6, text, w - 8, size=8, fill=ink))
    return parts


def _axes(cx: float, cy: float, r: float, colour: str) -> list[str]:
    """Two crossed axes (homelands, barbarians)."""
    return [
        f'<line x1="{cx - r}" y1="{cy + r}" x2="{cx + r}" y2="{cy - r}" stroke="{colour}" stroke-width="3"/>',
        f'<line x1="{cx - r}" y1="{cy - r}" x2="{cx + r}" y2="{cy + r}" stroke="{colour}" stroke-width="3"/>',
        f'<path d="M{cx + r - 6},{cy - r - 2} l8,0 l0,8 z" fill="{colour}"/>',
        f'<path d="M{cx - r + 6},{cy - r - 2} l-8,0 l0,8 z" fill="{colour}"/>',
    ]


# --- SVG text ------------------------------------------------------------------------------------------------------
def _text(
    x: float,
    y: float,
    text: str,
    size: float = 12,
    anchor: str = "start",
    fill: str = "#222222",
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
        f'font-weight="{weight}">{escape(text.replace(NBSP, " "))}</text>'
    )


def _fit_text(x: float, y: float, text: str, width: float, size: float, fill: str) -> str:
    """Centred text, its font made smaller when it would not fit ``width`` (about 0.6 em per character)."""
    size = min(size, round(width / (0.6 * max(1, len(text))), 1))
    return f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="middle" fill="{fill}">{escape(text)}</text>'


def _ability(T: Tables, c: int) -> str:
    ability = ABILITIES[T.ability[c]]
    return SHORT.get(ability, ability_title(ability))


def _wrap(text: str, width: int) -> list[str]:
    return wrap(text, width)


def _document(width: float, height: float, parts: list[str]) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" {FONT}>'
        "<title>The Barracks Emperors</title>"
        '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="8" stroke="#ffffff" stroke-opacity="0.35" '
        'stroke-width="3"/></pattern></defs>'
        f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#fbf8f1"/>' + "".join(parts) + "</svg>"
    )

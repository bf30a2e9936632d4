"""The board as text (chat-bots, terminals) and as an SVG picture (replays, notifications), and the public
scoreboard. Everything is drawn from what one seat may see (``replay_view``), never from hidden state."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from services.games.shadow.messages.events import Prompt
from services.games.shadow.presentation.names import electorate_name, names_list
from services.games.shadow.presentation.prompts import ask
from services.games.shadow.presentation.redact import replay_view
from services.games.shadow.presentation.view import view
from services.games.shadow.presentation.words import CARD_NAMES, PHASES
from services.games.shadow.rules.state import GameState

SEAT_COLOURS = ("#c0392b", "#27ae60", "#2c6fbb", "#d4ac0d", "#8e44ad", "#e67e22")
"""Fill colours of seats 0.. (red, green, blue, yellow, then spares)."""
EMPIRE_COLOUR = "#7f8c8d"


def _short_names(players: list[str]) -> list[str]:
    """Three-letter tags of the players, made unique with the seat number where two would clash."""
    tags = [(p.strip() or f"S{i}")[:3] for i, p in enumerate(players)]
    return [f"{t}{i}" if tags.count(t) > 1 else t for i, t in enumerate(tags)]


def _piece_text(p: dict[str, Any] | None, tags: list[str]) -> str:
    if p is None:
        return "."
    kind = p["piece"]
    if kind == "empire_city":
        return "Empire"
    owner = tags[p["owner"]] if 0 <= p["owner"] < len(tags) else "?"
    if kind == "knight":
        return f"{owner}:K"
    if kind == "city":
        return f"{owner}:City"
    return f"{owner}:{'C' if kind == 'couple' else 'B'}{p['age']}"


def _status_line(v: dict[str, Any], pending: Prompt | None, seat: int | None) -> str:
    players = v["players"]
    if v["over"]:
        winners = ", ".join(players[w] for w in v["winners"] or ())
        return f"Game over after round {v['round']}. Winner: {winners}."
    phase = "setup" if v["phase"] == 0 else f"phase {PHASES.get(v['phase'], v['phase'])}"
    waiting = names_list(["you" if s == seat else players[s] for s in v["awaiting"]]) or "nobody"
    todo = ""
    if pending is not None:
        todo = " to " + ask(pending, players, seat, v["emperor"], v["rival"])
    return f"Round {v['round']}, {phase}. Emperor: {players[v['emperor']]}. Waiting for {waiting}{todo}."


def render_text(s: GameState | None, seat: int | None, final: GameState | None = None) -> str:
    """The board as lines of plain text, as ``seat`` (None: a spectator) may see it.

    Pieces read ``Red:B25`` (Baron aged 25), ``Red:C35`` (Couple), ``Red:K`` (knight), ``Red:City``,
    ``Empire`` (empire city), ``.`` (free space); spaces are numbered ``#1``.. as the events name them; the
    last lines are a legend of these abbreviations.
    """
    if s is None:
        return "The game has not started yet."
    v = replay_view(s, seat, final)
    tags = _short_names(v["players"])
    board = v["board"]
    lines = [_status_line(v, s.pending, seat), ""]
    lines.append(f"{'Seat':<14}{'Thalers':>8}{'VP':>5}  Supply A/K/C  Cards")
    for i, name in enumerate(v["players"]):
        vp = v["victory_points"][i]
        sup = v["supply"][i]
        marks = ("*" if i == v["emperor"] else "") + (" (you)" if i == seat else "")
        cards = ", ".join(CARD_NAMES.get(c, c) for c in v["play_areas"][i]) or "-"
        lines.append(
            f"{(name + marks)[:14]:<14}{v['thalers'][i]:>8}{'?' if vp is None else vp:>5}  "
            f"{sup['aristocrats']}/{sup['knights']}/{sup['cities']:<9}  {cards}"
        )
    lines.append(f"Throne: {_piece_text(board.get('throne'), tags)}  (* = Emperor)")
    spaces = s.layout.spaces
    for e, info in zip(v["electorates"], s.layout.electorates, strict=True):
        if e["closed"]:
            lines.append(f"{electorate_name(e['key'])}: closed")
            continue
        power = " ".join(f"{tags[i]} {p}" for i, p in enumerate(e["power"]) if p)
        used = ", privilege used" if e["privilege_used"] else ""
        lines.append(
            f"{electorate_name(e['key'])} ({'spiritual' if e['spiritual'] else 'secular'}{used}) "
            f"elector {_piece_text(board.get(spaces[info.elector].id), tags)}"
            f"; power {power or 'none'}"
        )
        row = [
            ("aristocrats", info.aristocrats),
            ("castles", info.castles),
            ("cities", info.cities),
        ]
        parts = [f"{label} {' '.join(_numbered(spaces[i].id, board, tags) for i in idx)}" for label, idx in row if idx]
        eminence = board.get(f"{e['key']}.eminence")
        if eminence is not None:
            parts.append(f"eminence {_piece_text(eminence, tags)}")
        lines.append("  " + " | ".join(parts))
    if v["rival"] is not None:
        lines.append(f"Rival: {v['players'][v['rival']]}")
    if any(x is not None for x in v["votes"]):
        shown = [
            f"{v['players'][i]} {'sealed' if x == 'sealed' else x}" for i, x in enumerate(v["votes"]) if x is not None
        ]
        lines.append("Votes: " + ", ".join(shown))
    lines.extend(_legend(v["players"], tags))
    return "\n".join(lines)


def _numbered(space: str, board: dict[str, Any], tags: list[str]) -> str:
    """A space as ``#2 Red:B25``: its number counts from 1 as the events and the menus count it ("aristocrat
    space 2 of Mainz" is ``#2`` of Mainz's aristocrats)."""
    number = space.rsplit(".", 1)[-1]
    shown = int(number) + 1 if number.isdigit() else number
    return f"#{shown} {_piece_text(board.get(space), tags)}"


def _legend(players: list[str], tags: list[str]) -> list[str]:
    """What the board's abbreviations stand for, and which tag is which player."""
    who = ", ".join(f"{tag} = {name}" for tag, name in zip(tags, players, strict=True) if tag != name)
    return [
        "Legend: Red:B25 Red's Baron aged 25, Red:C35 Red's Couple aged 35, Red:K a knight, Red:City a city,",
        "  Empire an empire city, . a free space; #2 space 2 of that kind in the electorate (the events and menus",
        "  count from 1 the same way); power Red 3: Red's power in the electorate; * the Emperor; Supply A/K/C:",
        "  aristocrats, knights and cities left in supply; VP victory points (? hidden)."
        + (f" Tags: {who}." if who else ""),
    ]


# --- SVG ------------------------------------------------------------------------------------------------
_W, _PANEL_W, _PANEL_H = 960, 225, 190


def _svg_piece(p: dict[str, Any] | None, x: float, y: float, kind: str) -> str:
    """One space at (x, y): its outline, and the piece on it if any."""
    r = 13
    if kind == "city":
        outline = f'<rect x="{x - r}" y="{y - r}" width="{2 * r}" height="{2 * r}" class="space"/>'
    elif kind == "castle":
        outline = f'<polygon points="{x},{y - r} {x + r},{y} {x},{y + r} {x - r},{y}" class="space"/>'
    else:
        outline = f'<circle cx="{x}" cy="{y}" r="{r}" class="space"/>'
    if p is None:
        return outline
    piece = p["piece"]
    colour = EMPIRE_COLOUR if piece == "empire_city" else SEAT_COLOURS[p["owner"] % len(SEAT_COLOURS)]
    if piece in ("empire_city", "city"):
        mark = "E" if piece == "empire_city" else ""
        return (
            outline + f'<rect x="{x - 9}" y="{y - 9}" width="18" height="18" fill="{colour}" class="piece"/>'
            f'<text x="{x}" y="{y + 4}" class="age">{mark}</text>'
        )
    if piece == "knight":
        points = f"{x},{y - 10} {x + 9},{y + 8} {x - 9},{y + 8}"
        return outline + f'<polygon points="{points}" fill="{colour}" class="piece"/>'
    ring = ""
    if piece == "couple":
        ring = f'<circle cx="{x}" cy="{y}" r="11" fill="none" stroke="{colour}" stroke-width="2"/>'
    return (
        outline + f'<circle cx="{x}" cy="{y}" r="{8 if piece == "couple" else 10}" fill="{colour}" class="piece"/>'
        f'{ring}<text x="{x}" y="{y + 4}" class="age">{p["age"]}</text>'
    )


def render_svg(s: GameState | None, seat: int | None, final: GameState | None = None) -> str:
    """The board as a standalone SVG document, as ``seat`` (None: a spectator) may see it."""
    if s is None:
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40" font-family="sans-serif">'
            '<text x="10" y="25">The game has not started yet.</text></svg>'
        )
    v = replay_view(s, seat, final)
    board = v["board"]
    spaces = s.layout.spaces
    rows = (len(s.layout.electorates) + 3) // 4
    height = 150 + rows * (_PANEL_H + 10) + 30 * len(v["players"]) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" viewBox="0 0 {_W} {height}" '
        'font-family="sans-serif" font-size="12">',
        "<style>.space{fill:#f4ecd8;stroke:#6b5b3e;stroke-width:1}.piece{stroke:#222;stroke-width:1}"
        ".age{font-size:9px;text-anchor:middle;fill:#fff;font-weight:bold}.title{font-size:14px;font-weight:bold}"
        ".closed{fill:#ccc}.panel{fill:#fbf7ee;stroke:#6b5b3e}</style>",
        f'<rect width="{_W}" height="{height}" fill="#fffdf7"/>',
        f'<text x="12" y="24" class="title">{escape(_status_line(v, s.pending, seat))}</text>',
        '<text x="12" y="60">Throne</text>',
        _svg_piece(board.get("throne"), 70, 56, "throne"),
    ]
    for i, (e, info) in enumerate(zip(v["electorates"], s.layout.electorates, strict=True)):
        px, py = 10 + (i % 4) * (_PANEL_W + 10), 90 + (i // 4) * (_PANEL_H + 10)
        cls = "panel closed" if e["closed"] else "panel"
        out.append(f'<g id="{escape(e["key"])}"><rect x="{px}" y="{py}" width="{_PANEL_W}" height="{_PANEL_H}" '
                   f'rx="8" class="{cls}"/>')  # fmt: skip
        star = " \u2605" if e["privilege_used"] else ""
        out.append(f'<text x="{px + 8}" y="{py + 18}" class="title">{escape(electorate_name(e["key"]))}{star}</text>')
        if e["closed"]:
            out.append(f'<text x="{px + 8}" y="{py + 40}">closed</text></g>')
            continue
        out.append(f'<text x="{px + 8}" y="{py + 46}">elector</text>')
        out.append(_svg_piece(board.get(spaces[info.elector].id), px + 70, py + 42, "elector"))
        out.append(f'<text x="{px + 100}" y="{py + 46}">eminence</text>')
        out.append(_svg_piece(board.get(spaces[info.eminence].id), px + 188, py + 42, "eminence"))
        for j, idx in enumerate(info.aristocrats):
            out.append(_svg_piece(board.get(spaces[idx].id), px + 24 + j * 32, py + 82, "aristocrat"))
        for j, idx in enumerate(info.castles):
            out.append(_svg_piece(board.get(spaces[idx].id), px + 24 + j * 32, py + 118, "castle"))
        for j, idx in enumerate(info.cities):
            out.append(_svg_piece(board.get(spaces[idx].id), px + 120 + j * 32, py + 118, "city"))
        power = ", ".join(f"{v['players'][k][:6]} {p}" for k, p in enumerate(e["power"]) if p)
        out.append(f'<text x="{px + 8}" y="{py + 160}" font-size="10">power: {escape(power or "none")}</text></g>')
    y = 100 + rows * (_PANEL_H + 10)
    for k, name in enumerate(v["players"]):
        vp = v["victory_points"][k]
        colour = SEAT_COLOURS[k % len(SEAT_COLOURS)]
        emperor = " (Emperor)" if k == v["emperor"] else ""
        cards = ", ".join(CARD_NAMES.get(c, c) for c in v["play_areas"][k])
        out.append(f'<rect x="12" y="{y + 30 * k}" width="16" height="16" fill="{colour}" class="piece"/>')
        out.append(
            f'<text x="36" y="{y + 30 * k + 13}">{escape(name)}{emperor}: {v["thalers"][k]} thalers, '
            f"{'?' if vp is None else vp} VP{escape('; ' + cards) if cards else ''}</text>"
        )
    out.append("</svg>")
    return "".join(out)


# --- scoreboard -----------------------------------------------------------------------------------------
def scoreboard(s: GameState | None) -> dict[str, Any]:
    """The public standing (a spectator's view): per seat VP (None while hidden), thalers, electorates held;
    the Emperor, round and phase."""
    if s is None:
        return {"seats": [], "round": None, "phase": None, "phase_name": None, "emperor": None, "winners": None}
    v = view(s, None)
    held: list[list[str]] = [[] for _ in s.players]
    for e in v["electorates"]:
        if e["elector_owner"] is not None:
            held[e["elector_owner"]].append(e["key"])
    return {
        "round": v["round"],
        "phase": v["phase"],
        "phase_name": v["phase_name"],
        "emperor": v["emperor"],
        "rival": v["rival"],
        "winners": v["winners"],
        "seats": [
            {
                "seat": i,
                "name": name,
                "score": v["victory_points"][i],
                "victory_points": v["victory_points"][i],
                "thalers": v["thalers"][i],
                "electors": held[i],
            }
            for i, name in enumerate(s.players)
        ],
    }

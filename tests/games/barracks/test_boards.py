"""The text and SVG boards [K5, K8, K14]: what they show of an arranged position (in the right cells), that the
SVG is well-formed, and that over random games no board shown to one seat (or a spectator) carries another seat's
secret, in any of the forms a card takes on a board (its id, its words, its code)."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from services.games.barracks import plugin
from services.games.barracks.presentation.names import card_code, card_words
from tests.games.barracks.support import E22, N22, NAMES, ROMA, S22, W22, table

PLUGIN = plugin()
RULES, PRESENTER = PLUGIN.game_rules, PLUGIN.game_presenter
SVG = "{http://www.w3.org/2000/svg}"


def arranged() -> object:
    """Roma (D3) holds a red Emperor; around it a countered Flanking Maneuver (C3), a barbarian covering Tribute
    (D4), a face-down Mob (E3) and Quaestor (D2); a Pretender on B1; a barbarian on the homeland A1; Dee's
    Demagogue in force; Ann holds Spiculum and a barbarian card, Bob Cavalry and Triumph."""
    return table(
        emperors={ROMA: "red-emperor-01", "0,0": "pretender-1", "4,4": "blue-emperor-02"},
        board={
            N22: "red-5-flanking-maneuver",
            E22: ("barbarian-05", "blue-3-tribute"),
            S22: "yellow-5-mob",
            W22: "yellow-3-quaestor",
            "-1,0": "barbarian-06",
        },
        counters={"red-5-flanking-maneuver": 1},
        face_down=["yellow-5-mob"],
        hands={0: ["red-7-spiculum", "barbarian-17"], 1: ["red-3-cavalry", "blue-7-triumph"]},
        forum=["blue-4-tribute", "yellow-2-popularity", "red-1-reinforcements", "blue-5-foederati"],
        demagogue=3,
    )


def grid(text: str) -> dict[str, str]:
    """The text board's grid as cell name -> what the cell shows (columns found from the header's digits)."""
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s+0\s+1\s+2\s+3\s+4\s+5\s+6", line))
    centres = [lines[header].index(str(d)) for d in range(7)]
    width = centres[1] - centres[0]
    cells = {}
    for r in range(7):
        line = lines[header + 1 + r]
        assert line.startswith(chr(ord("A") + r))
        for c, centre in enumerate(centres):
            cells[f"{chr(ord('A') + r)}{c}"] = line[centre - width // 2 : centre + width // 2 + 1].strip()
    return cells


def test_given_an_arranged_position_when_drawn_as_text_then_every_piece_is_in_its_named_cell() -> None:
    """[K5, K8, K18, K19, K33, K36, K37] The grid names rows A-G and columns 0-6; Roma in braces, the Pretender,
    counters with the effective value, the covered card, the face-down card, the homeland barbarian."""
    state = arranged()
    text = PRESENTER.render_text(state, 0)
    cells = grid(text)
    assert cells["D3"] == "{R}" and cells["B1"] == "[Yp]" and cells["F5"] == "[B]" and cells["B3"] == "[ ]"
    assert cells["C3"] == "R5Fl+1=6" and cells["D4"] == "X/B3Tr" and cells["E3"] == "##" and cells["D2"] == "Y3Qu"
    assert cells["A1"] == "^X" and cells["G5"] == "^." and cells["C1"] == "." and cells["A0"] == ""
    assert "Demagogue in force: Dee (West)'s yellow 7 Demagogue" in text
    assert "Your hand (2): R7Sp red 7 Spiculum, X barbarian 17" in text
    assert "Bob (East): 2 cards" in text and "red 3 Cavalry" not in text and "blue 7 Triumph" not in text
    assert "Fl Flanking Maneuver" in text and "Qu Quaestor" in text  # the legend explains the codes shown
    assert "Turn of Ann (North). Awaited: Ann (North), to play" in text
    spectator = PRESENTER.render_text(state, None)
    assert "Your hand" not in spectator and "red 7 Spiculum" not in spectator and "spectator's view" in spectator


def test_given_an_arranged_position_when_drawn_as_svg_then_it_is_well_formed_and_shows_the_pieces() -> None:
    """[K14] A standalone SVG document: cards with values and counter badges, the Pretender, Roma, the barbarian
    and what it covers, homelands; the seat's own hand only."""
    state = arranged()
    svg = PRESENTER.render_svg(state, 0)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and float(root.get("width", 0)) > 800
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert {"6", "+1", "Pretender", "D3 ROMA", "homeland", "Barbarian", "3 Tribute", "Quaestor", "Spiculum"} <= set(
        texts
    )
    assert "Barbarian 17" in texts  # the own barbarian card, numbered as in the labels
    assert any(t.startswith("Your hand (2)") for t in texts)
    other = [t.text or "" for t in ET.fromstring(PRESENTER.render_svg(state, 1)).iter(f"{SVG}text")]
    assert "Barbarian 17" not in other and other.count("Spiculum") == texts.count("Spiculum") - 1
    assert other.count("Cavalry") == texts.count("Cavalry") + 1 and other.count("Triumph") == texts.count("Triumph") + 1


def forms(ids: set[str], T: object) -> set[re.Pattern[str]]:
    """Every form a card takes on a board, as whole words (lower case): id, words, code (a barbarian's code is
    just "X": its words suffice). "yellow 5 Mob" is not found in "yellow 5 Mobile Vulgus"."""
    out = set()
    for cid in ids:
        texts = {cid, card_words(cid, T)}  # type: ignore[arg-type]
        code = card_code(cid, T)  # type: ignore[arg-type]
        if code != "X":
            texts.add(code)
        out |= {re.compile(rf"(?<![a-z0-9-]){re.escape(t.lower())}(?![a-z0-9-])") for t in texts}
    return out


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_given_random_games_when_each_seat_sees_the_boards_then_no_other_seats_secret_shows(players: int) -> None:
    """[K14] Text and SVG, every seat and a spectator, at many positions: another seat's secret cards never show;
    the seat's own do (the check can fail); every SVG parses."""
    rng = random.Random(900 + players)
    state = RULES.fold(RULES.start(NAMES[:players], {}, 900 + players))
    readers = [*range(players), None]
    step = shown_own = 0
    while True:
        over = RULES.is_over(state)
        if step % 6 == 0 or over:
            secrets = {s: forms(PRESENTER.secret_cards(state, s), state.T) for s in range(players)}
            for reader in readers:
                text, svg = PRESENTER.render_text(state, reader), PRESENTER.render_svg(state, reader)
                ET.fromstring(svg)
                seen = (text + svg).lower()
                for owner, secret in secrets.items():
                    if owner == reader:
                        shown_own += any(s.search(text.lower()) for s in secret)
                        continue
                    assert not [s.pattern for s in secret if s.search(seen)], (step, reader, owner)
        if over:
            break
        (seat,) = RULES.awaited(state)
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
        step += 1
    assert shown_own > 0


def test_given_a_finished_game_when_a_past_position_is_replayed_then_its_boards_show_every_hand() -> None:
    """[K14] Once the game is over a replay shows what was secret: the other hands' cards."""
    rng = random.Random(5)
    state = RULES.fold(RULES.start(NAMES, {}, 5))
    early = state
    while not RULES.is_over(state):
        (seat,) = RULES.awaited(state)
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
    hidden = PRESENTER.secret_cards(early, 2)
    live = PRESENTER.render_text(early, 0, early).lower()
    replay = PRESENTER.render_text(early, 0, state).lower()
    words = {card_words(c, early.T).lower() for c in hidden}
    assert not {w for w in words if w in live} and words <= {w for w in words if w in replay}
    ET.fromstring(PRESENTER.render_svg(early, 0, state))


def test_given_no_game_when_drawn_then_both_boards_say_so() -> None:
    assert "not started" in PRESENTER.render_text(None, 0)
    assert ET.fromstring(PRESENTER.render_svg(None, None)).tag == f"{SVG}svg"

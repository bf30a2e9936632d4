"""A game as it stood after one of its events: the replay step, and the board as text or SVG (with its clocks)."""

import re
from html import escape
from typing import Any

from projections.base import shown_text
from projections.history import Game
from projections.read_base import ReadBase


class BoardQueries(ReadBase):
    """The replay and the board pictures (see projections/api.py for the shapes)."""

    def replay(self, game_id: str, version: int, seat: int | None = None) -> dict[str, Any]:
        """The board after event ``version`` (0: before the first) and that event, as ``seat`` may see them."""
        game = self.history.game(game_id)
        game.check_version(version)
        game.check_seat(seat)
        state, events = self.history.state_at(game, version)
        final = self.history.final(game)
        rules, presenter = game.rules, game.presenter
        shown: dict[str, Any] | None = None
        text = "Before the first event."
        if version >= 1:
            event = events[-1]
            parsed = rules.parse_event(event.data)
            # The reader's moment: a finished game has no secrets left; a running one keeps them as of then.
            shown = presenter.redact(parsed, seat, final if final is not None else state)
            text = shown_text(presenter, parsed, shown, game.players) if shown is not None else "(not visible)"
        return {
            "game_id": game_id,
            "version": version,
            "last_version": game.version,
            "previous": version - 1 if version > 0 else None,
            "next": version + 1 if version < game.version else None,
            "seat": seat,
            "event": shown,
            "event_text": text,
            "view": presenter.replay_view(state, seat, final),
            "board_text": presenter.render_text(state, seat, final),
            "fairness": self._fairness_at(game, final if final is not None else state),
        }

    def _fairness_at(self, game: Game, state: Any) -> dict[str, Any] | None:
        """The public fairness of a game (practice table or not, the commitment) as of ``state``; before the
        commitment is recorded (the first events of the opening), as of the game's last event."""
        shown = game.rules.fairness(state)
        if shown is None and game.version > 0:
            shown = game.rules.fairness(self.history.state_at(game, game.version)[0])
        return shown

    def board_text(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as text (chat-bots, terminal) after ``version`` (None: the latest)."""
        game, state, final = self._board(game_id, version, seat)
        board = str(game.presenter.render_text(state, seat, final))
        # The clocks as of the position's last recorded stamp: a replay shows them the same on any day.
        clocks = game.plugin.rules.clock_text(state, game.meta.players)
        return board if clocks is None else f"{board}\n{clocks}"

    def board_svg(self, game_id: str, version: int | None = None, seat: int | None = None) -> str:
        """The board as an SVG document after ``version`` (None: the latest)."""
        game, state, final = self._board(game_id, version, seat)
        board = str(game.presenter.render_svg(state, seat, final))
        clocks = game.plugin.rules.clock_text(state, game.meta.players)
        return board if clocks is None else svg_with_line(board, clocks)

    def _board(self, game_id: str, version: int | None, seat: int | None) -> tuple[Game, Any, Any]:
        game = self.history.game(game_id)
        v = game.version if version is None else version
        game.check_version(v)
        game.check_seat(seat)
        state, _ = self.history.state_at(game, v)
        return game, state, self.history.final(game)


_SVG_SIZE = re.compile(r'(<svg\b[^>]*?\bheight=")(\d+)("[^>]*?\bviewBox="0 0 \d+ )(\d+)(")')


def svg_with_line(svg: str, line: str) -> str:
    """``svg`` made one line taller, with ``line`` written at its bottom (a board's clocks); unchanged when its root
    element does not give its height and viewBox as plain numbers."""
    found = _SVG_SIZE.search(svg)
    end = svg.rfind("</svg>")
    if found is None or end < 0 or found.group(2) != found.group(4):
        return svg
    height = int(found.group(2))
    taller = f"{found.group(1)}{height + 24}{found.group(3)}{height + 24}{found.group(5)}"
    text = f'<text x="10" y="{height + 16}" font-size="13" font-family="monospace">{escape(line)}</text>'
    return svg[: found.start()] + taller + svg[found.end() : end] + text + svg[end:]

"""A game as it stood after one of its events: the replay step, and the board as text or SVG (with its clocks)."""

import re
from html import escape
from typing import Any

from projections.base import shown_text
from projections.history import BadPage, BadVersion, Game
from projections.read_base import ReadBase
from services.rules.contract import Event


class BoardQueries(ReadBase):
    """The replay and the board pictures (see projections/api.py for the shapes)."""

    def replay(self, game_id: str, version: int, seat: int | None = None) -> dict[str, Any]:
        """The board after event ``version`` (0: before the first) and that event, as ``seat`` may see them."""
        game = self.history.game(game_id)
        game.check_version(version)
        game.check_seat(seat)
        state, events = self.history.state_at(game, version)
        final = self.history.final(game)
        event = game.rules.parse_event(events[-1].data) if version >= 1 else None
        return {
            "game_id": game_id,
            "version": version,
            "last_version": game.version,
            "previous": version - 1 if version > 0 else None,
            "next": version + 1 if version < game.version else None,
            "seat": seat,
            **self._step(game, version, event, state, seat, final, view=True, board=True),
            "fairness": self._fairness_at(game, final if final is not None else state, final),
        }

    def replay_all(
        self, game_id: str, seat: int | None = None, *, after: int = 0, limit: int | None = None,
        views: bool = False, boards: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """Every step of the replay as ``seat`` may see it, versions ``after < v <= after + limit`` (``limit``
        None: to the last): the game's metadata and its events read once and folded forward once (from the
        nearest snapshot at or below ``after``). Each step is :meth:`replay`'s at its version (its event, as
        redacted for ``seat``, and its text; with ``views`` its view, with ``boards`` its board as text);
        ``board_text`` is the board after the last step (see projections/api.py for the shape)."""
        game = self.history.game(game_id)
        game.check_seat(seat)
        if not isinstance(after, int) or not 0 <= after <= game.version:
            raise BadVersion(f"game {game_id} has versions 0..{game.version}, not {after}")
        if limit is not None and not (isinstance(limit, int) and limit >= 1):
            raise BadPage(f"limit must be at least 1, not {limit}")
        last = game.version if limit is None else min(game.version, after + limit)
        span = self.history.fold_span(game, after, last)
        final = None
        if game.finished:
            # A fold that reached the end holds the last state: every step's secrets are told as of it.
            final = span.last_state if last == game.version else self.history.final(game)
            self.history.keep_final(game, final)
        # The game's last state, when in hand (an ended game's, or the fold reached the end).
        latest = final if final is not None else span.last_state if last == game.version else None
        steps = [
            self._step(game, stored.version, event, state, seat, final, view=views, board=boards)
            for stored, event, state in span.steps
        ]
        return {
            "game_id": game_id,
            "seat": seat,
            "last_version": game.version,
            "over": game.finished,
            "after": after,
            "next": last if last < game.version else None,
            "fairness": self._fairness_at(game, final if final is not None else span.last_state, latest),
            "board_text": game.presenter.render_text(span.last_state, seat, final),
            "steps": steps,
        }

    @staticmethod
    def _step(
        game: Game, version: int, event: Event | None, state: Any, seat: int | None, final: Any, *, view: bool,
        board: bool,
    ) -> dict[str, Any]:  # fmt: skip
        """One step of a replay: event ``version`` (None at 0) as ``seat`` may see it, its text, and the view and
        the board text after it when asked (``final``: the ended game's last state, else None)."""
        presenter = game.presenter
        shown: dict[str, Any] | None = None
        text = "Before the first event."
        if event is not None:
            # The reader's moment: a finished game has no secrets left; a running one keeps them as of then.
            shown = presenter.redact(event, seat, final if final is not None else state)
            text = shown_text(presenter, event, shown, game.players) if shown is not None else "(not visible)"
        step: dict[str, Any] = {"version": version, "event": shown, "event_text": text}
        if view:
            step["view"] = presenter.replay_view(state, seat, final)
        if board:
            step["board_text"] = presenter.render_text(state, seat, final)
        return step

    def _fairness_at(self, game: Game, state: Any, latest: Any = None) -> dict[str, Any] | None:
        """The public fairness of a game (practice table or not, the commitment) as of ``state``; before the
        commitment is recorded (the first events of the opening), as of the game's last event (``latest``, its
        state when the caller holds it, else read)."""
        shown = game.rules.fairness(state)
        if shown is None and game.version > 0:
            if latest is None:
                latest = self.history.state_at(game, game.version)[0]
            shown = game.rules.fairness(latest)
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

"""The transport-agnostic part of the example chat-bot: chat text in, gateway calls; feed messages in, chat text
out. One :class:`ChatAdapter` serves one seat of one game; a transport (a console, a chat platform) hands it
each line a person types (:meth:`ChatAdapter.hear`) and each message of the seat's feed
(:meth:`ChatAdapter.notify`), and sends whatever strings they return, each at most ``max_chars`` long.

What the person sees:

* what the others do, as it happens (the feed's narration of each event, the quiet ones left out);
* on their turn, the board and the menu (the gateway's chat reply to ``menu``): groups of moves with keys,
  numbered moves, pages ("more");
* the answer to what they type: their move and its events, a group opened, a page, or why the line picks no
  move (with the candidates when several moves match);
* the end of the game.

Nothing is narrated twice: the adapter remembers the last version it told the person of, ignores feed events up
to it, and asks the chat for the narration after it (``since``).
"""

from __future__ import annotations

import threading
from typing import Any

from services.chatbot.client import Answer, GatewayClient

QUIT_WORDS = frozenset({"quit", "exit", "/quit", "/exit"})


class ChatAdapter:
    """One seat of one game, played from a chat (see the module docstring)."""

    def __init__(
        self, client: GatewayClient, game_id: str, seat: int, players: list[str], max_chars: int = 2000
    ) -> None:
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.players = players
        self.max_chars = max_chars
        self.shown: int | None = None
        """The last version the person was told of (None: nothing yet; the gateway's chat remembers)."""
        self.menu_at = -1
        """The version of the last menu shown (a turn message at or before it shows nothing new)."""
        self.finished = False
        self._lock = threading.Lock()  # a line typed and a feed message must not interleave

    # --- the person ---------------------------------------------------------------------------------------
    def hear(self, text: str) -> list[str]:
        """What to send back for one line the person typed."""
        with self._lock:
            return self._chat(text)

    def _chat(self, text: str) -> list[str]:
        answer = self.client.chat(self.game_id, text, since=self.shown, max_chars=self.max_chars)
        if answer.ok:
            return self._told(answer)
        error = answer.error
        code = error.get("code", "error")
        message = str(error.get("message", "the gateway refused the line"))
        if code == "menu_changed":  # the moves changed: show the new menu at once
            again = self.client.chat(self.game_id, "menu", since=self.shown, max_chars=self.max_chars)
            return [self._cut(f"{message}."), *(self._told(again) if again.ok else [])]
        if code == "ambiguous_choice":
            return self._lines([f"{message}:", *error.get("candidates", [])])
        if code == "no_match":
            return [self._cut(f'{message}. Send "menu" to see the moves, "help" for how to answer.')]
        return [self._cut(f"{code}: {message}")]

    def _told(self, answer: Answer) -> list[str]:
        reply = answer.body
        self.shown = max(self.shown or 0, int(reply["version"]))
        self.menu_at = max(self.menu_at, int(reply["version"]))
        if reply.get("over"):
            self.finished = True
        return [str(m) for m in reply["messages"]]

    # --- the feed -----------------------------------------------------------------------------------------
    def notify(self, message: dict[str, Any]) -> list[str]:
        """What to send the person for one message of the seat's feed."""
        with self._lock:
            kind = message.get("kind")
            if kind == "event":
                version = int(message["version"])
                if self.shown is not None and version <= self.shown:
                    return []
                self.shown = version
                text = message.get("text")
                return [self._cut(text)] if text and not message.get("quiet") else []
            if kind == "turn":
                return [] if int(message["version"]) <= self.menu_at else self._chat("menu")
            if kind == "over":
                self.finished = True
                return [self._cut(self._result(message.get("result") or {}))]
            if "error" in message:
                error = message["error"]
                return [self._cut(f"The game's feed stopped: {error.get('message', error.get('code'))}")]
            return []

    def _result(self, result: dict[str, Any]) -> str:
        names = result.get("players") or self.players
        winners = [names[w] for w in result.get("winners", []) if 0 <= w < len(names)]
        scores = result.get("scores") or []
        table = ", ".join(f"{n} {s}" for n, s in zip(names, scores, strict=False))
        return f"The game is over. Winner{'s' if len(winners) > 1 else ''}: {', '.join(winners) or 'none'}." + (
            f" Scores: {table}." if table else ""
        )

    # --- message sizes ----------------------------------------------------------------------------------
    def _cut(self, text: str) -> str:
        return text if len(text) <= self.max_chars else text[: self.max_chars - 1] + "…"

    def _lines(self, lines: list[str]) -> list[str]:
        """Lines packed into messages of at most ``max_chars``."""
        out: list[str] = []
        current = ""
        for line in (self._cut(str(line)) for line in lines):
            if current and len(current) + 1 + len(line) > self.max_chars:
                out.append(current)
                current = line
            else:
                current = f"{current}\n{line}" if current else line
        if current:
            out.append(current)
        return out

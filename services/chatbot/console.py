"""Transports of the example chat-bot, and the loop that runs one: the console (stdin and stdout) works out of
the box; a chat platform's transport does the same two things (send a string; hand over each typed line)."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Iterable
from typing import Any, Protocol, TextIO

from services.chatbot.adapter import QUIT_WORDS, ChatAdapter


class Transport(Protocol):
    """Where the person is: messages go out with :meth:`send`, typed lines come in from :meth:`receive`."""

    def send(self, text: str) -> None:
        """Show one message to the person."""
        ...

    def receive(self, timeout: float) -> str | None:
        """The next line the person typed, or None if none came within ``timeout`` seconds; raises EOFError
        once the person is gone."""
        ...


class ConsoleTransport:
    """The terminal: each message printed (followed by a blank line), each line of standard input a message."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._print = threading.Lock()
        threading.Thread(target=self._read, daemon=True, name="console-input").start()

    def _read(self) -> None:
        for line in self.stdin:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)  # end of input

    def send(self, text: str) -> None:
        """Print one message."""
        with self._print:
            self.stdout.write(text + "\n\n")
            self.stdout.flush()

    def receive(self, timeout: float) -> str | None:
        """The next typed line (EOFError at the end of input)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            raise EOFError
        return line


def run(adapter: ChatAdapter, transport: Transport, feed: Iterable[dict[str, Any]], stop: threading.Event) -> None:
    """Play until the game ends, the person quits or leaves: the feed's messages are told as they come (in a
    thread), each typed line is answered."""

    def follow() -> None:
        try:
            for message in feed:
                for text in adapter.notify(message):
                    transport.send(text)
                if stop.is_set():
                    return
        finally:
            stop.set()  # the feed ended: the game is over (or lost)

    listener = threading.Thread(target=follow, daemon=True, name="chatbot-feed")
    listener.start()
    try:
        while not stop.is_set():
            try:
                line = transport.receive(0.2)
            except EOFError:
                break
            if line is None:
                continue
            if line.strip().lower() in QUIT_WORDS:
                transport.send("Bye. Resume later with the same game, seat and token.")
                break
            for text in adapter.hear(line):
                transport.send(text)
    finally:
        stop.set()
        listener.join(5)

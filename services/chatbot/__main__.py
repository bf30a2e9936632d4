"""``python -m services.chatbot``: play one seat of a game from the terminal, through a running gateway.

Join a game you have a seat token of::

    python -m services.chatbot --url http://127.0.0.1:8000 --game GAME_ID --seat 0 --token=TOKEN

or open a new game against bots (you take seat 0; the gateway's bots process plays the others)::

    python -m services.chatbot --url http://127.0.0.1:8000 --new shadow --name Ann --players 3 --bot heuristic

Type a move's number or a few words of it, a group's key to open it, ``more``, ``back``, ``menu``, ``help``;
``quit`` leaves (the game goes on: resume with the same game, seat and token).
"""

from __future__ import annotations

import argparse
import sys
import threading

from services.chatbot.adapter import ChatAdapter
from services.chatbot.client import GatewayClient
from services.chatbot.console import ConsoleTransport, Transport, run

BOT_NAMES = ("Anselm", "Berta", "Conrad", "Dietlind", "Eckhard")


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m services.chatbot", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway (default %(default)s)")
    p.add_argument("--game", help="the id of a game to join (with --seat and --token)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default %(default)s)")
    p.add_argument("--token", help="your seat's token")
    p.add_argument("--new", metavar="GAME", help="open a new game of this kind (e.g. shadow) against bots")
    p.add_argument("--name", default="You", help="your player name in a new game (default %(default)s)")
    p.add_argument("--players", type=int, default=4, help="players in a new game, you included (default 4)")
    p.add_argument("--bot", default="random", help="the bots' kind in a new game (default %(default)s)")
    p.add_argument("--seed", type=int, help="a new game's seed (default: drawn at random)")
    p.add_argument("--max-chars", type=int, default=2000, help="the longest message to show (default 2000)")
    return p


def main(argv: list[str] | None = None, transport: Transport | None = None) -> int:
    """Run the chat-bot; returns the exit code (0: the game ended or the person left; 2: bad arguments)."""
    args = parser().parse_args(argv)
    out = transport or ConsoleTransport()
    if args.new:
        opener = GatewayClient(args.url)
        try:
            names = [args.name, *(n for n in BOT_NAMES if n.lower() != args.name.lower())][: args.players]
            made = opener.create_game(args.new, names, {seat: args.bot for seat in range(1, len(names))}, args.seed)
        finally:
            opener.close()
        if not made.ok:
            out.send(f"Could not open the game: {made.error.get('message', made.status)}")
            return 2
        game_id, seat, token = made.body["game_id"], 0, made.body["seats"][0]["token"]
        # --token=...: a token may start with "-", which would read as an option
        out.send(f"Game {game_id} opened; you are seat 0. To come back later:\n"
                 f"python -m services.chatbot --url {args.url} --game {game_id} --seat 0 --token={token}")  # fmt: skip
    elif args.game and args.token:
        game_id, seat, token = args.game, args.seat, args.token
    else:
        out.send("Name a game to join (--game, --seat, --token) or open one (--new shadow).")
        return 2
    client = GatewayClient(args.url, token)
    try:
        summary = client.summary(game_id)
        if not summary.ok:
            out.send(f"Could not find the game: {summary.error.get('message', summary.status)}")
            return 2
        adapter = ChatAdapter(client, game_id, seat, list(summary.body["players"]), args.max_chars)
        for text in adapter.hear("board"):  # what happened lately, the board, and the menu if it is our turn
            out.send(text)
        stop = threading.Event()
        run(adapter, out, client.feed(game_id, seat, after=adapter.shown or 0, stop=stop), stop)
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

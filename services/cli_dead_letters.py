"""``throne dead-letters``: the commands that could not be processed, listed, put back or discarded."""

from __future__ import annotations

import argparse
from typing import TextIO

import orjson


def cmd_dead_letters(args: argparse.Namespace, out: TextIO) -> int:
    """List the dead letters, put one back on its command stream, or discard one (needs REDIS_URL)."""
    from services.bus.connection import connect
    from services.bus.keys import Layout, parse_shards
    from services.store import deadletters

    client, layout = connect(), Layout.from_env()
    if args.action == "retry":
        result = deadletters.retry_dead_letter(client, layout, args.shard, args.id)
        print(f"{result.status}: {result.message}" + (f" (entry {result.entry})" if result.entry else ""), file=out)
        return 0 if result.status == "requeued" else 1
    if args.action == "discard":
        found = deadletters.discard_dead_letter(client, layout, args.shard, args.id)
        print("discarded" if found else f"gone: no dead letter {args.id} on shard {args.shard}", file=out)
        return 0 if found else 1
    shards = parse_shards(args.shards, layout.shards) if args.shards else None
    letters = deadletters.list_dead_letters(client, layout, shards, count=args.count)
    if args.json:
        for letter in letters:
            print(orjson.dumps(letter.to_dict()).decode(), file=out)
        return 0
    for letter in letters:
        why_not = letter.retryable
        retry = "retryable" if why_not is None else f"not retryable: {why_not}"
        print(
            f"shard {letter.shard} {letter.id}  game {letter.game_id or '-'} command {letter.command_id or '-'}  "
            f"{letter.attempts} attempt(s)  {letter.reason}  [{retry}]",
            file=out,
        )
    if not letters:
        print("no dead letters", file=out)
    return 0

"""``python -m services.bots``: the bots process, playing the bot seats of the games on a range of shards.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.bots --shards all
    python -m services.bots --redis-url redis+cluster://10.0.0.5:7000 --shards 0-7

Like the rules worker it needs a Redis other processes can reach (REDIS_URL or --redis-url); in the embedded
default the bots run inside the client's process instead (``throne play``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from services.bots.runner import BotConfig, BotRunner
from services.bus.connection import connect
from services.bus.keys import Layout, parse_shards
from services.log import configure
from services.process import stop_on_signals


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the bots until SIGTERM/SIGINT."""
    defaults = BotConfig()
    p = argparse.ArgumentParser(prog="python -m services.bots", description=__doc__.splitlines()[0])
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="default: env REDIS_URL")
    p.add_argument("--shards", default="all", help='e.g. "all", "0-7", "3,5,9-11" (default: all)')
    p.add_argument("--shard-count", type=int, default=None, help="total shards (default: env THRONE_SHARDS)")
    p.add_argument("--prefix", default=None, help="key prefix (default: env THRONE_PREFIX or 'throne')")
    p.add_argument("--consumer", default=None, help="consumer name in the feeds' 'bots' group")
    p.add_argument("--plugin", action="append", default=[], help="module to import (registers games, bot kinds)")
    p.add_argument("--sweep-every-ms", type=int, default=defaults.sweep_every_ms)
    p.add_argument("--cache-size", type=int, default=defaults.cache_size)
    p.add_argument("--log-level", default=None, help="debug|info|warning|error (default: env THRONE_LOG_LEVEL)")
    args = p.parse_args(argv)

    configure(args.log_level)
    if not args.redis_url:
        print("services.bots: set REDIS_URL or --redis-url (the embedded default is in-process only)", file=sys.stderr)
        return 2
    for module in args.plugin:
        importlib.import_module(module)
    env_layout = Layout.from_env()
    layout = Layout(prefix=args.prefix or env_layout.prefix, shards=args.shard_count or env_layout.shards)
    config = BotConfig(sweep_every_ms=args.sweep_every_ms, cache_size=args.cache_size)
    runner = BotRunner(
        connect(args.redis_url),
        parse_shards(args.shards, layout.shards),
        layout=layout,
        config=config,
        consumer=args.consumer,
    )
    stop = stop_on_signals()
    runner.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m services.bots``: the bots process, playing the bot seats of the games on a range of shards.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.bots --shards all
    python -m services.bots --redis-url redis+cluster://10.0.0.5:7000 --shards 0-7

Like the rules worker it needs a Redis other processes can reach (REDIS_URL or --redis-url); in the embedded
default the bots run inside the client's process instead (``throne play``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from services.bots.runner import BotConfig, BotRunner
from services.bus.connection import connect
from services.bus.keys import parse_shards
from services.metrics import endpoint as metrics
from services.metrics import roles
from services.process import add_deployment_arguments, start_deployment_process, stop_on_signals


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the bots until SIGTERM/SIGINT."""
    defaults = BotConfig()
    p = argparse.ArgumentParser(prog="python -m services.bots", description=__doc__.splitlines()[0])
    add_deployment_arguments(p, plugin_help="module to import (registers games, bot kinds)")
    p.add_argument("--consumer", default=None, help="consumer name in the feeds' 'bots' group")
    p.add_argument("--sweep-every-ms", type=int, default=defaults.sweep_every_ms)
    p.add_argument("--cache-size", type=int, default=defaults.cache_size)
    args = p.parse_args(argv)

    layout = start_deployment_process(args, "services.bots")
    if layout is None:
        return 2
    config = BotConfig(sweep_every_ms=args.sweep_every_ms, cache_size=args.cache_size)
    runner = BotRunner(
        connect(args.redis_url),
        parse_shards(args.shards, layout.shards),
        layout=layout,
        config=config,
        consumer=args.consumer,
    )
    stop = stop_on_signals()
    metrics.start(args, "bots", roles.bots(metrics.scrape_client(args.redis_url), layout, runner.shards, runner.stats))
    runner.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
from services.metrics import roles
from services.process import ShardDeployment, run_shard_process


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The bots process's own options (the deployment's come from services/process.py)."""
    defaults = BotConfig()
    p.add_argument("--consumer", default=None, help="consumer name in the feeds' 'bots' group")
    p.add_argument("--sweep-every-ms", type=int, default=defaults.sweep_every_ms)
    p.add_argument("--cache-size", type=int, default=defaults.cache_size)


def serve(d: ShardDeployment) -> int:
    """Play the bot seats of the deployment's shards until stopped."""
    config = BotConfig(sweep_every_ms=d.args.sweep_every_ms, cache_size=d.args.cache_size)
    runner = BotRunner(d.connect(), d.shards, layout=d.layout, config=config, consumer=d.args.consumer)
    return d.serve_until_stopped(
        "bots", lambda scraped: roles.bots(scraped, d.layout, runner.shards, runner.stats), runner.run
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the bots until SIGTERM/SIGINT."""
    return run_shard_process(
        argv, module="services.bots", doc=__doc__ or "", add_arguments=add_arguments, serve=serve,
        plugin_help="module to import (registers games, bot kinds)",
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())

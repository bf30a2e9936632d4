"""``python -m services.timer``: run one timer process over a range of shards.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.timer --shards 0-7

Timer processes scale by shard like the rules workers; two on the same shards are harmless (each claims different
games, and a timeout submitted twice is answered once), so a second one is a hot standby.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from services.bus.connection import connect
from services.bus.keys import parse_shards
from services.metrics import endpoint as metrics
from services.metrics import roles
from services.process import add_deployment_arguments, start_deployment_process, stop_on_signals
from services.timer.timer import ClockTimer, TimerConfig


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, start the timer, serve until SIGTERM/SIGINT."""
    defaults = TimerConfig()
    p = argparse.ArgumentParser(prog="python -m services.timer", description=__doc__.splitlines()[0])
    add_deployment_arguments(p)
    p.add_argument("--timer-id", default=None)
    p.add_argument("--poll-ms", type=int, default=defaults.poll_ms, help="how often due alarms are claimed")
    p.add_argument("--hold-ms", type=int, default=defaults.hold_ms, help="how long a claim hides a game")
    p.add_argument("--batch", type=int, default=defaults.batch, help="games claimed per shard per poll")
    p.add_argument("--grace-ms", type=int, default=defaults.grace_ms, help="claim deadlines this long after")
    args = p.parse_args(argv)

    layout = start_deployment_process(args, "services.timer")
    if layout is None:
        return 2
    config = TimerConfig(poll_ms=args.poll_ms, hold_ms=args.hold_ms, batch=args.batch, grace_ms=args.grace_ms)
    timer = ClockTimer(
        connect(args.redis_url),
        parse_shards(args.shards, layout.shards),
        layout=layout,
        config=config,
        timer_id=args.timer_id,
    )
    stop = stop_on_signals()
    metrics.start(args, "timer", roles.timer(metrics.scrape_client(args.redis_url), layout, timer.shards))
    timer.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())

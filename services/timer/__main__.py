"""``python -m services.timer``: run one timer process over a range of shards.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m services.timer --shards 0-7

Timer processes scale by shard like the rules workers; two on the same shards are harmless (each claims different
games, and a timeout submitted twice is answered once), so a second one is a hot standby.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from services.metrics import roles
from services.process import ShardDeployment, run_shard_process
from services.timer.timer import ClockTimer, TimerConfig


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The timer's own options (the deployment's come from services/process.py)."""
    defaults = TimerConfig()
    p.add_argument("--timer-id", default=None)
    p.add_argument("--poll-ms", type=int, default=defaults.poll_ms, help="how often due alarms are claimed")
    p.add_argument("--hold-ms", type=int, default=defaults.hold_ms, help="how long a claim hides a game")
    p.add_argument("--batch", type=int, default=defaults.batch, help="games claimed per shard per poll")
    p.add_argument("--grace-ms", type=int, default=defaults.grace_ms, help="claim deadlines this long after")


def serve(d: ShardDeployment) -> int:
    """Claim the due alarms of the deployment's shards until stopped."""
    args = d.args
    config = TimerConfig(poll_ms=args.poll_ms, hold_ms=args.hold_ms, batch=args.batch, grace_ms=args.grace_ms)
    timer = ClockTimer(d.connect(), d.shards, layout=d.layout, config=config, timer_id=args.timer_id)
    return d.serve_until_stopped("timer", lambda scraped: roles.timer(scraped, d.layout, timer.shards), timer.run)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, start the timer, serve until SIGTERM/SIGINT."""
    return run_shard_process(argv, module="services.timer", doc=__doc__ or "", add_arguments=add_arguments, serve=serve)


if __name__ == "__main__":
    sys.exit(main())

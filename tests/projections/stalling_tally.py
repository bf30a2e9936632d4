"""A scoreboard projection process that hangs at a chosen point of counting a game, for the kill -9 test.

``python -m tests.projections.stalling_tally URL PREFIX SHARDS WINDOW MARKER`` runs the scoreboard model over
every shard with a :class:`StallingTally`: its second payment counts normally up to ``WINDOW``, then sets the
key ``MARKER`` and hangs (until the test kills it with SIGKILL):

* ``owed``: the games' checkpoints and owed records are written, nothing of them counted yet;
* ``counted``: the leaderboard counted them, the owed records are not deleted yet.

The first payment goes through whole, so the kill lands in a burst: some games counted and forgotten, some not.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

import redis

import tests.service.toy_game  # noqa: F401  (registers toy21)
from projections.models import ScoreboardModel
from projections.runner import ProjectionWorker, RunnerConfig
from projections.store import ProjectionScripts, RMKeys
from projections.tally import LeaderboardTally, Owed
from services.bus.keys import Layout

WINDOWS = ("owed", "counted")


class StallingTally(LeaderboardTally):
    """A tally whose second payment hangs in ``window`` after setting ``marker`` (see the module docstring)."""

    def __init__(self, client: redis.Redis, window: str, marker: str) -> None:
        self.client, self.window, self.marker = client, window, marker
        self.payments = 0

    def pay(self, r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, owed: Sequence[Owed]) -> int:
        """Count and forget, except that the second payment hangs in the window."""
        if not owed:
            return 0
        self.payments += 1
        if self.payments < 2:
            return super().pay(r, keys, scripts, owed)
        if self.window == "counted":
            self.count(r, keys, scripts, owed)
        self.client.set(self.marker, ",".join(d.game_id for d in owed))
        threading.Event().wait()  # hangs: the test kills the process here
        return 0


def main(argv: Sequence[str]) -> None:
    """Run the stalling scoreboard projection until killed."""
    url, prefix, shards, window, marker = argv
    assert window in WINDOWS, window
    client = redis.Redis.from_url(url)
    layout = Layout(prefix=prefix, shards=int(shards))
    model = ScoreboardModel(tally=StallingTally(redis.Redis.from_url(url), window, marker))
    config = RunnerConfig(batch=2, block_ms=20, claim_idle_ms=300, recover_every_ms=200)
    ProjectionWorker(client, model, layout=layout, config=config, consumer="main").run()


if __name__ == "__main__":
    main(sys.argv[1:])

"""The shared ground of the read-model queries: one Redis, its key layout, the read models' keys and the
games' history (projections/history.py). Each group of queries (projections/board_queries.py,
projections/audit_queries.py, projections/feed_queries.py) is a mixin over it; projections/api.py gathers them
into :class:`~projections.api.ReadModels`."""

from __future__ import annotations

import redis

from projections.history import History
from projections.models import REPLAY_SNAPSHOT_EVERY
from projections.store import RMKeys
from services.bus.keys import Layout


class ReadBase:
    """Queries over the read models of one Redis (``client``) and key layout."""

    def __init__(self, client: redis.Redis, layout: Layout | None = None) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.keys = RMKeys(self.layout)
        self.history = History(client, self.layout, self.keys, REPLAY_SNAPSHOT_EVERY)

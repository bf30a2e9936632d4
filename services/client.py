"""The client library: the bus's client (create games, submit commands, wait for outcomes) plus the store's
reads of a game (its summary and its events).

Example::

    client = ServiceClient(connect())
    game = client.create_game("shadow", ["Ann", "Bob", "Cid", "Dee"], seed=7)
    outcome = client.send(game.game_id, seat=0, token=game.tokens[0], payload={"type": "Pass"},
                          expected_version=12)
    if not outcome.accepted:
        print(outcome.rejection.code, outcome.rejection.message)
    events = client.read_events(game.game_id)

See :mod:`services.bus.client` for command ids, tokens and bot seats.
"""

from __future__ import annotations

import hmac
from typing import Any

import redis

from services.bus.client import BusClient, GameNotCreated, NewGame, new_id
from services.bus.envelope import MAX_PAYLOAD, hash_token
from services.bus.keys import Layout
from services.store.eventstore import StoredEvent
from services.store.repository import GameRepository

__all__ = ["GameNotCreated", "NewGame", "ServiceClient", "new_id"]


class ServiceClient(BusClient):
    """Talks to the rules workers through the shards' streams, and reads games from the event store."""

    def __init__(
        self, client: redis.Redis | None = None, layout: Layout | None = None, max_payload: int = MAX_PAYLOAD
    ) -> None:
        super().__init__(client, layout, max_payload)
        self.games = GameRepository(self.r, self.layout)

    def game_info(self, game_id: str) -> dict[str, Any] | None:
        """The game's name, players, settings, seed, status, version and result (None: no such game)."""
        meta = self.games.find_meta(game_id)
        return None if meta is None else meta.info()

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat whose token ``token`` is in game ``game_id`` (None: no such game, or no seat's token). Only
        digests are compared: the store never holds a token."""
        meta = self.games.find_meta(game_id)
        if meta is None or not token:
            return None
        digest = hash_token(token)
        for seat, stored in enumerate(meta.token_digests):
            if hmac.compare_digest(stored, digest):
                return seat
        return None

    def read_events(self, game_id: str, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        """The game's events with ``after < version <= upto`` (also for a game already moved to its archive)."""
        return self.games.events(game_id, after, upto)

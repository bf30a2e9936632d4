"""A seat's feed: its view, its labelled legal commands and its events after a version, from the feed model
(or from the store when the model has nothing of the game yet)."""

import threading
from collections import OrderedDict
from typing import Any

import orjson
import redis

from projections.base import shown_text
from projections.feed_model import apply_view_patch, labelled_legal, now_fields
from projections.history import BadVersion, Game
from projections.read_base import ReadBase
from services.bus.keys import Layout


class SeatFeedQueries(ReadBase):
    """The seat feed (see projections/api.py for the shape). Thread-safe: the legal commands' cache is locked."""

    def __init__(self, client: redis.Redis, layout: Layout | None = None) -> None:
        super().__init__(client, layout)
        self._lock = threading.Lock()
        self._legals: OrderedDict[tuple[str, int, int], list[dict[str, Any]]] = OrderedDict()

    def seat_feed(self, game_id: str, seat: int | None, after_version: int = 0) -> dict[str, Any]:
        """One seat's (None: a spectator's) view, legal commands with labels, and its events after a version."""
        game = self.history.game(game_id)
        game.check_seat(seat)
        if after_version < 0:
            raise BadVersion(f"after_version must be >= 0, not {after_version}")
        who = "spec" if seat is None else str(seat)
        pipe = self.r.pipeline(transaction=False)
        # One read of the hash: the view, who is awaited and the state all belong to the same version.
        pipe.hmget(self.keys.feed_now(game_id), "version", "over", "view:spec", f"view:{who}", "awaiting", "state")
        pipe.xrange(self.keys.feed(game_id), min=f"0-{after_version + 1}", max="+")
        (version_raw, over_raw, spec_raw, view_raw, awaiting_raw, state_raw), entries = pipe.execute()
        if version_raw is None:
            # Not projected yet: the same answer, from the store. (A model a little behind answers as of its
            # version; the client resumes from there.)
            return self._seat_feed_from_store(game, seat, after_version)
        version = int(version_raw)
        own_e, own_x = (b"e", b"x") if seat is None else (f"e{seat}".encode(), f"x{seat}".encode())
        events = []
        for eid, fields in entries:
            v = int(eid.decode().partition("-")[2])
            if v > version:
                break  # newer than the view read with it: the next call, from ``version``, brings it
            shown, text = (fields[own_e], fields.get(own_x, b"")) if own_e in fields else (fields[b"e"], fields[b"x"])
            if shown:  # empty: withheld from this seat
                events.append({"version": v, "event": orjson.loads(shown), "text": text.decode()})
        return {
            "game_id": game_id,
            "seat": seat,
            "version": version,
            "view": self._seat_view(spec_raw, view_raw, seat),
            "legal": self._legal(game, version, seat, awaiting_raw, state_raw),
            "events": events,
            "over": over_raw == b"1",
        }

    def _legal(
        self, game: Game, version: int, seat: int | None, awaiting_raw: bytes | None, state_raw: bytes | None
    ) -> list[dict[str, Any]]:
        """The labelled legal commands of an awaited seat, from the feed model's stored state (cached)."""
        if seat is None or awaiting_raw is None or seat not in orjson.loads(awaiting_raw):
            return []
        key = (game.game_id, version, seat)
        with self._lock:
            hit = self._legals.get(key)
        if hit is not None:
            return hit
        if state_raw is not None:
            state = game.rules.restore(state_raw)
        else:
            state, _ = self.history.state_at(game, version)
        legal = orjson.loads(orjson.dumps(labelled_legal(game.rules, game.presenter, state, seat), default=str))
        with self._lock:
            self._legals[key] = legal
            while len(self._legals) > 1024:
                self._legals.popitem(last=False)
        return legal  # type: ignore[no-any-return]

    @staticmethod
    def _seat_view(spec_raw: bytes | None, own_raw: bytes | None, seat: int | None) -> dict[str, Any] | None:
        """A seat's view from the stored spectators' view and the seat's difference to it."""
        if spec_raw is None:
            return None
        spectators = orjson.loads(spec_raw)
        if seat is None or own_raw is None:
            return spectators  # type: ignore[no-any-return]
        return apply_view_patch(spectators, orjson.loads(own_raw))

    def _seat_feed_from_store(self, game: Game, seat: int | None, after: int) -> dict[str, Any]:
        rules, presenter = game.rules, game.presenter
        state, _ = self.history.state_at(game, min(after, game.version))
        events = []
        for stored in self.history.events(game, after + 1, game.version):
            event = rules.parse_event(stored.data)
            state = rules.evolve(state, event)
            shown = presenter.redact(event, seat, state)
            if shown is not None:
                shown = orjson.loads(orjson.dumps(shown, default=str))
                text = shown_text(presenter, event, shown, game.players)
                events.append({"version": stored.version, "event": shown, "text": text})
        who = "spec" if seat is None else str(seat)
        fields = now_fields(game.ctx(state, game.version), state, game.version)
        now = {str(fields[i]): fields[i + 1] for i in range(0, len(fields), 2)}
        return {
            "game_id": game.game_id,
            "seat": seat,
            "version": game.version,
            "view": self._seat_view(now["view:spec"], now[f"view:{who}"], seat),
            "legal": orjson.loads(orjson.dumps(labelled_legal(rules, presenter, state, seat), default=str))
            if seat is not None and seat in rules.awaited(state)
            else [],
            "events": events,
            "over": bool(rules.is_over(state)),
        }

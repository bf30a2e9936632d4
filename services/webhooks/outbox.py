"""The outbox: notices queued for delivery, per shard, and what becomes of each.

The follower (services/webhooks/follower.py) queues a game's notices and moves the game's checkpoint in one
script (:meth:`Outbox.enqueue`): either both happen or neither, and a checkpoint that moved meanwhile (a second
process) refuses the write, so a notice is queued once. The deliverer (services/webhooks/delivery.py) reads the
outbox stream with its consumer group ``deliver`` and ends each entry with :meth:`Outbox.finish`: the hook's
counters, the failure record when it gave up, the ack and the deletion, in one transaction. An entry not
finished (the process died) stays pending and is delivered again: at least once.

Outbox entry fields: ``g`` game id, ``h`` the hook's field (``<seat>:<hook id>``), ``n`` the notice body (JSON).
The hook's URL and key are read at delivery time, so a deleted hook stops receiving and no key is copied here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import orjson
import redis

from services.bus.keys import DELIVER_GROUP, Layout
from services.webhooks.hooks import HookStore
from services.webhooks.notices import notice_id

FAILURES_MAXLEN = 10_000
"""About how many failure records each shard keeps."""

_ENQUEUE = """
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return {'STALE', cur or ''} end
for i = 5, #ARGV, 2 do
  redis.call('XADD', KEYS[2], '*', 'g', ARGV[4], 'h', ARGV[i], 'n', ARGV[i + 1])
end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] ~= '0' then
  redis.call('HSET', KEYS[4], '_', '1')
  for k = 1, 4 do
    if k ~= 2 then redis.call('PEXPIRE', KEYS[k], ARGV[3]) end
  end
  redis.call('SREM', KEYS[5], ARGV[4])
end
return {'OK'}
"""


class Outbox:
    """Queue and settle notices (synchronous Redis)."""

    def __init__(self, client: redis.Redis, layout: Layout) -> None:
        self.r = client
        self.layout = layout
        self._enqueue = client.register_script(_ENQUEUE)

    def enqueue(
        self,
        game_id: str,
        expected: int | None,
        version: int,
        items: Sequence[tuple[str, bytes]],
        *,
        ended_keep_ms: int = 0,
    ) -> bool:
        """Queue ``items`` (hook field, notice JSON) of ``game_id`` and move its checkpoint from ``expected``
        (None: none yet) to ``version``; ``ended_keep_ms`` > 0: the game ended, its hooks, counters and
        checkpoint live that long more and it leaves the shard's ``hookgames``. False: the checkpoint was not
        ``expected`` (another process moved it), nothing written."""
        shard = self.layout.shard_of(game_id)
        layout = self.layout
        keys = [
            layout.hooked(shard, game_id), layout.webhooks(shard), layout.hooks(shard, game_id),
            layout.hook_status(shard, game_id), layout.hook_games(shard),
        ]  # fmt: skip
        args: list[str | bytes | int] = ["" if expected is None else str(expected), version, ended_keep_ms, game_id]
        for field, body in items:
            args += [field, body]
        res = self._enqueue(keys=keys, args=args)
        tag = res[0].decode() if isinstance(res[0], bytes) else res[0]
        return bool(tag == "OK")

    def notify(self, hooks: HookStore, game_id: str, seat: int, kind: str, version: int, fields: dict[str, Any]) -> str:
        """Queue a notice that follows from no commit (an :func:`~services.webhooks.notices.external_kind`, e.g.
        a clock running low) for each of ``seat``'s webhooks that asks for ``kind``; returns its id. Queuing the
        same notice twice sends it twice under one id: receivers deduplicate."""
        nid = notice_id(game_id, seat, kind, version)
        body = encode({"id": nid, "kind": kind, "game_id": game_id, "seat": seat, "version": version, **fields})
        wanted = [h.field for h in hooks.of_seat(game_id, seat) if kind in h.kinds]
        if wanted:
            stream = self.layout.webhooks(self.layout.shard_of(game_id))
            pipe = self.r.pipeline(transaction=False)
            for field in wanted:
                pipe.xadd(stream, {"g": game_id, "h": field, "n": body})
            pipe.execute()
        return nid

    def finish(
        self,
        shard: int,
        entry_id: bytes,
        game_id: str,
        field: str,
        *,
        delivered: bool,
        error: str | None = None,
        notice_id: str = "",
        attempts: int = 0,
    ) -> None:
        """Settle one outbox entry: count it delivered or failed on its hook, record a failure (``error``, never
        the key), ack and delete the entry, in one transaction."""
        layout = self.layout
        stream = layout.webhooks(shard)
        pipe = self.r.pipeline(transaction=True)
        if field:
            stat = layout.hook_status(shard, game_id)
            pipe.hincrby(stat, f"{field}:{'delivered' if delivered else 'failed'}", 1)
            if error is not None:
                pipe.hset(stat, f"{field}:error", error[:300])
        if not delivered:
            pipe.xadd(
                layout.webhook_failures(shard),
                {"g": game_id, "h": field, "id": notice_id, "error": (error or "")[:300], "attempts": attempts,
                 "at": int(time.time() * 1000)},
                maxlen=FAILURES_MAXLEN, approximate=True,
            )  # fmt: skip
        pipe.xack(stream, DELIVER_GROUP, entry_id)
        pipe.xdel(stream, entry_id)
        pipe.execute()

    def failures(self, shard: int, count: int = 100) -> list[dict[str, str]]:
        """The newest failure records of a shard, newest first."""
        out = []
        for eid, fields in self.r.xrevrange(self.layout.webhook_failures(shard), count=count):
            row = {k.decode(): v.decode(errors="replace") for k, v in fields.items()}
            row["entry"] = eid.decode()
            out.append(row)
        return out


def encode(body: dict[str, object]) -> bytes:
    """A notice body as sent: compact JSON (the same bytes on every attempt)."""
    return orjson.dumps(body)

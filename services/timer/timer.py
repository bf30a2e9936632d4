"""The timer process: it submits a timeout for each seat whose clock ran out, through the bus like any client.

Where the deadlines are: every accepted command of a clocked game moves the game's next clock alarm in its
shard's ``clocks`` sorted set (game id -> ms), atomically with the commit (services/store/commit.lua), computed
from the recorded clocks by the game's ``next_alarm``. An alarm is a deadline, or the moment a seat's time runs
low (a notice). So the deadlines live in Redis, not in this process: a timer that dies loses nothing.

What a timer does, every ``poll_ms``, for the shards it serves (one pipelined round trip for all of them):

1. **claim** the due games (``claim.lua``): their alarms move ``hold_ms`` ahead, so a second timer process does
   not work on them meanwhile, and a timer killed -9 mid-way leaves them due again once the hold runs out;
2. **load** each claimed game through the store's repository (the same fold as every process) and ask its rules
   which timeouts are due now (``GameRules.due_timeouts``): each names the seat and the clock turn it claims;
3. **submit** the first due timeout as that seat's command (``{"type": "TimeOut", "seat", "turn"}``), signed
   with the seat's stored digest as the bots process signs, under the deterministic command id
   ``timeout.<seat>.<turn>``: two timers (or one retrying after its hold) submit the same command id, and the
   rules worker's duplicate check answers the second with the first outcome; a timeout that meets a move already
   made is refused by the rules as ``stale_timeout`` and changes nothing. Its commit moves the alarm on. (Only a
   timeout refused as early, ``clock_running``, is claimed again later under a new id: the rules accept at most
   one timeout per clock turn whatever its id);
   A timeout that will hand its seat to a bot (the clock setting ``bot_after``: ``GameRules.hands_over``) first
   makes sure the bots process follows the game: the game's ``bots`` key (created empty when the game has no
   bot seat of its own) and its shard's ``botgames`` set, written before the timeout is submitted so that the
   handover, once recorded, is never missed; the bots process plays the seats the recorded state names
   (``Table.table_bots``), so a timeout refused as stale hands nothing over;
4. otherwise, when a seat's time runs low, add a notice to the shard's ``notices`` stream (and the game's next
   alarm is set, conditional on the game's version, by ``reschedule.lua``).

The time is read from ``clock`` (injectable: tests drive it by hand). The worker stamps its own time on the
timeout, and the rules refuse one that comes early (``clock_running``), so a timer whose clock runs ahead
cannot cut a seat's time short; ``grace_ms`` waits that much past each deadline before claiming it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson
import redis

from services.bus.client import BOT_SEATS_TTL_MS
from services.bus.consumer import ConsumerLoop
from services.bus.envelope import CommandEnvelope
from services.bus.keys import Layout
from services.log import get_logger
from services.metrics import catalog as metrics
from services.store.repository import GameLookup, GameRepository, UnknownGame, registry_game


def wall_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class TimerConfig:
    """Tuning of a timer process."""

    poll_ms: int = 250
    """How often the shards' due alarms are claimed (a timeout is applied at most about this late)."""
    hold_ms: int = 5000
    """How long a claimed alarm is hidden from other timers; a timer that dies is replaced after this."""
    batch: int = 200
    """Games claimed per shard per poll."""
    grace_ms: int = 0
    """Claim a deadline only this long after it passed (room for clock skew between hosts)."""
    notices_maxlen: int = 10_000
    """The shard's notice stream is trimmed at about this many entries."""


def timeout_command_id(seat: int, turn: int) -> str:
    """The command id of the timeout of ``seat`` at clock turn ``turn``: the same for every timer process."""
    return f"timeout.{seat}.{turn}"


class ClockTimer:
    """Submits the due timeouts (and low-time notices) of the clocked games on ``shards``."""

    def __init__(
        self,
        client: redis.Redis,
        shards: Iterable[int],
        *,
        layout: Layout | None = None,
        config: TimerConfig | None = None,
        clock: Callable[[], int] = wall_ms,
        games: GameLookup = registry_game,
        timer_id: str | None = None,
    ) -> None:
        self.r = client
        self.layout = layout or Layout.from_env()
        self.cfg = config or TimerConfig()
        self.shards = sorted(set(shards))
        self.clock = clock
        self.timer_id = timer_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.log = get_logger("timer", timer=self.timer_id)
        self.loop = ConsumerLoop(self.log, "timer")
        self.repo = GameRepository(client, self.layout, games=games, cache_size=0)
        self._claim = client.register_script(_script("claim.lua"))
        self._reschedule = client.register_script(_script("reschedule.lua"))
        self.stats: Counter[str] = Counter()

    # --- loop -----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event | None = None) -> None:
        """Poll until ``stop`` is set; Redis faults are waited out with backoff (services/bus/consumer.py)."""
        stop = stop or threading.Event()
        self.log.info("timer.start", shards=self.shards)
        try:
            self.loop.run(lambda: self._tick(stop), stop)
        finally:
            self.log.info("timer.stop", stats=dict(self.stats))

    def _tick(self, stop: threading.Event) -> None:
        if not self.step():
            stop.wait(self.cfg.poll_ms / 1000)

    def step(self) -> int:
        """One poll: claim every shard's due alarms, then act on each claimed game; returns the games handled."""
        now = self.clock()
        claimed = self.claim(now)
        for shard, gid in claimed:
            metrics.TIMER_ALARMS.labels(self.handle(shard, gid, now)).inc()
        return len(claimed)

    def claim(self, now: int) -> list[tuple[int, str]]:
        """The due games of every shard, claimed for ``hold_ms`` (one pipelined round trip)."""
        pipe = self.r.pipeline(transaction=False)
        for shard in self.shards:
            self._claim(
                keys=[self.layout.clocks(shard)], args=[now - self.cfg.grace_ms, self.cfg.hold_ms, self.cfg.batch],
                client=pipe,
            )  # fmt: skip
        out: list[tuple[int, str]] = []
        for shard, due in zip(self.shards, pipe.execute(), strict=True):
            out.extend((shard, gid.decode() if isinstance(gid, bytes) else gid) for gid in due)
        self.stats["polls"] += 1
        self.stats["claimed"] += len(out)
        return out

    # --- one game -------------------------------------------------------------------------------------
    def handle(self, shard: int, game_id: str, now: int) -> str:
        """Act on one claimed game: submit its first due timeout, or send its low-time notices and set its next
        alarm. Returns what was done (``timeout``, ``notice``, ``rescheduled``, ``dropped``, ``moved``)."""
        try:
            game = self.repo.load(game_id)
        except UnknownGame:
            self.r.zrem(self.layout.clocks(shard), game_id)
            self.stats["dropped"] += 1
            return "dropped"
        rules, state = game.rules, game.state
        if game.status != "active" or rules.clock_of(state) is None:
            return self._set_alarm(shard, game_id, game.version, None, "dropped")
        due = rules.due_timeouts(state, now - self.cfg.grace_ms)
        if due:
            if rules.hands_over(state, due[0].seat):
                self._follow_by_bots(shard, game_id)
            self._submit(shard, game_id, game.meta.seat_digest(due[0].seat), due[0].seat, due[0].turn, now)
            return "timeout"
        # Nothing to time out: say which seats run low, then sleep until the next alarm.
        noticed = self._notices(shard, game_id, game.version, rules, state, now)
        return self._set_alarm(shard, game_id, game.version, rules.next_alarm(state, now), noticed or "rescheduled")

    def _submit(self, shard: int, game_id: str, digest: str | None, seat: int, turn: int, now: int) -> None:
        if digest is None:  # (a seat without a digest cannot be: the creation stores one per seat)
            self.log.error("timer.no_digest", game=game_id, seat=seat)
            return
        cid = timeout_command_id(seat, turn)
        first = self.r.get(self.layout.outcome(shard, game_id, str(seat), cid))
        if first is not None and orjson.loads(first).get("status") == "rejected":
            # Refused (the worker's clock, behind this one's, still ran): claimed again under a new id, or the
            # stored refusal would answer it for as long as it is kept. At most one is ever accepted: the
            # rules refuse any timeout of a clock turn already past.
            cid = f"{cid}.{now}"
            self.stats["resubmitted"] += 1
        payload = {"type": "TimeOut", "seat": seat, "turn": turn}
        env = CommandEnvelope.signed(
            bytes.fromhex(digest), command_id=cid, game_id=game_id, seat=seat,
            payload=payload, no_reply=True,  # the timer waits for no outcome: its commit moves the alarm on
        )  # fmt: skip
        # The hold of the claim stays as the retry: the timeout's commit moves the alarm on; if this process
        # dies first, the alarm comes due again and the same command id is submitted (answered once).
        self.r.xadd(self.layout.cmds(self.layout.shard_of(game_id)), env.to_fields())
        self.stats["timeouts"] += 1
        self.log.debug("timer.timeout", game=game_id, seat=seat, turn=turn)

    def _follow_by_bots(self, shard: int, game_id: str) -> None:
        """Make the bots process follow the game (its ``bots`` key, kept if it has one, and ``botgames``)."""
        doc = orjson.dumps({"created_ms": wall_ms(), "seats": {}})
        pipe = self.r.pipeline(transaction=False)
        pipe.set(self.layout.bots(shard, game_id), doc, nx=True, px=BOT_SEATS_TTL_MS)
        pipe.sadd(self.layout.bot_games(shard), game_id)
        pipe.execute()
        self.stats["handovers"] += 1

    def _notices(self, shard: int, game_id: str, version: int, rules: Any, state: Any, now: int) -> str:
        """A notice for each awaited seat whose time is low now (at least once: the id names the seat's running
        clock, so a reader drops a repeat)."""
        rows = rules.clock_status(state, now) or []
        sent = ""
        for row in rows:
            if not (row["running"] and row["low"] and row["remaining_ms"] > 0):
                continue
            notice = {
                "kind": "clock_low",
                "id": f"{game_id}:{row['seat']}:{row['deadline_ms']}",
                "game_id": game_id,
                "seat": row["seat"],
                "version": version,
                "remaining_ms": row["remaining_ms"],
                "deadline_ms": row["deadline_ms"],
                "at_ms": now,
            }
            self.r.xadd(
                self.layout.notices(shard), {"g": game_id, "n": orjson.dumps(notice)},
                maxlen=self.cfg.notices_maxlen, approximate=True,
            )  # fmt: skip
            self.stats["notices"] += 1
            sent = "notice"
        return sent

    def _set_alarm(self, shard: int, game_id: str, version: int, alarm: int | None, done: str) -> str:
        keys = [self.layout.clocks(shard), self.layout.meta(shard, game_id)]
        ok = self._reschedule(keys=keys, args=[game_id, version, "-" if alarm is None else alarm])
        if not ok:
            done = "moved"  # a commit set the alarm of a newer state meanwhile
        self.stats[done] += 1
        return done


def _script(name: str) -> str:
    return resources.files("services.timer").joinpath(name).read_text()

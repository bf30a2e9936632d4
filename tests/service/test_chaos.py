"""Chaos: the rules worker killed with SIGKILL again and again under load loses, doubles and reorders nothing.

A bounded run (about 20 s of load) on a redis-server of its own: a rules worker process, a projection process, and
client threads that open games of every installed game (and toy21) and play them with seeded random bot commands,
each command with its expected version, resending the very same command (same id) whenever no outcome comes within
a second, as a real client after a timeout would. Meanwhile the rules worker is killed with SIGKILL several times
(each time while commands are in flight, preferably while it holds commands it has read and not committed) and
replaced by a new process under another worker id; the projection process is killed once too. Each new worker is
let finish its take-over (the commands it claimed from the dead one) before it may be killed in turn: a command in
flight at more than ``max_attempts`` crashes in a row is then decided alone (docs/pages/bus.md, Guarantees;
tests/service/test_suspects.py), which is not what this test is about. Then the recorded games must hold exactly
what the clients were told, and every read model must equal its rebuild from zero.

The run is seeded (``THRONE_CHAOS_SEED``): the games, the commands and the pauses between kills repeat; where
the kills land in the stream of commands does not, so the test asserts properties that must hold wherever they
land, never timings.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
import redis

from projections.rebuild import rebuild
from projections.store import MODELS, group_of
from projections.verify import verify_game
from services.bus.envelope import STALE_VERSION, CommandEnvelope, CreateEnvelope, Outcome, hash_token, seat_key
from services.bus.keys import GROUP, Layout
from services.client import ServiceClient
from services.rules.registry import get_game
from tests.projections.helpers import caught_up, dump_model, spawn_projections
from tests.service.conftest import WorkerProcess, redis_server, spawn_worker
from tests.service.helpers import wait_for
from tests.waiting import patient

pytestmark = pytest.mark.redis

SEED = int(os.environ.get("THRONE_CHAOS_SEED", "1729"))
CLIENTS = 6
"""Client threads, spread over every installed game and toy21 (each game with any number of players it takes)."""
KILLS = 4
"""SIGKILLs of the rules worker during the load (the projection process is killed once, with the second)."""
SERVE_BEFORE_KILL_S = (0.4, 2.0)
"""How long each worker serves (drawn from this range) once it holds every lease, before it is killed."""
KILL_AIM_S = 2.0
"""Then, for at most this long, the kill waits for a moment the worker holds commands it read and did not commit."""
ATTEMPT_TIMEOUT_S = 1.0
"""A client's patience: after this it sends the same command again (same id, same content)."""
GIVE_UP_S = patient(120)
"""A command without an outcome after this long is lost: the test fails (a bound on a hang: the host may be busy)."""
PROBE_SHARE = 0.05
"""Share of moves preceded by a probe: the same move under a new id with an outdated expected version, which
must be refused (stale_version) and change nothing."""
THINK_S = 0.02
"""Most a client waits between two commands (drawn uniformly)."""
SHARDS = 4


@dataclass
class Sent:
    """One command (or creation) a client sent, however many times, and every outcome it was answered."""

    env: CommandEnvelope | CreateEnvelope
    probe: bool = False
    sends: int = 0
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def outcome(self) -> Outcome:
        """The outcome the client acted on (the first it received)."""
        return self.outcomes[0]


@dataclass
class Played:
    """A game as one client played it: its creation and its commands in the order sent."""

    game_id: str
    game_name: str
    create: Sent
    commands: list[Sent] = field(default_factory=list)

    def accepted(self) -> list[Sent]:
        """The creation and every command the client was told was accepted, in order."""
        return [s for s in [self.create, *self.commands] if s.outcomes and s.outcome.accepted]


class Load:
    """Client threads playing games through the service until :meth:`finish` (or :meth:`abort`)."""

    def __init__(self, url: str, layout: Layout, clients: int, seed: int) -> None:
        self.url = url
        self.layout = layout
        self.seed = seed
        # Installed games only: other test modules register variants of toy21 in this process, which the worker
        # processes do not know.
        self.game_names = sorted({ep.name for ep in entry_points(group="throne.games")} | {"toy21"})
        """Every game installed, and toy21: client i plays the i-th of them (round robin)."""
        self.games: list[Played] = []
        self.errors: list[BaseException] = []
        self._stop = threading.Event()  # no new command after this; a command in flight still gets its outcome
        self._abort = threading.Event()  # the test failed: give up at once
        self._lock = threading.Lock()
        self._in_flight = 0
        self._threads = [
            threading.Thread(target=self._client, args=(i,), name=f"chaos-client-{i}", daemon=True)
            for i in range(clients)
        ]

    @property
    def in_flight(self) -> int:
        """Commands sent and not answered yet."""
        return self._in_flight

    def start(self) -> None:
        """Start every client thread."""
        for t in self._threads:
            t.start()

    def finish(self, seconds: float) -> None:
        """Let each client get the outcome of its command in flight, then stop; raise the first client error."""
        self._stop.set()
        deadline = time.monotonic() + seconds
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self._threads if t.is_alive()]
        if self.errors:
            raise self.errors[0]
        assert not alive, f"clients still waiting after {seconds}s: {alive}"

    def abort(self) -> None:
        """Stop the clients without waiting for outcomes (on a failure)."""
        self._abort.set()
        self._stop.set()
        for t in self._threads:
            t.join(GIVE_UP_S)

    def _client(self, index: int) -> None:
        rng = random.Random(self.seed * 1000 + index)
        client = ServiceClient(redis.Redis.from_url(self.url), self.layout)
        try:
            n = 0
            while not self._stop.is_set():
                name = self.game_names[index % len(self.game_names)]
                caps = get_game(name).rules.capabilities
                players = rng.randint(caps.min_players, caps.max_players)
                self._play(client, rng, f"chaos-{index}-{n}", name, players)
                n += 1
        except BaseException as exc:
            self.errors.append(exc)
            self._stop.set()

    def _play(self, client: ServiceClient, rng: random.Random, gid: str, name: str, players: int) -> None:
        rules = get_game(name).rules
        tokens = [f"{gid}-token-{seat}-{rng.getrandbits(64):016x}" for seat in range(players)]
        keys = [seat_key(t) for t in tokens]
        create = Sent(
            CreateEnvelope(
                command_id=f"{gid}-create",
                game_id=gid,
                game_name=name,
                players=[f"P{i}" for i in range(players)],
                seed=rng.getrandbits(31),
                token_hashes=[hash_token(t) for t in tokens],
            )
        )
        played = Played(gid, name, create)
        with self._lock:
            self.games.append(played)
        self._send(client, create)
        if not create.outcome.accepted:
            return
        state, version = self._fold(client, rules, rules.initial_state(), gid, 0)
        move = 0
        while not self._stop.is_set() and not rules.is_over(state):
            seat = rng.choice(rules.awaited(state))
            command = rules.sample_legal(state, seat, rng)
            if command is None:
                raise RuntimeError(f"{gid}: seat {seat} is awaited at version {version} but has no legal command")
            payload = rules.encode_command(command)
            if version > 1 and rng.random() < PROBE_SHARE:
                probe = self._command(keys[seat], f"{gid}-p{move}", gid, seat, version - 1, payload, probe=True)
                played.commands.append(probe)
                self._send(client, probe)
            sent = self._command(keys[seat], f"{gid}-c{move}", gid, seat, version, payload)
            played.commands.append(sent)
            self._send(client, sent)
            move += 1
            # Like a real client, it learns the new position from the store (whatever the outcome said).
            state, version = self._fold(client, rules, state, gid, version)
            time.sleep(rng.uniform(0.0, THINK_S))

    @staticmethod
    def _command(
        key: bytes, cid: str, gid: str, seat: int, version: int, payload: dict[str, Any], probe: bool = False
    ) -> Sent:
        env = CommandEnvelope.signed(
            key, command_id=cid, game_id=gid, seat=seat, expected_version=version, payload=payload
        )
        return Sent(env, probe=probe)

    @staticmethod
    def _fold(client: ServiceClient, rules: Any, state: Any, gid: str, version: int) -> tuple[Any, int]:
        for event in client.read_events(gid, after=version):
            state = rules.evolve(state, rules.parse_event(event.data))
            version = event.version
        return state, version

    def _send(self, client: ServiceClient, sent: Sent) -> None:
        """Send until an outcome comes back: after each timeout the same envelope again."""
        with self._lock:
            self._in_flight += 1
        try:
            give_up = time.monotonic() + GIVE_UP_S
            while True:
                client.submit_many([sent.env])
                sent.sends += 1
                try:
                    sent.outcomes.append(client.wait_on(sent.env, timeout=ATTEMPT_TIMEOUT_S))
                    return
                except TimeoutError:
                    if self._abort.is_set() or time.monotonic() > give_up:
                        raise
        finally:
            with self._lock:
                self._in_flight -= 1


class Processes:
    """The worker and projection processes of the test; every one started is stopped at the end."""

    def __init__(self, url: str, layout: Layout) -> None:
        self.url = url
        self.layout = layout
        self.started: list[WorkerProcess] = []

    def rules_worker(self, worker_id: str) -> WorkerProcess:
        """``python -m services.worker`` over every shard, under ``worker_id``."""
        proc = spawn_worker(self.url, self.layout, "--worker-id", worker_id)
        self.started.append(proc)
        return proc

    def projections(self) -> WorkerProcess:
        """``python -m projections run`` (every model, one process)."""
        proc = spawn_projections(self.url, self.layout)
        self.started.append(proc)
        return proc

    def stop_all(self) -> None:
        """SIGTERM (then SIGKILL) whatever still runs."""
        for proc in self.started:
            proc.stop()


@contextlib.contextmanager
def processes(url: str, layout: Layout) -> Iterator[Processes]:
    """:class:`Processes`, stopped on the way out whatever happened."""
    procs = Processes(url, layout)
    try:
        yield procs
    finally:
        procs.stop_all()


def holds_every_lease(r: redis.Redis, layout: Layout, worker_id: str) -> bool:
    """Whether ``worker_id`` holds the lease of every shard (lease value ``<fencing token>:<worker id>``)."""
    values = [r.get(layout.lease(s)) for s in range(layout.shards)]
    return all(v is not None and v.decode().partition(":")[2] == worker_id for v in values)


def taken_over(r: redis.Redis, layout: Layout, worker_id: str) -> bool:
    """Whether ``worker_id`` holds every lease and is done with what it claimed from the workers before it: every
    command still pending is one it read itself, once."""
    if not holds_every_lease(r, layout, worker_id):
        return False
    for s in range(layout.shards):
        with contextlib.suppress(redis.ResponseError):  # NOGROUP: nothing was ever sent to that shard
            for p in r.xpending_range(layout.cmds(s), GROUP, "-", "+", 10_000):
                if p["consumer"].decode() != worker_id or p["times_delivered"] > 1:
                    return False
    return True


def redis_ms(r: redis.Redis) -> int:
    """Redis's clock in ms (the clock of stream entry ids)."""
    seconds, micros = r.time()
    return int(seconds) * 1000 + int(micros) // 1000


def queued_commands(r: redis.Redis, layout: Layout) -> int:
    """Entries still on the command streams (an entry is deleted when its command is committed)."""
    return sum(int(r.xlen(layout.cmds(s))) for s in range(layout.shards))


def pending(r: redis.Redis, layout: Layout, stream_of: Any, group: str) -> int:
    """Entries read by a consumer of ``group`` and not acked, over every shard."""
    total = 0
    for s in range(layout.shards):
        with contextlib.suppress(redis.ResponseError):  # NOGROUP: nobody read that shard yet
            total += int(r.xpending(stream_of(s), group)["pending"])
    return total


def replies_left(r: redis.Redis, layout: Layout, env: CommandEnvelope | CreateEnvelope) -> list[Outcome]:
    """Replies to a command nobody popped (one per extra copy the worker answered, for 60 s)."""
    key = layout.reply(layout.shard_of(env.game_id), env.game_id, env.scope, env.command_id)
    return [Outcome.model_validate_json(raw) for raw in r.lrange(key, 0, -1)]


def check_game(r: redis.Redis, layout: Layout, client: ServiceClient, game: Played) -> None:
    """Everything the store holds of ``game`` is what its client was told, once, in order."""
    gid, shard = game.game_id, layout.shard_of(game.game_id)
    accepted = game.accepted()
    assert accepted and accepted[0] is game.create, f"{gid}: its creation was not accepted"

    # Every command has one outcome, whoever asks and however often it was sent.
    for sent in [game.create, *game.commands]:
        assert sent.outcomes, f"{gid}: {sent.env.command_id} got no outcome"
        stored = client.outcome_of(sent.env)
        answers = [*sent.outcomes, *replies_left(r, layout, sent.env)]
        assert stored is not None and all(a == stored for a in answers), (sent.env.command_id, stored, answers)

    # The moves were accepted, the probes refused as stale.
    for sent in game.commands:
        if sent.probe:
            rej = sent.outcome.rejection
            assert rej is not None and rej.code == STALE_VERSION, (sent.env.command_id, sent.outcome)
        else:
            assert sent.outcome.accepted, (sent.env.command_id, sent.outcome)

    # The events: versions 1..N at entry ids 0-1..0-N, no gap, no duplicate; the accepted commands' version
    # ranges tile them in the order the client sent them, and each event names the command behind it.
    entries = r.xrange(layout.events(shard, gid))
    version = int(r.hget(layout.meta(shard, gid), "version") or 0)
    assert [eid.decode() for eid, _ in entries] == [f"0-{v}" for v in range(1, version + 1)], gid
    expected: list[str] = []
    for sent in accepted:
        out = sent.outcome
        assert out.first_version == len(expected) + 1 and out.version == out.first_version + out.events - 1, out
        expected += [sent.env.command_id] * out.events
    assert [f[b"c"].decode() for _, f in entries] == expected, gid

    # The command log: each accepted command once, at the version its outcome says; each probe once, refused.
    log = Counter()
    for log_id, fields in r.xrange(layout.commands(shard, gid)):
        cid = fields[b"id"].decode()
        log[cid] += 1
        sent = next((s for s in [game.create, *game.commands] if s.env.command_id == cid), None)
        assert sent is not None, f"{gid}: the log has a command nobody sent: {cid}"
        assert int(log_id.decode().partition("-")[0]) == sent.outcome.version, (cid, log_id)
        assert Outcome.model_validate_json(fields[b"o"]) == sent.outcome, cid
    assert log == Counter(s.env.command_id for s in [game.create, *game.commands]), gid

    # And the game verifies: its commands re-run on today's rules give the same events.
    report = verify_game(r, layout, gid)
    assert report["ok"], (gid, report["differences"][:2], report.get("outcome_changes"))


def test_the_rules_worker_killed_again_and_again_under_load_loses_and_doubles_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    layout = Layout(prefix=f"chaos{uuid.uuid4().hex[:6]}", shards=SHARDS)
    with redis_server(tmp_path) as server, processes(server.url, layout) as procs:
        r = server.client()
        client = ServiceClient(server.client(), layout)

        # Given a rules worker process serving every shard, a projection process, and clients playing games
        worker = procs.rules_worker("chaos-w0")
        projection = procs.projections()
        wait_for(lambda: taken_over(r, layout, "chaos-w0"), seconds=300, every=0.05)
        load = Load(server.url, layout, CLIENTS, SEED)
        load.start()
        try:
            # When the rules worker is killed with SIGKILL at random moments, while commands are in flight,
            # each time replaced by a new process under another id (and the projection process killed once)
            in_flight_at_kill, left_by_killed, killed_at_ms, projection_left = [], [], [], 0
            for kill in range(1, KILLS + 1):
                time.sleep(rng.uniform(*SERVE_BEFORE_KILL_S))
                # (Preferably at a moment the worker holds commands it has read and not committed yet.)
                with contextlib.suppress(AssertionError):
                    wait_for(lambda: pending(r, layout, layout.cmds, GROUP) > 0, seconds=KILL_AIM_S, every=0.001)
                wait_for(lambda: load.in_flight > 0 or bool(load.errors), seconds=60, every=0.001)
                in_flight_at_kill.append(load.in_flight)
                worker.kill9()
                killed_at_ms.append(redis_ms(r))
                left_by_killed.append(pending(r, layout, layout.cmds, GROUP))
                if kill == 2:
                    projection.kill9()
                    projection_left = sum(pending(r, layout, layout.feed, group_of(m)) for m in MODELS)
                    projection = procs.projections()
                worker = procs.rules_worker(f"chaos-w{kill}")
                # (Each new worker finishes taking over before it may be killed in turn: a command in flight at
                # more than max_attempts crashes in a row is decided alone, see tests/service/test_suspects.py.)
                wait_for(lambda k=kill: taken_over(r, layout, f"chaos-w{k}"), seconds=300, every=0.01)
            time.sleep(1.0)  # the last worker serves the load a while too
            load.finish(GIVE_UP_S + 10)
        except BaseException:
            load.abort()
            raise

        # and the last commands (and the copies clients resent) are committed
        wait_for(lambda: queued_commands(r, layout) == 0, seconds=60, every=0.05)
        wait_for(lambda: pending(r, layout, layout.cmds, GROUP) == 0, seconds=60, every=0.05)
        worker.stop()
        games = load.games
        sends = sum(s.sends for g in games for s in [g.create, *g.commands])
        commands = sum(1 + len(g.commands) for g in games)
        print(
            f"chaos seed={SEED}: {len(games)} games {dict(Counter(g.game_name for g in games))}, "
            f"{commands} commands sent {sends} times; at the {KILLS} kills: in flight {in_flight_at_kill}, "
            f"left read and not committed {left_by_killed}; the killed projection left {projection_left} unacked"
        )
        assert all(n > 0 for n in in_flight_at_kill), "every kill must land while commands are in flight"
        assert sends > commands, "the kills must have made clients resend commands"

        # Then nothing is left pending or queued, and nothing was dead-lettered
        assert queued_commands(r, layout) == 0 and pending(r, layout, layout.cmds, GROUP) == 0
        dead = [(s, eid, f) for s in range(layout.shards) for eid, f in r.xrange(layout.dead(s))]
        assert not dead, f"dead letters {dead}; the workers were killed at {killed_at_ms} (Redis ms)"
        # and every game holds exactly what its client was told: no gap, no duplicate, no lost command, one
        # outcome per command, and it verifies
        for game in games:
            check_game(r, layout, client, game)

        # When the projections have caught up with every game
        game_ids = [g.game_id for g in games]
        wait_for(lambda: caught_up(r, layout, game_ids), seconds=60, every=0.1)
        wait_for(lambda: all(pending(r, layout, layout.feed, group_of(m)) == 0 for m in MODELS), 30, every=0.1)
        projection.stop()
        live = {m: dump_model(r, layout, m) for m in MODELS}

        # Then every read model equals, key by key and byte by byte, its rebuild from zero
        assert all(live.values()), [m for m, v in live.items() if not v]
        rebuild(r, layout)
        for model in MODELS:
            rebuilt = dump_model(r, layout, model)
            assert rebuilt.keys() == live[model].keys(), model
            for key, value in live[model].items():
                assert rebuilt[key] == value, f"{model}: {key}"

"""Repeated timeouts hand a seat to a bot, through the service with a controlled clock (nobody waits): the timer
readies the bots process, the game records the handover, the bots process plays the seat, and the seat's player
takes it back with ``TakeSeat``. On a real redis-server and on fakeredis (the ``backend`` fixture)."""

from __future__ import annotations

from typing import Any

import orjson

from services.bots.games import BotConfig
from services.bots.runner import BotRunner
from tests.service.test_clocks import MINUTE, T0, Table, table  # noqa: F401 - fixture

BOT_AFTER = {"clock": {"mode": "per_decision", "per_decision_s": 60, "bot_after": 1, "bot": "heuristic"}}


def _runner(t: Table) -> BotRunner:
    lay = t.backend.layout
    runner = BotRunner(t.backend.make(), range(lay.shards), layout=lay, config=BotConfig(sweep_every_ms=0))
    runner.setup()
    return runner


def _awaited(t: Table, gid: str) -> int:
    loaded = t.state(gid)
    (seat,) = loaded.rules.awaited(loaded.state)
    return int(seat)


def _human_moves(t: Table, gid: str, seat: int, token: str) -> None:
    """``seat``'s player makes its first legal move."""
    loaded = t.state(gid)
    move = loaded.rules.encode_command(loaded.rules.legal_commands(loaded.state, seat)[0])
    t.client.submit(gid, seat, token, move)
    t.worker.run_until_idle()


def _bots_look(t: Table, runner: BotRunner, gid: str) -> list[dict[str, Any]]:
    """The bots process takes a turn (the worker then applies what it sent); returns the game's new events."""
    before = len(t.events(gid))
    runner.step(block_ms=0)
    t.worker.run_until_idle()
    return t.events(gid)[before:]


def test_given_bot_after_one_when_a_seat_times_out_then_the_bot_plays_it_until_its_player_takes_it_back(
    table: Table,  # noqa: F811 - the imported fixture
) -> None:
    # Given a two-seat Barracks game whose clock hands a seat to the heuristic bot at its first timeout
    game = table.create("barracks", ["Ann", "Bob"], BOT_AFTER)
    gid = game.game_id
    seat = _awaited(table, gid)
    other = 1 - seat
    lay = table.backend.layout
    shard = lay.shard_of(gid)
    r = table.backend.make()
    runner = _runner(table)
    # And, before any timeout, the bots process plays nothing here
    assert _bots_look(table, runner, gid) == [] and _awaited(table, gid) == seat
    # When the seat's minute runs out and the timer submits its timeout
    table.clock.now = T0 + MINUTE
    assert table.timer().step() == 1
    # Then the timer has made the bots process follow the game (an empty bots key: no bot seat of its own)
    assert orjson.loads(r.get(lay.bots(shard, gid)))["seats"] == {}
    assert r.sismember(lay.bot_games(shard), gid)
    # And the game records the timeout, then the handover to the heuristic bot
    before = len(table.events(gid))
    table.worker.run_until_idle()
    new = table.events(gid)[before:]
    assert [e["type"] for e in new[:2]] == ["SeatTimedOut", "SeatHandedOver"]
    assert new[1]["seat"] == seat and new[1]["bot"] == "heuristic" and new[1]["rulings"] == ["KX17", "KX22"]
    # When the other seat's player moves and the game awaits the seat again (no more time has passed)
    for _ in range(6):
        if _awaited(table, gid) == seat:
            break
        _human_moves(table, gid, other, game.tokens[other])
    assert _awaited(table, gid) == seat
    # Then the bots process plays the seat: an accepted move of its own, no timeout (the clock did not move)
    played = _bots_look(table, runner, gid)
    assert played and "SeatTimedOut" not in [e["type"] for e in played]
    assert played[-1] == {"type": "ClockStamped", "seat": seat, "at_ms": T0 + MINUTE, "timed_out": False,
                          "rulings": ["KX17"]}  # fmt: skip
    # When the seat's player takes the seat back (the bot has not played its next decision yet)
    for _ in range(6):
        if _awaited(table, gid) == seat:
            break
        _human_moves(table, gid, other, game.tokens[other])
    before = len(table.events(gid))
    table.client.submit(gid, seat, game.tokens[seat], {"type": "TakeSeat"})
    table.worker.run_until_idle()
    # Then that is recorded, and the bots process no longer moves for the seat: the game waits for its player
    taken = table.events(gid)[before:]
    assert taken == [{"type": "SeatHandedOver", "seat": seat, "bot": None, "rulings": ["KX22"]}]
    awaited_before = _awaited(table, gid)
    assert _bots_look(table, runner, gid) == [] and _bots_look(table, runner, gid) == []
    assert _awaited(table, gid) == awaited_before
    # And a second TakeSeat is refused and changes nothing
    cid = table.client.submit(gid, seat, game.tokens[seat], {"type": "TakeSeat"})
    table.worker.run_until_idle()
    refused = table.client.outcome(gid, seat, cid)
    assert refused is not None and refused.rejection is not None and refused.rejection.code == "not_handed_over"
    assert table.events(gid)[before:] == taken

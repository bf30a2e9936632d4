"""The offline adjudicator referees a clocked game from the times written on its lines."""

from __future__ import annotations

import orjson

from services.adjudicator import adjudicate

HEADER = {
    "game": "shadow",
    "players": ["Red", "Green", "Blue"],
    "settings": {"clock": {"mode": "per_decision", "per_decision_s": 60}},
    "seed": 1,
    "at_ms": 1_000,
}


def _run(lines: list[dict[str, object]]) -> list[dict[str, object]]:
    return list(adjudicate([orjson.dumps(line) for line in lines]))


def test_given_timed_lines_when_adjudicated_then_timeouts_follow_the_written_times_the_same_every_time() -> None:
    lines = [
        HEADER,
        {"type": "TimeOut", "seat": 0, "turn": 1, "at_ms": 60_999},  # a millisecond early
        {"type": "TimeOut", "seat": 0, "turn": 1, "at_ms": 61_000},
        {"type": "TimeOut", "seat": 0, "turn": 1},  # stale: seat 0 has had its default move
    ]
    out = _run(lines)
    rejections = [r["rejection"]["code"] for r in out if "rejection" in r]  # type: ignore[index]
    assert rejections == ["clock_running", "stale_timeout"]
    timed_out = [r["event"] for r in out if r.get("line") == 3 and "event" in r]
    assert timed_out[0]["type"] == "SeatTimedOut" and timed_out[0]["rulings"] == ["X16", "X20"]  # type: ignore[index]
    assert timed_out[-1] == {"type": "ClockStamped", "seat": 0, "at_ms": 61_000, "timed_out": True, "rulings": ["X16"]}
    assert _run(lines) == out

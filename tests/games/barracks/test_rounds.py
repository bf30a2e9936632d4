"""End of a round and of the game [K12, K28, K38, K39]: all seats passing in succession, what returns for the next
round, three rounds, the score (Emperors, sets, Triumph barbarians), a shared victory or the tiebreak."""

from __future__ import annotations

from services.games.barracks.rules import facts as F
from services.games.barracks.rules.board import FACTIONS
from services.games.barracks.rules.state import POOL, WON
from tests.games.barracks.support import (
    N22,
    ROMA,
    RULES,
    accepted,
    captured,
    one,
    play,
    table,
    types,
)

E22, S22, W22 = "2,3", "3,2", "2,1"


def test_given_every_seat_without_a_play_when_the_last_card_is_played_then_all_pass_and_the_round_ends() -> None:
    """[K38, K20, K12] Every seat passes in succession: the round ends; the Emperors left are out of the game,
    unscored; every card not in a scoring area returns; the next round starts with the next faction clockwise."""
    state = table(
        emperors={ROMA: "red-emperor-01", "4,4": "blue-emperor-01"},
        board={E22: "yellow-5-mob"},
        counters={"yellow-5-mob": 2},
        face_down=["yellow-5-mob"],
        hands={0: ["red-3-cavalry"], 1: [], 2: [], 3: []},
        forum=[],
    )
    first = state.first_actor
    events, after = accepted(state, play(0, "red-3-cavalry", N22))
    assert [e.seat for e in events if type(e) is F.Passed] == [1, 2, 3, 0]
    ended = one(events, F.RoundEnded)
    assert (ended.round, ended.reason, set(ended.emperors_out)) == (
        1,
        "all_passed",
        {"red-emperor-01", "blue-emperor-01"},
    )
    assert {after.T.emperor_index[x] for x in ended.emperors_out} <= set(after.out)
    started = one(events, F.RoundStarted)
    assert (started.round, started.first_faction) == (2, FACTIONS[(first + 1) % 4])
    assert types(events).index("RoundEnded") < types(events).index("RoundStarted")
    c = after.T.card_index["yellow-5-mob"]
    assert after.counters[c] == 0 and not after.face_down[c]  # counters back, face-down cards turned up
    assert after.round == 2 and len(one(events, F.DeckShuffled).order) == 52


def test_given_a_triumph_barbarian_when_the_round_ends_then_it_stays_in_the_scoring_area() -> None:
    """[K28, K38, K11] A barbarian won through Triumph is out of the game: the next deck has one barbarian less."""
    state = table(
        emperors={ROMA: "red-emperor-01"},
        board={N22: "barbarian-16", E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["blue-8-triumph"]},
    )
    events, after = accepted(state, play(0, "blue-8-triumph", N22))
    assert one(events, F.RoundEnded).reason == "no_emperors"
    assert after.loc[after.T.card_index["barbarian-16"]] == WON + 0
    assert len(one(events, F.DeckShuffled).order) == 51
    assert all(after.loc[c] != POOL for c in range(after.T.n_cards))


def final_turn(**kw: object) -> tuple[list[object], object]:
    """Round 3 with one Emperor left, which seat 0 captures with a red 8: the game ends."""
    state = table(
        round=3,
        emperors={ROMA: "red-emperor-01"},
        board={E22: "blue-5-foederati", S22: "red-3-cavalry", W22: "yellow-6-mob"},
        hands={0: ["red-8-spiculum"]},
        **kw,  # type: ignore[arg-type]
    )
    return accepted(state, play(0, "red-8-spiculum", N22, "decline"))


def test_given_round_3_when_the_last_emperor_is_captured_then_the_game_ends_with_scores_and_sets() -> None:
    """[K39] 1 point per Emperor, plus set_bonus per set (least of red, blue, yellow; Pretenders are yellow), plus
    barbarian_vp per Triumph barbarian."""
    triumph = F.InfluencePlayed(
        seat=1, rival=None, card="blue-7-triumph", space="-1,2", emperors=(), placement="triumph", ability="used",
        barbarian_taken="barbarian-17", rulings=("K35",),
    )  # fmt: skip
    events, after = final_turn(
        extra=[
            *captured(0, "blue-emperor-02", "yellow-emperor-03", "red-emperor-04", "blue-emperor-05"),
            *captured(1, "red-emperor-06", "blue-emperor-07", "pretender-1"),
            triumph,
        ]
    )
    ended = one(events, F.GameEnded)
    assert ended.emperors[0] == (2, 2, 1) and ended.sets[0] == 1 and ended.scores[0] == 5 + 3
    assert ended.emperors[1] == (1, 1, 1) and ended.barbarians[1] == 1 and ended.scores[1] == 3 + 3 + 1
    assert (ended.winners, ended.shared) == ((0,), False)
    assert RULES.is_over(after) and RULES.result(after)["winners"] == [0]  # type: ignore[index]
    assert RULES.awaited(after) == ()


def test_given_a_tie_when_the_game_ends_then_it_is_a_shared_victory_or_broken_by_the_option() -> None:
    """[K39] A tie is a shared victory; option tiebreak=sets_then_emperors breaks it by sets, then Emperors."""
    extra = [*captured(1, "red-emperor-06", "blue-emperor-07", "yellow-emperor-08", "red-emperor-09")]
    # seat 0: the red Emperor of the final turn + 3 others = 4 Emperors, no set: 4; seat 1: 4 + 3 = 7. Make seat 0 7:
    extra += captured(0, "blue-emperor-02", "yellow-emperor-03", "red-emperor-04", "red-emperor-05", "red-emperor-10")
    events, _ = final_turn(extra=extra)
    ended = one(events, F.GameEnded)
    assert ended.scores[:2] == (9, 7)
    extra = [*captured(1, "red-emperor-06", "blue-emperor-07", "yellow-emperor-08", "red-emperor-09")]
    extra += captured(
        0, "red-emperor-04", "red-emperor-05", "red-emperor-10", "red-emperor-11", "red-emperor-12", "red-emperor-13"
    )
    events, _ = final_turn(extra=extra)
    ended = one(events, F.GameEnded)
    assert ended.scores[:2] == (7, 7) and (ended.winners, ended.shared, ended.tiebreak_used) == ((0, 1), True, False)
    events, _ = final_turn(extra=extra, settings={"tiebreak": "sets_then_emperors"})
    ended = one(events, F.GameEnded)
    assert (ended.winners, ended.shared, ended.tiebreak_used) == ((1,), False, True)


def test_given_other_set_bonus_and_barbarian_vp_when_scored_then_the_options_apply() -> None:
    """[K39] set_bonus and barbarian_vp are table options."""
    extra = captured(0, "blue-emperor-02", "yellow-emperor-03")
    events, _ = final_turn(extra=extra, settings={"set_bonus": 5})
    assert one(events, F.GameEnded).scores[0] == 3 + 5

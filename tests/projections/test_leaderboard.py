"""Each game's leaderboard: built from the feed by the scoreboard projection, per game name, keyed by the stable
player ids given at creation (a display name is only shown), ranked and paged; rebuildable from zero."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from projections.api import BadPage, ReadModels, UnknownGameName
from projections.models import ALL_MODELS
from projections.rebuild import rebuild
from projections.runner import ProjectionWorker
from projections.scoreboard_model import leaderboard_count_args, win_units
from projections.store import WIN_UNITS, ProjectionScripts, RMKeys
from services.bus.keys import Layout
from services.client import ServiceClient
from services.rules.contract import LeaderboardSpec, Presenter, SharedWin, Standing
from services.rules.table import Table
from tests.projections.helpers import FAST_PROJECTION, STEADY, dump_model, play, shadow_player_ids
from tests.service.conftest import Backend
from tests.service.helpers import toy_amounts
from tests.service.toy_game import ToyRules


@dataclass(frozen=True)
class Played:
    """A toy21 game played to its end: who sat where (names and ids), and the winning seat."""

    players: tuple[str, ...]
    player_ids: tuple[str | None, ...]
    winner: int
    total: int


def play_toy(client: ServiceClient, players: Sequence[str], player_ids: Sequence[str | None], seed: int) -> Played:
    """Create a toy21 game with these names and ids and play it to its end (seats alternate)."""
    game = client.create_game("toy21", list(players), seed=seed, player_ids=list(player_ids))
    total = 0
    for i, amount in enumerate(toy_amounts(seed)):
        outcome = client.send(game.game_id, i % 2, game.tokens[i % 2], {"type": "Add", "amount": amount})
        assert outcome.accepted, outcome
        total += amount
    info = client.game_info(game.game_id)
    assert info is not None and info["status"] == "over" and info["player_ids"] == list(player_ids)
    return Played(tuple(players), tuple(player_ids), info["result"]["winners"][0], total)


def project(backend: Backend) -> None:
    """Bring the scoreboard model (and so the leaderboards) up to date with everything played so far."""
    worker = ProjectionWorker(backend.make(), ALL_MODELS["scoreboard"](), layout=backend.layout, config=FAST_PROJECTION)
    worker.run_until_idle()


def rows_by_id(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["player_id"]: row for row in board["rows"]}


def test_players_are_told_apart_by_id_not_name_and_one_id_accumulates(backend: Backend) -> None:
    # Given three toy21 games: two different people both called "Red" (ids alice and carol), bob in two games
    # under two names, and a seat without a player id
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    first = play_toy(client, ["Red", "Blue"], ["alice", "bob"], seed=1)
    second = play_toy(client, ["Red", "Green"], ["carol", "bob"], seed=2)
    third = play_toy(client, ["Red", "Blue"], [None, "alice"], seed=3)

    # When the scoreboard projection has followed the feed
    project(backend)
    board = ReadModels(backend.make(), backend.layout).leaderboard("toy21")

    # Then there is one row per player id: the two "Red"s are two rows, and nobody stands for the seat without id
    rows = rows_by_id(board)
    assert set(rows) == {"alice", "bob", "carol"} and board["total"] == 3
    assert board["game"] == "toy21" and board["score_label"] == "score" and board["shared_win"] == "each"

    # and a player's games accumulate under the id, whatever name was used (the name shown is the latest)
    def expected(pid: str, games: list[Played]) -> dict[str, Any]:
        seats = [(g, g.player_ids.index(pid)) for g in games if pid in g.player_ids]
        scores = [g.total if seat == g.winner else 0 for g, seat in seats]
        return {
            "player_id": pid,
            "name": seats[-1][0].players[seats[-1][1]],
            "games": len(seats),
            "wins": sum(seat == g.winner for g, seat in seats),
            "shared_wins": 0,
            "average_score": round(sum(scores) / len(scores), 3),
        }

    for pid in ("alice", "bob", "carol"):
        row = {k: v for k, v in rows[pid].items() if k != "rank"}
        assert row == expected(pid, [first, second, third]), pid
    assert rows["alice"]["name"] == "Blue" and rows["bob"]["name"] == "Green" and rows["carol"]["name"] == "Red"

    # and the rows are in rank order: most wins, then best average score, most games, player id
    order = [(-r["wins"], -(r["average_score"] or 0), -r["games"], r["player_id"]) for r in board["rows"]]
    assert order == sorted(order) and [r["rank"] for r in board["rows"]] == [1, 2, 3]


def test_each_game_has_its_own_table_and_score_meaning(backend: Backend) -> None:
    # Given a finished Shadow game (player ids sh-1, sh-2, sh-3) and toy21 games where sh-1 plays too
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    play(backend, client, shadow=[(61, 3)], tag="mix")
    toys = [play_toy(client, ["Ann", "Bob"], ["sh-1", "toy-bob"], seed=s) for s in (4, 5)]

    # When the leaderboards are projected
    project(backend)
    models = ReadModels(backend.make(), backend.layout)
    shadow, toy, barracks = models.leaderboard("shadow"), models.leaderboard("toy21"), models.leaderboard("barracks")

    # Then Shadow's table holds its own game only, in victory points; toy21's its own, in its plain "score"
    assert set(rows_by_id(shadow)) == set(shadow_player_ids(61, 3)) and shadow["score_label"] == "victory points"
    assert all(row["games"] == 1 for row in shadow["rows"])
    assert set(rows_by_id(toy)) == {"sh-1", "toy-bob"} and toy["score_label"] == "score"
    assert rows_by_id(toy)["sh-1"]["games"] == len(toys)
    # and a game nobody finished has an empty table with its own meaning; the default game is Shadow
    assert barracks["rows"] == [] and barracks["total"] == 0 and barracks["score_label"] == "points"
    assert models.leaderboard() == shadow
    # and pages cut the same ranking
    assert [r["player_id"] for r in models.leaderboard("shadow", offset=1, limit=2)["rows"]] == [
        r["player_id"] for r in shadow["rows"][1:3]
    ]
    assert models.leaderboard("shadow", offset=3)["rows"] == []


def test_leaderboards_rebuilt_from_zero_equal_the_live_ones(backend: Backend) -> None:
    # Given toy21 games projected live as they end (names change seat to seat, ids meet again and again)
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    names = ("Red", "Blue", "Green")
    for seed in range(6, 12):
        a, b = seed % 3, (seed + 1) % 3
        play_toy(client, [names[b], names[a]], [f"p{a}", f"p{b}" if seed % 4 else None], seed=seed)
        project(backend)
    r = backend.make()
    live = dump_model(r, backend.layout, "scoreboard")
    board = ReadModels(r, backend.layout).leaderboard("toy21")
    assert board["total"] == 3

    # When the scoreboard model is rebuilt from zero (games counted in another order)
    rebuild(r, backend.layout, ["scoreboard"])

    # Then every key equals the live one, byte for byte, and so does the answer
    assert dump_model(r, backend.layout, "scoreboard") == live
    assert ReadModels(r, backend.layout).leaderboard("toy21") == board


def test_queries_out_of_bounds_are_refused_with_typed_errors(backend: Backend) -> None:
    models = ReadModels(backend.make(), backend.layout)
    with pytest.raises(UnknownGameName) as unknown:
        models.leaderboard("nosuchgame")
    assert unknown.value.code == "unknown_game_name"
    for offset, limit in ((0, 0), (0, 101), (-1, 10)):
        with pytest.raises(BadPage) as bad:
            models.leaderboard("toy21", offset=offset, limit=limit)
        assert bad.value.code == "bad_page"
    assert models.leaderboard("toy21", limit=100)["rows"] == []


# --- counting, without the service ------------------------------------------------------------------------
TOY_TABLE = Table(ToyRules())
"""The toy game's rules at the table, as the service holds a game (the leaderboard asks it about the seed)."""
ENDED = TOY_TABLE.initial_state()
"""A table with no commitment (the standings below are given, not read from it)."""


class FixedPresenter(Presenter[Any]):
    """A presenter whose final standings are given (scores, winners) and whose shared wins count as told."""

    def __init__(self, shared_win: SharedWin, standings: list[Standing]) -> None:
        super().__init__(TOY_TABLE)
        self.leaderboard = LeaderboardSpec(score_label="marks", shared_win=shared_win)
        self.standings = standings

    def final_standings(self, state: Any) -> list[Standing] | None:
        return self.standings


@pytest.mark.parametrize(
    ("rule", "each_of_two", "each_of_three"), [("each", 1, 1), ("split", 1 / 2, 1 / 3), ("none", 0, 0)]
)
def test_a_shared_victory_counts_as_the_game_says(rule: SharedWin, each_of_two: float, each_of_three: float) -> None:
    # Given a game whose presenter says how a shared victory counts, and ends won alone, by two, by three
    assert win_units(rule, 1) == WIN_UNITS
    assert win_units(rule, 2) == round(each_of_two * WIN_UNITS)
    assert win_units(rule, 3) == round(each_of_three * WIN_UNITS)
    # When a game with two winners of three is counted
    presenter = FixedPresenter(rule, [Standing(5, True), Standing(5, True), Standing(None, False)])
    argv = leaderboard_count_args(presenter, ENDED, "g1", ["A", "B", "C"], ["a", "b", None], 1234)
    # Then the winners get their share and the mark of a shared victory; the seat without an id is left out
    assert argv == ["g1", "000000000001234:g1",
                    "a", "A", win_units(rule, 2), "1", "5",
                    "b", "B", win_units(rule, 2), "1", "5"]  # fmt: skip


def _count(r: redis.Redis, keys: RMKeys, scripts: ProjectionScripts, argv: list[Any]) -> None:
    names = keys.leaderboard_keys("toy21")
    r.evalsha(scripts.count_game, len(names), *names, *argv)


def test_counting_the_same_games_in_any_order_gives_the_same_leaderboard(backend: Backend) -> None:
    # Given ended games with shared victories, split wins, unknown and negative scores, names that change
    rng = random.Random(5)
    ids = ["ann", "bob", "cid", "dee:1", "e.e-e_"]
    games = []
    for g in range(30):
        seated = rng.sample(ids, rng.randint(2, 4))
        winners = set(rng.sample(range(len(seated)), rng.choice((1, 1, 2))))
        standings = [
            Standing(rng.choice((None, -3, 0, 7, 12.5, rng.randint(0, 40))), s in winners) for s in range(len(seated))
        ]
        presenter = FixedPresenter(rng.choice(("each", "split")), standings)
        names = [f"{pid.upper()}{rng.randint(1, 3)}" for pid in seated]
        games.append(leaderboard_count_args(presenter, ENDED, f"g{g}", names, seated, 1000 + rng.randint(0, 50)))
    r = backend.make()
    scripts = ProjectionScripts.load(r)

    # When they are counted in three different orders (each game twice: the second count changes nothing)
    dumps = []
    for order in range(3):
        layout = Layout(prefix=f"order{order}", shards=backend.layout.shards)
        keys = RMKeys(layout)
        shuffled = games[:]
        random.Random(order).shuffle(shuffled)
        for argv in itertools.chain(shuffled, shuffled[:5]):
            _count(r, keys, scripts, argv)
        dump = dump_model(r, layout, "scoreboard")
        dumps.append({key.removeprefix(f"order{order}"): value for key, value in dump.items()})
        board = ReadModels(r, layout).leaderboard("toy21", limit=100)
        # Then the ranking is in order: wins, then average score (unknown last), games, player id
        keyed = [
            (-r_["wins"], r_["average_score"] is None, -(r_["average_score"] or 0), -r_["games"], r_["player_id"])
            for r_ in board["rows"]
        ]
        assert keyed == sorted(keyed) and board["total"] == len(ids)
        assert sum(row["games"] for row in board["rows"]) == sum((len(a) - 2) // 5 for a in games)

    # Then every order wrote the very same keys and bytes
    assert dumps[0] == dumps[1] == dumps[2]

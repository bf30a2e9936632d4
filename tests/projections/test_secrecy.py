"""No seat's feed or view contains another seat's sealed vote before the reveal (and, with hidden victory
points, another seat's total before the end); after the end everything is public."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import event as note_kind
from hypothesis import given as for_all
from hypothesis import settings
from hypothesis import strategies as st

from projections.api import ReadModels
from projections.base import Applied, GameCtx
from projections.feed_model import apply_view_patch
from projections.models import FeedModel
from projections.rebuild import rebuild
from projections.store import Ops, RMKeys
from services.bench.scripts import GameScript, record_games
from services.bus.keys import Layout
from services.games.shadow.messages import events as ev
from services.rules.contract import GamePlugin
from services.store.meta import GameMeta
from tests.games.shadow.support import NAMES, PRESENTER, RULES
from tests.games.shadow.test_properties import PROFILE
from tests.games.shadow.test_properties import play as play_random
from tests.projections.helpers import STEADY
from tests.service.conftest import Backend

LAYOUT = Layout(prefix="prop", shards=4)
KEYS = RMKeys(LAYOUT)


def _feed_writes(players: tuple[str, ...], log: list[Any], cuts: list[int]) -> list[tuple[int, Ops]]:
    """Run the feed model over ``log`` in batches of the drawn sizes; (last version, writes) per batch."""
    meta = GameMeta("g", "shadow", players, {}, 0, ())
    plugin = GamePlugin(RULES, PRESENTER)  # the game at the table, as the service holds it
    table, presenter = plugin.rules, plugin.presenter
    ctx = GameCtx("g", LAYOUT.shard_of("g"), meta, plugin, None, 0, "active", 0)
    out = []
    state, version, i = table.initial_state(), 0, 0
    sizes = iter(cuts)
    while version < len(log):
        size = next(sizes, 25)
        before, batch = state, []
        for event in log[version : version + size]:
            version += 1
            state = table.evolve(state, event)
            batch.append(Applied(version, event, event.to_dict(), 0, "c", state))
        ops = Ops()
        FeedModel().write(ctx, before, batch, ops, KEYS, None)
        seats: list[int | None] = [*range(len(players)), None]
        # (the feed builds all views at once; each must be exactly that seat's view)
        assert presenter.views(state, seats) == [presenter.view(state, seat) for seat in seats]
        out.append((version, ops))
        i += 1
    return out


def _as_seen(fields: dict[str, Any], seat: int | None) -> tuple[Any, str]:
    """(event JSON, text) of one feed entry as ``seat`` reads it (the seat's own fields, else the public ones)."""
    if seat is not None and f"e{seat}" in fields:
        return fields[f"e{seat}"], fields.get(f"x{seat}", "")
    return fields["e"], fields["x"]


def _check_secrecy(names: tuple[str, ...], log: list[Any], writes: list[tuple[int, Ops]], hidden_vp: bool) -> int:
    """Walk the events and the feed writes together; returns how many sealed-vote moments were checked."""
    seats: list[int | None] = [*range(len(names)), None]
    sealed_by: dict[int, int] = {}  # version -> seat, of VoteSealed events
    open_votes: dict[int, set[int]] = {}  # version -> seats whose vote is sealed and not revealed after it
    end_version = next(v for v, e in enumerate(log, 1) if isinstance(e, ev.GameEnded))
    current: set[int] = set()
    for v, event in enumerate(log, 1):
        if isinstance(event, ev.VoteSealed):
            sealed_by[v] = event.seat
            current.add(event.seat)
        elif isinstance(event, ev.VotesRevealed):
            current = set()
        open_votes[v] = set(current)
    checked = 0
    for last, ops in writes:
        for command, _idx, args in ops.ops:
            if command == "XADD":
                version = int(args[0].partition("-")[2])
                fields = dict(zip(args[1::2], args[2::2], strict=True))
                event = log[version - 1]
                for seat in seats:
                    raw, text = _as_seen(fields, seat)
                    if hidden_vp and isinstance(event, ev.VictoryPointsScored) and event.seat != seat:
                        assert not raw and not text, (seat, raw)  # another seat's score is withheld [X14]
                        continue
                    assert raw, "only hidden scores are withheld in Shadow: a seat sees that something happened"
                    shown = orjson.loads(raw)
                    if version in sealed_by and sealed_by[version] != seat:
                        checked += 1
                        assert "candidate" not in shown and shown["redacted"], (seat, shown)
                        assert text == f"{names[sealed_by[version]]} seals a vote."
                    elif version in sealed_by:
                        assert shown["candidate"] == event.candidate  # a seat sees its own vote
            elif command == "HSET":
                fields = dict(zip(args[::2], args[1::2], strict=True))
                for seat in seats:
                    view = orjson.loads(fields["view:spec"])
                    if seat is not None:
                        view = apply_view_patch(view, orjson.loads(fields[f"view:{seat}"]))
                    for other in open_votes[last] - {seat}:
                        checked += 1
                        assert view["votes"][other] in (None, "sealed"), (seat, other, last)
                    if hidden_vp and last < end_version:
                        assert all(vp is None for o, vp in enumerate(view["victory_points"]) if o != seat)
    return checked


@settings(PROFILE)
@for_all(data=st.data())
def test_given_random_games_no_seat_feed_or_view_shows_another_seats_sealed_vote_before_the_reveal(
    data: st.DataObject,
) -> None:
    # Given a random game (2-4 players, elections made likely, victory points maybe hidden), cut into
    # feed batches at random places (so views are written at every kind of moment)
    players = data.draw(st.integers(2, 4), label="players")
    hidden = data.draw(st.booleans(), label="hidden_vp")
    game = play_random(data, players, table={"hidden_victory_points": hidden}, rival_bias=True)
    cuts = data.draw(st.lists(st.integers(1, 30), min_size=1, max_size=300), label="batch sizes")

    # When the seat-feed model projects it
    writes = _feed_writes(tuple(NAMES[:players]), game.log, cuts)

    # Then no feed entry and no view of a seat shows another seat's sealed vote before VotesRevealed, nor,
    # with hidden victory points, another seat's total before the end
    checked = _check_secrecy(tuple(NAMES[:players]), game.log, writes, hidden)
    note_kind("sealed votes met" if checked else "no election in this game")


def _first_vote_prefix(seed: int, players: int) -> tuple[GameScript, int]:
    """A recorded game with an election, and the number of its commands up to its first CastVote."""
    for s in range(seed, seed + 200):
        script = record_games("shadow", 1, seed=s, players=players)[0]
        for i, (_, cmd, _) in enumerate(script.moves):
            if cmd["type"] == "CastVote":
                return script, i + 1
    raise AssertionError("no game with an election")


def test_through_redis_a_vote_stays_sealed_in_feeds_views_and_replays_until_revealed(backend: Backend) -> None:
    # Given a 4-player game played through the service up to its first sealed vote, and projected
    backend.start(backend.worker(config=STEADY))
    client = backend.client()
    r = backend.make()
    script, upto = _first_vote_prefix(5, 4)
    create, commands = script.envelopes("vote-game")
    client.submit_many([create, *commands[:upto]])
    for c in [create, *commands[:upto]]:
        assert client.wait_on(c).accepted
    rebuild(r, backend.layout)
    models = ReadModels(r, backend.layout)
    voter = script.moves[upto - 1][0]
    other = (voter + 1) % 4
    sealed_at = max(e.version for e in client.read_events("vote-game") if e.data["type"] == "VoteSealed")

    # Then another seat's feed, view and replay show that a vote was sealed, not for whom
    feed = models.seat_feed("vote-game", other)
    entry = next(e for e in feed["events"] if e["version"] == sealed_at)
    assert entry["event"]["redacted"] and "candidate" not in entry["event"]
    assert feed["view"]["votes"][voter] == "sealed"
    step = models.replay("vote-game", sealed_at, other)
    assert "candidate" not in step["event"] and step["view"]["votes"][voter] == "sealed"
    assert "candidate" not in orjson.dumps(models.seat_feed("vote-game", None)["events"]).decode()
    # while the voter sees its own vote
    own = models.replay("vote-game", sealed_at, voter)
    assert own["event"]["candidate"] == script.moves[upto - 1][1]["candidate"]

    # When the game is played to its end
    client.submit_many(commands[upto:])
    for c in commands[upto:]:
        assert client.wait_on(c).accepted
    rebuild(r, backend.layout)

    # Then the same replay step is public: the vote shows to everyone
    after = models.replay("vote-game", sealed_at, other)
    assert after["event"]["candidate"] == own["event"]["candidate"]
    assert after["view"]["votes"][voter] == own["event"]["candidate"]


def test_the_secrecy_walk_checks_real_sealed_votes() -> None:
    # Given a recorded 4-player game with an election, its events, and hidden victory points
    script, _ = _first_vote_prefix(5, 4)
    state = None
    log = RULES.start(script.players, {"hidden_victory_points": True}, script.seed)
    for event in log:
        state = RULES.evolve(state, event)
    for _seat, cmd, _ in script.moves:
        result = RULES.decide(state, RULES.parse_command(cmd))
        if not isinstance(result, list):
            break  # the hidden-VP table may part ways with the recording: the prefix is enough
        for event in result:
            state = RULES.evolve(state, event)
        log += result
    assert any(isinstance(e, ev.VoteSealed) for e in log)

    # When the feed model projects it in batches of one and of seven events
    for cuts in ([1], [7]):
        writes = _feed_writes(tuple(script.players), log, cuts * len(log))

        # Then the walk really met sealed votes of other seats (the property above is not vacuous)
        assert _check_secrecy(tuple(script.players), log, writes, hidden_vp=True) > 0

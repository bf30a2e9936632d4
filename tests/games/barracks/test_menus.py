"""Space names, command labels and menus [K5, K15-K22, K29-K31, K43]: one naming scheme for spaces, labels that
say card, space and what the ability does, unique within a seat's legal list, and menu groups that partition the
list; the contract's default menu is one group."""

from __future__ import annotations

import random

import pytest

from services.games.barracks import plugin
from services.games.barracks.presentation.menus import LEVEL, MAX_GROUP
from services.games.barracks.presentation.names import space_id, space_name
from services.rules.contract import Presenter
from tests.games.barracks.support import E22, N22, NAMES, ROMA, legal, place, play, table

PLUGIN = plugin()
RULES, PRESENTER = PLUGIN.game_rules, PLUGIN.game_presenter


def test_given_every_space_when_named_then_names_are_map_coordinates_and_invert_to_the_ids() -> None:
    """[K5] Row letter A-G North to South, column digit 0-6 West to East, outer spaces included."""
    T = RULES.fold(RULES.start(NAMES, {}, 1)).T
    ids = [*T.space_ids, *T.emp_ids]
    names = [space_name(i) for i in ids]
    assert len(set(names)) == len(ids) and all(space_id(n) == i for n, i in zip(names, ids, strict=True))
    assert (space_name("-1,2"), space_name("0,0"), space_name(ROMA), space_name("5,4"), space_name("2,-1")) == (
        "A3",
        "B1",
        "D3",
        "G5",
        "D0",
    )
    with pytest.raises(ValueError):
        space_id("Z")


def test_given_a_play_with_a_target_when_labelled_then_the_label_names_card_space_side_and_effect() -> None:
    """[K16, K34] Spiculum on the North side of Roma discarding the card on its East side."""
    state = table(
        emperors={ROMA: "red-emperor-01", "0,0": "blue-emperor-02"},
        board={E22: "blue-3-tribute"},
        hands={0: ["red-7-spiculum", "barbarian-17"]},
    )
    labels = {PRESENTER.label(c, state) for c in legal(state, 0)}
    assert "Play red 7 Spiculum on C3 (N of D3); discard blue 3 Tribute on D4" in labels
    assert "Play red 7 Spiculum on C3 (N of D3); decline its ability" in labels
    assert PRESENTER.label(place(0, "barbarian-17", "-1,0"), state) == (
        "barbarian 17: place it on homeland A1 (beside B1)"
    )
    assert PRESENTER.label(play(0, "red-7-spiculum", N22, "use", "blue-3-tribute")) == (
        "Play red 7 Spiculum on C3; use its ability on blue-3-tribute"
    )  # without a state: still readable


def test_given_the_forum_and_a_resolution_order_when_labelled_then_slots_and_places_are_named() -> None:
    """[K22, K29] A Forum pick names the slot; the resolution order names the Emperor and its space."""
    state = table(emperors={ROMA: "red-emperor-01"}, forum=["blue-4-tribute", "yellow-2-popularity"])
    take = RULES.parse_command({"type": "TakeFromForum", "seat": 0, "card": "yellow-2-popularity"})
    assert PRESENTER.label(take, state) == "Take yellow 2 Popularity from the Forum (slot 2)"
    resolve = RULES.parse_command({"type": "ResolveEmperor", "seat": 0, "emperor": "red-emperor-01"})
    assert PRESENTER.label(resolve, state) == "Resolve red Emperor 1 (D3) next"


def check_menu(commands: list[object], state: object) -> list[tuple[str, list[int]]]:
    labels = [PRESENTER.label(c, state) for c in commands]
    assert len(set(labels)) == len(labels) and all(labels)
    groups = PRESENTER.menu_groups(commands, state)
    indexes = [i for _, part in groups for i in part]
    assert sorted(indexes) == list(range(len(commands))) and all(part for _, part in groups)
    assert len({title for title, _ in groups}) == len(groups)
    for title, part in groups:  # a group holds one kind of action, and a card action one card
        kinds = {commands[i].type for i in part}  # type: ignore[attr-defined]
        assert len(kinds) == 1 or kinds == {"PlaceBarbarian", "MoveBarbarian"}, title
        if kinds & {"PlayInfluence", "PlaceBarbarian", "MoveBarbarian", "KeepCard"}:
            assert len({commands[i].card for i in part}) == 1, title  # type: ignore[attr-defined]
    return groups


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_given_random_games_when_legal_lists_are_labelled_and_grouped_then_unique_and_partitioned(players: int) -> None:
    """Every awaited seat's legal list at every third position: unique labels, groups partitioning it."""
    rng = random.Random(700 + players)
    state = RULES.fold(RULES.start(NAMES[:players], {}, 700 + players))
    step, biggest = 0, 0
    while not RULES.is_over(state):
        (seat,) = RULES.awaited(state)
        if step % 3 == 0:
            commands = RULES.legal_commands(state, seat)
            groups = check_menu(commands, state)
            biggest = max(biggest, len(commands))
            for title, part in groups:  # a long group of plays is one that splitting by space would not shorten
                if len(part) > MAX_GROUP and commands[part[0]].type == "PlayInfluence":  # type: ignore[attr-defined]
                    assert len({commands[i].space for i in part}) == len(part), title  # type: ignore[attr-defined]
        _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
        step += 1
    assert biggest > MAX_GROUP


def test_given_a_long_list_when_grouped_then_a_card_with_targets_on_many_spaces_is_split_by_space() -> None:
    """Tribute may go on many spaces, each with several barbarians to discard: one group per space, titled in two
    levels; Force March, with no target, stays one group however many spaces it has."""
    emperors = ("red-emperor-01", "blue-emperor-02", "yellow-emperor-03", "red-emperor-04", "blue-emperor-05")
    state = table(
        2,
        emperors=dict(zip((ROMA, "0,0", "0,2", "4,4", "2,0"), emperors, strict=True)),
        board={"-1,0": "barbarian-05", "-1,2": "barbarian-06", "5,4": "barbarian-07"},
        hands={0: ["blue-3-tribute", "red-5-force-march"]},
    )
    commands = legal(state, 0)
    groups = dict(check_menu(commands, state))
    tribute = [t for t in groups if t.startswith("Play blue 3 Tribute")]
    assert len(tribute) > 1 and all(LEVEL in t for t in tribute)
    assert all(len(groups[t]) == 4 for t in tribute)  # decline, or one of three barbarians
    assert "Play red 5 Force March" in groups and len(groups["Play red 5 Force March"]) > MAX_GROUP // 2


def test_given_any_game_when_the_contract_default_groups_a_menu_then_it_is_one_group() -> None:
    """The Presenter base class: one group of every command, none for an empty list."""
    state = table(emperors={ROMA: "red-emperor-01"}, hands={0: ["red-3-cavalry"]})
    commands = legal(state, 0)
    base = Presenter(RULES)
    assert base.menu_groups(commands, state) == [("Commands", list(range(len(commands))))]
    assert base.menu_groups([], state) == []

"""The presenter and the plug-in [K14, K39]: per-seat views, redacted events, words for every event and command
type (citing rulings, never a secret), the scoreboard, the plug-in's bots, schemas and rules reference."""

from __future__ import annotations

import random

from services.games.barracks import plugin
from services.games.barracks.rules import facts as F
from services.rules.contract import GamePlugin
from tests.games.barracks.support import NAMES, ROMA, accepted, play, table

PLUGIN = plugin()
RULES, PRESENTER = PLUGIN.game_rules, PLUGIN.game_presenter
BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}


def random_game(players: int = 4, seed: int = 11) -> tuple[list[object], list[object], object]:
    """Events, commands and the final state of one random game."""
    rng = random.Random(seed)
    events = RULES.start(NAMES[:players], {}, seed)
    state = RULES.fold(events)
    commands = []
    while not RULES.is_over(state):
        (seat,) = RULES.awaited(state)
        command = RULES.sample_legal(state, seat, rng)
        commands.append(command)
        new, state = RULES.execute(state, command)
        events += new
    return events, commands, state


def test_given_the_plugin_when_loaded_then_it_offers_rules_presenter_bots_schemas_and_reference() -> None:
    """[K42] The plug-in: capabilities, bots, settings/command/event schemas, the rules reference."""
    assert isinstance(PLUGIN, GamePlugin) and PLUGIN.name == "barracks"
    caps = RULES.capabilities
    assert (caps.min_players, caps.max_players, caps.hidden_information, caps.fast_execute) == (1, 4, True, True)
    assert set(PLUGIN.bots) == {"random", "heuristic"}
    assert PLUGIN.rules_reference is not None and PLUGIN.rules_reference.exists()
    assert "hand_size" in PLUGIN.settings_schema["properties"]  # type: ignore[index]
    assert PLUGIN.command_schema and PLUGIN.event_schema


def test_given_a_seat_when_it_looks_then_it_sees_its_hand_and_only_sizes_and_public_cards_of_others() -> None:
    """[K14] Own hand in full; other hands by size and known cards; no seed, no deck order."""
    state = table(emperors=BOARD, hands={0: ["red-3-cavalry", "blue-3-tribute"], 1: ["yellow-5-mob"]})
    view = PRESENTER.view(state, 0)
    assert view["hand"] == ["red-3-cavalry", "blue-3-tribute"] and view["hands"][1] == {
        "seat": 1,
        "size": 1,
        "known": [],
    }
    assert view["awaited"] == [0] and view["decision"] == "action" and view["emperors"][ROMA]["colour"] == "red"
    spectator = PRESENTER.view(state, None)
    assert "hand" not in spectator and all("cards" not in h for h in spectator["hands"])
    assert "seed" not in view and "deck" not in view and view["deck_size"] == len(state.deck)


def test_given_secret_events_when_redacted_then_only_their_owner_sees_the_cards() -> None:
    """[K14] HandDealt, CardDrawn, CardsLooked, CardKept show their cards to their seat only; shuffles and the seed
    to no one before the end."""
    dealt = F.HandDealt(seat=1, cards=("red-3-cavalry", "blue-3-tribute"), rulings=("K11",))
    state = table(emperors=BOARD)
    assert PRESENTER.redact(dealt, 1, state)["cards"] == [
        "red-3-cavalry",
        "blue-3-tribute",
    ]  # JSON-ready, as encode_event
    hidden = PRESENTER.redact(dealt, 0, state)
    assert hidden["cards"] is None and hidden["cards_count"] == 2 and hidden["redacted"]
    assert hidden["summary"] == "Bob is dealt 2 cards."  # words for a client, with sizes only
    kept = F.CardKept(seat=0, card="red-8-spiculum", bottom=("blue-1-influence-peddling",), rulings=("K31",))
    assert PRESENTER.redact(kept, None, state)["bottom"] is None
    started = PRESENTER.redact(RULES.start(NAMES, {}, 5)[0], 0, state)
    assert started["seed"] is None and "data" not in started and started["data_version"]


def test_given_every_event_and_command_type_of_games_when_described_then_words_cite_rulings_and_hide_secrets() -> None:
    """[K14] describe/explain cover every event type met; explain cites the rulings; no hand card in the words of a
    deal, a draw or a look; a label for every command."""
    seen: set[str] = set()
    for players, seed in ((4, 11), (1, 12), (3, 13), (2, 14)):
        events, commands, state = random_game(players, seed)
        for event in events:
            seen.add(event.type)  # type: ignore[attr-defined]
            text = PRESENTER.describe(event, NAMES)
            assert text and "None" not in text
            assert all(r in PRESENTER.explain_event(event, NAMES) for r in event.rulings)  # type: ignore[attr-defined]
            if type(event) in (F.HandDealt, F.CardsLooked, F.CardDrawn, F.CardKept):
                for card in [*getattr(event, "cards", ()), getattr(event, "card", None)]:
                    assert card is None or card not in text
        for command in commands[:60]:
            assert PRESENTER.label(command, state)
    assert {"GameStarted", "EmperorResolved", "ForumTaken", "RoundEnded", "GameEnded", "RivalDrew"} <= seen


def test_given_a_game_when_scored_then_the_scoreboard_shows_points_so_far_and_the_result() -> None:
    """[K39] Captured Emperors are public: the scoreboard shows points while playing and the result at the end."""
    state = table(
        emperors=BOARD,
        board={"2,3": "blue-5-foederati", "3,2": "red-3-cavalry", "2,1": "yellow-6-mob"},
        hands={0: ["red-8-spiculum"]},
    )
    _, after = accepted(state, play(0, "red-8-spiculum", "1,2", "decline"))
    board = PRESENTER.scoreboard(after)
    assert board["seats"][0]["score"] == 1 and board["over"] is False
    _, _, final = random_game(4, 21)
    board = PRESENTER.scoreboard(final)
    assert board["over"] and board["result"]["winners"]

"""High Card's presentation: a dealt hand is shown to its seat alone, in JSON and in words; the rest is public."""

from __future__ import annotations

from services.games.highcard import plugin
from services.games.highcard.messages import CardPlayed, HandDealt
from tests.games.highcard.support import NAMES, dealt, given, played

PRESENTER = plugin().game_presenter


def test_given_dealt_hands_when_each_reader_views_the_table_then_it_sees_its_own_hand_only() -> None:
    state = given(dealt(("2", "9"), ("5", "K")))
    assert PRESENTER.view(state, 0)["hand"] == ["2", "9"]
    assert PRESENTER.view(state, 1)["hand"] == ["5", "K"]
    spectator = PRESENTER.view(state, None)
    assert spectator["hand"] is None and spectator["hand_sizes"] == [2, 2]


def test_given_a_dealt_hand_when_redacted_for_another_reader_then_only_its_size_shows() -> None:
    events = dealt(("2", "9"), ("5", "K"))
    state = given(events)
    bobs_hand = events[2]
    assert isinstance(bobs_hand, HandDealt)
    # Then Bob sees his cards, Ann and a spectator only how many
    assert PRESENTER.redact(bobs_hand, 1, state)["cards"] == ["5", "K"]
    for reader in (0, None):
        shown = PRESENTER.redact(bobs_hand, reader, state)
        assert shown is not None and shown["cards"] is None and shown["count"] == 2 and shown["redacted"]
        assert PRESENTER.narrate(bobs_hand, reader, state, NAMES) == "Bob is dealt 2 cards."


def test_given_a_running_game_when_the_opening_is_redacted_then_the_seed_stays_sealed() -> None:
    events = dealt(("2",), ("5",))
    assert PRESENTER.redact(events[0], 0, given(events))["seed"] is None


def test_given_a_card_played_when_narrated_then_everyone_reads_it() -> None:
    events = dealt(("2", "9"), ("5", "K"))
    state = played(given(events), (0, "9"))
    for reader in (0, 1, None):
        assert PRESENTER.narrate(CardPlayed(seat=0, card="9"), reader, state, NAMES) == "Ann plays 9."


def test_given_the_seat_to_move_when_prompted_then_it_is_asked_with_its_hand_and_the_others_are_not() -> None:
    state = played(given(dealt(("2", "9"), ("5", "K"))), (0, "9"))
    assert PRESENTER.prompt(state, 1) == "Play a card from your hand (5, K). On the trick: Ann 9."
    assert PRESENTER.prompt(state, 0) is None


def test_given_hands_when_secrets_are_declared_then_each_card_in_a_hand_belongs_to_its_seat() -> None:
    state = played(given(dealt(("2", "9"), ("5", "K"))), (0, "9"))
    assert sorted((s.owner, s.value) for s in PRESENTER.secrets(state)) == [(0, "2"), (1, "5"), (1, "K")]


def test_given_a_trick_taken_when_the_scoreboard_and_text_board_are_read_then_they_tell_the_points() -> None:
    state = played(given(dealt(("2", "9"), ("5", "K"))), (0, "9"), (1, "K"))
    board = PRESENTER.scoreboard(state)
    assert [seat["score"] for seat in board["seats"]] == [0, 1] and not board["over"]
    text = PRESENTER.render_text(state, 0)
    assert "trick 2 of 2" in text and "Bob: 1 trick(s)" in text and "Your hand: 2" in text
    assert "Your hand" not in PRESENTER.render_text(state, None)

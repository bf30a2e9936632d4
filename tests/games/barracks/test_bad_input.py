"""Bad input gets a typed rejection citing the ruling and changes nothing [K1, K3, K5, K10, K14-K17, K21, K29, K39]:
unknown ids, a card not in hand, a space not legal for the faction, a missing or foreign ability target, out of
turn, the wrong decision, a finished game; malformed JSON never reaches the rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from events.base import Rejection
from services.games.barracks.rules import facts as F
from tests.games.barracks.support import N22, ROMA, RULES, accepted, play, rejected, table

BOARD = {ROMA: "red-emperor-01", "0,0": "blue-emperor-02", "4,4": "yellow-emperor-03"}


def state_with(**kw: object) -> object:
    return table(
        emperors=BOARD,
        hands={0: ["red-2-reinforcements", "red-3-cavalry", "barbarian-12"], 1: ["blue-3-tribute"]},
        **kw,
    )  # type: ignore[arg-type]


def test_given_an_unknown_card_when_played_then_it_is_refused() -> None:
    """[K1, K3]"""
    rejected(state_with(), play(0, "red-9-legion", N22), "unknown_card", "K1")


def test_given_a_card_of_another_hand_when_played_then_it_is_refused() -> None:
    """[K14, K15] A card not in one's own hand (another seat's, the deck's, the Forum's)."""
    state = state_with()
    rejected(state, play(0, "blue-3-tribute", N22), "not_in_hand", "K15")
    forum = state.T.card_ids[state.forum[0]]  # type: ignore[attr-defined]
    rejected(state, play(0, forum, N22), "not_in_hand")


def test_given_an_unknown_or_foreign_space_when_played_then_it_is_refused() -> None:
    """[K5, K10, K16] A space that does not exist, an Emperor space, a space on another faction's side."""
    state = state_with()
    rejected(state, play(0, "red-3-cavalry", "9,9"), "unknown_space", "K5")
    rejected(state, play(0, "red-3-cavalry", "2,2"), "unknown_space", "K5")
    rejected(state, play(0, "red-3-cavalry", "2,3"), "illegal_space", "K10")
    rejected(state, play(0, "barbarian-12", N22), "barbarian_card", "K19")


def test_given_a_choice_ability_when_the_choice_or_target_is_missing_or_foreign_then_it_is_refused() -> None:
    """[K17, K18] 'use' or 'decline' must be said; a used ability needs a legal target; a declined one takes none."""
    state = state_with(board={"2,3": "red-6-force-march"})
    rejected(state, play(0, "red-2-reinforcements", N22), "ability_required", "K17")
    rejected(state, play(0, "red-2-reinforcements", N22, "use"), "target_required", "K17")
    rejected(state, play(0, "red-2-reinforcements", N22, "use", "blue-3-tribute"), "illegal_target", "K18")
    rejected(state, play(0, "red-2-reinforcements", N22, "use", "nonsense"), "illegal_target", "K17")
    rejected(state, play(0, "red-2-reinforcements", N22, "decline", "red-6-force-march"), "unexpected_target", "K17")
    rejected(state, play(0, "red-3-cavalry", N22, "decline"), "no_ability_choice", "K17")


def test_given_another_seats_turn_when_a_seat_acts_then_it_is_refused() -> None:
    """[K15, K21] Out of turn; an unknown seat; a decision the game does not wait for."""
    state = state_with()
    rejected(state, play(1, "blue-3-tribute", "1,3"), "not_your_turn", "K15")
    rejected(state, F.Pass(seat=7), "unknown_seat", "K10")
    forum = state.T.card_ids[state.forum[0]]  # type: ignore[attr-defined]
    rejected(state, F.TakeFromForum(seat=0, card=forum), "wrong_decision", "K21")
    rejected(state, F.ResolveEmperor(seat=0, emperor="red-emperor-01"), "wrong_decision", "K21")
    rejected(state, F.KeepCard(seat=0, card=forum), "wrong_decision", "K21")
    rejected(state, F.PlaceForRival(seat=0, space=N22), "wrong_decision", "K21")


def test_given_no_game_when_a_command_comes_then_it_is_refused_citing_the_awaited_answer() -> None:
    """[KX16] Before GameStarted there is no decision to answer: the refusal still names its ruling."""
    result = RULES.decide(RULES.initial_state(), play(0, "red-3-cavalry", N22))
    assert isinstance(result, Rejection)
    assert (result.code, result.rulings) == ("no_game", ("KX16",))


def test_given_a_finished_game_when_a_command_comes_then_it_is_refused() -> None:
    """[K39]"""
    state = table(
        round=3,
        emperors={ROMA: "red-emperor-01"},
        board={"2,3": "blue-5-foederati", "3,2": "red-3-cavalry", "2,1": "yellow-6-mob"},
        hands={0: ["red-8-spiculum", "red-3-castra"]},
    )
    _, after = accepted(state, play(0, "red-8-spiculum", N22, "decline"))
    assert RULES.is_over(after)
    rejected(after, play(0, "red-3-castra", N22), "game_over", "K39")


def test_given_a_forum_pick_when_a_card_not_in_the_forum_is_named_then_it_is_refused() -> None:
    """[K29]"""
    state = state_with()
    _, after = accepted(state, play(0, "red-3-cavalry", N22))
    rejected(after, F.TakeFromForum(seat=0, card="barbarian-12"), "not_in_forum", "K29")


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b'{"type": "PlayInfluence", "seat": 0}',
        b'{"type": "Teleport", "seat": 0}',
        b'{"type": "PlayInfluence", "seat": 0, "card": "red-3-cavalry", "space": "1,2", "extra": 1}',
        b'{"type": "PlayInfluence", "seat": 0, "card": "RED 3", "space": "1,2"}',
        b'{"type": "PlayInfluence", "seat": 0, "card": "red-3-cavalry", "space": "12345678"}',
        b'{"type": "PlayInfluence", "seat": 0, "card": "red-3-cavalry", "space": "1,2", "ability": "maybe"}',
        b'{"type": "KeepCard", "seat": 0, "card": "red-3-cavalry", "bottom": "red-4-castra"}',
    ],
)
def test_given_malformed_json_when_parsed_then_it_raises_a_validation_error(raw: bytes) -> None:
    """[K15] Malformed or unknown commands are refused at the edge; the rules never see them."""
    with pytest.raises(ValidationError):
        RULES.parse_command(raw)


def test_given_a_command_as_json_when_parsed_and_encoded_then_it_round_trips() -> None:
    """[K15] The codecs invert each other."""
    command = play(0, "red-2-reinforcements", N22, "use", "red-6-force-march")
    assert RULES.parse_command(RULES.encode_command(command)) == command

"""Bad input and exact legal commands.

Two layers refuse bad input:

- ``RULES.parse_command`` validates the JSON shape (pydantic). An unknown command type, a missing or extra field,
  an unknown electorate or a malformed space id raise ``pydantic.ValidationError`` and never reach the rules. The
  service layer (``services/worker/rules_worker.py``) catches it and answers with a typed rejection (code
  ``bad_command``); so a client always gets a typed answer.
- ``RULES.decide`` judges a well-formed command against the position and returns a ``Rejection`` (``code``,
  ``message``, ``rulings``): unknown seat, out of turn, wrong decision, unknown space, illegal target, ...

In every case the game does not change: the state object is untouched and folding the same events again gives an
equal state.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from events.base import Command, Event, Rejection
from services.games.shadow.rules.actions import key_of
from tests.games.shadow.phase4_support import phase4_events
from tests.games.shadow.support import (
    RULES,
    accepted,
    cmd,
    ev,
    given,
    knight,
    prompt,
    request,
    start,
    taken,
    thalers,
    tile,
)

ELECTORATES = ("mainz", "koeln", "trier", "palatinate", "saxony", "brandenburg", "bohemia")


def refused(events: list[Event], command: Command, code: str) -> Rejection:
    """Decide ``command`` on the position of ``events``: a typed rejection with ``code``, and no change."""
    state = given(events)
    before = RULES.snapshot(state)
    result = RULES.decide(state, command)
    assert isinstance(result, Rejection), f"{command} was accepted: {result}"
    assert result.code == code, f"expected {code}, got {result.code}: {result.message}"
    assert result.type == "Rejected"
    assert result.message
    assert RULES.snapshot(state) == before  # the state object is untouched
    assert given(events) == state  # folding the same events again gives an equal state
    executed = RULES.execute(state, command)
    assert isinstance(executed, Rejection) and executed.code == code
    return result


POSITION = phase4_events(
    tile(0, "throne", 35),
    tile(1, "koeln.elector", 25),
    tile(1, "saxony.aristocrat.0", 25),
    knight(1, "koeln.castle.0"),
    tile(2, "mainz.aristocrat.0", 15),
    emperor=0,
    turn=1,
)


# --- parse_command: shape errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "BuyKnight", "seat": 0},  # the Knight card is never taken: no such command
        {"type": "Attack", "seat": 0},
        {"type": "pass", "seat": 0},  # type names are case-sensitive
        {"seat": 0},  # no type
    ],
)
def test_given_an_unknown_command_type_when_parsed_then_a_validation_error(raw: dict[str, Any]) -> None:
    """The discriminated union knows only the commands of COMMANDS.md."""
    with pytest.raises(ValidationError):
        RULES.parse_command(raw)
    with pytest.raises(ValidationError):
        RULES.parse_command(orjson.dumps(raw))


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "BuyDoctor", "seat": 0},  # missing target
        {"type": "PlaceKnight", "seat": 0, "electorate": "mainz"},  # missing space_kind
        {"type": "Pass"},  # missing seat
        {"type": "Pass", "seat": "zero"},
        {"type": "Pass", "seat": 0, "hurry": True},  # unknown field
        {"type": "BuyPope", "seat": 0, "trier": True},  # Trier does not cover the Pope [P6]
        {"type": "PlaceKnight", "seat": 0, "electorate": "mainz", "space_kind": "throne"},
        {"type": "BuyDoctor", "seat": 0, "target": "Mainz Aristocrat 0"},  # not a space id
        {"type": "BuyDoctor", "seat": 0, "target": ""},
        {"type": "BuyDoctor", "seat": 0, "target": "mainz.aristocrat.10"},
        {"type": "CastVote", "seat": 0, "candidate": "abstain"},  # no abstaining [E2]
        {"type": "BuyPermit", "seat": 0, "electorate": "mainz", "couple": "maybe"},
    ],
)
def test_given_malformed_or_missing_fields_when_parsed_then_a_validation_error(raw: dict[str, Any]) -> None:
    """Missing, extra or ill-typed fields never reach the rules."""
    with pytest.raises(ValidationError):
        RULES.parse_command(raw)


@pytest.mark.parametrize("electorate", ["bavaria", "Mainz", "köln", ""])
def test_given_an_unknown_electorate_when_parsed_then_a_validation_error(electorate: str) -> None:
    """[B1] Only the seven electorate keys exist."""
    with pytest.raises(ValidationError):
        RULES.parse_command({"type": "PlaceKnight", "seat": 0, "electorate": electorate, "space_kind": "castle"})
    with pytest.raises(ValidationError):
        RULES.parse_command({"type": "UsePalatinatePrivilege", "seat": 0, "electorate": electorate})


@pytest.mark.parametrize("raw", [b"[]", b"null", b"42", b'"Pass"', b'{"type": 3}', "{}"])
def test_given_json_that_is_not_a_command_object_when_parsed_then_a_validation_error(raw: bytes | str) -> None:
    """Garbage that is valid JSON fails validation."""
    with pytest.raises(ValidationError):
        RULES.parse_command(raw)


@pytest.mark.parametrize("raw", [b"garbage", b"", b"{", b"\xff\xfe"])
def test_given_bytes_that_are_not_json_when_parsed_then_a_value_error(raw: bytes) -> None:
    """Non-JSON input is refused with a ValueError (orjson.JSONDecodeError); the rules worker maps every
    ValueError from parse_command to a ``bad_command`` rejection."""
    with pytest.raises(ValueError):
        RULES.parse_command(raw)


@pytest.mark.parametrize("raw", [b"garbage", b""])
def test_given_bytes_that_are_not_json_when_parsed_then_a_validation_error_as_the_protocol_says(raw: bytes) -> None:
    """The Decider protocol: parse_command raises pydantic.ValidationError on bad input."""
    with pytest.raises(ValidationError):
        RULES.parse_command(raw)


def test_given_a_valid_command_when_parsed_from_json_then_the_model_matches() -> None:
    """The good path of the same parser, so the failures above are about the input."""
    parsed = RULES.parse_command(b'{"type": "BuyPermit", "seat": 2, "couple": true, "electorate": "bohemia"}')
    assert parsed == cmd.BuyPermit(seat=2, couple=True, electorate="bohemia")


# --- decide: typed rejections, state unchanged ----------------------------------------------------------------


@pytest.mark.parametrize("seat", [7, 4, -1])
def test_given_a_four_player_game_when_a_missing_seat_sends_then_unknown_seat(seat: int) -> None:
    """Seats 0 to 3 only."""
    rejection = refused(POSITION, cmd.Pass(seat=seat), "unknown_seat")
    assert str(seat) in rejection.message


def test_given_seat_one_to_act_when_seat_two_sends_then_not_your_turn() -> None:
    """[G1] Only the awaited seat may act."""
    rejection = refused(POSITION, cmd.Pass(seat=2), "not_your_turn")
    assert rejection.rulings == ("G1",)
    assert "Green" in rejection.message  # the seat the game waits for, by name


def test_given_phase_iv_when_a_vote_or_a_placement_is_sent_then_wrong_decision() -> None:
    """[P1] Phase IV waits for actions; other decisions' commands are refused."""
    for command in (
        cmd.CastVote(seat=1, candidate="rival"),
        cmd.PlacePiece(seat=1, electorate="mainz"),
        cmd.ChooseAristocrat(seat=1, space="saxony.aristocrat.0"),
        cmd.Decline(seat=1),
        cmd.AimExcommunication(seat=1, electorate="bohemia"),
    ):
        rejection = refused(POSITION, command, "wrong_decision")
        assert "actions" in rejection.message


def test_given_a_vote_when_a_phase_iv_action_is_sent_then_wrong_decision() -> None:
    """[E2] During the vote only CastVote."""
    events = [*POSITION, taken(2, "rival"), request("vote", 1, 3)]
    refused(events, cmd.Pass(seat=1), "wrong_decision")
    refused(events, cmd.BuyPope(seat=3), "wrong_decision")


def test_given_a_sealed_vote_when_the_same_seat_votes_again_then_already_voted() -> None:
    """[E2] One vote per seat."""
    events = [*POSITION, taken(2, "rival"), request("vote", 1, 3), ev.VoteSealed(seat=1, candidate="rival")]
    rejection = refused(events, cmd.CastVote(seat=1, candidate="emperor"), "already_voted")
    assert rejection.rulings == ("E2",)


@pytest.mark.parametrize(
    "command",
    [
        cmd.BuyDoctor(seat=1, target="mainz.aristocrat.7"),
        cmd.BuyDoctor(seat=1, target="atlantis.elector"),
        cmd.UseKoelnPrivilege(seat=1, target="throne.aristocrat.0"),
        cmd.BuyMove(seat=1, source="saxony.aristocrat.0", electorate="koeln", push="koeln.aristocrat.9"),
        cmd.MoveKnight(seat=1, from_space="mainz.castle.0", electorate="koeln", space_kind="aristocrat"),
        cmd.BuyPromotion(seat=1, knight="saxony.knight.0"),
    ],
)
def test_given_a_space_id_not_on_the_board_when_sent_then_unknown_space(command: Command) -> None:
    """[B1, B2] Well-formed ids that name no space (Mainz has no castle in the default data)."""
    rejection = refused(POSITION, command, "unknown_space")
    assert rejection.rulings == ("B1",)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (cmd.BuyDoctor(seat=1, target="koeln.castle.0"), "illegal_move"),  # a knight [X10]
        (cmd.BuyDoctor(seat=1, target="bohemia.aristocrat.0"), "illegal_move"),  # an empty space
        (cmd.BuyDoctor(seat=1, target="saxony.city.0"), "illegal_move"),
        (cmd.BuyMove(seat=1, source="koeln.elector", electorate="mainz"), "illegal_move"),  # an elector [P4]
        (cmd.BuyMove(seat=1, source="mainz.aristocrat.0", electorate="bohemia"), "illegal_move"),  # not his
        (
            cmd.BuyMove(seat=1, source="saxony.aristocrat.0", electorate="mainz", push="mainz.aristocrat.0"),
            "push_not_allowed",
        ),
        (
            cmd.MoveKnight(seat=1, from_space="koeln.castle.0", electorate="koeln", space_kind="castle"),
            "illegal_move",
        ),  # no change [X2]
        (cmd.BuyPromotion(seat=1, knight="koeln.castle.0"), "illegal_move"),  # castle [P5]
        (cmd.BuyForeignKingsDaughter(seat=1, baron="koeln.elector"), "illegal_move"),  # archdiocese [P5]
        (cmd.BuyForeignKingsDaughter(seat=1, baron="mainz.aristocrat.0"), "illegal_move"),  # not his
        (cmd.UsePalatinatePrivilege(seat=1, electorate="mainz"), "no_privilege"),
        (cmd.TakeGrayEminence(seat=1), "no_privilege"),
        (cmd.BuyIndulgence(seat=1, trier=True), "trier_not_needed"),
        (cmd.BuyCardWithoutEffect(seat=1, card="doctor"), "not_two_players"),
    ],
)
def test_given_an_illegal_target_when_sent_then_a_typed_rejection_and_no_change(command: Command, code: str) -> None:
    """[P1-P8] Illegal details are refused with illegal_move or a more specific code."""
    refused(POSITION, command, code)


def test_given_no_game_when_a_command_is_sent_then_no_game() -> None:
    """Nothing to decide before GameStarted."""
    result = RULES.decide(None, cmd.Pass(seat=0))
    assert isinstance(result, Rejection) and result.code == "no_game"


def test_given_an_ended_game_when_a_command_is_sent_then_game_over() -> None:
    """[G3] Nothing is accepted after the end."""
    events = [*POSITION, ev.GameEnded(scores=(1, 2, 3, 4), thalers=(0, 0, 0, 0), winners=(3,), shared=False)]
    rejection = refused(events, cmd.Pass(seat=1), "game_over")
    assert rejection.rulings == ("G3",)


def test_given_a_rejected_command_when_the_same_seat_then_sends_a_legal_one_then_it_is_accepted() -> None:
    """A rejection leaves the turn with the same seat."""
    state = given(POSITION)
    RULES.decide(state, cmd.BuyDoctor(seat=1, target="koeln.castle.0"))
    accepted(state, cmd.Pass(seat=1))


# --- legal_commands: exactly the expected commands ------------------------------------------------------------


def legal_keys(events: list[Event], seat: int) -> set[tuple[Any, ...]]:
    """The keys of ``seat``'s legal commands; each one must also be accepted by decide."""
    state = given(events)
    commands = RULES.legal_commands(state, seat)
    for command in commands:
        assert command.seat == seat
        assert not isinstance(RULES.decide(state, command), Rejection), command
    keys = [key_of(c) for c in commands]
    assert len(keys) == len(set(keys)), "a legal command is listed twice"
    return set(keys)


def test_given_the_emperor_at_zero_thalers_without_privileges_when_listing_then_only_pass() -> None:
    """[P1, P2, X12] Every card but Rival costs something, and the Emperor cannot take Rival."""
    events = phase4_events(tile(0, "throne", 35), tile(1, "mainz.elector"), thalers(0, 0), emperor=0, turn=0)
    assert legal_keys(events, 0) == {("Pass",)}


def test_given_zero_thalers_with_koeln_and_palatinate_when_listing_then_pass_rival_and_free_privileges() -> None:
    """[P1, P2, P3, P7, X10] At 0 thalers: Pass, the free Rival, and the free privileges with every target."""
    events = phase4_events(
        tile(0, "throne", 35),
        tile(1, "koeln.elector", 25),
        tile(1, "palatinate.elector", 35, couple=True),
        tile(1, "bohemia.aristocrat.0", 15),  # own and 15: no Doctor target
        tile(2, "saxony.aristocrat.0", 15),  # an opponent's: a target at any age
        knight(2, "saxony.aristocrat.1"),  # knights are never targets
        thalers(1, 0),
        emperor=0,
        turn=1,
    )
    expected = {
        ("Pass",),
        ("BuyRival",),
        *[("UseKoelnPrivilege", t) for t in ("throne", "koeln.elector", "palatinate.elector", "saxony.aristocrat.0")],
        *[("UsePalatinatePrivilege", e, None) for e in ELECTORATES],
    }
    assert legal_keys(events, 1) == expected


def test_given_zero_thalers_with_brandenburg_when_listing_then_pass_rival_and_the_gray_eminence() -> None:
    """[P8, P7, P2] The Gray eminence card is free for Brandenburg's elector."""
    events = phase4_events(tile(0, "throne"), tile(2, "brandenburg.elector"), thalers(2, 0), emperor=0, turn=2)
    assert legal_keys(events, 2) == {("Pass",), ("BuyRival",), ("TakeGrayEminence",)}


def test_given_two_thalers_and_trier_when_listing_then_exactly_the_affordable_and_possible_commands() -> None:
    """[P1, P2, P6, X1] Two thalers, Trier held, the Indulgence stack empty, the Rival taken, no own piece but
    the Trier elector: knights, cheap cards, a Doctor on two tiles, and Indulgence only through Trier."""
    events = phase4_events(
        tile(0, "throne", 35),
        tile(1, "trier.elector", 25),
        thalers(1, 2),
        taken(3, "indulgence"),
        taken(3, "rival"),
        emperor=0,
        turn=1,
    )
    castles = [e for e in ELECTORATES if e not in ("mainz", "saxony")]
    expected = {
        ("Pass",),
        *[("PlaceKnight", e, "aristocrat") for e in ELECTORATES],
        *[("PlaceKnight", e, "castle") for e in castles],
        ("BuyDoctor", "throne", False),
        ("BuyDoctor", "trier.elector", False),
        ("BuyPope",),
        ("BuyExcommunication",),
        ("BuyChurchInfluence",),
        ("BuyIndulgence", True),
    }
    assert legal_keys(events, 1) == expected


def test_given_it_is_another_seats_turn_when_listing_then_nothing() -> None:
    """[G1] A seat that is not awaited has no legal command."""
    state = given(POSITION)
    assert RULES.awaited(state) == (1,)
    assert [RULES.legal_commands(state, seat) for seat in (0, 2, 3)] == [[], [], []]
    assert RULES.legal_commands(None, 0) == []


def test_given_a_vote_when_listing_then_voters_choose_a_candidate_and_candidates_nothing() -> None:
    """[E2] Each voter backs the Emperor or the Rival; no abstention."""
    events = [*POSITION, taken(2, "rival"), request("vote", 1, 3)]
    assert legal_keys(events, 1) == {("CastVote", "emperor"), ("CastVote", "rival")}
    state = given(events)
    assert RULES.legal_commands(state, 0) == []
    assert RULES.legal_commands(state, 2) == []
    assert prompt(state).decision == "vote"


def test_given_a_fresh_game_when_listing_then_the_emperor_places_an_empire_city_in_any_electorate() -> None:
    """[S1] The first decision of a game."""
    events = start(4, {"start_player": 3})
    assert legal_keys(events, 3) == {("PlaceEmpireCity", e) for e in ELECTORATES}
    assert legal_keys(events, 0) == set()


@pytest.mark.parametrize(
    ("command", "reason", "rulings"),
    [
        (cmd.BuyDoctor(seat=1, target="koeln.castle.0"), "does not hold an aristocrat", ("P3", "X10")),
        (
            cmd.BuyDoctor(seat=1, target="bohemia.aristocrat.0"),
            "there is no piece on bohemia.aristocrat.0",
            ("P3", "X10"),
        ),
        (cmd.BuyMove(seat=1, source="koeln.elector", electorate="mainz"), "not an elector", ("P4",)),
        (cmd.BuyMove(seat=1, source="mainz.aristocrat.0", electorate="bohemia"), "belongs to Blue", ("P4",)),
        (cmd.BuyMove(seat=1, source="saxony.aristocrat.0", electorate="saxony"), "another electorate", ("P4",)),
        (
            cmd.MoveKnight(seat=1, from_space="koeln.castle.0", electorate="koeln", space_kind="castle"),
            "must change its electorate",
            ("X2",),
        ),
        (cmd.BuyPromotion(seat=1, knight="koeln.castle.0"), "aristocrat space can be promoted", ("P5",)),
        (
            cmd.BuyForeignKingsDaughter(seat=1, baron="koeln.elector"),
            "must stay a Baron",
            ("B1", "P5"),
        ),  # D3 is the daughter offer
    ],
)
def test_given_an_illegal_target_when_refused_then_the_sentence_says_why(
    command: Command, reason: str, rulings: tuple[str, ...]
) -> None:
    """A referee reads why: the generic ``illegal_move`` names the piece's problem and the rule it enforces,
    never none [X15]."""
    rejection = refused(POSITION, command, "illegal_move")
    assert reason in rejection.message
    assert rejection.rulings == rulings

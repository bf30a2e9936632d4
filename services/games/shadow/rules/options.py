"""The legal keys of each decision outside phase IV: ``OPTIONS[decision][command_type](state, seat, prompt)``
(phase IV's register here too, from turn_options.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from services.games.shadow.messages import events as ev
from services.games.shadow.rules import flow
from services.games.shadow.rules.command_keys import Key, _eidx, _ekey, _sid
from services.games.shadow.rules.queries import (
    census,
    elector_candidates,
    empire_city_spaces,
    first_free,
    free_city_electorates,
    marriageable_barons,
    open_electorates,
    throne_candidates,
)
from services.games.shadow.rules.state import EMPTY, GameState

# =============================================================================================================
# Options: the legal keys per decision and command type
# =============================================================================================================
OptionsFn = Callable[[GameState, int, ev.Prompt], Iterable[Key]]
OPTIONS: dict[str, dict[str, OptionsFn]] = {}


def options(decision: str, command_type: str) -> Callable[[OptionsFn], OptionsFn]:
    def register(fn: OptionsFn) -> OptionsFn:
        OPTIONS.setdefault(decision, {})[command_type] = fn
        return fn

    return register


def _placements(s: GameState, electorates: Iterable[int], kind: str = "aristocrat") -> Iterator[Key]:
    pairs_in = census(s).pairs_in  # (electorate, push) of each way to place an aristocrat, per open electorate
    for e in electorates:
        for ekey, push in pairs_in[e]:
            yield ("PlacePiece", ekey, kind, push)


@options("setup_empire_city", "PlaceEmpireCity")
@options("emperor_place_city", "PlaceEmpireCity")
def _opt_empire_city(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in free_city_electorates(s):
        yield ("PlaceEmpireCity", _ekey(s, e))


@options("setup_elector", "PlacePiece")
def _opt_setup_elector(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.cells[s.layout.electorates[e].elector] == EMPTY:
            yield ("PlacePiece", _ekey(s, e), "elector", None)


@options("setup_aristocrat", "PlacePiece")
def _opt_setup_aristocrat(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if first_free(s, s.layout.electorates[e].aristocrats) is not None:
            yield ("PlacePiece", _ekey(s, e), "aristocrat", None)


@options("setup_knight", "PlacePiece")
def _opt_setup_knight(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for kind, e in _free_knight_spaces(s):
        yield ("PlacePiece", _ekey(s, e), kind, None)


def _free_knight_spaces(s: GameState) -> tuple[tuple[str, int], ...]:
    return census(s).knight_spaces


@options("replace_emperor", "ChooseAristocrat")
def _opt_replace_emperor(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in throne_candidates(s, seat, include_eminence=False):
        yield ("ChooseAristocrat", _sid(s, i))


@options("choose_throne", "ChooseAristocrat")
def _opt_choose_throne(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in throne_candidates(s, seat, include_eminence=True):
        yield ("ChooseAristocrat", _sid(s, i))


@options("choose_elector", "ChooseAristocrat")
def _opt_choose_elector(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in elector_candidates(s, seat, _eidx(p.electorate)):  # type: ignore[arg-type]
        yield ("ChooseAristocrat", _sid(s, i))


@options("place_son", "PlacePiece")
@options("place_dethroned", "PlacePiece")
def _opt_place_anywhere(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield from _placements(s, census(s).open)


@options("place_displaced", "PlacePiece")
def _opt_place_displaced(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield from _placements(s, [_eidx(p.electorate)])  # type: ignore[arg-type]


@options("daughter", "OfferDaughter")
def _opt_offer(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in marriageable_barons(s, seat):
        yield ("OfferDaughter", _sid(s, i))


@options("daughter", "SendDaughterToConvent")
def _opt_convent(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("SendDaughterToConvent",)


@options("marriage_answer", "AnswerMarriage")
def _opt_answer(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("AnswerMarriage", True)
    yield ("AnswerMarriage", False)


@options("gray_eminence", "PlacePiece")
def _opt_gray_eminence(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.cells[s.layout.electorates[e].eminence] == EMPTY:
            yield ("PlacePiece", _ekey(s, e), "eminence", None)


@options("gray_eminence", "Decline")
def _opt_decline(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("Decline",)


@options("break_tie", "BreakTie")
def _opt_break_tie(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for w in p.tied:
        yield ("BreakTie", w)


@options("aim_church_influence", "AimChurchInfluence")
def _opt_aim_church(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if s.layout.electorates[e].spiritual:
            yield ("AimChurchInfluence", _ekey(s, e))


@options("aim_excommunication", "AimExcommunication")
def _opt_aim_excom(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for e in open_electorates(s):
        if not s.layout.electorates[e].spiritual:
            yield ("AimExcommunication", _ekey(s, e))


@options("vote", "CastVote")
def _opt_vote(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    yield ("CastVote", "emperor")
    yield ("CastVote", "rival")


@options("emperor_move_city", "MoveEmpireCity")
def _opt_move_city(s: GameState, seat: int, p: ev.Prompt) -> Iterator[Key]:
    for i in empire_city_spaces(s):
        for e in flow.movable_empire_city_targets(s, i):
            yield ("MoveEmpireCity", _sid(s, i), _ekey(s, e))

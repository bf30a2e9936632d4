"""What each decision asks, and where: the narration of a request and the prompt of the seat it waits for."""

from __future__ import annotations

import random
import typing

from services.games.shadow.messages import events as ev
from services.games.shadow.presentation.names import SHORT_NAMES
from services.games.shadow.presentation.prompts import decisions
from tests.games.shadow.phase56_support import phase_v
from tests.games.shadow.support import NAMES, PRESENTER, RULES, baron, prompt, start

PLACES = (*SHORT_NAMES.values(), "electorate", "throne", "space", "slot", "seat", "board", "election")


def test_given_the_games_decisions_then_each_has_its_own_sentence() -> None:
    assert decisions() == set(typing.get_args(ev.Decision))


def test_given_a_tie_in_phase_v_when_narrated_and_prompted_then_both_name_the_electorate_and_the_tied() -> None:
    """[V2] The Emperor (Red) breaks a tie between Blue and Yellow for the Palatinate."""
    events, state = phase_v(baron(1, "palatinate.aristocrat.0"), baron(2, "palatinate.aristocrat.1"))
    request = next(e for e in reversed(events) if isinstance(e, ev.DecisionRequested))
    assert prompt(state).decision == "break_tie"
    # Then everyone reads who is asked, what, and for which electorate, by name and without "you"
    assert PRESENTER.describe(request, NAMES) == (
        "Waiting for Red to break the tie for the elector seat of the Palatinate between Green and Blue."
    )
    # And the Emperor's prompt says the same to him, with the round and phase
    assert PRESENTER.prompt(state, 0) == (
        "Round 1, phase V New electors. Your turn: break the tie for the elector seat of the Palatinate between "
        "Green and Blue."
    )
    # And nobody else is prompted
    assert [PRESENTER.prompt(state, seat) for seat in (1, 2, 3)] == [None, None, None]


def test_given_random_games_when_any_decision_is_asked_then_prompt_and_narration_say_what_and_where() -> None:
    seen: set[str] = set()
    for seed in range(1, 13):
        rng = random.Random(seed)
        players = 2 + seed % 3
        events = start(players, seed=seed)
        state = RULES.fold(events)
        while not RULES.is_over(state):
            asked = state.pending
            assert asked is not None
            if asked.decision not in seen:
                seen.add(asked.decision)
                narration = PRESENTER.describe(ev.DecisionRequested(prompt=asked, rulings=()), NAMES[:players])
                assert narration.startswith("Waiting for ") and "you" not in narration.split()
                assert any(place in narration for place in PLACES), narration
                if asked.electorate is not None:
                    assert SHORT_NAMES[asked.electorate] in narration
                for seat in RULES.awaited(state):
                    text = PRESENTER.prompt(state, seat)
                    assert text is not None and "Your turn: " in text and any(p in text for p in PLACES), text
            seat = RULES.awaited(state)[0]
            _, state = RULES.execute(state, rng.choice(RULES.legal_commands(state, seat)))
    assert seen == decisions(), f"never met: {decisions() - seen}"

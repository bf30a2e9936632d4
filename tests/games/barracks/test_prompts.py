"""What each decision asks, and where [K15-K31, K43]: the prompt of the seat the game waits for, and the words of
a request for a decision."""

from __future__ import annotations

import random
import re
import typing

from services.games.barracks import plugin
from services.games.barracks.messages import events as ev
from services.games.barracks.rules.state import PHASE_NAMES
from tests.games.barracks.support import NAMES, RULES

PRESENTER = plugin().game_presenter
PLACES = re.compile(r"\b(board|Forum|draw deck|homeland|[A-G]\d)\b")
"""Where a decision is made: the board (a space by name), the Forum, the deck."""


def test_given_random_games_when_each_decision_is_asked_then_the_prompt_says_what_and_where() -> None:
    seen: dict[str, str] = {}
    for players in (1, 2, 3, 4):
        for seed in range(1, 7):
            rng = random.Random(seed)
            state = RULES.fold(RULES.start(NAMES[:players], {}, seed))
            while not RULES.is_over(state):
                (seat,) = RULES.awaited(state)
                text = PRESENTER.prompt(state, seat)
                assert text is not None and f"Round {state.round}, turn {state.turn} (" in text
                assert "Your turn: " in text and PLACES.search(text), text
                seen.setdefault(PHASE_NAMES[state.phase], text)
                assert all(PRESENTER.prompt(state, other) is None for other in range(players) if other != seat)
                _, state = RULES.execute(state, RULES.sample_legal(state, seat, rng))
            assert all(PRESENTER.prompt(state, s) is None for s in range(players))
    # Then every decision of the game was met, each with its own words
    assert set(seen) == {"action", *typing.get_args(ev.Decision)}
    assert "Forum" in seen["pick"] and "Frumentarii" in seen["keep"] and "rival claimant" in seen["rival_place"]
    assert re.search(r"resolves next: .+ on [A-G]\d", seen["order"])


def test_given_a_request_for_a_decision_when_narrated_then_it_says_where() -> None:
    keep = RULES.parse_event({"type": "DecisionRequested", "seat": 1, "decision": "keep", "rulings": ["K31"]})
    pick = RULES.parse_event(
        {"type": "DecisionRequested", "seat": 0, "decision": "pick", "allowed": 3, "rulings": ["K29"]}
    )
    assert PRESENTER.describe(keep, NAMES) == (
        "Bob chooses which of the cards Frumentarii showed from the top of the draw deck to keep."
    )
    assert PRESENTER.describe(pick, NAMES) == "Ann takes a card from the Forum: one of the 3 leftmost cards."

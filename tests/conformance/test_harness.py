"""The secrecy check's index (``Shown``) answers exactly as the plain walk (``json_shows``) over any JSON."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from services.rules.contract import Secret
from tests.conformance.harness import Shown, json_shows

SCALARS = st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from([0.0, 1.0, "a", "b", "seat", "hand"])
SEATS = st.integers(0, 3) | st.sampled_from([True, 1.0, None])
KEYS = st.sampled_from(["seat", "hand", "a", "b", "victory_points"])
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(KEYS, inner, max_size=4)
        | st.builds(lambda rest, seat: {**rest, "seat": seat}, st.dictionaries(KEYS, inner, max_size=3), SEATS)
    ),
    max_leaves=20,
)
SECRETS = st.builds(
    Secret,
    owner=st.integers(0, 3),
    key=st.none() | KEYS,
    value=SCALARS | st.lists(SCALARS, max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(value=JSON, secrets=st.lists(SECRETS, max_size=6))
@example(value={"seat": 1, "hand": "a"}, secrets=[Secret(1, "hand", "a"), Secret(0, "hand", "a")])
@example(value={"seat": True, "hand": 1}, secrets=[Secret(1, "hand", 1), Secret(1, "hand", True)])
@example(value={"victory_points": [0, 3]}, secrets=[Secret(1, "victory_points", 3), Secret(0, "victory_points", 3)])
@example(value=[{"x": [True, {"y": "b"}]}], secrets=[Secret(0, None, True), Secret(0, None, 1), Secret(2, None, "b")])
@example(value={"seat": 0, "hand": [1, 2]}, secrets=[Secret(0, "hand", [1, 2]), Secret(0, "hand", (1, 2))])
def test_given_any_json_and_secrets_when_indexed_then_it_shows_what_the_walk_shows(
    value: Any, secrets: list[Secret]
) -> None:
    shown = Shown(value)
    for secret in secrets:
        assert shown.shows(secret) == json_shows(value, secret), secret

"""Fair shuffles: the two recorded facts of a seed's commitment and reveal, shared by every game with hidden
information or chance.

A game that draws from its seed (``GameRules.commits_seed``) has them recorded by the table around it
(``services/rules/table``, which folds them with ``services/rules/fair.py``): the commitment with the opening
events, the reveal with the events that end the game. The seed and the salt are secrets of the referee until the
end: every read path shows them as ``null`` while the game runs (``services/rules/fair.py: seal_json``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from events.base import Event

SCHEME = "sha256(throne-seed-v1|seed|salt)"
"""The commitment scheme: the lowercase hex sha256 of the UTF-8 text ``throne-seed-v1|<seed>|<salt>`` (the seed in
decimal, the salt as recorded: 64 lowercase hex digits)."""

HEX64 = r"^[0-9a-f]{64}$"
DECIMAL = r"^(0|[1-9][0-9]{0,39})$"


class SeedCommitted(Event):
    """The referee's commitment to the game's seed, published with the opening events: anyone may check the reveal
    at the end against it, and nobody (the table's creator included) learns the seed while the game runs.

    ``seed`` and ``salt`` are recorded here so that the events alone rebuild the game (events are facts); every read
    path shows them as null until the game is over. ``practice``: the table's creator chose the seed (a practice
    table: every seat was the creator's or a bot's), so its results prove nothing about fair play."""

    type: Literal["SeedCommitted"] = "SeedCommitted"
    scheme: str = Field(description="how the commitment is computed (events/fair.py: SCHEME)")
    commitment: str = Field(pattern=HEX64, description="sha256 of the scheme's text, lowercase hex")
    practice: bool = Field(default=False, description="the creator chose the seed: a practice table")
    seed: str | None = Field(default=None, pattern=DECIMAL, description="the seed, in decimal; null until the end")
    salt: str | None = Field(default=None, pattern=HEX64, description="the secret salt; null until the end")


class SeedRevealed(Event):
    """The end of the game reveals the seed and the salt of the commitment: ``sha256(scheme text)`` must equal
    ``commitment``, and the seed must be the one the opening event recorded (``throne verify``, the adjudicator and
    the audit check both)."""

    type: Literal["SeedRevealed"] = "SeedRevealed"
    scheme: str
    commitment: str = Field(pattern=HEX64)
    seed: str = Field(pattern=DECIMAL, description="the game's seed, in decimal")
    salt: str = Field(pattern=HEX64)


SEED_COMMITTED = "SeedCommitted"
SEED_REVEALED = "SeedRevealed"

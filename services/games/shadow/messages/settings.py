"""Table settings of a Shadow game: every ruling marked *option* in the rules reference, with its default."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from events.clock import ClockSettings


class ShadowSettings(BaseModel):
    """Options chosen at the table when a game is created."""

    # Strict: a table option is exactly what it says (``"yes"`` is no boolean, ``"1"`` no seat), never coerced.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    hidden_victory_points: bool = Field(False, description="B6: VP totals hidden from other seats until the end.")
    thaler_tiebreak: bool = Field(False, description="G3: most thalers breaks a VP tie (else shared victory).")
    mainz_bonus: Literal["seat_holder_after_phase_v", "elector_at_phase_v_start"] = Field(
        "seat_holder_after_phase_v", description="V5: who takes Mainz's 1 VP in phase V."
    )
    backer_vp_requires_votes: bool = Field(False, description="E3: only backers with at least one vote take the 1 VP.")
    start_player: int = Field(0, ge=0, le=3, description="The seat that starts as Emperor.")
    clock: ClockSettings | None = Field(
        None, description="X16: the seats' clocks (a limit per decision, or a bank with an increment); none: no clocks."
    )

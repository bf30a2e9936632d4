"""Table settings of a Barracks Emperors game: every ruling marked *option* in the rules reference, with its
default, and the table itself (how many players, which factions are rival claimants) [K42]."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.clock import ClockSettings

Faction = Literal["north", "east", "south", "west"]


class BarracksSettings(BaseModel):
    """Options chosen at the table when a game is created (strict: no coercion, no unknown keys)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    players: int | None = Field(
        None, ge=1, le=4, description="K42: number of players; when given it must match the seats of the table."
    )
    rival_claimants: tuple[Faction, ...] | None = Field(
        None,
        json_schema_extra={"uniqueItems": True, "maxItems": 3},  # what _consistent checks
        description="K41/K42: factions played by rival claimants (default: west with 3 players; east, south and "
        "west solo; none with 2 or 4). The players take the other factions in clockwise order.",
    )
    hand_size: int = Field(5, ge=1, le=10, description="K11: cards dealt to each player each round.")
    forum_size: int = Field(4, ge=1, le=8, description="K11: face-up cards in the Forum at the start of a round.")
    capture: Literal["side", "player"] = Field(
        "side", description="K27: an Emperor goes to the faction whose side the winning card is on, or its player."
    )
    set_bonus: int = Field(3, ge=0, le=20, description="K39: points per set of one red, one blue, one yellow.")
    barbarian_vp: int = Field(1, ge=0, le=20, description="K39: points per barbarian won through Triumph.")
    tiebreak: Literal["none", "sets_then_emperors"] = Field(
        "none", description="K39: a tie is a shared victory, or broken by most sets, then most Emperors."
    )
    two_player_sides: Literal["opposite", "adjacent"] = Field(
        "opposite", description="K40: with 2 players, seat 0 holds North+South (opposite) or North+East (adjacent)."
    )
    clock: ClockSettings | None = Field(
        None,
        description="KX17: the seats' clocks (a limit per decision, or a bank and increment); none: no clocks.",
    )

    @model_validator(mode="before")
    @classmethod
    def _lists_as_tuples(cls, data: object) -> object:
        # JSON has no tuples: accept a list of factions (strict mode would refuse it for a tuple field).
        if isinstance(data, dict) and isinstance(data.get("rival_claimants"), list):
            return {**data, "rival_claimants": tuple(data["rival_claimants"])}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> BarracksSettings:
        rivals = self.rival_claimants
        if rivals is not None:
            if len(set(rivals)) != len(rivals):
                raise ValueError("rival_claimants: a faction is named twice")
            if len(rivals) == 4:
                raise ValueError("rival_claimants: at least one faction must be a player's")
        return self

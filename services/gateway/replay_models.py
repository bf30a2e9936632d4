"""Response bodies of the whole-game replay (``GET /games/{id}/replay/steps``): every step of a game in one
answer, as one reader may see it (they make the published OpenAPI document precise)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from services.gateway.models import Fairness


class ReplayStep(BaseModel):
    """One step of a replay: the event at ``version`` as this reader may see it and its text; with ``?view=true``
    the reader's view after it, with ``?board=true`` the board after it as text. The same as the one-step
    ``GET /games/{id}/replay?version=V`` answers."""

    version: int
    event: dict[str, Any] | None = Field(description="as this reader may see it (null: withheld)")
    event_text: str
    view: dict[str, Any] | None = Field(None, description="with ``?view=true``: the view after the event")
    board_text: str | None = Field(None, description="with ``?board=true``: the board after the event, as text")


class ReplaySteps(BaseModel):
    """A page of a game's replay: the steps of versions ``after < version <= next`` (or to ``last_version``),
    from one read of the game's events and one fold. Walk the pages with ``after = next`` until it is null (a
    whole game of up to 1,000 events is one page)."""

    game_id: str
    seat: int | None = Field(description="the seat whose perspective the steps show (null: a spectator)")
    last_version: int = Field(description="the game's latest version")
    over: bool
    after: int = Field(description="the page holds the steps after this version (the request's ``after``)")
    next: int | None = Field(description="the ``after`` of the next page; null: this page reached ``last_version``")
    fairness: Fairness | None = Field(description="the fair shuffle as of the reader's moment (null: none)")
    board_text: str = Field(description="the board after the page's last step, as text")
    steps: list[ReplayStep]

"""Each game's rules reference: every ruling its events and refusals may cite."""

from __future__ import annotations

from typing import Any

from fastapi import Path

from services.gateway.errors import ApiError, JsonResponse
from services.gateway.route_common import (
    ERRORS,
    GAME_NAME_RE,
    new_router,
)  # fmt: skip
from services.rules.registry import game_names, get_game

router = new_router()


def _reference(game: str) -> dict[str, Any]:
    if game not in game_names():
        raise ApiError(404, "unknown_game_name", f"no game called {game[:64]!r}; known: {', '.join(game_names())}")
    return {rid: ruling.to_dict() for rid, ruling in get_game(game).rulings().items()}


@router.get("/rules/{game}", responses=ERRORS, tags=["rules"])
def rules_reference(game: str = Path(pattern=GAME_NAME_RE, description="a game's name")) -> JsonResponse:
    """A game's rules reference: every ruling id its events and refusals may cite, with its title and text (the
    project's own words; the product's rulings have the full statements)."""
    rulings = _reference(game)
    return JsonResponse({"game": game, "rulings": list(rulings.values())})


@router.get("/rules/{game}/{ruling_id}", responses=ERRORS, tags=["rules"])
def ruling(
    game: str = Path(pattern=GAME_NAME_RE, description="a game's name"),
    ruling_id: str = Path(pattern=r"^[A-Z]{1,4}[0-9]{1,3}$", description="a ruling id, e.g. X4 or K27"),
) -> JsonResponse:
    """One ruling of a game's rules reference: ``{"game", "id", "title", "text"}``; 404 ``unknown_ruling``."""
    found = _reference(game).get(ruling_id)
    if found is None:
        raise ApiError(404, "unknown_ruling", f"{game} has no ruling {ruling_id}")
    return JsonResponse({"game": game, **found})

"""The JSON Schemas of the installed games, and the gateway's health."""

from __future__ import annotations

from fastapi import Request

from services.bus.readiness import PROCESS
from services.gateway import errors as E
from services.gateway.errors import ApiError, JsonResponse
from services.gateway.route_common import (
    ERRORS,
    gateway_of,
    new_router,
)  # fmt: skip

router = new_router()


SCHEMA_KINDS = ("commands", "events", "views")


# --- schemas and health -----------------------------------------------------------------------------------
@router.get("/schemas", tags=["schemas"])
def schemas() -> JsonResponse:
    """The games whose command, event and view JSON Schemas can be downloaded."""
    from events.schemas import ADAPTERS

    games = sorted({name.split(".")[0] for name in ADAPTERS})
    return JsonResponse(
        {
            "games": [
                {"game": g, **{kind: f"/schemas/{kind}/{g}" for kind in SCHEMA_KINDS if f"{g}.{kind}" in ADAPTERS}}
                for g in games
            ]
        }
    )


@router.get("/schemas/{kind}/{game}", responses=ERRORS, tags=["schemas"])
def schema(kind: str, game: str) -> JsonResponse:
    """The JSON Schema (draft 2020-12) of a game's commands, events or views."""
    from events.schemas import ADAPTERS, schema_of

    name = f"{game}.{kind}"
    if kind not in SCHEMA_KINDS or name not in ADAPTERS:
        raise ApiError(404, "unknown_schema", f"no schema {kind}/{game}")
    return JsonResponse(schema_of(name), headers={"Content-Disposition": f'inline; filename="{name}.schema.json"'})


@router.get("/health", responses={503: ERRORS[503]}, tags=["health"])
async def health(request: Request) -> JsonResponse:
    """Whether this gateway is ready: it reaches its Redis (not loading, not refusing), and so does every loop it
    runs in-process (``--worker``, ``--bots``, ``--projections``)."""
    gw = gateway_of(request)
    try:
        ok = bool(await gw.bus.r.ping())
    except Exception as exc:  # report, do not raise: a health check answers
        return JsonResponse(E.error_body(E.UNAVAILABLE, f"redis: {exc}"), status_code=503)
    waiting = PROCESS.waiting_parts()
    if waiting:
        return JsonResponse(E.error_body(E.UNAVAILABLE, f"waiting for redis: {', '.join(waiting)}"), status_code=503)
    return JsonResponse({"ok": ok})

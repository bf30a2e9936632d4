"""The webhook routes: a seat registers, lists and deletes its own webhooks (services/webhooks/).

Only the seat's token may touch the seat's webhooks (401 ``unauthorized``, 403 ``forbidden_seat`` otherwise),
and nothing a seat does here reaches another seat's. Bounds: ``Limits.webhooks_per_seat`` hooks per seat (409
``too_many_webhooks``), URLs of at most 2,048 characters, ``http``/``https`` only, no credentials in them, and
(unless ``Limits.webhooks_allow_private``) no loopback, private or reserved address (422 ``bad_url``: the
document publishes the URL's pattern; 403 ``private_target``: the operator's policy refuses the address). A
game that is over takes none (409 ``game_over``).

The answer of a registration is the only place the webhook's secret is ever shown. The routes only write the
registration: notices are sent by the webhooks process (``python -m services.webhooks``), never from here.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from services.gateway import errors as E
from services.gateway.auth import TokenFirstRoute, bearer_token, seat_of
from services.gateway.errors import ApiError
from services.gateway.route_common import ERRORS, SEAT, GameId, SeatNo, known_query_only
from services.gateway.service import Gateway
from services.webhooks.hooks import Hook, HookRefused, HookStore
from services.webhooks.notices import kinds
from services.webhooks.targets import MAX_URL, URL_PATTERN, BadTarget, check_url

router = APIRouter(tags=["webhooks"], dependencies=[Depends(known_query_only), *SEAT], route_class=TokenFirstRoute)
HookId = Path(pattern=r"^wh_[0-9a-f]{16}$", description="a webhook's id")
_STATUS = {"unknown_game": 404, "game_over": 409, "too_many_webhooks": 409}
_TARGET_STATUS = {"private_target": 403}
"""A URL of the right shape that the operator's policy refuses is forbidden (403), not malformed (422)."""


NoticeKind = Annotated[str, Field(json_schema_extra={"enum": list(kinds())})]
"""A notice kind's name: the document lists them; the route refuses others with a message naming them all."""


class WebhookRequest(BaseModel):
    """A webhook to register: where to POST, and which notices (default: every kind)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    # The pattern is published (not applied by pydantic): check_url applies it, with its typed ``bad_url``.
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL, json_schema_extra={"pattern": URL_PATTERN})]
    kinds: Annotated[list[NoticeKind], Field(min_length=1, max_length=16)] | None = None


class WebhookStatus(BaseModel):
    """What became of a webhook's notices so far."""

    delivered: int
    failed: int
    last_error: str | None


class Webhook(BaseModel):
    """A registered webhook (its secret is shown only once, when it is created)."""

    id: str
    game_id: str
    seat: int
    url: str
    kinds: list[str]
    created_ms: int
    status: WebhookStatus | None = None


class CreatedWebhook(Webhook):
    """A new webhook, with its secret: keep it, it is not shown again (it checks ``X-Throne-Signature``)."""

    secret: str


class Webhooks(BaseModel):
    """A seat's webhooks."""

    webhooks: list[Webhook]


def _seat(request: Request, game_id: str, seat: int) -> Gateway:
    gw: Gateway = request.app.state.gateway
    seat_of(gw.info_sync(game_id), bearer_token(request.headers), seat)
    return gw


def _store(request: Request) -> HookStore:
    return request.app.state.hooks  # type: ignore[no-any-return]


@router.post("/games/{game_id}/seats/{seat}/webhooks", status_code=201, response_model=CreatedWebhook, responses=ERRORS)
def register_webhook(
    body: WebhookRequest, request: Request, game_id: str = GameId, seat: int = SeatNo
) -> CreatedWebhook:
    """Register a webhook for this seat (its token): the seat's notices (``turn``: the game waits for the seat;
    ``game_over``) are POSTed to ``url``, signed with the secret returned here, and only here."""
    gw = _seat(request, game_id, seat)
    wanted = tuple(dict.fromkeys(body.kinds or kinds()))
    unknown = [k for k in wanted if k not in kinds()]
    if unknown:
        raise ApiError(422, E.VALIDATION, f"unknown notice kind(s) {unknown[:3]}; known: {', '.join(kinds())}")
    try:
        url = check_url(body.url, allow_private=gw.limits.webhooks_allow_private)
        hook = _store(request).register(game_id, seat, url, wanted, max_per_seat=gw.limits.webhooks_per_seat)
    except BadTarget as exc:
        raise ApiError(_TARGET_STATUS.get(exc.code, 422), exc.code, exc.message) from None
    except HookRefused as exc:
        raise ApiError(_STATUS.get(exc.code, 409), exc.code, exc.message) from None
    gw.log.info("gateway.webhook_registered", game=game_id, seat=seat, hook=hook.id)  # never the URL's secret
    return CreatedWebhook(
        id=hook.id, game_id=game_id, seat=seat, url=hook.url, kinds=list(hook.kinds), created_ms=hook.created_ms,
        secret=hook.key,
    )  # fmt: skip


@router.get("/games/{game_id}/seats/{seat}/webhooks", response_model=Webhooks, responses=ERRORS)
def list_webhooks(request: Request, game_id: str = GameId, seat: int = SeatNo) -> Webhooks:
    """This seat's webhooks (its token), with what became of their notices (delivered, failed, last error)."""
    _seat(request, game_id, seat)
    store = _store(request)
    hooks = store.of_seat(game_id, seat)
    status = store.status(game_id, hooks)
    return Webhooks(webhooks=[_shown(h, status[h.id]) for h in hooks])


def _shown(hook: Hook, status: dict[str, Any]) -> Webhook:
    return Webhook(
        id=hook.id, game_id=hook.game_id, seat=hook.seat, url=hook.url, kinds=list(hook.kinds),
        created_ms=hook.created_ms, status=WebhookStatus(**status),
    )  # fmt: skip


@router.delete(
    "/games/{game_id}/seats/{seat}/webhooks/{hook_id}", status_code=204, response_class=Response, responses=ERRORS
)
def delete_webhook(request: Request, game_id: str = GameId, seat: int = SeatNo, hook_id: str = HookId) -> Response:
    """Delete one of this seat's webhooks (its token); its queued notices are dropped. 404 ``not_found`` if the
    seat has no webhook of that id."""
    gw = _seat(request, game_id, seat)
    if not _store(request).delete(game_id, seat, hook_id):
        raise ApiError(404, E.NOT_FOUND, f"this seat has no webhook {hook_id}")
    gw.log.info("gateway.webhook_deleted", game=game_id, seat=seat, hook=hook_id)
    return Response(status_code=204)

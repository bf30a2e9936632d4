"""Typed JSON errors: every refusal of the gateway is ``{"error": {"code": ..., "message": ..., ...}}``.

``code`` is stable and machine-readable; ``message`` is a plain sentence. Some errors add fields next to them
(``rulings`` of a rules rejection, ``candidates`` of an ambiguous chat phrase, ``command_id`` of a command whose
outcome did not come in time). FastAPI's own errors (validation, unknown route, wrong method) and unexpected
exceptions are rewritten into the same shape by :func:`install_handlers`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import orjson
import redis
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.bus.envelope import summarize
from services.bus.faults import LogThrottle, fault_kind, is_transient
from services.log import get_logger
from services.menus import phrases
from services.metrics import catalog as metrics

# Codes of the gateway itself (a rules rejection keeps the game's own code, e.g. ``not_your_turn``).
BAD_REQUEST = "bad_request"
NOT_JSON = "not_json"
VALIDATION = "validation_error"
BAD_COMMAND = "bad_command"
UNAUTHORIZED = "unauthorized"
FORBIDDEN_SEAT = "forbidden_seat"
UNKNOWN_GAME = "unknown_game"
NOT_FOUND = "not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"
PAYLOAD_TOO_LARGE = "payload_too_large"
RATE_LIMITED = "rate_limited"
GAME_RUNNING = "game_running"
SEAT_LEFT = "seat_left"
SEAT_TAKEN = "seat_taken"
GAME_OVER = "game_over"
AMBIGUOUS = phrases.AMBIGUOUS
NO_MATCH = phrases.NO_MATCH
MENU_CHANGED = "menu_changed"
OUTCOME_TIMEOUT = "outcome_timeout"
DEAD_LETTER = "dead_letter"
INTERNAL = "internal_error"
UNAVAILABLE = "unavailable"
REDIS_UNAVAILABLE = "redis_unavailable"
RETRY_AFTER_S = 2
"""Retry-After (seconds) of a 503 ``redis_unavailable``: about the gateway's socket timeout and retry backoff."""
TOO_MANY_FEEDS = "too_many_feeds"
FEEDS_FULL = "feeds_full"
SLOW_CONSUMER = "slow_consumer"
HEADERS_TOO_LARGE = "headers_too_large"
REQUEST_TIMEOUT = "request_timeout"

_STATUS_CODES = {
    400: BAD_REQUEST,
    401: UNAUTHORIZED,
    403: FORBIDDEN_SEAT,
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: PAYLOAD_TOO_LARGE,
    422: VALIDATION,
    429: RATE_LIMITED,
}

log = get_logger("gateway")
_refusals = LogThrottle()


class JsonResponse(Response):
    """JSON serialized with orjson (fast, and it knows dataclasses, tuples and non-str keys)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        """The body bytes of ``content``."""
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


class ErrorBody(BaseModel):
    """The inside of an error response (extra fields allowed: ``rulings``, ``candidates``, ...)."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str


class ErrorResponse(BaseModel):
    """Every error response of the gateway."""

    error: ErrorBody


class ApiError(Exception):
    """A refusal with an HTTP status, a typed code, a sentence and optional extra fields."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.extra = extra

    def body(self) -> dict[str, Any]:
        """The JSON body of this error."""
        return error_body(self.code, self.message, **self.extra)


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """``{"error": {"code": code, "message": message, **extra}}``."""
    return {"error": {"code": code, "message": message, **extra}}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JsonResponse:
    """A JSON response carrying a typed error."""
    return JsonResponse(error_body(code, message, **extra), status_code=status, headers=headers)


def validation_message(exc: RequestValidationError | ValidationError) -> str:
    """One line naming the fields that failed and why."""
    if isinstance(exc, ValidationError):
        return summarize(exc)
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    text = "; ".join(parts)
    return text if len(text) <= 300 else text[:297] + "..."


_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


@functools.lru_cache(maxsize=256)
def _path_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}/]+\})", template)
    return re.compile("^" + "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def _allowed(app: FastAPI, request: Request) -> list[str]:
    """The methods the published API serves at the request's path, from the OpenAPI document's paths (the app's
    routes sit in included routers, whose own matching names no methods)."""
    methods: set[str] = set()
    for template, operations in app.openapi().get("paths", {}).items():
        if _path_pattern(template).match(request.url.path):
            methods |= {name.upper() for name in operations if name in _METHODS}
    return sorted(methods)


def install_handlers(app: FastAPI) -> None:
    """Route every error (ours, FastAPI's, unexpected ones) to the typed JSON shape."""

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JsonResponse:
        return JsonResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JsonResponse:
        # A body that is not JSON at all is a different mistake from a JSON body of the wrong shape.
        if any(err.get("type") == "json_invalid" for err in exc.errors()):
            return error_response(400, NOT_JSON, "the request body is not valid JSON")
        return error_response(422, VALIDATION, validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JsonResponse:
        code = _STATUS_CODES.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            # Starlette's Allow names the methods of the first route matching the path only; a path served by
            # several routes (GET and POST of a seat's webhooks) allows the methods of them all.
            allowed = _allowed(app, request)
            if allowed:  # else (a path outside the published API, e.g. the web client's) Starlette's stands
                headers = {**(headers or {}), "Allow": ", ".join(allowed)}
        return error_response(exc.status_code, code, message, headers=headers)

    @app.exception_handler(redis.RedisError)
    async def _redis(request: Request, exc: redis.RedisError) -> JsonResponse:
        # Redis refusing writes (out of memory, read-only during a fail-over, loading) or not answering (a
        # frozen or unreachable server: timeouts) says nothing about the request: 503, try again shortly.
        metrics.redis_error(fault_kind(exc))
        if is_transient(exc):
            suppressed = _refusals.ready()  # one line per 10 s of an outage, not one per request
            if suppressed is not None:
                log.warning(
                    "gateway.redis_unavailable", path=request.url.path, kind=fault_kind(exc), error=str(exc)[:200],
                    not_logged=suppressed,
                )  # fmt: skip
            return error_response(
                503, REDIS_UNAVAILABLE, f"the service's store can not take this now ({fault_kind(exc)}); retry shortly",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )  # fmt: skip
        log.error("gateway.internal_error", path=request.url.path, error=repr(exc), exc_info=exc)
        return error_response(500, INTERNAL, "internal error (logged)")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JsonResponse:
        log.error("gateway.internal_error", path=request.url.path, error=repr(exc), exc_info=exc)
        return error_response(500, INTERNAL, "internal error (logged)")

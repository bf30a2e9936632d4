"""structlog JSON logging for the service.

Every line is one JSON object. Hot-path lines carry the context keys ``game``, ``cid`` (command id),
``shard`` and ``version`` wherever the caller has them, so one game or one command can be followed with grep.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, TextIO

import orjson
import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def _dumps(obj: Any, **_: Any) -> str:
    # orjson is several times faster than json; default=str keeps odd values (exceptions, bytes) loggable.
    return orjson.dumps(obj, default=str).decode()


class _Stderr:
    """Writes to whatever ``sys.stderr`` is at the time (pytest and redirections swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure(level: str | None = None, stream: TextIO | None = None) -> None:
    """Set up JSON logs at ``level`` (default: env THRONE_LOG_LEVEL, else ``info``) on ``stream`` (stderr).

    Filtering happens in the bound logger itself, so a disabled level costs one method call on the hot path.
    """
    name = (level or os.environ.get("THRONE_LOG_LEVEL") or "info").lower()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(name, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(stream or _Stderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )


def get_logger(component: str, **context: Any) -> Any:
    """A logger bound to ``component`` plus any fixed context (e.g. ``worker``)."""
    return structlog.get_logger().bind(component=component, **context)

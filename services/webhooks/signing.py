"""How a notice is signed, and how a receiver checks it (the same scheme as Stripe's and GitHub's webhooks).

Each webhook has its own secret (``whsec_...``), shown once when it is registered. Every delivery attempt
carries:

* ``X-Throne-Id``: the notice's id, the same on every attempt and every redelivery (deduplicate on it);
* ``X-Throne-Timestamp``: the attempt's time, in whole seconds since the Unix epoch;
* ``X-Throne-Signature``: ``sha256=`` and the hex HMAC-SHA256, keyed with the secret (its UTF-8 bytes), of
  ``<timestamp>.<raw body>``.

A receiver recomputes the HMAC over the raw body bytes it received (before parsing them), compares in constant
time, and refuses a timestamp older than a few minutes (a captured request replayed later): :func:`verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

SECRET_PREFIX = "whsec_"
TOLERANCE_S = 300
"""How old a timestamp :func:`verify` accepts by default (and how far in the future)."""


def new_secret() -> str:
    """A fresh webhook secret: 256 random bits, URL-safe."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Throne-Signature`` value of ``body`` sent at ``timestamp``: ``sha256=<hex>``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(
    secret: str, body: bytes, timestamp: str, header: str, *, tolerance_s: int = TOLERANCE_S, now: float | None = None
) -> bool:
    """Whether ``header`` (``X-Throne-Signature``) signs ``body`` with ``secret`` at ``timestamp``
    (``X-Throne-Timestamp``), and the timestamp is within ``tolerance_s`` of ``now``."""
    try:
        sent = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, sent, body), header or "")

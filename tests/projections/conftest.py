"""Fixtures of the projection suite: the service suite's real redis-server / fakeredis backends, reused.

Importing the fixtures makes them available here without moving them (tests/service owns them).
"""

from __future__ import annotations

from tests.service.conftest import _quiet_logs, backend, fake_tcp_url, redis_url

__all__ = ["_quiet_logs", "backend", "fake_tcp_url", "redis_url"]

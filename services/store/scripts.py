"""The store's Lua scripts, shipped as package data and loaded with importlib.resources."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import redis

from services.bus.faults import is_transient

SCRIPT_NAMES = ("commit", "lease", "release", "archive")


@cache
def source(name: str) -> str:
    """The text of ``services/store/<name>.lua``."""
    return resources.files("services.store").joinpath(f"{name}.lua").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Scripts:
    """SHA1s of the loaded scripts; call :meth:`load` again after a NOSCRIPT (Redis restarted or flushed)."""

    commit: str
    lease: str
    release: str
    archive: str

    @classmethod
    def load(cls, client: redis.Redis) -> Scripts:
        """SCRIPT LOAD every script (idempotent) and remember the SHA1s.

        The hot path then sends bare EVALSHA, also inside pipelines: redis-py's own Script objects would
        add a SCRIPT EXISTS round trip to every pipeline execution.
        """
        shas = {name: client.script_load(source(name)) for name in SCRIPT_NAMES}
        for name, sha in shas.items():
            text = sha.decode() if isinstance(sha, bytes) else sha
            # The server's SHA1 must be ours, or EVALSHA would run some other script.
            assert text == hashlib.sha1(source(name).encode()).hexdigest(), name
        return cls(**{k: (v.decode() if isinstance(v, bytes) else v) for k, v in shas.items()})

    @classmethod
    def expected(cls) -> Scripts:
        """The SHA1s the scripts will have once loaded, computed here without Redis."""
        return cls(**{name: hashlib.sha1(source(name).encode()).hexdigest() for name in SCRIPT_NAMES})

    @classmethod
    def load_or_expect(cls, client: redis.Redis) -> Scripts:
        """:meth:`load`; while Redis is away or loading its data (a transient fault), :meth:`expected`: the first
        EVALSHA then meets NOSCRIPT, and the caller's NOSCRIPT path loads them. A process started before its
        Redis so waits for it in its loop instead of exiting here."""
        try:
            return cls.load(client)
        except redis.RedisError as exc:
            if not is_transient(exc):
                raise
            return cls.expected()

"""The store's Lua scripts, shipped as package data and loaded with importlib.resources."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import redis

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

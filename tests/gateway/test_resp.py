"""The gateway's own packing of a command's XADD and BLPOP is the Redis protocol as redis-py writes it."""

from __future__ import annotations

import pytest
from redis.asyncio.connection import Connection

from services.gateway.asyncbus import _resp


@pytest.mark.parametrize(
    "args",
    [
        (b"XADD", "p:cmds:3", b"*", "id", b"c1", "payload", b'{"type":"Pass","seat":0}', "ver", b"12"),
        (b"BLPOP", "p:reply:3:g\u00e9:0:c1", 0.5),
        (b"BLPOP", "k", 1.0),
        (b"BLPOP", "k", 0.01),
        (b"XADD", "k", b"*", "f", b"\x00\xff\r\n", "n", "\u2603"),
    ],
)
def test_given_a_command_when_packed_then_the_bytes_are_redis_pys(args: tuple[bytes | str | float, ...]) -> None:
    # Given redis-py's own packer
    theirs = b"".join(Connection().pack_command(*args))
    # When the gateway packs the same command, then the bytes are the same
    assert _resp(*args) == theirs

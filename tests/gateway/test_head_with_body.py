"""A response's head goes out in one write with the first part of its body; nothing else is held back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.gateway.protocol import _HeadWithBody


@dataclass
class _Transport:
    writes: list[bytes] = field(default_factory=list)
    closed: bool = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> Any:
        return f"info:{name}"


@dataclass
class _Cycle:
    response_started: bool = False


def test_given_a_response_then_its_head_and_first_body_part_are_one_write_and_the_rest_follows() -> None:
    # Given a request's cycle over a transport
    transport, cycle = _Transport(), _Cycle()
    wrapped = _HeadWithBody(transport, cycle)  # type: ignore[arg-type]
    # When a 100 Continue is written before the response starts, then it goes out at once
    wrapped.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    # When the response starts, its head is held
    cycle.response_started = True
    wrapped.write(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n")
    assert len(transport.writes) == 1
    # Then the first body part goes out with it, in one write, and later parts on their own
    wrapped.write(b"ab")
    wrapped.write(b"cd")
    assert transport.writes[1:] == [b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nab", b"cd"]
    # and everything else of the transport is the transport's
    assert wrapped.get_extra_info("peername") == "info:peername"


def test_given_a_head_held_when_the_connection_closes_then_the_head_is_written_first() -> None:
    # Given a response whose head is held (the app ended without a body)
    transport, cycle = _Transport(), _Cycle(response_started=True)
    wrapped = _HeadWithBody(transport, cycle)  # type: ignore[arg-type]
    wrapped.write(b"HTTP/1.1 500 Internal Server Error\r\n\r\n")
    # When the cycle closes the connection
    wrapped.close()
    # Then the head went out before the close
    assert transport.writes == [b"HTTP/1.1 500 Internal Server Error\r\n\r\n"] and transport.closed

"""Where a webhook may point: the URL rules checked at registration, and the address check made before each
delivery (server-side request forgery).

A webhook makes the service send requests to an address a player chose. Left unchecked, a player could aim the
service at what only the service can reach: Redis on the private network, a cloud metadata endpoint
(169.254.169.254), an admin page on loopback. So, unless the operator allows private targets (tests, a
development machine: ``allow_private``), a target must be a public address:

* at registration (:func:`check_url`): ``http`` or ``https`` only, a host, no user name or password in the
  URL, at most :data:`MAX_URL` characters, and no IP literal or well-known name that is loopback, private,
  link-local, site-local, multicast or reserved. An IPv6 address that carries an IPv4 address (IPv4-mapped,
  IPv4-translated, IPv4-compatible, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo ``2001::/32``) is judged by
  the IPv4 addresses it leads to (``[::ffff:0:7f00:1]`` is 127.0.0.1), and the local-use NAT64 prefix
  ``64:ff9b:1::/48`` is refused (the local network decides where it leads);
* at every new connection of a delivery (:class:`CheckedBackend`, under httpx): the host name is resolved, every
  address it resolves to must be public (a name may be re-pointed after registration), and the connection is
  made to those very addresses, never to a second resolution's (DNS rebinding); redirects are never followed.

An egress policy (a network policy, or an egress proxy that refuses private ranges) is still the belt to these
braces where the webhooks process runs next to something valuable.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

MAX_URL = 2048
"""The longest webhook URL accepted."""
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6 = "|".join(
    (
        rf"(?:{_H}:){{7}}{_H}",
        rf"(?:{_H}:){{1,7}}:",
        rf"(?:{_H}:){{1,6}}:{_H}",
        rf"(?:{_H}:){{1,5}}(?::{_H}){{1,2}}",
        rf"(?:{_H}:){{1,4}}(?::{_H}){{1,3}}",
        rf"(?:{_H}:){{1,3}}(?::{_H}){{1,4}}",
        rf"(?:{_H}:){{1,2}}(?::{_H}){{1,5}}",
        rf"{_H}:(?::{_H}){{1,6}}",
        rf":(?:(?::{_H}){{1,7}}|:)",
        rf"::(?:[Ff]{{4}}(?::0{{1,4}})?:)?{_IPV4}",
        rf"(?:{_H}:){{1,4}}:{_IPV4}",
    )
)
_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
URL_PATTERN = (
    rf"^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[(?:{_IPV6})\])(?::{_PORT})?"
    r"(?:[/?#][!-~]*)?$"
)
"""What a webhook URL looks like (the OpenAPI document publishes it): ``http`` or ``https``, a host name, an
IPv4 address or a bracketed IPv6 one, an optional port (1 to 65535), then a path, query or fragment of printable
ASCII (RFC 3986: other characters are percent-encoded). No user name or password, no spaces."""
_URL_RE = re.compile(URL_PATTERN)

_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


class BadTarget(ValueError):
    """A webhook URL the policy refuses (``code``: ``bad_url`` or ``private_target``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""The well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address a translator reaches."""
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
"""The local-use NAT64 prefix (RFC 8215): where the IPv4 address sits is the local network's choice."""
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
"""IPv4-translated addresses (RFC 2765, SIIT): the last 32 bits are an IPv4 address."""
_SITE_LOCAL = ipaddress.IPv6Network("fec0::/10")
"""Site-local (deprecated by RFC 3879, still routed inside some networks): never public."""


def _embedded(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address] | None:
    """The IPv4 addresses an IPv6 address leads to (None: a plain IPv6 address): IPv4-mapped, IPv4-translated,
    IPv4-compatible (``::a.b.c.d``, also ``::1`` and ``::``), NAT64, 6to4, and Teredo (its server and its client,
    whose address is stored inverted)."""
    last32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _TRANSLATED or ip in _NAT64 or int(ip) >> 32 == 0:
        return [last32]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    return None


def _public(address: str) -> bool:
    """Whether an address literal is one a webhook may reach: a global unicast address, judged for the IPv6 forms
    that carry an IPv4 address by the IPv4 addresses they lead to."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _SITE_LOCAL or ip in _NAT64_LOCAL:
            return False
        embedded = _embedded(ip)
        if embedded is not None:
            return all(_public_v4(v4) for v4 in embedded)
        return ip.is_global and not ip.is_multicast and not ip.is_reserved
    return _public_v4(ip)


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not ip.is_multicast


def check_url(url: str, *, allow_private: bool = False) -> str:
    """``url`` if it may be a webhook's target (see the module docstring), else :class:`BadTarget`."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        raise BadTarget("bad_url", f"a webhook URL has 1 to {MAX_URL} characters")
    if _URL_RE.fullmatch(url) is None:
        raise BadTarget(
            "bad_url", "a webhook URL is http(s)://host[:port][/path] in printable ASCII, with no user name or password"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BadTarget("bad_url", f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise BadTarget("bad_url", "a webhook URL is http:// or https://")
    host = parts.hostname
    if not host:
        raise BadTarget("bad_url", "a webhook URL names a host")
    if parts.username is not None or parts.password is not None:
        raise BadTarget("bad_url", "a webhook URL carries no user name or password (sign with the secret instead)")
    if port == 0:
        raise BadTarget("bad_url", "port 0 is no port")
    if allow_private:
        return url
    if host.lower().rstrip(".") in _LOCAL_NAMES or host.lower().endswith(".localhost"):
        raise BadTarget("private_target", "webhooks may not point at this machine")
    try:
        public = _public(host)
    except ValueError:
        return url  # a name: checked again, resolved, before every delivery
    if not public:
        raise BadTarget("private_target", "webhooks may not point at private, loopback or reserved addresses")
    return url


async def public_addresses(host: str, port: int) -> list[str]:
    """Resolve ``host``; its addresses if every one is public, else :class:`BadTarget`. A name that does not
    resolve raises ``OSError`` (a network error: retried)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses or not all(_public(a) for a in addresses):
        raise BadTarget("private_target", f"{host} resolves to a private, loopback or reserved address")
    return addresses


async def check_host(url: str, *, allow_private: bool = False) -> None:
    """Resolve the URL's host and refuse (:class:`BadTarget`) unless every address is public (or
    ``allow_private``). A name that does not resolve raises ``OSError`` (a network error: retried)."""
    check_url(url, allow_private=allow_private)
    if allow_private:
        return
    parts = urlsplit(url)
    await public_addresses(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))


class CheckedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend that connects only to checked addresses: it resolves the host itself,
    refuses (:class:`BadTarget`) unless every address is public, and connects to those very addresses (TLS
    still verifies the name), so a name re-pointed between the check and the connection (DNS rebinding) gains
    nothing. ``allow_private``: no check (tests, development)."""

    def __init__(self, *, allow_private: bool = False, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allow_private = allow_private
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect to the first of ``host``'s checked addresses that answers."""
        if self.allow_private:
            return await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        failed: Exception | None = None
        for address in await public_addresses(host, port):
            try:
                return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failed = exc
        assert failed is not None
        raise failed

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        """Never: webhooks reach receivers over TCP only."""
        raise BadTarget("bad_url", "webhooks reach receivers over TCP only")

    async def sleep(self, seconds: float) -> None:
        """As the inner backend sleeps."""
        await self.inner.sleep(seconds)


def checked_transport(limits: httpx.Limits, *, allow_private: bool = False) -> httpx.AsyncHTTPTransport:
    """httpx's transport with :class:`CheckedBackend` under its connection pool (httpx takes no backend of its
    own choosing, so it is set on the pool it made; RuntimeError if that pool has changed shape)."""
    transport = httpx.AsyncHTTPTransport(limits=limits, trust_env=False)
    pool = transport._pool
    if not isinstance(getattr(pool, "_network_backend", None), httpcore.AsyncNetworkBackend):
        raise RuntimeError("httpx's connection pool has no network backend to replace: check the httpx version")
    pool._network_backend = CheckedBackend(allow_private=allow_private)  # type: ignore[union-attr]
    return transport

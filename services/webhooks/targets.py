"""Where a webhook may point: the URL rules checked at registration, and the address check made before each
delivery (server-side request forgery).

A webhook makes the service send requests to an address a player chose. Left unchecked, a player could aim the
service at what only the service can reach: Redis on the private network, a cloud metadata endpoint
(169.254.169.254), an admin page on loopback. So, unless the operator allows private targets (tests, a
development machine: ``allow_private``), a target must be a public address:

* at registration (:func:`check_url`): ``http`` or ``https`` only, a host, no user name or password in the
  URL, at most :data:`MAX_URL` characters, and no IP literal or well-known name that is loopback, private,
  link-local, multicast or reserved;
* before every delivery attempt (:func:`check_host`): the host name is resolved and every address it resolves
  to must be public (a name may be re-pointed after registration); redirects are never followed.

What this does not stop: a name that resolves to a public address when checked and to a private one a moment
later, when the HTTP client resolves it again (DNS rebinding). Where that matters, run the webhooks process
where its egress is limited (a network policy, or an egress proxy that refuses private ranges).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import urlsplit

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


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
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


async def check_host(url: str, *, allow_private: bool = False) -> None:
    """Before a delivery: resolve the URL's host and refuse (:class:`BadTarget`) unless every address is public
    (or ``allow_private``). A name that does not resolve raises ``OSError`` (a network error: retried)."""
    check_url(url, allow_private=allow_private)
    if allow_private:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = {str(info[4][0]) for info in infos}
    if not addresses or not all(_public(a) for a in addresses):
        raise BadTarget("private_target", f"{host} resolves to a private, loopback or reserved address")

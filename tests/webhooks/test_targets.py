"""Where a webhook may point (server-side request forgery), and the signature scheme."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from services.webhooks.signing import new_secret, signature, verify
from services.webhooks.targets import BadTarget, check_host, check_url, checked_transport
from tests.webhooks.receiver import receiver


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1/", "http://localhost:8080/x", "http://foo.localhost/", "http://10.1.2.3/", "http://192.168.0.1/",
     "http://172.16.0.1/", "http://169.254.169.254/latest", "http://[::1]/", "http://[fe80::1]/", "http://0.0.0.0/",
     "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/", "http://100.64.0.1/"],
)  # fmt: skip
def test_given_the_default_policy_when_a_private_address_is_named_then_it_is_refused(url: str) -> None:
    with pytest.raises(BadTarget) as refused:
        check_url(url)
    assert refused.value.code == "private_target"
    assert check_url(url, allow_private=True) == url


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/", "file:///etc/passwd", "http://user:pw@example.com/", "https://:pw@example.com/", "http://",
     "example.com/hook", "http://exa mple.com/", "http://example.com:99999/", "http://example.com:0/",
     "https://example.com/" + "a" * 2048, ""],
)  # fmt: skip
def test_given_any_policy_when_a_url_is_not_a_plain_http_target_then_it_is_refused(url: str) -> None:
    for allow in (False, True):
        with pytest.raises(BadTarget) as refused:
            check_url(url, allow_private=allow)
        assert refused.value.code == "bad_url"


def test_given_public_targets_when_checked_then_they_pass_and_a_resolved_private_address_does_not() -> None:
    assert check_url("https://hooks.example.com/throne?x=1") == "https://hooks.example.com/throne?x=1"
    assert check_url("http://93.184.216.34:8080/") == "http://93.184.216.34:8080/"
    asyncio.run(check_host("http://93.184.216.34/"))  # an address literal resolves to itself
    # A name that passed registration is resolved again before a delivery: localhost is loopback
    with pytest.raises(BadTarget):
        asyncio.run(check_host("http://localhost./x"))
    asyncio.run(check_host("http://localhost./x", allow_private=True))


EMBEDDING_FORMS = {
    "ipv4-compatible loopback": "::127.0.0.1",
    "ipv4-translated loopback": "::ffff:0:7f00:1",
    "nat64 of loopback": "64:ff9b::7f00:1",
    "nat64 of the metadata endpoint": "64:ff9b::a9fe:a9fe",
    "local-use nat64": "64:ff9b:1::808:808",
    "6to4 of loopback": "2002:7f00:1::",
    "6to4 of a private network": "2002:a00:1::1",
    "teredo with a reserved client": "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "teredo with a loopback client": "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "site-local": "fec0::1",
}
"""IPv6 forms that lead to a private or loopback IPv4 address, or are not public themselves."""
STILL_PUBLIC = {
    "nat64 of a public address": "64:ff9b::808:808",
    "6to4 of a public address": "2002:808:808::1",
    "teredo of public server and client": "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    "native": "2001:4860:4860::8888",
    "ipv4-mapped public": "::ffff:8.8.8.8",
}


@pytest.mark.parametrize("address", EMBEDDING_FORMS.values(), ids=EMBEDDING_FORMS.keys())
def test_given_an_ipv6_form_of_a_private_address_when_registered_or_delivered_to_then_it_is_refused(
    address: str,
) -> None:
    url = f"http://[{address}]:8080/hook"
    # When registered: refused as a private target
    with pytest.raises(BadTarget) as refused:
        check_url(url)
    assert refused.value.code == "private_target"
    # And at delivery (the literal resolves to itself), refused as well
    with pytest.raises(BadTarget):
        asyncio.run(check_host(url))


@pytest.mark.parametrize("address", STILL_PUBLIC.values(), ids=STILL_PUBLIC.keys())
def test_given_an_ipv6_form_of_a_public_address_when_checked_then_it_passes(address: str) -> None:
    url = f"https://[{address}]/hook"
    assert check_url(url) == url
    asyncio.run(check_host(url))


@pytest.mark.parametrize("address", ["::ffff:0:7f00:1", "64:ff9b::a9fe:a9fe", "fec0::1"])
def test_given_a_public_name_when_it_resolves_to_an_ipv6_form_of_a_private_address_then_delivery_refuses_it(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a name that passed registration, re-pointed since at an IPv6 form of a private address
    url = "https://hooks.example.com/throne"
    assert check_url(url) == url

    async def rebound(self: object, host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))]

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", rebound)
    # When a delivery checks it, then it is refused
    with pytest.raises(BadTarget) as refused:
        asyncio.run(check_host(url))
    assert refused.value.code == "private_target"


def test_given_a_name_rebound_after_its_check_when_a_delivery_connects_then_it_reaches_only_a_checked_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with receiver() as rx:
        port = int(rx.url.rsplit(":", 1)[1])
        url = f"http://rebound.example:{port}/hook"
        answers = iter(["93.184.216.34"])  # public once (for the check), this machine ever after

        async def rebinding(self: object, host: str, port: int, **_: object) -> list[tuple[object, ...]]:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers, "127.0.0.1"), port))]

        monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", rebinding)
        # Given a name that resolves to a public address when checked
        asyncio.run(check_host(url))

        # When a delivery connects (the name now resolves to this machine, where a receiver listens)
        async def post() -> None:
            async with httpx.AsyncClient(transport=checked_transport(httpx.Limits())) as http:
                await http.post(url, content=b"{}")

        # Then the connection is refused, and the receiver hears nothing
        with pytest.raises(BadTarget) as refused:
            asyncio.run(post())
        assert refused.value.code == "private_target" and rx.requests == []


def test_given_a_signed_body_when_verified_then_only_the_same_secret_body_and_a_recent_time_pass() -> None:
    secret, body, now = new_secret(), b'{"id":"g:0:turn:3"}', 1_800_000_000
    header = signature(secret, now, body)
    assert header.startswith("sha256=") and len(header) == 7 + 64
    assert verify(secret, body, str(now), header, now=now + 10)
    assert not verify(new_secret(), body, str(now), header, now=now)
    assert not verify(secret, body + b"x", str(now), header, now=now)
    assert not verify(secret, body, str(now + 1), header, now=now)
    assert not verify(secret, body, str(now), header, now=now + 301)
    assert not verify(secret, body, "soon", header, now=now)
    assert new_secret() != new_secret()

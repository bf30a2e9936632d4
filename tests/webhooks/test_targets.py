"""Where a webhook may point (server-side request forgery), and the signature scheme."""

from __future__ import annotations

import asyncio

import pytest

from services.webhooks.signing import new_secret, signature, verify
from services.webhooks.targets import BadTarget, check_host, check_url


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

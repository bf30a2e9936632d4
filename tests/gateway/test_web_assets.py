"""The web client's files as the gateway serves them: the page at ``/``, its assets under ``/web/``, nothing else."""

from __future__ import annotations

import re

import pytest

from tests.gateway.conftest import Served, error_of

pytestmark = pytest.mark.redis


def test_the_page_and_its_modules_are_served_from_the_package_and_load_nothing_from_elsewhere(gateway: Served) -> None:
    # When the page is asked for at /
    with gateway.http() as http:
        page = http.get("/")
        assets = {name: http.get(f"/web/{name}") for name in ("app.js", "api.js", "style.css")}
    # Then it is HTML whose policy allows this origin only, and every file it names is served with its type
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "http" not in policy
    named = set(re.findall(r'(?:src|href)="/web/([^"]+)"', page.text))
    assert named == {"app.js", "style.css"}
    for name, response in assets.items():
        assert response.status_code == 200, name
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        assert response.headers["content-type"].startswith(kind)
    # And no file refers to another origin (no CDN: the page works offline)
    for response in [page, *assets.values()]:
        assert not re.search(r"(?:src|href|import)[^\n]*https?://", response.text)
    assert 'from "./api.js"' in assets["app.js"].text


def test_only_the_shipped_assets_are_served(gateway: Served) -> None:
    # When a file that is not an asset, or a path that climbs out of the package, is asked for
    with gateway.http() as http:
        missing = http.get("/web/nothing.js")
        python = http.get("/web/__init__.py")
        climbing = http.get("/web/..%2F..%2Fapp.py")
    # Then each is a typed 404
    for response in (missing, python, climbing):
        error_of(response, 404, "not_found")

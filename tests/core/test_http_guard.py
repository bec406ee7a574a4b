"""Cross-site requests against the project's own servers: the guard's rules, and the WebMall shops and the
BrowserArena local web refusing a page of another origin (real Chromium on loopback, and raw requests)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from personal_envs.browser.host import CHROMIUM_ARGS, default_executable
from personal_envs.browser.testing import LocalSite
from personal_envs.browserarena.web import build_local_web, hosts
from personal_envs.core.http_guard import (
    FormTokens,
    cross_origin_refusal,
    host_allowed,
    machine_names,
    request_origin,
    same_origin,
    write_refusal,
)
from personal_envs.webmall.catalog import load_catalog
from personal_envs.webmall.server import ShopCluster

playwright_api = pytest.importorskip("playwright.sync_api")


def test_host_names_of_this_machine_only() -> None:
    for host in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:80", "192.0.2.7", "app.localhost:9"):
        assert host_allowed(host), host
    assert all(host_allowed(name) for name in machine_names())
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", "", "a b", "[::1"):
        assert not host_allowed(host), host
    assert host_allowed("study.lab:8765", ["Study.Lab"])  # a name the operator allowed


def test_origin_rules() -> None:
    same = {"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:8765"}
    assert cross_origin_refusal(same) == "" and same_origin("http://localhost", "localhost:80")
    assert "cross-origin" in cross_origin_refusal({"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:9999"})
    assert "cross-origin" in cross_origin_refusal({"host": "127.0.0.1:8765", "origin": "null"})  # sandboxed page
    assert cross_origin_refusal({"Host": "127.0.0.1:8765", "Referer": "http://127.0.0.1:8765/battle/x"}) == ""
    assert "cross-origin" in cross_origin_refusal({"Host": "127.0.0.1:8765", "Referer": "http://evil.example/"})
    assert request_origin({}) is None and cross_origin_refusal({"Host": "h"}) == ""  # a client that is no browser
    rebound = {"Host": "rebound.evil.example:80", "Origin": "http://rebound.evil.example"}
    assert cross_origin_refusal(rebound) == "" and "not this machine" in write_refusal(rebound)
    assert "names no origin" in cross_origin_refusal({"Host": "h"}, require_origin=True)
    api = {"Host": "127.0.0.1:6800", "Content-Length": "20"}
    assert cross_origin_refusal({**api, "Content-Type": "application/json; charset=utf-8"}, require_json=True) == ""
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""):
        assert "application/json" in cross_origin_refusal({**api, "Content-Type": kind}, require_json=True), kind
    assert cross_origin_refusal({"Host": "h", "Content-Length": "0"}, require_json=True) == ""  # no body, no page


def test_form_tokens_are_bound_to_the_session_and_the_server() -> None:
    tokens, other = FormTokens("s"), FormTokens("s")
    session = tokens.new_session()
    assert tokens.valid(session, tokens.token(session))
    assert not tokens.valid(session, other.token(session))  # another server's secret
    assert not tokens.valid(tokens.new_session(), tokens.token(session)) and not tokens.valid("", "")
    assert "HttpOnly" in tokens.cookie_header(session) and "SameSite=Strict" in tokens.cookie_header(session)


# ----------------------------------------------------------------------------------------------- real servers
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()


def raw_post(url: str, body: str, headers: dict[str, str]) -> int:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request("POST", parts.path + ("?" + parts.query if parts.query else ""), body=body.encode(),
                           headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def attack_page(target: str, fields: dict[str, str]) -> str:
    """A page that posts ``fields`` to ``target`` as a form, then as a text/plain fetch (the two requests a page of
    another site can send without asking)."""
    inputs = "".join(f"<input type='hidden' name='{k}' value='{v}'>" for k, v in fields.items())
    return (f"<form id='f' method='post' action='{target}'>{inputs}</form>"
            f"<script>fetch({json.dumps(target)}, {{method: 'POST', mode: 'no-cors', credentials: 'include', "
            f"headers: {{'Content-Type': 'text/plain'}}, body: {json.dumps(urlencode(fields))}}})"
            ".finally(() => document.getElementById('f').submit());</script>")


def run_attack(browser: Any, target: str, fields: dict[str, str]) -> str:
    with LocalSite({"/": attack_page(target, fields)}) as evil:
        page = browser.new_page()
        try:
            with page.expect_navigation(timeout=15_000):
                page.goto(evil.url("/"))
            return str(page.inner_text("body"))
        finally:
            page.close()


def test_webmall_refuses_posts_from_another_site(browser: Any) -> None:
    shipped_catalog = load_catalog(None)
    cluster = ShopCluster(shipped_catalog)
    try:
        shop = cluster.shop_origins[0]
        product = shipped_catalog.shop(1).products[0]
        shown = run_attack(browser, shop + "/cart/add", {"product": product.slug, "quantity": "1"})
        assert "cross-origin request refused" in shown and cluster.states[0].carted_slugs() == set()
        form = urlencode({"product": product.slug})
        kind = {"Content-Type": "application/x-www-form-urlencoded"}
        # The answer is submitted in the solution page itself (its own DOM, which another origin cannot reach);
        # its server takes no POST from another site either.
        foreign = {**kind, "Origin": "http://127.0.0.1:9"}
        assert raw_post(cluster.solution_origin + "/submit", urlencode({"solution": "Done"}), foreign) == 403
        assert raw_post(shop + "/cart/add", form, {**kind, "Origin": cluster.shop_origins[1]}) == 403  # another shop
        rebound = {**kind, "Host": "rebound.evil.example", "Origin": "http://rebound.evil.example"}
        assert raw_post(shop + "/cart/add", form, rebound) == 403  # a rebound domain is "same-origin" with itself
        assert cluster.states[0].carted_slugs() == set()
        assert raw_post(shop + "/cart/add", form, {**kind, "Origin": shop}) in (200, 302, 303)  # its own page
        assert cluster.states[0].carted_slugs() == {product.slug}
    finally:
        cluster.close()


def test_local_web_refuses_posts_from_another_site() -> None:
    web = build_local_web()
    web.start()
    try:
        target = f"http://{hosts.NEWS_HOST}/"
        connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=10)
        connection.request("POST", target, body=b"a=1", headers={"Host": hosts.NEWS_HOST,
                                                                    "Origin": f"http://{hosts.SEARCH_HOST}"})
        assert connection.getresponse().status == 403
        connection.close()
    finally:
        web.close()

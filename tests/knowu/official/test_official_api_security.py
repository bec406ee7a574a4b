"""``personal-envs knowu serve`` against pages of other sites: a page on another loopback origin (real Chromium)
cannot start or step a task, neither can raw cross-origin or non-JSON requests, nor a rebound foreign host name;
the official client's own JSON requests still work."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from personal_envs.browser.host import CHROMIUM_ARGS, default_executable
from personal_envs.browser.testing import LocalSite
from personal_envs.knowu.official_api.server import KnowUApiServer

playwright_api = pytest.importorskip("playwright.sync_api")
TASK = "BatterySaverGeneralTask"


@pytest.fixture(scope="module")
def server(official_dir: Path) -> Iterator[KnowUApiServer]:
    with KnowUApiServer(str(official_dir)) as running:
        yield running


def request(server: KnowUApiServer, method: str, path: str, body: bytes = b"",
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_raw_cross_origin_and_non_json_requests_are_refused(server: KnowUApiServer) -> None:
    body = json.dumps({"task_name": TASK}).encode()
    own = server.url
    cases = [
        ({"Content-Type": "text/plain", "Origin": "http://127.0.0.1:1"}, "cross-origin"),
        ({"Content-Type": "text/plain"}, "application/json"),  # what a no-cors fetch sends, Origin stripped
        ({"Content-Type": "application/x-www-form-urlencoded"}, "application/json"),  # a form
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, "cross-origin"),
        ({"Content-Type": "application/json", "Origin": "null"}, "cross-origin"),  # a sandboxed frame
        ({"Content-Type": "application/json", "Referer": "http://evil.example/x"}, "cross-origin"),
    ]
    for headers, reason in cases:
        status, answer = request(server, "POST", "/task/init", body, headers)
        assert status == 403 and reason in answer["detail"], (headers, answer)
        assert server.service.running is None
    status, answer = request(server, "GET", "/health", headers={"Host": "rebound.evil.example:6800"})
    assert status == 403 and "not this machine" in answer["detail"]
    status, answer = request(server, "POST", "/task/init", body, {"Content-Type": "application/json",
                                                                  "Host": "rebound.evil.example"})
    assert status == 403 and server.service.running is None
    # the official client's request (JSON, no Origin), and the same with the server's own origin: accepted
    status, answer = request(server, "POST", "/task/init", body, {"Content-Type": "application/json"})
    assert (status, answer, server.service.running) == (200, "OK", TASK)
    status, _ = request(server, "POST", "/task/tear_down", body, {"Content-Type": "application/json",
                                                                  "Origin": own})
    assert status == 200 and server.service.running is None


def test_a_page_of_another_origin_cannot_drive_the_phone(server: KnowUApiServer) -> None:
    target = server.url + "/task/init"
    body = json.dumps({"task_name": TASK})
    attack = (f"<form id='f' method='post' action='{target}' enctype='text/plain'>"
              f"<input name='{{\"task_name\": \"{TASK}\", \"x\": \"' value='\"}}'></form><script>"
              f"Promise.allSettled([fetch({json.dumps(target)}, {{method: 'POST', mode: 'no-cors', "
              f"headers: {{'Content-Type': 'text/plain'}}, body: {json.dumps(body)}}}), "
              f"fetch({json.dumps(target + '?task_name=' + TASK)}, {{method: 'POST', mode: 'no-cors'}}), "
              f"fetch({json.dumps(target)}, {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, "
              f"body: {json.dumps(body)}}})]).then(r => {{ window.results = r.map(x => x.status); "
              "});</script>")
    with LocalSite({"/": attack}) as evil, playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        try:
            page = chromium.new_page()
            page.goto(evil.url("/"))
            page.wait_for_function("() => window.results", timeout=60_000)  # every request answered
            assert server.service.running is None and server.service.actions == []
            with page.expect_navigation(timeout=20_000):
                page.evaluate("() => document.getElementById('f').submit()")
            shown = page.inner_text("body")
        finally:
            chromium.close()
    assert server.service.running is None
    assert "cross-origin request refused" in shown  # the form reached the server and was refused

"""Start URLs of submitted tasks: only http(s) servers this machine can reach, never script URLs, local files, cloud
metadata or (unless the operator allowed them) loopback and private-network services; and every Chromium of the
project refuses the metadata addresses on every request, a redirect included."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import personal_envs  # noqa: F401
from personal_envs.browser.host import CHROMIUM_ARGS, default_executable
from personal_envs.browser.start_url import StartUrlError, check_start_url, start_url_refusal
from personal_envs.browser.testing import LocalSite
from personal_envs.core.http import Response

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.mark.parametrize(("url", "reason"), [
    ("javascript:alert(document.cookie)", "http:// or https://"),
    ("JaVaScRiPt:alert(1)", "http:// or https://"),
    ("data:text/html,<script>alert(1)</script>", "http:// or https://"),
    ("file:///etc/passwd", "http:// or https://"),
    ("ftp://example.com/", "http:// or https://"),
    ("//example.com/", "no scheme"),
    ("example.com", "no scheme"),
    ("http://", "names no host"),
    ("http://user:secret@example.com/", "user name or password"),
    ("http://169.254.169.254/latest/meta-data/iam/", "cloud metadata"),
    ("http://169.254.169.254.:80/", "cloud metadata"),
    ("http://[fe80::1]/", "cloud metadata"),
    ("http://[fd00:ec2::254]/", "cloud metadata"),
    ("http://metadata.google.internal/computeMetadata/v1/", "cloud metadata"),
    ("http://100.100.100.200/latest/meta-data/", "cloud metadata"),
    ("http://example.com:99999/", "malformed"),
    ("http://example.com/" + "a" * 3000, "characters long"),
])
def test_refused_from_the_url_alone(url: str, reason: str) -> None:
    assert reason in start_url_refusal(url)
    with pytest.raises(StartUrlError, match=reason.replace("(", r"\(")):
        check_start_url(url, probe=False)


def test_addresses_that_resolve_to_metadata_loopback_or_private_networks() -> None:
    with pytest.raises(StartUrlError, match="link-local or cloud-metadata"):
        check_start_url("http://2852039166/", probe=False)  # 169.254.169.254 written as one number
    with pytest.raises(StartUrlError, match="link-local or cloud-metadata"):
        check_start_url("http://[::ffff:169.254.169.254]/", probe=False)
    for url in ("http://127.0.0.1:8765/export/votes.jsonl", "http://localhost:8080/v1/models", "http://10.0.0.8/",
                "http://192.168.1.1/", "http://[::1]:6800/task/init", "http://0x7f000001/"):
        with pytest.raises(StartUrlError, match="loopback or private-network"):
            check_start_url(url, probe=False)
    with pytest.raises(StartUrlError, match="unspecified, multicast or reserved"):
        check_start_url("http://0.0.0.0:8765/", probe=False)
    with pytest.raises(StartUrlError, match="cannot be resolved"):
        check_start_url("http://no-such-host.invalid/", probe=False)
    assert check_start_url("") == "" and check_start_url("   ") == ""  # no start URL at all


def test_allowed_local_sites_and_reachability() -> None:
    with LocalSite({"/": "<h1>tea</h1>"}) as site:
        url = site.url("/")
        with pytest.raises(StartUrlError, match="loopback or private-network"):
            check_start_url(url)  # the operator did not allow it
        assert check_start_url(f"  {url} ", allowed_origins=[site.origin]) == url
        with pytest.raises(StartUrlError, match="outside the sites"):
            check_start_url("http://example.com/", allowed_origins=[site.origin])
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{free.getsockname()[1]}"
        with pytest.raises(StartUrlError, match="cannot be reached from this machine"):
            check_start_url(closed + "/", allowed_origins=[closed])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()


def test_chromium_never_reaches_metadata_even_by_redirect(browser: Any) -> None:
    targets = ["http://169.254.169.254/latest/meta-data/", "http://2852039166/", "http://metadata.google.internal/"]
    pages = {f"/r{i}": (lambda request, url=url: Response.redirect(url)) for i, url in enumerate(targets)}
    with LocalSite(pages) as site:
        page = browser.new_page()
        try:
            for i, _ in enumerate(targets):
                for url in (targets[i], site.url(f"/r{i}")):  # directly, and through a public page's redirect
                    with pytest.raises(playwright_api.Error, match="ERR_NAME_NOT_RESOLVED"):
                        page.goto(url, timeout=10_000)  # refused at once, not a connection attempt
        finally:
            page.close()


def test_the_open_env_refuses_a_script_start_url() -> None:
    env = gym.make("BrowserArena-Open-v0", max_wait_s=0.0, viewport=(480, 320), navigation_timeout_s=5.0)
    try:
        _, info = env.reset(seed=0, options={"task": "x", "start_url": "javascript:alert(1)"})
        assert "http:// or https://" in info["start_error"]
        obs, *_ = env.step({"action_type": "go_to_url", "url": "http://169.254.169.254/latest/"})
        assert "cloud-metadata" in obs["last_action_error"]
    finally:
        env.close()

"""Navigation: allowed origins, forbidden schemes, pages that never finish loading."""

from __future__ import annotations

import pytest

from personal_envs.browser import AllowedOrigins, BrowserHost, BrowserSession
from personal_envs.browser.testing import LocalSite, Response

from .test_observation import bid_of


@pytest.fixture
def two_sites(serve) -> tuple[LocalSite, LocalSite]:
    other = serve({"/": "<title>Other</title><h1>Other site secret</h1>", "/img.png": Response(b"", content_type="image/png")})
    home = serve({
        "/": f"<title>Home</title><a href='{other.url('/')}'>Leave</a><a href='/jump'>Jump</a>"
             f"<a href='/inner'>Inner</a><img src='{other.url('/img.png')}' alt='remote'>",
        "/inner": "<title>Inner</title><p>inside</p>",
        "/jump": Response("", status=302, headers={"Location": other.url("/")}),
    })
    return home, other


def test_allowed_origins_parsing() -> None:
    allowed = AllowedOrigins(["http://127.0.0.1:8000", "https://shop.example"])
    assert allowed.allows("http://127.0.0.1:8000/x?y=1")
    assert allowed.allows("https://shop.example:443/cart") and allowed.allows("HTTPS://SHOP.EXAMPLE/")
    assert not allowed.allows("http://127.0.0.1:8001/") and not allowed.allows("http://shop.example/")
    assert allowed.allows("about:blank") and allowed.allows("data:text/html,hi")
    assert not allowed.allows("file:///etc/passwd") and not allowed.allows("not a url")
    assert allowed.describe() == "http://127.0.0.1:8000, https://shop.example:443"
    with pytest.raises(ValueError):
        AllowedOrigins(["shop.example"])


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/", "http://127.0.0.1:8000", "http://127.0.0.1:8000?q=1", "http://127.0.0.1:8000#top",
    "http://127.0.0.1:80001/", "http://127.0.0.1:8001/x", "http://127.0.0.10:8000/", "https://127.0.0.1:8000/",
    "https://shop.example/", "https://shop.example:443/a", "HTTPS://SHOP.EXAMPLE/a", "http://shop.example/",
    "https://shop.example.evil.org/", "https://shop.example@evil.org/", "https://shop.example:4430/",
    "ws://127.0.0.1:8000/socket", "wss://shop.example/socket", "ws://127.0.0.1:8001/",
    "about:blank", "data:text/html,x", "blob:http://127.0.0.1:8000/1", "chrome://version", "file:///etc/passwd",
    "http://[::1]:9000/a", "http://[::1]:9001/a",
])
def test_outside_pattern_blocks_exactly_what_allows_refuses(url: str) -> None:
    allowed = AllowedOrigins(["http://127.0.0.1:8000", "https://shop.example", "http://[::1]:9000"])
    assert bool(allowed.outside_pattern().search(url)) == (not allowed.allows(url))


def test_route_reaches_python_only_for_blocked_requests(browser_host: BrowserHost, two_sites) -> None:
    home, other = two_sites
    with BrowserSession(browser_host, allowed_origins=[home.origin]) as session:
        seen: list[str] = []
        original = session._route

        def spy(route) -> None:  # type: ignore[no-untyped-def]
            seen.append(route.request.url)
            original(route)

        session._route = spy  # type: ignore[method-assign]
        session.reset()  # the new context routes through the spy
        assert session.goto(home.url("/")) == ""
        assert session.goto(home.url("/inner")) == ""
        assert session.goto(other.url("/")).startswith("blocked: ")
    assert seen and all(url.startswith(other.origin) for url in seen), seen


def test_goto_click_and_redirect_outside_are_blocked(browser_host: BrowserHost, two_sites) -> None:
    home, other = two_sites
    with BrowserSession(browser_host, allowed_origins=[home.origin], navigation_timeout_s=5) as session:
        assert session.goto(home.url("/")) == ""
        direct = session.goto(other.url("/"))
        assert direct.startswith(f"blocked: {other.url('/')} is outside the allowed sites ({home.origin})")
        assert session.url == home.url("/")
        obs = session.observe()
        clicked = session.execute({"action_type": "click", "bid": bid_of(obs, "Leave")})
        assert clicked.startswith("blocked: ") and other.origin in clicked
        assert session.url == home.url("/"), "the agent stays on the allowed page"
        redirected = session.execute({"action_type": "click", "bid": bid_of(session.observe(), "Jump")})
        assert redirected.startswith("blocked: ") and other.origin in redirected
        assert "Other site secret" not in session.observe().axtree
        assert session.execute({"action_type": "click", "bid": bid_of(session.observe(), "Inner")}) == ""
        assert session.url == home.url("/inner")
        assert session.goto("data:text/html,<h1>data ok</h1>") == ""
        assert "heading 'data ok'" in session.observe().axtree
        assert session.goto("about:blank") == ""
    # Only the server redirect reaches the other site (Playwright routes do not see redirect hops); its page was
    # left at once and never observed.
    assert [line for line in other.requests if line.startswith("GET /")] == ["GET /"]
    assert "GET /img.png" not in other.requests, "subresources from other origins are blocked too"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "chrome://version", "javascript:alert(1)",
                                 "view-source:http://127.0.0.1/", "ftp://127.0.0.1/"])
def test_local_files_and_browser_pages_are_refused(session: BrowserSession, url: str) -> None:
    error = session.goto(url)
    assert error.startswith("cannot open") and "only http(s)" in error
    assert session.url == "about:blank"


def test_unrestricted_session_reaches_any_local_origin(session: BrowserSession, two_sites) -> None:
    home, other = two_sites
    assert session.goto(home.url("/")) == ""
    assert session.goto(other.url("/")) == ""
    assert "Other site secret" in session.observe().axtree
    assert session.goto(f"127.0.0.1:{home.port}/inner") == "", "a URL without scheme gets http://"
    assert session.url == home.url("/inner")


def test_page_that_never_answers_times_out(browser_host: BrowserHost, serve) -> None:
    site = serve({"/": "<a href='/slow'>Slow link</a>", "/slow": Response("late", delay_s=60)})
    with BrowserSession(browser_host, navigation_timeout_s=1.5, action_timeout_s=1.0) as session:
        error = session.goto(site.url("/slow"))
        assert "timed out after 1.5 s" in error
        obs = session.observe()
        assert obs.error == error
        assert session.goto(site.url("/")) == "", "the session keeps working"
        clicked = session.execute({"action_type": "click", "bid": bid_of(session.observe(), "Slow link")})
        assert clicked.startswith("the next page did not load within 1.5 s") and "/slow was stopped" in clicked
        obs = session.observe()
        assert obs.error == clicked and "link 'Slow link'" in obs.axtree, "the shown page stays observable"


def test_page_whose_image_never_loads_is_usable(session: BrowserSession, serve) -> None:
    site = serve({"/": "<h1>Gallery</h1><img src='/hang.png' alt='stuck'>",
                  "/hang.png": Response(b"", content_type="image/png", delay_s=60)})
    assert session.goto(site.url("/")) == "", "DOMContentLoaded is enough; the load event is awaited briefly"
    assert "heading 'Gallery'" in session.observe().axtree

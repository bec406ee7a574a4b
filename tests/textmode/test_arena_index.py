"""BrowserArena's element list computed without a browser (:mod:`personal_envs.textmode.arena_index`) against the
browser mode's, on the pages of the local web reached by following links from each site's home page."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym

import personal_envs  # noqa: F401 - registers the ids
from personal_envs.browserarena.dom import parse_index
from personal_envs.browserarena.env import BrowserArenaEnv
from personal_envs.browserarena.web import hosts
from personal_envs.textmode.arena_index import clean, index_page
from personal_envs.textmode.session import TextSession

#: Pages the crawl compares.
CRAWL_PAGES = 60
_PIXELS = re.compile(r"^\.\.\. \d+ pixels (above|below)")


def _text_elements(session: TextSession) -> tuple[str, list[str]]:
    page = session.page
    assert page is not None
    raw, _ = index_page(page.document, page.styles, page.layout(session.viewport), url=page.url,
                        scroll_y=page.scroll_y, viewport=session.viewport)
    links = [item["attrs"]["href"] for item in raw["items"] if item["kind"] == "element" and
             "href" in item.get("attrs", {})]
    return parse_index(raw, max_chars=30_000).rendered, links


def crawl(pages: int) -> tuple[int, int, list[str]]:
    """``(pages compared, pages differing only in the scroll-distance lines, other differences)``."""
    env: BrowserArenaEnv = gym.make("BrowserArena-PopupBanner-v0", screenshot=False, max_wait_s=0).unwrapped
    try:
        env.reset(seed=0)
        assert env.web is not None
        session = TextSession({f"http://{host}": env.web for host in env.web.hosts}, viewport=env.viewport)
        queue = [f"http://{host}/" for host in (hosts.NEWS_HOST, hosts.TRAVEL_HOST, hosts.SEARCH_HOST,
                                                 hosts.TRAVEL_MOBILE_HOST, hosts.COMPETITOR_HOST)]
        queue += [f"http://{hosts.WIKI_HOST}/wiki/Main_Page", f"http://{hosts.SEARCH_HOST}/search?q=flights+to+paris"]
        seen: set[str] = set()
        compared = pixels_only = 0
        differences: list[str] = []
        while queue and compared < pages:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            obs: dict[str, Any]
            obs, _, terminated, truncated, _ = env.step({"action_type": "go_to_url", "url": url})
            if terminated or truncated:
                env.reset()
                obs, *_ = env.step({"action_type": "go_to_url", "url": url})
            error = session.goto(url)
            text, links = _text_elements(session)
            compared += 1
            if obs["url"] != session.url or bool(obs["last_action_error"]) != bool(error):
                differences.append(f"{url}: url {obs['url']} vs {session.url}, error {obs['last_action_error']!r} "
                                   f"vs {error!r}")
            browser_lines, text_lines = obs["elements"].splitlines(), text.splitlines()
            if browser_lines != text_lines:
                masked_b = [_PIXELS.sub(r"... N pixels \1", line) for line in browser_lines]
                masked_t = [_PIXELS.sub(r"... N pixels \1", line) for line in text_lines]
                if masked_b == masked_t:
                    pixels_only += 1
                else:
                    differences.append(f"{url}: {sorted(set(browser_lines) ^ set(text_lines))[:6]}")
            origin = session.url.split("/", 3)
            for href in links:
                if href.startswith("/"):
                    queue.append(f"{origin[0]}//{origin[2]}{href}")
                elif href.startswith("http://"):
                    queue.append(href)
        return compared, pixels_only, differences
    finally:
        env.close()


def test_element_lists_equal_the_browser_modes_on_the_local_web() -> None:
    compared, pixels_only, differences = crawl(CRAWL_PAGES)
    print(f"\nBrowserArena index crawl: {compared} pages, {pixels_only} differ only in the scroll distances")
    assert compared == CRAWL_PAGES
    assert differences == []
    assert pixels_only <= 0.1 * compared  # the layout estimate's page heights (README, Text mode)


def test_clean_collapses_whitespace_as_the_script_does() -> None:
    assert clean("  a \n\t b\u00a0c ", 300) == "a b c"
    assert clean("abcdef", 3) == "abc"
    assert clean(None, 5) == ""

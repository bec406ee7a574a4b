"""BrowserGym's AX-tree text (``axtree_format="browsergym"``): the line rules, and both backends on real pages.

The line-for-line comparison with BrowserGym's own code is ``tests/webmall/test_browsergym_parity.py`` (it needs
the browsergym-core virtualenv); these tests need nothing but Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from personal_envs.browser import BrowserHost, BrowserSession
from personal_envs.browser.axtree import parse_axtree
from personal_envs.browser.bgym_format import SnapshotFacts, format_line, render_cdp, visibility_ratio

LONG = " ".join(f"word{i}" for i in range(300))
PAGE = f"""<!doctype html><html><head><title>It's a page</title></head><body>
<h1>Shop</h1><nav aria-label="Main"><a href="/cart">Cart</a> <span>(3)</span></nav>
<p>{LONG}</p>
<label for="q">Search</label><input id="q" value="lamp" required>
<button>Go</button><div aria-live="polite"></div>
<table><thead><tr><th>Item</th></tr></thead><tbody><tr><td>Lamp&nbsp;€</td></tr></tbody></table>
<div style="height:3000px"></div><a href="/far">Far link</a>
</body></html>"""


def test_line_rules() -> None:
    assert format_line("12", "link", "Men's", None, [("focusable", True), ("url", "http://x/")],
                       ["clickable", "visible"]) == "[12] link \"Men's\", clickable, visible, url='http://x/'"
    assert format_line("3", "textbox", " Email ", "a", [("invalid", "false"), ("focused", True), ("required", False),
                                                         ("level", 2)], []) == "[3] textbox 'Email' value='a', focused"
    assert format_line("", "generic", "", None, [("live", "polite"), ("atomic", False)], []) == "generic, live='polite'"
    assert format_line("", "StaticText", "12,99\xa0€", None, [], []) == "StaticText '12,99\\xa0€'"
    assert visibility_ratio((0, 700, 100, 40), (1280, 720)) == 0.5
    assert visibility_ratio((0, 710, 100, 40), (1280, 720)) == 0.25
    assert visibility_ratio((10, 10, 0, 0), (1280, 720)) == 1.0 and visibility_ratio(None, (1280, 720)) == 0.0


def test_tree_rules_on_chromium_nodes() -> None:
    def node(node_id: int, role: str, name: str | None, children: list[int], **extra: object) -> dict[str, object]:
        found: dict[str, object] = {"nodeId": str(node_id), "role": {"value": role},
                                    "childIds": [str(c) for c in children], **extra}
        if name is not None:
            found["name"] = {"value": name}
        return found

    nodes = [node(1, "RootWebArea", "T", [2, 3], properties=[{"name": "url", "value": {"value": "http://x/"}}]),
             node(2, "link", "Cart (3)", [4, 5]), node(3, "generic", "", [6]),
             node(4, "StaticText", "Cart", [7]), node(7, "InlineTextBox", "Cart", []),
             node(5, "generic", "", [8]), node(8, "StaticText", "(3)", []),
             node(6, "none", None, [9], ignored=True), node(9, "StaticText", "free", [])]
    facts = SnapshotFacts({}, {}, {}, {}, frozenset(), frozenset())
    text, _ = render_cdp(nodes, facts, (1280, 720))
    # The text directly under the link repeats its name; the one under a <span> (generic) does not count as such.
    assert text.split("\n") == ["RootWebArea 'T', url='http://x/'", "\tlink 'Cart (3)'", "\t\tStaticText '(3)'",
                                "\tStaticText 'free'"]


@pytest.fixture(params=["cdp", "dom"])
def bgym_session(request, browser_host: BrowserHost) -> Iterator[BrowserSession]:
    with BrowserSession(browser_host, axtree_backend=request.param, axtree_format="browsergym") as session:
        yield session


def test_both_backends_write_browsergym_text(bgym_session: BrowserSession, serve) -> None:
    site = serve({"/": PAGE})
    assert bgym_session.goto(site.url("/")) == ""
    obs = bgym_session.observe()
    lines = obs.axtree.splitlines()
    assert lines[0] == f"RootWebArea \"It's a page\", focused, url='{site.url('/')}'"
    assert f"StaticText '{LONG}'" in obs.axtree  # nothing clipped
    cart = next(line for line in lines if "link 'Cart'" in line)
    assert cart.endswith(f", clickable, visible, url='{site.url('/cart')}'") and cart.startswith("\t\t[")
    assert any(line.strip() == "StaticText '(3)'" for line in lines)
    far = next(line for line in lines if "link 'Far link'" in line)
    assert ", clickable, url=" in far and "visible" not in far  # below the viewport
    box = next(line for line in lines if "textbox 'Search'" in line)
    assert box.endswith("textbox 'Search' value='lamp', clickable, visible, required")
    assert "generic, visible, live='polite', relevant='additions text'" in obs.axtree
    assert "rowgroup ''" in obs.axtree and "cell 'Lamp\\xa0€', visible" in obs.axtree
    assert "level=" not in obs.axtree and "focusable" not in obs.axtree
    parsed = {line.name: line for line in parse_axtree(obs.axtree)}
    # A button outside a form with no click listener does not respond to clicks as far as Chromium can tell.
    assert "visible" in parsed["Go"].flags and "clickable" not in parsed["Go"].flags
    assert parsed["Go"].role == "button" and parsed["Go"].bid in obs.elements
    assert bgym_session.execute({"action_type": "click", "bid": parsed["Search"].bid}) == ""
    focused = bgym_session.observe()
    assert any(line.endswith(", focused, required") and "textbox 'Search'" in line
               for line in focused.axtree.splitlines())


def test_set_of_marks_screenshot(bgym_session: BrowserSession, serve) -> None:
    site = serve({"/": PAGE})
    bgym_session.goto(site.url("/"))
    plain = bgym_session.observe(screenshot=True)
    marked = bgym_session.observe(screenshot=True, set_of_marks=True)
    assert plain.screenshot is not None and marked.screenshot is not None
    changed = np.any(plain.screenshot.astype(int) - marked.screenshot.astype(int) != 0, axis=2)
    assert changed.mean() > 0.001
    assert not changed[650:, :].any()  # the far link (out of view) is not marked, nothing is drawn low on the page

"""DevTools commands sent together: same results as one by one, errors still surface."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError

from personal_envs.browser import BrowserSession
from personal_envs.browser.cdp import send_concurrently


class _OneByOne:
    """A CDP session without Playwright's async layer: ``send_concurrently`` must fall back to plain sends."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, method: str, params: dict | None = None) -> dict:
        self.sent.append(method)
        return {"method": method, "params": params}


def test_results_come_back_in_command_order(session: BrowserSession, serve) -> None:
    site = serve({"/": "<title>T</title><h1>Heading</h1><p>text</p>"})
    assert session.goto(site.url("/")) == ""

    def both(page):  # type: ignore[no-untyped-def]
        cdp = page.context.new_cdp_session(page)
        commands = [
            ("Runtime.evaluate", {"expression": "document.title", "returnByValue": True}),
            ("Accessibility.getFullAXTree", None),
            ("Page.captureScreenshot", {"format": "jpeg", "quality": 50}),
            ("Runtime.evaluate", {"expression": "1 + 1", "returnByValue": True}),
        ]
        together = send_concurrently(cdp, commands)
        alone = [cdp.send(method, params) for method, params in commands]
        return together, alone

    together, alone = session.call(both)
    assert together[0]["result"]["value"] == alone[0]["result"]["value"] == "T"
    assert {n.get("role", {}).get("value") for n in together[1]["nodes"]} >= {"heading", "paragraph"}
    assert len(together[1]["nodes"]) == len(alone[1]["nodes"])
    assert together[2]["data"] and together[3]["result"]["value"] == 2


def test_a_failing_command_raises(session: BrowserSession) -> None:
    def bad(page):  # type: ignore[no-untyped-def]
        cdp = page.context.new_cdp_session(page)
        return send_concurrently(cdp, [("Runtime.evaluate", {"expression": "1"}), ("No.suchMethod", None)])

    with pytest.raises(PlaywrightError, match="No.suchMethod"):
        session.call(bad)


def test_falls_back_to_plain_sends() -> None:
    fake = _OneByOne()
    results = send_concurrently(fake, [("A.one", None), ("B.two", {"x": 1})])  # type: ignore[arg-type]
    assert [r["method"] for r in results] == fake.sent == ["A.one", "B.two"]

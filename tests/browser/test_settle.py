"""Waiting for what an action starts in place (``settle_s``), against BrowserGym's fixed ``pre_observation_delay``:
a script's request answered within the limit is on the next observation; one slower than the limit is not (nor
would it be after BrowserGym's 0.5 s); the fixed delay waits whatever happens."""

from __future__ import annotations

import pytest

from personal_envs.browser import BrowserSession
from personal_envs.browser.testing import LocalSite
from personal_envs.core.http import Request, Response

PAGE = """<html><head><title>In place</title></head><body>
<button id=go onclick="fetch('/answer?d=' + this.dataset.delay).then(r => r.json()).then(d => {
  document.getElementById('out').textContent = 'answer ' + d.n; })" data-delay="0.2">Add</button>
<p id=out>nothing yet</p></body></html>"""


def _answer(request: Request) -> Response:
    delay = float(request.arg("d") or 0)
    return Response('{"n": 7}', content_type="application/json", delay_s=delay)


def _click_and_read(session: BrowserSession, url: str, delay: float) -> str:
    assert session.goto(url) == ""
    session.call(lambda page: page.evaluate(f"document.getElementById('go').dataset.delay = '{delay}'"))
    button = next(b for b, e in session.observe().elements.items() if e.role == "button")
    assert session.execute({"action_type": "click", "bid": button}) == ""
    return session.observe().axtree


@pytest.mark.parametrize("delay", [0.0, 0.2])
def test_an_answered_request_shows_on_the_next_observation(delay: float) -> None:
    with LocalSite({"/": PAGE, "/answer": _answer}) as site:
        with BrowserSession(settle_s=0.5) as settled:
            assert "answer 7" in _click_and_read(settled, site.url("/"), delay)
        if delay:
            with BrowserSession() as immediate:  # no wait: the answer is still on its way
                assert "nothing yet" in _click_and_read(immediate, site.url("/"), delay)


def test_the_wait_stops_at_its_limit_and_the_fixed_delay_waits_anyway() -> None:
    with LocalSite({"/": PAGE, "/answer": _answer}) as site:
        with BrowserSession(settle_s=0.5) as settled:
            assert "nothing yet" in _click_and_read(settled, site.url("/"), 1.5)  # BrowserGym would not see it
        with BrowserSession(fixed_delay_s=0.5) as fixed:
            assert "answer 7" in _click_and_read(fixed, site.url("/"), 0.2)
            assert "nothing yet" in _click_and_read(fixed, site.url("/"), 1.5)

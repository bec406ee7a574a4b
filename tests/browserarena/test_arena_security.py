"""The vote page against an adversary, in real Chromium and with raw requests: stored fields with script payloads
show as text on every page, a page of another origin cannot submit tasks or vote (form and text/plain fetch, with the
victim's session cookie), raw requests without the page's origin and form token are refused, an annotator name
cannot be borrowed to see the models, exports are for the operator, votes are final, and the task box refuses long
tasks and bad start URLs."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
from PIL import Image

from personal_envs.browser.host import CHROMIUM_ARGS, default_executable
from personal_envs.browser.testing import LocalSite
from personal_envs.browserarena.arena import ArenaStore, VotePage
from personal_envs.browserarena.arena.store import Annotation, BattleRecord
from personal_envs.browserarena.arena.voting import notebook_html

playwright_api = pytest.importorskip("playwright.sync_api")


def payload(field: str) -> str:
    """Text that runs script if a page inserts it as HTML (in an element or in an attribute)."""
    return (f"{field}:<img src=x onerror=\"window.__xss='{field}'\">'\"><svg onload=\"window.__xss='{field}'\">"
            f"<script>window.__xss='{field}'</script></textarea>")


def make_battle(root: Path, store: ArenaStore, battle_id: str = "") -> BattleRecord:
    """A battle whose task, env, models and every trace field the page shows carry payloads."""
    paths: dict[str, str] = {}
    for tag in ("a", "b"):
        trace = {"task": payload("trace_task"), "model": payload(f"trace_model_{tag}"),
                 "steps": [{"step": 1, "url": payload(f"url_{tag}"),
                            "brain": {"evaluation_previous_goal": payload(f"evaluation_{tag}"),
                                      "memory": payload(f"memory_{tag}"), "next_goal": payload(f"next_goal_{tag}")},
                            "actions": [{"name": payload(f"action_name_{tag}"),
                                         "arguments": {"text": payload(f"argument_{tag}")},
                                         "result": payload(f"result_{tag}")},
                                        {"name": "click", "arguments": {}, "error": payload(f"error_{tag}")}]},
                           {"step": "not a number", "brain": ["not", "an", "object"], "actions": "nope"}],
                 "final": {"finished": True, "answer": payload(f"answer_{tag}")}}
        folder = root / (battle_id or "b") / tag
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "trace.json").write_text(json.dumps(trace), encoding="utf-8")
        Image.new("RGB", (32, 24), "teal").save(folder / "rec.gif", format="GIF")
        paths[f"trace_{tag}"], paths[f"gif_{tag}"] = str(folder / "trace.json"), str(folder / "rec.gif")
    record = BattleRecord(battle_id, payload("env_id"), "t1", payload("task_text"), payload("model_a"),
                          payload("model_b"), **paths)
    return store.battle(store.add_battle(record))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()


_HANDLERS = """() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
    .filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))
    .concat([...document.querySelectorAll('script, svg, img[src=x], img[src="x"], iframe')].map(e => e.tagName))"""


def assert_inert(page: Any, dialogs: list[str], *fields: str) -> str:
    """Nothing ran, no element was injected, and each field's payload shows as text."""
    page.wait_for_timeout(50)
    assert page.evaluate("() => window.__xss") is None, page.url
    assert page.evaluate(_HANDLERS) == [], page.url
    assert not dialogs, dialogs
    text = str(page.inner_text("body"))
    for field in fields:
        assert f"{field}:<img src=x onerror=" in text, (field, page.url)
    return text


def test_every_field_shows_as_text_in_chromium(tmp_path: Path, browser: Any) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    record = make_battle(tmp_path, store, battle_id="id<svg onload=alert(1)>")
    other = make_battle(tmp_path, store)
    evil_name = payload("annotator")[:80]
    store.annotate(Annotation(record.battle_id, "a", 1, False, payload("annotation_reason"), evil_name,
                              {"memory": False}))
    for voter, winner in ((payload("voter_x"), "model_a"), (payload("voter_y"), "tie")):
        store.record_vote(other.battle_id, winner, voter[:80])
    store.record_vote(other.battle_id, "model_b", payload("judge"), source="judge")
    store.submit_task(payload("submitted_task"))
    with VotePage(store, voter_name="ann") as server:
        context = browser.new_context()
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        try:
            who = "?annotator=" + quote(evil_name, safe="")
            page.goto(f"{server.url}/{who}")
            assert_inert(page, dialogs, "env_id", "task_text")
            assert page.locator("input[name=annotator]").input_value() == evil_name
            page.goto(f"{server.url}/submit{who}")
            assert_inert(page, dialogs, "submitted_task")
            page.get_by_label("Task").fill("harmless")
            page.get_by_label("Start URL").fill("javascript:" + payload("start_url"))
            page.get_by_role("button", name="Send to two anonymous agents").click()
            assert "http:// or https://" in assert_inert(page, dialogs)  # the refusal quotes the URL as text
            page.goto(f"{server.url}/battle/{quote(record.battle_id, safe='')}{who}")
            shown = assert_inert(page, dialogs, "task_text", "evaluation_a", "memory_a", "next_goal_b",
                                 "action_name_a", "result_b", "error_a", "url_a", "answer_b", "annotation_reason")
            assert "model_a:" not in shown and "trace_model" not in shown  # anonymous until the vote
            page.get_by_role("button", name="Left is better").click()
            page.wait_for_selector("#vote-result")
            assert_inert(page, dialogs, "model_a", "model_b")  # revealed after the vote, as text
            page.goto(f"{server.url}/leaderboard{who}")
            assert_inert(page, dialogs, "model_a", "env_id")
            page.goto(f"{server.url}/leaderboard?votes=judge")
            assert_inert(page, dialogs, "model_b")
            page.goto(f"{server.url}/agreement")
            assert_inert(page, dialogs, "voter_x", "judge")
        finally:
            context.close()
    assert store.votes(record.battle_id)[0].voter == evil_name


def test_the_notebook_voter_shows_the_task_as_text(tmp_path: Path, browser: Any) -> None:
    record = make_battle(tmp_path, ArenaStore(tmp_path / "arena.sqlite"))
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.set_content(f"<html><body>{notebook_html(record)}</body></html>")  # as a notebook cell shows it
        assert_inert(page, dialogs, "task_text")
        assert page.locator("img").count() == 2
    finally:
        page.close()


def _attack(target: str, fields: dict[str, str]) -> str:
    inputs = "".join(f"<input type='hidden' name='{k}' value='{v}'>" for k, v in fields.items())
    return (f"<form id='f' method='post' action='{target}'>{inputs}</form><script>"
            f"fetch({json.dumps(target)}, {{method: 'POST', mode: 'no-cors', credentials: 'include', "
            f"headers: {{'Content-Type': 'text/plain'}}, body: {json.dumps(urlencode(fields))}}})"
            ".finally(() => { window.sent = true; });</script>")


def test_a_page_of_another_origin_cannot_submit_or_vote(tmp_path: Path, browser: Any) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    record = make_battle(tmp_path, store)
    with VotePage(store) as server:
        context = browser.new_context()  # the victim's browser: it has a session on the vote page
        page = context.new_page()
        try:
            page.goto(server.url + "/submit")
            token = page.locator("input[name=csrf]").first.input_value()
            assert context.cookies() and len(token) == 64
            for target, fields in ((f"{server.url}/submit", {"text": "exfiltrate", "csrf": token}),
                                   (f"{server.url}/battle/{record.battle_id}/vote",
                                    {"winner": "model_a", "annotator": "web", "csrf": token})):
                with LocalSite({"/": _attack(target, fields)}) as evil:  # another loopback origin (other port)
                    page.goto(evil.url("/"))
                    page.wait_for_function("() => window.sent === true")
                    with page.expect_navigation():
                        page.evaluate("() => document.getElementById('f').submit()")
                    assert "cross-origin request refused" in page.inner_text("body")
        finally:
            context.close()
    assert store.tasks() == [] and store.votes() == []


class RawClient:
    """A client that talks to the vote page like a browser would, or not quite (for the refusals)."""

    def __init__(self, url: str) -> None:
        self.url = url
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "", int(parts.port or 80)
        self.cookie = ""
        self.token = ""

    def call(self, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
             ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            sent = {"Content-Type": "application/x-www-form-urlencoded", **({"Cookie": self.cookie}
                                                                             if self.cookie else {}),
                    **(headers or {})}
            connection.request(method, path, body=body.encode() or None, headers=sent)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
        finally:
            connection.close()

    def open(self, path: str = "/submit") -> str:
        status, headers, text = self.call("GET", path)
        assert status == 200
        if "Set-Cookie" in headers:
            self.cookie = headers["Set-Cookie"].split(";", 1)[0]
        match = re.search(r"name='csrf' value='([0-9a-f]+)'", text)
        self.token = match[1] if match else ""
        return text

    def post(self, path: str, fields: dict[str, str], *, origin: str | None = "own", token: bool = True,
             headers: dict[str, str] | None = None) -> tuple[int, str]:
        extra = dict(headers or {})
        if origin is not None:
            extra["Origin"] = self.url if origin == "own" else origin
        form = {**fields, **({"csrf": self.token} if token else {})}
        status, _, text = self.call("POST", path, urlencode(form), extra)
        return status, text


def test_raw_requests_need_the_pages_origin_token_and_host(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    battle = make_battle(tmp_path, store).battle_id
    with VotePage(store) as server:
        ann, bob = RawClient(server.url), RawClient(server.url)
        ann.open()
        bob.open()
        vote = {"winner": "model_a", "annotator": "ann"}
        path = f"/battle/{battle}/vote"
        refusals = [
            (ann.post(path, vote, origin=None), "names no origin"),  # curl-like, or a hidden-referrer form
            (ann.post(path, vote, origin="http://127.0.0.1:9"), "cross-origin"),
            (ann.post(path, vote, origin="null"), "cross-origin"),
            (ann.post(path, vote, token=False), "token is missing or stale"),
            (ann.post(path, {**vote, "csrf": bob.token}, token=False), "token is missing or stale"),
            (ann.post(path, vote, headers={"Host": "rebound.evil.example:80"}), "this machine"),
            (RawClient(server.url).post("/submit", {"text": "x"}), "token is missing or stale"),  # no session
        ]
        for (status, text), reason in refusals:
            assert status == 403 and reason in text, (status, text[:300])
        assert store.votes() == []
        assert ann.post(path, vote)[0] == 303
        status, text = ann.post(path, {**vote, "winner": "model_b"})
        assert status == 409 and "a vote is final" in text  # a second, different vote
        assert ann.post(path, vote)[0] == 303  # the same vote sent again: no change
        assert [(v.voter, v.winner) for v in store.votes()] == [("ann", "model_a")]
        status, text = bob.post(path, {**vote, "winner": "tie"})  # bob, in his own browser, says he is ann
        assert status == 403 and "belongs to another browser" in text
        for path, auth in (("/export/votes.jsonl", {}), ("/export/annotations.jsonl", {}),
                           ("/export/votes.jsonl?token=guess", {}),
                           ("/export/votes.jsonl", {"Authorization": "Bearer guess"})):
            status, _, text = ann.call("GET", path, headers=auth)
            assert status == 403 and "operator" in text and "model_a" not in text
        status, _, text = ann.call("GET", urlsplit(server.export_url("votes")).path + "?token=" +
                                   server.operator_token)
        assert status == 200 and json.loads(text.splitlines()[0])["anony"] is True
        status, _, _ = ann.call("GET", "/export/annotations.jsonl",
                                headers={"Authorization": f"Bearer {server.operator_token}"})
        assert status == 200
        status, headers, _ = ann.call("GET", "/")
        assert "script-src" not in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"


def test_an_annotator_name_does_not_reveal_the_models_to_another_browser(tmp_path: Path, browser: Any) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    record = make_battle(tmp_path, store)
    store.add_battle(BattleRecord("cli-voted", "env", "t", "task", "m-left", "m-right", record.trace_a,
                                  record.trace_b, record.gif_a, record.gif_b))
    store.record_vote("cli-voted", "tie", "ann")  # ann voted in the terminal
    with VotePage(store) as server:
        battle_url = f"{server.url}/battle/{record.battle_id}"
        first, second = browser.new_context(), browser.new_context()
        try:
            mine, theirs = first.new_page(), second.new_page()
            mine.goto(battle_url + "?annotator=ann")
            assert "model_a:" not in mine.inner_text("body")
            mine.get_by_role("button", name="Right is better").click()
            mine.wait_for_selector("#vote-result")
            assert "model_a:" in mine.inner_text("#side-a h2")  # ann sees the models after her vote
            for name in ("ann", "eve"):
                theirs.goto(f"{battle_url}?annotator={name}")
                text = theirs.inner_text("body")
                assert "model_a:" not in text and "model_b:" not in text, name
                assert "/export/" not in theirs.content()  # no export links for annotators
                if name == "ann":
                    assert "already voted on this battle from another browser" in text
            theirs.goto(f"{server.url}/battle/cli-voted?annotator=ann")
            assert "m-left" not in theirs.inner_text("body")  # a terminal vote reveals nothing on the web
            theirs.goto(f"{battle_url}?annotator=eve")
            theirs.get_by_label("Left step 1 wrong", exact=True).check()
            theirs.get_by_label("Save Left step 1").click()
            theirs.wait_for_selector("#a-step-1 .saved")
            theirs.goto(f"{server.url}/battle/cli-voted?annotator=eve")
            theirs.get_by_role("button", name="Tie").click()
            theirs.wait_for_selector("#vote-result")
            assert "m-left" in theirs.inner_text("#side-a h2")
            mine.goto(f"{server.url}/battle/cli-voted?annotator=eve")  # ann's browser claims to be eve
            mine.get_by_label("Right step 1 correct", exact=True).check()
            mine.get_by_label("Save Right step 1").click()
            assert "belongs to another browser" in mine.inner_text("body")
        finally:
            first.close()
            second.close()
    assert [(v.voter, v.winner) for v in store.votes(record.battle_id)] == [("ann", "model_b")]
    assert [(n.annotator, n.side) for n in store.annotations(record.battle_id)] == [("eve", "a")]


def test_the_task_box_refuses_long_tasks_and_bad_start_urls(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.sqlite")
    with LocalSite({"/": "<h1>tea</h1>"}) as site, VotePage(store, allowed_origins=[site.origin]) as server:
        client = RawClient(server.url)
        client.open()
        cases = [({"text": "x" * 10_000}, "10,000 characters long; at most 4,000"),
                 ({"text": "t", "start_url": "javascript:alert(1)"}, "http:// or https://"),
                 ({"text": "t", "start_url": "http://169.254.169.254/latest/meta-data/"}, "cloud metadata"),
                 ({"text": "t", "start_url": f"{server.url}/export/votes.jsonl"}, "outside the sites"),
                 ({"text": "t", "start_url": "file:///etc/passwd"}, "http:// or https://"),
                 ({"text": "   "}, "a task needs a text")]
        for fields, reason in cases:
            status, text = client.post("/submit", fields)
            assert status == 400 and reason in text, (fields, text[:300])
        assert store.tasks() == []
        assert client.post("/submit", {"text": "What does the shop sell?", "start_url": site.url("/")})[0] == 303
        assert [(t.text, t.start_url) for t in store.tasks()] == [("What does the shop sell?", site.url("/"))]
        assert "maxlength='4000'" in client.open("/submit")

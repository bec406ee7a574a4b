"""The solution page against the official one (``docker_all/index.html`` of WebMall v1.0, in the anchors): same
words, same accessibility tree in Chromium in every state (empty, filled, submitted, whitespace-only submitted),
in-place submission with disabled controls, no shop links, and the env reading the submission as the official
evaluator does (whitespace-only ignored, a text over 100,000 characters scored whole)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from personal_envs.browser import BrowserSession
from personal_envs.browser.testing import LocalSite
from personal_envs.webmall.env import WebMallEnv
from personal_envs.webmall.solution_page import (
    PROJECT_TEXTS,
    find_official_page,
    load_solution_texts,
    read_submission,
    render_solution_page,
)

_BID = re.compile(r"^(\s*)\[[^\]]+\] ")


@pytest.fixture()
def official_page(webmall_dir: Path) -> Path:
    path = find_official_page(webmall_dir)
    if path is None:
        pytest.skip(f"the official solution page is not in the anchors ({webmall_dir}/docker_all/index.html)")
    return path


def _lines(axtree: str, url: str) -> list[str]:
    """The lines without bids, the URL as ``URL``, tabs as 8 spaces (the official prompt file's indentation)."""
    return [_BID.sub(r"\1", line.expandtabs(8)).replace(url, "URL") for line in axtree.splitlines()]


def _prompt_solution_tree(webmall_dir: Path) -> list[str]:
    """The AX tree of the solution page in the official agent prompt (``examples/task_message.txt``)."""
    text = (webmall_dir / "examples" / "task_message.txt").read_text(encoding="utf-8")
    block = text.split("## AXTree:", 1)[1].split("## Focused element:", 1)[0]
    tree = [line for line in block.splitlines() if line.strip() and not line.startswith(("Note:", "present,",
                                                                                         "are ", "If the"))]
    tree = [line for line in tree if not line.startswith("elements") and "unique alpha-numeric" not in line]
    return [_BID.sub(r"\1", line).replace("https://webmall-0.informatik.uni-mannheim.de/", "URL")
            for line in tree if line.startswith(("RootWebArea", "\t", " "))]


def test_the_words_are_the_official_pages(official_page: Path, webmall_dir: Path) -> None:
    texts = load_solution_texts(webmall_dir)
    assert texts.source == "official"
    prompt = "\n".join(_prompt_solution_tree(webmall_dir))
    for word in (texts.title, texts.heading, texts.instructions, texts.placeholder, texts.button):
        assert repr(word) in prompt, word  # each shows in the official prompt's tree of the page
    assert load_solution_texts(None) == PROJECT_TEXTS and load_solution_texts(Path("/nonexistent")) == PROJECT_TEXTS


def _states(session: BrowserSession, url: str) -> Iterator[tuple[str, list[str]]]:
    assert session.goto(url) == ""
    yield "empty", _lines(session.observe().axtree, url)
    elements = session.observe().elements
    field = next(b for b, e in elements.items() if e.role == "textbox")
    button = next(b for b, e in elements.items() if e.role == "button")
    assert session.execute({"action_type": "fill", "bid": field, "value": "  \n "}) == ""
    assert session.execute({"action_type": "click", "bid": button}) == ""
    yield "whitespace submitted", _lines(session.observe().axtree, url)
    assert session.call(read_submission) == ""
    assert session.execute({"action_type": "fill", "bid": field, "value": " http://a.test/product/x###Done "}) == ""
    yield "filled", _lines(session.observe().axtree, url)
    assert session.execute({"action_type": "click", "bid": button}) == ""
    yield "submitted", _lines(session.observe().axtree, url)
    assert session.call(read_submission) == "http://a.test/product/x###Done"
    # the controls are disabled: a second submission cannot happen
    assert "disabled" in session.execute({"action_type": "fill", "bid": field, "value": "other"})


def test_the_page_reads_like_the_official_page_in_every_state(official_page: Path, webmall_dir: Path) -> None:
    ours = render_solution_page(load_solution_texts(webmall_dir))
    with LocalSite({"/official": official_page.read_text(encoding="utf-8"), "/ours": ours}) as site, \
            BrowserSession(axtree_format="browsergym", axtree_backend="dom") as session:
        official = dict(_states(session, site.url("/official")))
        for backend in ("dom", "cdp"):
            session.axtree_backend = backend  # type: ignore[assignment]
            project = dict(_states(session, site.url("/ours")))
            assert project == official, backend
    ignored = "\n".join(official["whitespace submitted"])  # the official page ignores it: nothing shown or disabled
    assert "disabled" not in ignored and official["whitespace submitted"][-1].lstrip().startswith("generic")
    assert any("value=' http://a.test/product/x###Done '" in line for line in official["filled"])
    submitted = "\n".join(official["submitted"])
    assert "StaticText 'http://a.test/product/x###Done'" in submitted and "disabled=True" in submitted
    assert not any("link" in line for state in official.values() for line in state)  # no shop links


def test_the_env_shows_the_page_of_the_official_prompt(official_page: Path, webmall_dir: Path) -> None:
    """The observation of the filled page equals the tree in the official agent prompt (bids and URL aside)."""
    prompt = _prompt_solution_tree(webmall_dir)
    value = re.search(r"value='([^']*)'", "\n".join(prompt))
    assert value is not None
    env = WebMallEnv(data_dir=webmall_dir, task_id="Webmall_Find_Specific_Product_Task1")
    try:
        obs, _ = env.reset(options={"task_index": 0})
        field = re.search(r"\[(\w+)\] textbox", obs["axtree"])
        assert field is not None
        assert env.action_space.contains("click('3')") and not env.action_space.contains("dblclick('3')")
        obs, *_ = env.step("click('1') click('2')")  # refused as BrowserGym refuses it, and counted as a step
        assert "multi-action" in obs["last_action_error"] and env.steps == 1
        obs, *_ = env.step(f"fill('{field.group(1)}', '{value.group(1)}')")  # a BrowserGym action string
        assert obs["last_action_error"] == ""
        assert _lines(obs["axtree"], env.cluster.solution_origin + "/") == prompt
    finally:
        env.close()


def _submit(env: WebMallEnv, text: str) -> tuple[dict[str, object], float, bool, dict[str, object]]:
    obs = env.step({"action_type": "goto", "url": env.cluster.solution_origin + "/"})[0]
    field = re.search(r"\[(\w+)\] textbox", str(obs["axtree"]))
    button = re.search(r"\[(\w+)\] button 'Submit Final Result'", str(obs["axtree"]))
    assert field and button
    env.step({"action_type": "fill", "bid": field.group(1), "value": text})
    obs, reward, terminated, _, info = env.step({"action_type": "click", "bid": button.group(1)})
    return obs, float(reward), terminated, info


def test_submissions_as_the_official_evaluator_reads_them() -> None:
    env = WebMallEnv(data_dir="shipped", task_set="basic")
    try:
        index = next(i for i, t in enumerate(env.tasks) if t.category == "Specific_Product")
        env.reset(options={"task_index": index})
        obs, reward, terminated, _ = _submit(env, " \n\t ")
        assert not terminated and reward == 0.0 and obs["last_action_error"] == ""  # ignored, as the page ignores it
        assert "disabled" not in str(obs["axtree"])
        # a submission over 100,000 characters is read whole: the answers at its end count
        padding = "notes " * 25_000
        obs, reward, terminated, info = _submit(env, padding + "###".join(env.expected_urls))
        assert terminated and reward == 1.0 and info["metrics"]["completed"] == 1.0
        assert len(env.world.submission or "") > 150_000
        assert "disabled=True" in str(obs["axtree"])
    finally:
        env.close()


_QUOTED = re.compile(r"'[^']*'")


def test_without_the_official_page_the_tree_has_the_official_prompts_shape(webmall_dir: Path) -> None:
    """Without the official ``index.html`` (the anchors here hold the official prompt, not the page) the page keeps
    the project's words, and its filled tree has the official prompt's shape: the same lines, roles, properties and
    nesting, only the quoted words differ."""
    prompt = _prompt_solution_tree(webmall_dir)
    value = re.search(r"value='([^']*)'", "\n".join(prompt))
    assert value is not None
    env = WebMallEnv(data_dir=webmall_dir, task_id="Webmall_Find_Specific_Product_Task1")
    try:
        obs, _ = env.reset(options={"task_index": 0})
        field = re.search(r"\[(\w+)\] textbox", obs["axtree"])
        assert field is not None
        obs, *_ = env.step(f"fill('{field.group(1)}', '{value.group(1)}')")
        ours = _lines(obs["axtree"], env.cluster.solution_origin + "/")
    finally:
        env.close()
    assert [_QUOTED.sub("''", line) for line in ours] == [_QUOTED.sub("''", line) for line in prompt]
    assert any(f"value='{value.group(1)}'" in line for line in ours)

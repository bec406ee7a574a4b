"""The six actions of the paper's Table 1 beyond the first 18 (wait_for_element, click by selector / XPath / text,
save_pdf, save_html_to_file) and ``extract_content`` with and without a model, on the local news site in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from personal_envs.browserarena.actions import BROWSERUSE_ACTION_SPECS
from personal_envs.browserarena.env import BrowserArenaEnv
from personal_envs.browserarena.extraction import RAW_LABEL
from personal_envs.browserarena.tasks import banner_tasks
from personal_envs.llm.client import ChatClient
from personal_envs.llm.testing import ScriptedChatServer


@pytest.fixture()
def news_env(tmp_path: Path) -> Iterator[BrowserArenaEnv]:
    env = BrowserArenaEnv(tasks=[banner_tasks()[0]], max_wait_s=0.0, screenshot=False, extraction_model=None,
                          files_dir=str(tmp_path))
    try:
        yield env
    finally:
        env.close()


def step(env: BrowserArenaEnv, action: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    obs, _, _, _, info = env.step(action)
    return obs, env.browser_trace["steps"][-1]


def test_the_paper_s_24_actions() -> None:
    names = [spec.name for spec in BROWSERUSE_ACTION_SPECS]
    assert len(names) == 24 == len(set(names))
    assert names[-6:] == ["wait_for_element", "click_element_by_selector", "click_element_by_xpath",
                          "click_element_by_text", "save_pdf", "save_html_to_file"]


def test_wait_and_click_by_text_selector_and_xpath(news_env: BrowserArenaEnv) -> None:
    news_env.reset(seed=0)
    obs, record = step(news_env, {"action_type": "wait_for_element", "selector": "button"})
    assert obs["last_action_error"] == "" and "is visible" in obs["action_result"]
    obs, record = step(news_env, {"action_type": "wait_for_element", "selector": "#no-such-element", "timeout": 200})
    assert "did not become visible" in obs["last_action_error"]
    assert record["banner"] is True
    obs, record = step(news_env, {"action_type": "click_element_by_text", "text": "Accept all", "element_type": "button"})
    assert obs["last_action_error"] == "" and record["banner"] is False
    obs, record = step(news_env, {"action_type": "click_element_by_selector", "css_selector": "a[href='/section/world']"})
    assert obs["last_action_error"] == "" and record["url"].endswith("/section/world")
    obs, record = step(news_env, {"action_type": "click_element_by_xpath", "xpath": "//a[text()='Home']"})
    assert obs["last_action_error"] == "" and record["url"].rstrip("/").endswith("dailyherald.test")
    obs, record = step(news_env, {"action_type": "click_element_by_text", "text": "No such words anywhere"})
    assert obs["last_action_error"].startswith("No element matches")


def test_save_pdf_and_html(news_env: BrowserArenaEnv, tmp_path: Path) -> None:
    news_env.reset(seed=0)
    obs, _ = step(news_env, {"action_type": "save_pdf"})
    pdf = Path(obs["action_result"].rsplit(" to ", 1)[1])
    assert pdf.parent == tmp_path and pdf.read_bytes().startswith(b"%PDF")
    obs, _ = step(news_env, {"action_type": "save_html_to_file"})
    html = Path(obs["action_result"].rsplit(" to ", 1)[1])
    assert html.suffix == ".html" and "The Daily Herald" in html.read_text(encoding="utf-8")


def test_extract_content_without_a_model_is_labelled_raw(news_env: BrowserArenaEnv) -> None:
    news_env.reset(seed=0)
    obs, _ = step(news_env, {"action_type": "extract_content", "goal": "the headlines"})
    assert obs["action_result"].startswith(RAW_LABEL) and "The Daily Herald" in obs["action_result"]


def test_extract_content_asks_the_model() -> None:
    def responder(request: dict[str, Any]) -> str:
        page = request["messages"][-1]["content"]
        assert "Extraction goal: the banner's title" in page
        return "Banner title: We value your privacy" if "We value your privacy" in page else "not found"

    with ScriptedChatServer(responder) as server:
        env = BrowserArenaEnv(tasks=[banner_tasks()[0]], max_wait_s=0.0, screenshot=False,
                              extraction_model=ChatClient(base_url=server.base_url, model="scripted-model"))
        try:
            env.reset(seed=0)
            obs, _ = step(env, {"action_type": "extract_content", "goal": "the banner's title"})
        finally:
            env.close()
    assert obs["action_result"] == ("Extracted from page for goal \"the banner's title\" (by scripted-model):\n"
                                    "Banner title: We value your privacy")
    assert len(server.requests) == 1


def test_the_default_files_folder_is_removed_on_close() -> None:
    env = BrowserArenaEnv(tasks=[banner_tasks()[0]], max_wait_s=0.0, screenshot=False, extraction_model=None)
    try:
        env.reset(seed=0)
        obs, _ = step(env, {"action_type": "save_html_to_file"})
        saved = Path(obs["action_result"].rsplit(" to ", 1)[1])
        assert saved.exists()
    finally:
        env.close()
    assert not saved.parent.exists()

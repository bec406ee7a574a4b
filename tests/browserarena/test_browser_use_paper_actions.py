"""browser-use's own Agent with the paper's action set, raw tool calling, and every model request counted.

* browser-use 0.1.40's registry, asked in its own venv with the bridge's controller, lists the 24 actions of the
  paper's Table 1 (0.1.41rc2's names and parameters);
* a scripted model makes browser-use's Agent run each of the eight added actions (and the renamed
  ``click_element_by_index``, and ``extract_content`` with the 0.1.41 ``should_strip_link_urls``) once, on the local
  news site in browser-use's own Chromium; the trace shows what each did;
* ``personal-envs eval`` with ``--policy browser-use``: the footer's calls and tokens equal what the scripted chat
  server received and answered (an HTTP 500 and its retry, the agent's steps, the extraction model's call), and an
  action browser-use drops on its last step is recorded as dropped, never as an action named ``"?"``.

Skipped, with the reason, when browser-use's venv is not installed (``bash scripts/setup_browser_use.sh``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from personal_envs.browserarena.browser_use_policy import BRIDGE, BrowserUsePolicy, browser_use_missing
from personal_envs.browserarena.env import BrowserArenaEnv
from personal_envs.browserarena.external import ExternalStep
from personal_envs.browserarena.tasks import banner_tasks
from personal_envs.browserarena.web import hosts
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.runner import EvalConfig, evaluate, report
from tests.browserarena.scripted_browser_use import agent_reply, brain, is_extraction, prompt_text

MISSING = browser_use_missing()
needs_browser_use = pytest.mark.skipif(MISSING is not None, reason=f"browser-use venv not installed: {MISSING}")

#: The paper's Table 1 (24 actions).
TABLE_1 = {
    "done", "search_google", "go_to_url", "go_back", "wait", "click_element_by_index", "input_text", "switch_tab",
    "open_tab", "close_tab", "extract_content", "scroll_down", "scroll_up", "send_keys", "scroll_to_text",
    "get_dropdown_options", "select_dropdown_option", "drag_drop", "wait_for_element", "click_element_by_selector",
    "click_element_by_xpath", "click_element_by_text", "save_pdf", "save_html_to_file",
}
#: Parameters of the actions 0.1.40 lacks or spells differently, as 0.1.41rc2 declares them (name: required).
PAPER_PARAMETERS: dict[str, dict[str, bool]] = {
    "click_element_by_index": {"index": True, "xpath": False},
    "wait_for_element": {"selector": True, "timeout": False},
    "click_element_by_selector": {"css_selector": True},
    "click_element_by_xpath": {"xpath": True},
    "click_element_by_text": {"text": True, "element_type": True, "nth": False},
    "close_tab": {"page_id": True},
    "extract_content": {"goal": True, "should_strip_link_urls": True},
    "save_pdf": {},
    "save_html_to_file": {},
    "drag_drop": {name: False for name in (
        "element_source", "element_target", "element_source_offset", "element_target_offset", "coord_source_x",
        "coord_source_y", "coord_target_x", "coord_target_y", "steps", "delay_ms")},
}
NEWS = f"http://{hosts.NEWS_HOST}"

_REGISTRY_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from browser_use import Controller
from browser_use_actions import install_paper_actions
controller = Controller()
before = sorted(controller.registry.registry.actions)
install_paper_actions(controller, files_dir=sys.argv[2])
actions = controller.registry.registry.actions
print(json.dumps({"before": before, "after": list(actions),
                  "schemas": {n: a.param_model.model_json_schema() for n, a in actions.items()},
                  "prompt": controller.registry.get_prompt_description()}))
"""


@needs_browser_use
def test_browser_use_registry_lists_the_paper_s_24_actions(tmp_path: Path) -> None:
    from personal_envs.browserarena.browser_use_policy import browser_use_python

    done = subprocess.run([str(browser_use_python()), "-c", _REGISTRY_PROBE, str(BRIDGE.parent), str(tmp_path)],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, "ANONYMIZED_TELEMETRY": "false"})
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["before"]) == 16 and len(TABLE_1 - set(found["before"])) == 9  # 8 new + the renamed click
    assert set(found["after"]) == TABLE_1 and len(found["after"]) == 24
    # 0.1.41rc2's registration order: the order of the model's action list
    assert found["after"][:7] == ["done", "search_google", "go_to_url", "go_back", "wait", "wait_for_element",
                                  "click_element_by_index"]
    assert found["after"][-1] == "drag_drop"
    for name, parameters in PAPER_PARAMETERS.items():
        schema = found["schemas"][name]
        assert set(schema.get("properties", {})) == set(parameters), name
        assert {p for p, required in parameters.items() if required} == set(schema.get("required", [])), name
    assert "{click_element_by_index: " in found["prompt"] and "{click_element: " not in found["prompt"]


def _news_actions_model(sections: list[str]) -> Any:
    """One browser-use step per line below; extraction calls answer with a fixed summary."""
    world, business = sections[0], sections[2]
    plan: list[list[dict[str, Any]]] = [
        [{"wait_for_element": {"selector": "#consent-overlay", "timeout": 3000}},
         {"click_element_by_text": {"text": "Accept all", "element_type": "button"}}],
        [{"click_element_by_selector": {"css_selector": f"header a[href='/section/{world}']"}}],
        [{"click_element_by_xpath": {"xpath": "//header/a[text()='Home']"}}],
        [{"open_tab": {"url": f"{NEWS}/section/{business}"}}, {"close_tab": {"page_id": 0}}],
        [{"save_pdf": {}}, {"save_html_to_file": {}}],
        [{"drag_drop": {"element_source": "main h1", "element_target": "main ul"}},
         {"drag_drop": {"coord_source_x": 40, "coord_source_y": 200, "coord_target_x": 400, "coord_target_y": 220,
                        "steps": 4, "delay_ms": 0}}],
        [{"extract_content": {"goal": "list the headlines", "should_strip_link_urls": True}},
         {"extract_content": {"goal": "list the headlines with links", "should_strip_link_urls": False}}],
        [{"wait_for_element": {"selector": "#no-such-element", "timeout": 300}}],
        [{"click_anything": {"index": 1}}, {"done": {"text": "Ran every action.", "success": True}}],
    ]
    state = {"step": 0}
    lock = threading.Lock()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        if is_extraction(request):
            return {"content": '{"headlines": ["summary of the page"]}'}
        with lock:
            step = state["step"]
            state["step"] += 1
        actions = plan[min(step, len(plan) - 1)]
        return agent_reply(request, brain(f"step {step + 1}"), actions)

    return respond


@needs_browser_use
def test_each_added_action_runs_in_browser_use_s_own_agent(tmp_path: Path) -> None:
    from personal_envs.browserarena.web.world import NEWS_SECTIONS

    files = tmp_path / "files"
    files.mkdir()
    with ScriptedChatServer(_news_actions_model(list(NEWS_SECTIONS))) as server:
        env = BrowserArenaEnv(tasks=[banner_tasks()[0]], max_wait_s=0.0, max_steps=12)
        policy = BrowserUsePolicy(env, base_url=server.base_url, model="scripted-model", files_dir=files)
        try:
            policy.attach(env)
            obs, info = env.reset(seed=0)
            policy.reset(obs, info)
            done = False
            while not done:
                action = policy.act(obs, info)
                assert isinstance(action, ExternalStep)
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            trace = env.browser_trace
            report_ = policy.episode_report()
        finally:
            policy.close()
            env.close()
    steps = trace["steps"]
    names = [[a["name"] for a in s["actions"]] for s in steps]
    assert names == [["wait_for_element", "click_element_by_text"], ["click_element_by_selector"],
                     ["click_element_by_xpath"], ["open_tab", "close_tab"], ["save_pdf", "save_html_to_file"],
                     ["drag_drop", "drag_drop"], ["extract_content", "extract_content"], ["wait_for_element"],
                     ["done"]]
    by_step = [{a["name"]: a for a in s["actions"]} for s in steps]
    # wait_for_element saw the banner; the text click closed it (the page reloads without it)
    assert steps[0]["actions"][0]["error"] == "" and "#consent-overlay" in steps[0]["actions"][0]["result"]
    assert trace["initial"]["banner"] is True and steps[0]["banner"] is False
    # selector and XPath clicks navigated
    assert steps[1]["url"] == f"{NEWS}/section/world" and steps[1]["actions"][0]["error"] == ""
    assert steps[2]["url"].rstrip("/") == NEWS
    # close_tab closed tab 0 (not the last tab): only the business section's tab is left
    assert by_step[3]["close_tab"]["error"] == "" and steps[3]["tabs"] == [f"{NEWS}/section/business"]
    # save_pdf wrote a PDF; save_html_to_file fails as 0.1.41rc2's does
    pdf = files / "dailyherald-test-section-business.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    assert by_step[4]["save_html_to_file"]["error"] == ("Failed to save HTML content: module 'datetime' has no "
                                                        "attribute 'now'")
    # both drag_drop forms ran
    drags = steps[5]["actions"]
    assert [d["error"] for d in drags] == ["", ""]
    assert "main h1" in drags[0]["result"] and "(40, 200) to (400, 220)" in drags[1]["result"]
    # extract_content: 0.1.40's extraction, with links stripped only when asked
    extractions = [r for r in server.requests if is_extraction(r)]
    assert len(extractions) == 2
    assert "](/article/" not in prompt_text(extractions[0]) and "](/article/" in prompt_text(extractions[1])
    assert "summary of the page" in steps[6]["actions"][0]["result"]
    # a wait that times out fails the step, and the trace keeps the action with its error
    assert "did not become visible" in steps[7]["actions"][0]["error"]
    # an action name the controller does not have is dropped by browser-use's parser: recorded as dropped
    assert steps[8]["dropped_actions"] == [{"name": "click_anything", "arguments": {"index": 1},
                                            "reason": "not an action of browser-use's controller"}]
    assert "?" not in {a["name"] for s in steps for a in s["actions"]}
    # every request counted, by purpose
    assert report_["calls"] == len(server.requests) == 11
    assert report_["calls_by_purpose"] == {"agent": 9, "action": 2}


def _footer_model() -> Any:
    """HTTP 500 first (the SDK retries), then: extract_content; on the last step a click (browser-use drops it)."""
    state = {"agent": 0, "failed": False}
    sent: list[dict[str, int]] = []
    lock = threading.Lock()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        with lock:
            if not state["failed"]:
                state["failed"] = True
                return {"status": 500, "message": "scripted overload"}
            n = len(sent)
            usage = {"prompt_tokens": 1000 + 7 * n, "completion_tokens": 20 + n, "total_tokens": 1020 + 8 * n}
            sent.append(usage)
            if is_extraction(request):
                return {"content": "The front page lists eight sections.", "usage": usage}
            state["agent"] += 1
            step = state["agent"]
        if step == 1:
            actions: list[dict[str, Any]] = [{"extract_content": {"goal": "what is on the page",
                                                                  "should_strip_link_urls": True}}]
        else:
            match = re.search(r"\[(\d+)\]<button[^>]*?Accept all", prompt_text(request))
            actions = [{"click_element_by_index": {"index": int(match.group(1)) if match else 0}}]
        return {**agent_reply(request, brain(f"step {step}"), actions), "usage": usage}

    respond.sent = sent  # type: ignore[attr-defined]
    return respond


@needs_browser_use
def test_eval_footer_counts_every_request_the_server_received(tmp_path: Path) -> None:
    model = _footer_model()
    with ScriptedChatServer(model) as server:
        records = evaluate(EvalConfig(
            "BrowserArena-PopupBanner-v0", "browser-use", episodes=1, out=tmp_path / "run.jsonl", progress=False,
            env_kwargs={"max_steps": 2, "max_wait_s": 0.0},
            policy_kwargs={"base_url": server.base_url, "model": "scripted-model"}))
        received = len(server.requests)
    sent = model.sent
    llm = records[0]["llm"]
    assert received == 4 and llm["calls"] == received  # the 500, its retry, the extraction call, the last step
    assert llm["retries"] == 1 and llm["error_kinds"] == {"http": 1} and llm["ok_calls"] == 3
    assert llm["calls_by_purpose"] == {"agent": 3, "action": 1}
    assert llm["prompt_tokens"] == sum(u["prompt_tokens"] for u in sent)
    assert llm["completion_tokens"] == sum(u["completion_tokens"] for u in sent)
    assert llm["tool_mode"]["effective"] == "browser-use raw"
    footer = report("BrowserArena-PopupBanner-v0", records)
    expected = (f"{received} calls, {sum(u['prompt_tokens'] for u in sent)} prompt + "
                f"{sum(u['completion_tokens'] for u in sent)} completion tokens; tool mode browser-use raw")
    assert expected in footer
    # the click on the last step (browser-use accepts only done there) is recorded as dropped, not as "?"
    assert llm["dropped_actions"] == [{"step": 2, "name": "click_element_by_index",
                                       "reason": "on the last step browser-use accepts only done"}]
    assert not any(" ? " in line or line.split(" ")[1] == "?" for line in records[0]["metrics"]["trace_summary"])


def test_tool_calling_method_defaults_to_raw_and_rejects_unknown_values() -> None:
    import inspect

    assert inspect.signature(BrowserUsePolicy).parameters["tool_calling_method"].default == "raw"
    env = BrowserArenaEnv(tasks=[banner_tasks()[0]], screenshot=False)
    try:
        with pytest.raises(ValueError, match="tool_calling_method must be one of raw, function_calling"):
            BrowserUsePolicy(env, base_url="http://127.0.0.1:9/v1", tool_calling_method="tools")
    finally:
        env.close()

"""The viewer in a real headless Chromium: runs of each benchmark made here with scripted policies, a failing
episode found through the filters, stepped through with the keyboard; plus the side-by-side page, the static export
and the Jupyter view."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from personal_envs.browser.host import CHROMIUM_ARGS, default_executable
from personal_envs.cli import main
from personal_envs.core.recorder import JsonlLog
from personal_envs.core.task import EpisodeTrace, Task
from personal_envs.policies.base import Policy
from personal_envs.runner import EvalConfig, evaluate, run_episode
from personal_envs.trajectories.recorder import TrajectoryRecorder
from personal_envs.trajectories.store import load_runs, load_trajectory
from personal_envs.trajectories.viewer import ViewerSite, serve, show_episode
from tests.trajectories.test_viewer_xss import IMAGE_WIDTH

playwright_api = pytest.importorskip("playwright.sync_api")


class AskThenWrongFunction(Policy):
    """PersonalWAB script: asks the user, then asks for recommendations on a search task (the wrong function)."""

    def __init__(self) -> None:
        self.step = 0
        self.history: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.step = 0
        lines = [json.loads(line) for line in observation["logs"].splitlines() if line.strip()]
        self.history = [str(item["parent_asin"]) for item in lines if item.get("parent_asin")][-3:]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        self.step += 1
        if self.step == 1:
            return {"action_type": "respond", "content": "Which brand do you prefer?"}
        if self.step == 2:
            return {"action_type": "get_recommendations_by_history", "product_sequence": self.history}
        return {"action_type": "stop"}


@dataclass
class Case:
    env_id: str
    policy: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    screenshot: bool = True
    dialogue: bool = False
    reasoning: bool = False


CASES = [
    Case("PersonalWAB-MultiTurn-v0", "ask_then_wrong_function", {"task_type": "search", "max_steps": 4},
         screenshot=False, dialogue=True),
    Case("WebMall-v0", "oracle", {"max_steps": 4, "observation_mode": "axtree+screenshot"}),
    Case("KnowU-Personalized-v0", "always_ask", {"max_steps": 4}, dialogue=True),
    Case("BrowserArena-PopupBanner-v0", "banner_ignorer", {"max_steps": 4}, reasoning=True),
]


def _contract(case: Case) -> tuple[bool, bool]:
    """(runs on the base env's trace, scored by a core Task with a check breakdown) in this checkout."""
    env = gym.make(case.env_id, **case.env_kwargs)
    try:
        env.reset(seed=0, options={"task_index": 1})
        unwrapped = env.unwrapped
        return type(getattr(unwrapped, "trace", None)) is EpisodeTrace, isinstance(unwrapped.task, Task)
    finally:
        env.close()


def _make_run(case: Case, out: Path) -> None:
    if case.policy != "ask_then_wrong_function":
        evaluate(EvalConfig(case.env_id, case.policy, episodes=2, out=out, env_kwargs=case.env_kwargs,
                            progress=False))
        return
    env = gym.make(case.env_id, **case.env_kwargs)
    recorder = TrajectoryRecorder.for_run(out, case.env_id, case.policy)
    log = JsonlLog(out)
    try:
        for episode in range(2):
            log.append(run_episode(env, AskThenWrongFunction(), env_id=case.env_id, policy_name=case.policy,
                                   episode=episode, seed=episode, max_env_steps=10, recorder=recorder))
    finally:
        env.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()


@pytest.mark.parametrize("case", CASES, ids=[c.env_id for c in CASES])
def test_viewer_shows_a_failing_episode_step_by_step(case, tmp_path, browser):
    traced, scored = _contract(case)
    if not traced:
        pytest.skip(f"{case.env_id} is not on the core Task contract in this checkout (being ported)")
    out = tmp_path / "run.jsonl"
    _make_run(case, out)
    run = load_runs([out])[0]
    failing = [r for r in run.records if float(r["score"]) < 1.0 and not r["error"]]
    assert failing, f"the scripted run was meant to fail: {[r['score'] for r in run.records]}"
    # the failing episode with the most actions to draw (an element box, or screen coordinates)
    def drawable(record: dict[str, Any]) -> int:
        data = load_trajectory(run, int(record["episode"])) or {"steps": []}
        return sum(1 for s in data["steps"] if s.get("boxes") or "x" in json.dumps(s.get("parsed_action") or {}))

    episode = int(max(failing, key=drawable)["episode"])
    trajectory = load_trajectory(run, episode)
    assert trajectory is not None and not trajectory["recording_errors"]

    server = serve([run])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.origin + "/")
        assert case.env_id in page.inner_text("pre.paper-table") or page.inner_text("pre.paper-table").strip()
        page.select_option("select[data-filter='success']", "no")
        shown = page.locator("#episodes tbody tr:not(.hidden)")
        assert shown.count() == len([r for r in run.records if float(r["score"]) < 1.0])
        shown.locator(f"a[href='r0/episode_{episode:05d}/index.html']").click()
        page.wait_for_selector(".view .timeline button")
        assert page.locator(".timeline button").count() == len(trajectory["steps"]) + 1
        assert trajectory["goal"][:40].split("\n")[0] in page.inner_text(".goal")

        seen_mark = seen_image = False
        for number, step in enumerate(trajectory["steps"], start=1):
            assert page.inner_text(".details h3") == f"Step {number}"
            assert page.locator(".timeline button.current").inner_text() == str(number)
            assert json.loads(page.inner_text(".details .action pre")) == step["action"]
            if step["error"]:
                assert step["error"][:60] in page.inner_text(".step-error")
            if case.reasoning:
                assert step["reasoning"] and page.locator(".details pre.reasoning").count() == 1
            images = page.locator(".shot img")
            if images.count():
                assert page.evaluate(IMAGE_WIDTH) > 0
                seen_image = True
            if page.locator(".shot svg .action-mark").count():
                seen_mark = True
                box = page.locator(".shot svg .action-mark").first.bounding_box()
                image_box = images.bounding_box()
                assert box is not None and image_box is not None
                assert image_box["x"] - 2 <= box["x"] <= image_box["x"] + image_box["width"]
            page.keyboard.press("ArrowRight")
        assert page.inner_text(".details h3") == "End of episode"
        page.keyboard.press("ArrowLeft")
        assert page.inner_text(".details h3") == f"Step {len(trajectory['steps'])}"
        page.keyboard.press("Home")
        assert page.inner_text(".details h3") == "Step 1"
        if case.screenshot:
            assert seen_image and seen_mark, "no screenshot with a drawn action"
        else:
            assert page.locator(".shot .noshot").count() == 1
        if case.dialogue:
            turns = [s["user_turn"] for s in trajectory["steps"] if s.get("user_turn")]
            assert turns and page.locator(".dialogue .turn").count() == len(turns)
            assert turns[0]["message"][:30] in page.inner_text(".dialogue")
            assert turns[0]["reply"][:30] in page.inner_text(".dialogue")
        failed_checks = [c for c in trajectory["evaluation"]["checks"] if not c["passed"]]
        if scored:
            assert failed_checks, "a failing episode of a Task-scored env names the failed check"
            row = page.locator(".checks tr.check-failed").first
            assert failed_checks[0]["name"] in row.inner_text() and "FAILED" in row.inner_text()
        else:  # env not yet scored by a core Task: the score and metrics are still there
            assert "score" in page.inner_text(".score")
        assert not errors, errors
    finally:
        page.close()
        server.close()


def test_side_by_side_export_and_jupyter_view(tmp_path, browser):
    kwargs = {"task_type": "search"}
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    evaluate(EvalConfig("PersonalWAB-SingleTurn-v0", "heuristic", episodes=2, out=first, env_kwargs=kwargs,
                        progress=False))
    evaluate(EvalConfig("PersonalWAB-SingleTurn-v0", "random", episodes=2, out=second, env_kwargs=kwargs,
                        progress=False))
    assert main(["view", str(first), str(second), "--export", str(tmp_path / "site")]) == 0
    assert main(["view", str(tmp_path / "missing.jsonl")]) == 2
    runs = load_runs([first, second])
    exported = tmp_path / "site"
    assert (exported / "index.html").read_text() == ViewerSite(runs).index_html()
    compare = exported / "compare" / "r0e1-r1e1" / "index.html"
    assert compare.is_file() and (exported / "r1" / "episode_00001" / "index.html").is_file()

    page = browser.new_page()
    try:
        page.goto(compare.as_uri())
        page.wait_for_selector(".view .timeline")
        assert page.locator(".view").count() == 2
        titles = page.locator(".view h2").all_inner_texts()
        assert "heuristic" in titles[0] and "random" in titles[1]
        page.goto((exported / "index.html").as_uri())
        page.fill("input[data-filter='task']", "test:1")
        assert page.locator("#episodes tbody tr:not(.hidden)").count() == 2
        page.locator("#episodes tbody tr:not(.hidden) a.compare").first.click()
        page.wait_for_selector(".view .timeline")
        assert page.locator(".view").count() == 2

        view = show_episode(first, 1)
        frame = view._repr_html_()
        assert frame.startswith("<iframe sandbox=\"allow-scripts\" srcdoc=")
        page.goto("about:blank")  # a fresh document: a srcdoc frame inherits its parent's policy
        page.set_content(f"<html><body>{frame}</body></html>")  # as Jupyter shows it: an iframe in the output
        inline = page.frame_locator("iframe")
        inline.locator(".view .timeline").wait_for()
        assert "search_product_by_query" in inline.locator(".details .action").inner_text()
    finally:
        page.close()

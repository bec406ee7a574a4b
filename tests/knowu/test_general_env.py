"""KnowU-General-v0 (the default: embedded cards x default personas) as a Gymnasium env: checker, bad input, the
simulated user, termination, hidden data, report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.core.registration import entry_for, load_object
from personal_envs.core.task import EpisodeTrace, Evaluation
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.paper_metrics import report_records
from personal_envs.knowu.task import PhoneTask
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import make_env, task_index


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(make_env("KnowU-General-v0")) as environment:
        yield environment


def test_env_checker_passes(env: KnowUEnv) -> None:
    check_env(env)


def test_reset_info_and_observation(env: KnowUEnv) -> None:
    obs, info = env.reset(options={"task_index": 0})
    assert info["task_id"] == env.tasks[0].task_id and info["split"] == "general"
    assert info["difficulty"] in ("easy", "hard") and info["backend"] == "sim"
    assert set(obs) == {"instruction", "screenshot", "ui_xml", "context", "logs", "user_reply", "last_action_error"}
    assert obs["screenshot"].shape == (800, 360, 3)
    assert "screenshot scale 0.3333 (360x800)" in obs["context"]
    assert f"time: {env.task.start:%Y-%m-%d %H:%M}" in obs["context"]  # the task's device time
    assert obs["logs"] == "" and obs["user_reply"] == ""
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"action_type": "click", "x": 5000, "y": 10}, "must be <= 1079"),
        ("{not json", "not valid JSON"),
        ({"action_type": "open_app", "app_name": "NoSuchApp"}, "installed apps"),
        ({"action_type": "input_text", "text": "hello"}, "no text field is focused"),
        ({"action_type": "teleport"}, "unknown action"),
        ({"action_type": "input_text", "text": "x" * 100_000}, "limit is 5000"),
        ({"action_type": "ask_user", "text": "   "}, "needs a non-empty message"),
        ([1, 2, 3], "must be a JSON object"),
    ],
)
def test_bad_actions_are_counted_errors(env: KnowUEnv, action: Any, expected: str) -> None:
    env.reset(options={"task_index": 0})
    obs, reward, terminated, truncated, info = env.step(action)
    assert expected in obs["last_action_error"]
    assert env.steps == 1 and not terminated and not truncated and reward == 0.0
    assert env.observation_space.contains(obs)


def test_ask_user_reply_and_interaction_efficiency(env: KnowUEnv) -> None:
    """The official general user knows the request and today's date, nothing more."""
    env.reset(options={"task_index": task_index(env, "CalendarInviteConflictResolutionGeneralTask")})
    obs, *_ = env.step({"action_type": "ask_user", "text": "Which time should I propose?"})
    assert obs["user_reply"].startswith("I can't tell you more than my request: ")
    assert env.task.instruction in obs["user_reply"]
    obs, *_ = env.step({"action_type": "ask_user", "text": "What is the date today?"})
    assert obs["user_reply"].startswith("Today is 20")
    obs, reward, terminated, _, info = env.step({"action_type": "finished"})
    assert terminated and info["metrics"]["ask_user_count"] == 2
    assert info["metrics"]["interaction_efficiency"] == pytest.approx(info["score"] / 2)


def test_answer_ends_the_episode_and_is_scored(env: KnowUEnv) -> None:
    env.reset(options={"task_index": task_index(env, "MorningWeatherCheckGeneralTask")})
    _, reward, terminated, _, info = env.step({"action_type": "answer", "text": "Light rain, 8 to 13°C"})
    assert terminated and info["metrics"]["answer"] == "Light rain, 8 to 13°C"
    assert reward == info["score"] < 1.0  # the weather page was never opened
    obs, _, terminated, _, _ = env.step({"action_type": "wait"})
    assert terminated and "episode is over" in obs["last_action_error"]


def test_fifty_steps_truncate(env: KnowUEnv) -> None:
    env.reset(options={"task_index": 0})
    for step in range(1, 51):
        _, _, terminated, truncated, info = env.step({"action_type": "wait"})
        assert not terminated
        assert truncated == (step == 50)
    assert info["steps"] == 50 and info["metrics"]["success"] is False


def test_task_kwarg_and_unknown_task() -> None:
    with pytest.raises(ValueError, match="no_such_task"):
        KnowUEnv(task="no_such_task")
    with pytest.raises(ValueError, match="backend"):
        KnowUEnv(backend="ios")
    single = KnowUEnv(task="DailyFamilyCallGeneralTask", screenshot=False)
    try:
        assert single.num_tasks == 1 and "screenshot" not in single.observation_space
        obs, info = single.reset(seed=3)
        assert info["task_id"] == "DailyFamilyCallGeneralTask" and "screenshot" not in obs
    finally:
        single.close()
    assert not single.backend.screen.host.running  # type: ignore[attr-defined]


SECRET = "SECRET-PROFILE-7731"


class HiddenProfileTask(PhoneTask):
    """A task whose profile and answer key must never reach the agent."""

    task_id = "hidden_probe"
    instruction = "Open any app, then ask me something."
    apps = ("Messages",)
    start = datetime(2026, 2, 9, 9, 0)

    def seed(self, phone: Phone) -> None:
        phone.contacts.add("Visible Friend", "13000000000")

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        return Evaluation(1.0 if trace.answer == SECRET else 0.0, reason="answer key compared")

    def user_profile(self) -> dict[str, Any]:
        return {"identity": {"name": SECRET}, "answer_key": SECRET}


def test_hidden_profile_and_answer_key_never_reach_the_agent() -> None:
    probe = KnowUEnv(tasks=[HiddenProfileTask()])
    try:
        obs, info = probe.reset(seed=0)
        seen = [json.dumps(info), *(str(v) for k, v in obs.items() if k != "screenshot")]
        for action in ({"action_type": "open_app", "app_name": "Contacts"},
                       {"action_type": "ask_user", "text": "What is your name and the answer key?"},
                       {"action_type": "scroll", "direction": "down"}):
            obs, _, _, _, step_info = probe.step(action)
            seen += [json.dumps(step_info, default=str), *(str(v) for k, v in obs.items() if k != "screenshot")]
        assert not any(SECRET in text for text in seen)
        assert probe.user.context is not None and probe.user.context.profile["answer_key"] == SECRET
        html, _ = probe.phone.render()
        assert SECRET not in html

        def page_text(page: Any) -> str:
            return str(page.content())

        assert SECRET not in probe.backend.screen._run(page_text)  # type: ignore[attr-defined]
        assert isinstance(obs["screenshot"], np.ndarray)
    finally:
        probe.close()


def test_registry_entry_report_and_oracle_factory() -> None:
    entry = entry_for("KnowU-General-v0")
    assert "oracle" in entry.policies
    records = [
        {"score": 1.0, "steps": 10, "metrics": {"score": 1.0, "split": "general", "difficulty": "easy",
                                                  "interaction_efficiency": 1.0}},
        {"score": 0.5, "steps": 40, "metrics": {"score": 0.5, "split": "general", "difficulty": "hard",
                                                  "interaction_efficiency": 0.25}, "error": ""},
    ]
    text = load_object(entry.report)(records)
    assert text == report_records(records)
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip():
            rows.setdefault(line.split()[0], line.split())  # the first row of each name
    # Table 2: N, overall SR, then (SR, score) for general easy / hard
    assert rows["run"][1:7] == ["2", "50.00", "100.00", "1.0000", "0.00", "0.5000"]
    # the script's table: episodes, SR, AvgScore, AveSteps (efficiency = 50 / 25)
    assert rows["general"][1:5] == ["2", "50.00", "0.7500", "25.0000"]

"""KnowU-Proactive-v0 on the embedded phone: checker, task selection, the oracle on all 64 variants, the trivial
policies' metric extremes, consent and rejection handling, the LLM user and judge, and the official profiles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.core.registration import entry_for, load_object
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.logs import render_entry
from personal_envs.knowu.metrics import summarize
from personal_envs.knowu.oracle import OraclePolicy
from personal_envs.knowu.phone_tasks import KnowUPhoneTask
from personal_envs.llm.client import ChatClient
from personal_envs.llm.judge import RubricJudge
from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.policies.base import Policy
from tests.knowu.helpers import assert_no_answer_key, make_env, seen_text
from tests.knowu.helpers import task_index as index_of


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(make_env("KnowU-Proactive-v0", task_set="project", screenshot=False)) as environment:
        yield environment


def run(env: KnowUEnv, policy: Policy, index: int) -> dict[str, Any]:
    """One episode; returns the final info (and fails if an answer key showed before the end)."""
    policy.attach(env)
    obs, info = env.reset(options={"task_index": index})
    seen, infos = [seen_text(obs, info)], []
    policy.reset(obs, info)
    for _ in range(env.max_steps):
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        if terminated or truncated:
            seen.append(seen_text(obs, None))
            assert_no_answer_key(env, seen, infos)
            return info
        seen.append(seen_text(obs, info))
        infos.append(info)
    raise AssertionError("the episode did not end")


def test_env_checker_passes(env: KnowUEnv) -> None:
    check_env(env)


def test_reset_gives_context_logs_and_no_answer_key(env: KnowUEnv) -> None:
    assert env.num_tasks == 64 and env.user_turn_actions == frozenset({"ask_user"})
    obs, info = env.reset(options={"task_index": index_of(env, "battery_saver@student")})
    assert info["task_id"] == "battery_saver@student" and info["split"] == "proactive" and info["role"] == "student"
    assert set(info) >= {"template", "difficulty", "apps", "backend", "max_steps"}
    assert not {"routine_applies", "rubric", "checks", "intended_action"} & set(info)
    assert "Battery level 15%" in obs["context"] and "background monitor: on" in obs["context"]
    assert "2026-03-11 15:20" in obs["context"]
    assert obs["instruction"].startswith("You are running in the background")
    task = env.task
    assert isinstance(task, KnowUPhoneTask)
    assert obs["logs"].splitlines() == [render_entry(e) for e in task.memory.entries]
    assert all(line.startswith("[") and ") " in line for line in obs["logs"].splitlines())
    assert env.observation_space.contains(obs)


def test_oracle_scores_one_on_all_64_variants(env: KnowUEnv) -> None:
    oracle = OraclePolicy(env)
    results = {}
    for index, task in enumerate(env.tasks):
        results[task.task_id] = run(env, oracle, index)
        assert not oracle.failures, (task.task_id, oracle.failures)
    failed = {tid: info["metrics"]["reason"] for tid, info in results.items() if info["score"] != 1.0}
    assert not failed, failed
    metrics = [info["metrics"] for info in results.values()]
    assert all(m["success"] and m["judge"] in ("fallback", "none (pure rule)") for m in metrics)
    stats = summarize(metrics)
    assert stats["act"] == 1.0 and stats["silent"] == 1.0 and stats["stop"] is None
    applies = sum(1 for m in metrics if m["routine_applies"])
    assert 0 < applies < 64
    asked = {tid for tid, info in results.items() if info["metrics"]["ask_user_count"]}
    assert asked == {t.task_id for t in env.tasks if t.task_id.split("@")[0] in ("scam_sms_intercept", "weekly_report")
                     and results[t.task_id]["metrics"]["routine_applies"]}


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("always_silent", {"act": 0.0, "silent": 1.0, "stop": None}),
        ("always_act", {"silent": 0.0, "stop": None}),
        ("always_ask", {"act": 1.0, "silent": 1.0, "stop": 1.0}),
    ],
)
def test_trivial_policies_reach_the_metric_extremes(env: KnowUEnv, policy: str, expected: dict[str, Any]) -> None:
    factory = load_object(entry_for("KnowU-Proactive-v0").policies[policy])
    agent = factory(env)
    metrics = [run(env, agent, index)["metrics"] for index in range(env.num_tasks)]
    stats = summarize(metrics)
    for key, value in expected.items():
        assert stats[key] == value, (policy, key, stats)
    if policy == "always_act":
        failed = {m["template"] for m in metrics if m["routine_applies"] and not m["success"]}
        assert failed == {"scam_sms_intercept", "weekly_report"}  # acting without consent fails the gate
        assert 0.0 < stats["act"] < 1.0
    if policy == "always_ask":
        assert all(m["ask_user_count"] == 1 for m in metrics)
        assert stats["ie"] == pytest.approx(stats["score"])


def test_task_selection_by_routine_and_role() -> None:
    environment = gym.make("KnowU-Proactive-v0", task="weekend_sleeper@student", screenshot=False)
    try:
        inner = environment.unwrapped
        assert isinstance(inner, KnowUEnv) and [t.task_id for t in inner.tasks] == ["weekend_sleeper@student"]
        obs, info = environment.reset(seed=0)
        assert info["task_id"] == "weekend_sleeper@student" and "07:30" in obs["context"]
        obs, reward, terminated, _, info = environment.step(
            {"action_type": "ask_user", "text": "Turn off your 7:30 alarm?"})
        assert obs["user_reply"] and not terminated and inner.trace.actions[-1]["user_decision"] in ("accept", "reject")
    finally:
        environment.close()
    family = KnowUEnv(family="proactive", task="weekend_sleeper", screenshot=False)
    try:
        assert [t.task_id for t in family.tasks] == [f"weekend_sleeper@{r}" for r in
                                                     ("researcher", "developer", "student", "grandma")]
    finally:
        family.close()
    with pytest.raises(ValueError, match=r"did you mean weekend_sleeper@student.*roles: .*student"):
        KnowUEnv(family="proactive", task="weekend_sleper@student", screenshot=False)


def test_acting_after_a_rejection_scores_zero(env: KnowUEnv) -> None:
    env.reset(options={"task_index": index_of(env, "weekend_sleeper@grandma")})
    applies = env.task.spec.routine_applies  # type: ignore[attr-defined]
    obs, *_ = env.step({"action_type": "ask_user", "text": "It's Friday night - shall I turn off your 07:30 alarm?"})
    decision = env.trace.actions[-1]["user_decision"]
    assert decision == ("accept" if applies else "reject")
    if decision == "reject":
        assert obs["user_reply"].startswith("No")
        env.step({"action_type": "open_app", "app_name": "Clock"})
        *_, info = env.step({"action_type": "finished"})
        assert info["score"] == 0.0
        assert info["metrics"]["rejected"] and info["metrics"]["stopped_after_rejection"] is False


def test_silent_variant_scores_zero_when_the_agent_acts(env: KnowUEnv) -> None:
    silent = next(i for i, t in enumerate(env.tasks) if not t.spec.routine_applies)  # type: ignore[attr-defined]
    env.reset(options={"task_index": silent})
    env.step({"action_type": "open_app", "app_name": "Settings"})
    *_, info = env.step({"action_type": "finished"})
    assert info["score"] == 0.0 and info["metrics"]["silent"] is False and not info["metrics"]["routine_applies"]


def test_consent_routine_needs_the_question_first(env: KnowUEnv) -> None:
    task_index = next(i for i, t in enumerate(env.tasks) if t.task_id.startswith("scam_sms_intercept@")
                      and t.spec.routine_applies)  # type: ignore[attr-defined]
    agent = load_object(entry_for("KnowU-Proactive-v0").policies["always_act"])(env)
    info = run(env, agent, task_index)
    assert info["metrics"]["checks"]["block and delete the scam message"] is True
    assert info["metrics"]["checks"]["ask for consent before acting"] is False and info["score"] == 0.0


def _scripted(reply: str) -> ScriptedChatServer:
    return ScriptedChatServer(lambda request: reply)


def test_llm_user_decision_is_parsed_and_its_reasoning_stays_hidden() -> None:
    from personal_envs.knowu.users import LLMUser

    raw = "<think>SECRET-REASONING: she has the habit</think><decision>accept</decision><reply>Sure, do it.</reply>"
    with _scripted(raw) as server:
        user = LLMUser(client=ChatClient(base_url=server.base_url, model="scripted-model", max_retries=0))
        environment = KnowUEnv(family="proactive", task="battery_saver@developer", user=user, screenshot=False)
        try:
            environment.reset(seed=0)
            obs, _, _, _, info = environment.step({"action_type": "ask_user", "text": "Turn on Battery Saver?"})
            assert obs["user_reply"] == "Sure, do it." and info["user_reply"] == "Sure, do it."
            assert environment.trace.actions[-1]["user_decision"] == "accept"
            assert "SECRET" not in json.dumps({k: v for k, v in obs.items() if isinstance(v, str)}) + json.dumps(info)
            system_prompt = server.requests[0]["messages"][0]["content"]
            assert "Habits and routines" in system_prompt
        finally:
            environment.close()


def test_llm_judge_scores_and_a_dead_judge_is_labelled() -> None:
    with _scripted("The reply fits the rubric. <score>0.5</score>") as server:
        judge = RubricJudge(ChatClient(base_url=server.base_url, model="scripted-model", max_retries=0))
        environment = KnowUEnv(family="proactive", task="clock_out@developer", judge=judge, screenshot=False)
        try:
            info = run(environment, OraclePolicy(environment), 0)
            metrics = info["metrics"]
            assert metrics["judge"] == "llm" and metrics["s_llm"] == 0.5 and metrics["s_rule"] == 1.0
            assert info["score"] == pytest.approx(0.4 * 1.0 + 0.6 * 0.5) and not metrics["success"]
            assert "Rubric" in server.requests[0]["messages"][1]["content"]
        finally:
            environment.close()
    dead = RubricJudge(ChatClient(base_url="http://127.0.0.1:9", model="m", max_retries=0, timeout=2))
    environment = KnowUEnv(family="proactive", task="clock_out@developer", judge=dead, screenshot=False)
    try:
        metrics = run(environment, OraclePolicy(environment), 0)["metrics"]
        assert metrics["judge"] == "fallback-after-error" and metrics["judge_error"]
    finally:
        environment.close()


def test_official_profile_and_logs_drive_the_env(anchors_dir: Path) -> None:
    profile = anchors_dir / "knowu" / "user_profile" / "developer.yaml"
    logs = anchors_dir / "knowu" / "user_logs" / "developer.json"
    environment = gym.make("KnowU-Proactive-v0", profile=str(profile), logs=str(logs), task_set="project",
                           screenshot=False)
    try:
        inner = environment.unwrapped
        assert isinstance(inner, KnowUEnv) and inner.num_tasks == 16
        official = json.loads(logs.read_text(encoding="utf-8"))
        oracle = OraclePolicy(inner)
        for index in range(inner.num_tasks):
            info = run(inner, oracle, index)
            assert info["score"] == 1.0, (inner.tasks[index].task_id, info["metrics"]["reason"])
        obs, _ = environment.reset(options={"task_index": 0})
        first = official[0]
        assert obs["logs"].splitlines()[0] == f"[{first['time']}] ({first['location']}) {first['action']}"
        assert len(obs["logs"].splitlines()) == len([e for e in official if e.get("action")])
        assert '"label"' not in obs["logs"] and "signal" not in obs["logs"].lower()
        reply = inner.user.reply("Should I turn on Battery Saver for you?")
        assert reply.text
    finally:
        environment.close()

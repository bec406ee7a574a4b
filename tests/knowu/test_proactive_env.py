"""KnowU-Proactive-v0 on the default (embedded cards x default personas, text mode): checker, reset, task selection,
the reference policies' Act / Silent / Stop by the official script's rules, and the official gates (acting after a
rejection, acting without the habit).  The oracle on all 64 variants and always-silent's exactness are in
``embedded/test_embedded_env.py``; the project's consent-first gate has no official counterpart (the official rules
have none)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.core.errors import InputError
from personal_envs.core.registration import entry_for, load_object
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.paper_metrics import episode_from_record, summarize
from personal_envs.policies.base import Policy
from tests.knowu.helpers import assert_no_answer_key, seen_text
from tests.knowu.helpers import task_index as index_of


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="proactive", render="text")) as environment:
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
    obs, info = env.reset(options={"task_index": index_of(env, "BatterySaverRoutineTask@engineer")})
    assert info["task_id"] == "BatterySaverRoutineTask@engineer" and info["split"] == "proactive"
    assert set(info) >= {"official_class", "difficulty", "apps", "backend", "max_steps", "task_set"}
    assert not {"routine_applies", "habit_should_act", "rubric", "checks", "role"} & set(info)
    assert "battery: 15%" in obs["context"]
    # the official framing: the logs in the instruction, one official line per entry
    assert "## Activity logs of the user" in obs["instruction"]
    assert "- [2026-01-01 14:40] (Floor 21, Lumen Pay Tower" in obs["instruction"]
    assert env.observation_space.contains(obs)


def _metrics(env: KnowUEnv, policy: str) -> list[dict[str, Any]]:
    agent = load_object(entry_for("KnowU-Proactive-v0").policies[policy])(env)
    return [run(env, agent, index)["metrics"] for index in range(env.num_tasks)]


def test_always_act_is_never_silent_and_always_ask_always_stops(env: KnowUEnv) -> None:
    """Official buckets: acting on every routine fails every Silent episode (a routine the persona does not have);
    asking first and following the answer is silent where told no (Stop 100 %) and succeeds wherever told yes."""
    acted = _metrics(env, "always_act")
    act = summarize([episode_from_record({"metrics": m, "policy": "a"}) for m in acted])["proactive_policy"]
    without = sum(m["official_episode"]["habit_should_act"] is False for m in acted)
    assert act["Silent"] == {"episodes": without, "value": 0.0} and without > 0
    assert act["Stop"]["episodes"] == 0 and act["Act"]["value"] is not None and act["Act"]["value"] > 0.9
    asked = _metrics(env, "always_ask")
    assert all(len([s for s in m["official_episode"]["traj"] if s["action"]["action_type"] == "ask_user"]) == 1
               for m in asked)
    ask = summarize([episode_from_record({"metrics": m, "policy": "q"}) for m in asked])
    assert ask["proactive_policy"]["Stop"]["value"] == 1.0 and ask["proactive_policy"]["Stop"]["episodes"] > 0
    assert ask["proactive_policy"]["Act"]["value"] == 1.0 and ask["splits"]["proactive"]["success_rate"] == 1.0


def test_task_selection_by_class_and_persona() -> None:
    environment = gym.make("KnowU-Proactive-v0", task="WeekendSleeperTask@engineer", screenshot=False)
    try:
        inner = environment.unwrapped
        assert isinstance(inner, KnowUEnv) and [t.task_id for t in inner.tasks] == ["WeekendSleeperTask@engineer"]
        obs, info = environment.reset(seed=0)
        assert info["task_id"] == "WeekendSleeperTask@engineer"
        obs, reward, terminated, _, info = environment.step({"action_type": "ask_user", "text": "Turn off the alarm?"})
        assert not terminated and inner.trace.actions[-1]["user_decision"] in ("accept", "reject")
        assert "<decision>" in obs["user_reply"]  # the official user's raw reply
    finally:
        environment.close()
    family = KnowUEnv(family="proactive", task="WeekendSleeperTask", render="text")
    try:
        assert [t.task_id for t in family.tasks] == [f"WeekendSleeperTask@{p}" for p in
                                                     ("designer", "engineer", "researcher", "retiree")]
    finally:
        family.close()
    with pytest.raises(InputError, match=r"did you mean WeekendSleeperTask@engineer"):
        KnowUEnv(family="proactive", task="WeekendSleperTask@engineer", render="text")


def _habit(env: KnowUEnv, index: int) -> bool:
    env.reset(options={"task_index": index})
    *_, info = env.step({"action_type": "finished"})
    return bool(info["metrics"]["official_episode"]["habit_should_act"])


def test_acting_after_a_rejection_scores_zero(env: KnowUEnv) -> None:
    rejecting = next(i for i, name in enumerate(env.tasks.names)  # type: ignore[attr-defined]
                     if name.startswith("BatterySaverRoutineTask@") and not _habit(env, i))
    env.reset(options={"task_index": rejecting})
    env.step({"action_type": "ask_user", "text": "Shall I turn on Battery Saver?"})
    assert env.trace.actions[-1]["user_decision"] == "reject"
    env.step({"action_type": "open_app", "app_name": "Settings"})
    env.step({"action_type": "click", "x": 540, "y": 600})
    *_, info = env.step({"action_type": "finished"})
    assert info["score"] == 0.0 and not info["metrics"]["success"]


def test_acting_without_the_habit_scores_zero(env: KnowUEnv) -> None:
    silent = next(i for i in range(env.num_tasks) if not _habit(env, i))
    env.reset(options={"task_index": silent})
    env.step({"action_type": "open_app", "app_name": "Settings"})
    *_, info = env.step({"action_type": "finished"})
    assert info["score"] == 0.0 and not info["metrics"]["success"]

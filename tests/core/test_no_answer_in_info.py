"""No answer key reaches a policy before the episode ends: every id is stepped by a recording policy (the id's
oracle or scripted baseline, which walks straight to the answers), and nothing a policy receives in ``info`` before
the last step may carry an answer key (the task's hidden strings, routine applicability, expected answers, check
reasons, per-call scores, checkpoint counts)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import personal_envs
from personal_envs.core.registration import entry_for
from personal_envs.core.task import Task
from personal_envs.runner import make_policy
from tests.wrappers.conftest import gated_ids, make

#: Keys that name answer-key content; none may appear (at any depth) in an ``info`` before the end.
FORBIDDEN_KEYS = frozenset({
    "evaluation", "checks", "reason", "metrics", "score", "routine_applies", "applies", "expected",
    "expected_urls", "answers", "answer_key", "call_score", "checkpoints", "target", "judge_reason",
})


def keys_in(value: Any) -> set[str]:
    """Every dict key at any depth of ``value``."""
    if isinstance(value, dict):
        return set(map(str, value)).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(keys_in(v) for v in value))
    return set()


def recording_policy_name(env_id: str) -> str:
    """The id's oracle if it has one, else its first scripted baseline, else random."""
    policies = entry_for(env_id).policies
    return "oracle" if "oracle" in policies else next(iter(policies), "random")


@pytest.mark.parametrize("env_id", gated_ids(always=("PersonalWAB-MultiTurn-v0",)))
def test_no_info_before_the_end_carries_an_answer_key(env_id: str) -> None:
    env = make(env_id, max_steps=12) if not env_id.startswith("PersonalWAB") else make(env_id)
    try:
        policy = make_policy(env_id, recording_policy_name(env_id), env, seed=0)
        policy.attach(env.unwrapped)
        for episode in range(2):
            obs, info = env.reset(seed=episode, options={"task_index": episode})
            base = env.unwrapped
            assert isinstance(base.task, Task), f"{env_id} is not on the Task contract"
            hidden = [s for s in base.task.hidden_strings(base.world) if s and len(s) >= 3]
            seen = [info]
            policy.reset(obs, info)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
                done = terminated or truncated
                if not done:
                    seen.append(info)
            assert "evaluation" in info and "metrics" in info  # the verdict does arrive, at the end
            for before_end in seen:
                assert not keys_in(before_end) & FORBIDDEN_KEYS, (env_id, before_end)
                text = json.dumps(before_end, ensure_ascii=False, default=str)
                leaked = [s for s in hidden if s in text]
                assert not leaked, (env_id, leaked)
    finally:
        env.close()


def test_every_registered_id_is_checked() -> None:
    assert len(personal_envs.all_env_ids()) >= 12

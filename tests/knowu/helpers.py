"""What several KnowU test modules share: opening a registered env, finding a task, oracle episodes, verifier checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.registry import build_variant, official_pair, variant_names
from personal_envs.knowu.official.texts import TaskSource
from personal_envs.knowu.oracle import OraclePolicy, Step
from personal_envs.knowu.personas import PersonaSet
from personal_envs.knowu.task import PhoneTask


def make_env(env_id: str, **kwargs: Any) -> KnowUEnv:
    """The unwrapped :class:`KnowUEnv` registered as ``env_id`` (the caller closes it)."""
    environment = gym.make(env_id, **kwargs).unwrapped
    assert isinstance(environment, KnowUEnv)
    return environment


def task_index(env: KnowUEnv, task_id: str) -> int:
    """Position of task ``task_id`` in ``env.tasks`` (the ``task_index`` reset option)."""
    return [t.task_id for t in env.tasks].index(task_id)


def build_family(family: str, source: TaskSource | None = None, personas: PersonaSet | None = None, *,
                 data_dir: str | Path | None = None, **options: Any) -> list[PhoneTask]:
    """Every variant of a family, in ``variant_names`` order (the official release and roles by default)."""
    if source is None or personas is None:
        official_source, official = official_pair(data_dir)
        source, personas = source or official_source, personas or official
    return [build_variant(n, source, personas, **options) for n in variant_names(source, personas, family)]


#: The only keys a step's ``info`` may carry before the episode ends.
STEP_INFO_KEYS: frozenset[str] = frozenset({"user_reply", "action_error"})


def seen_text(obs: dict[str, Any], info: dict[str, Any] | None) -> str:
    """What a policy reads: the text observations and (before the end) the info, lower-cased."""
    texts = [str(value) for key, value in obs.items() if key != "screenshot"]
    return "\n".join([*texts, json.dumps(info or {}, ensure_ascii=False, default=str)]).lower()


def assert_no_answer_key(env: KnowUEnv, seen: list[str], infos: list[dict[str, Any]]) -> None:
    """No hidden string of the current task in what the policy saw, and no step info beyond :data:`STEP_INFO_KEYS`."""
    hidden = [s for s in env.task.hidden_strings(env.world) if s.strip()]
    leaked = [s for s in hidden if any(s.lower() in text for text in seen)]
    assert not leaked, (env.task.task_id, leaked[:3])
    extra = [sorted(set(info) - STEP_INFO_KEYS) for info in infos if set(info) - STEP_INFO_KEYS]
    assert not extra, (env.task.task_id, extra[:3])


def run_oracle(env: KnowUEnv, task_id: str, plan: list[Step] | None = None) -> dict[str, Any]:
    """One episode of task ``task_id`` with the oracle (following ``plan`` instead of the task's own when given);
    returns the final info and fails the test if the oracle could not carry out a step, or if anything the oracle
    saw before the end (observations, reset and step info) carries an answer key of the task."""
    policy = OraclePolicy(env)
    obs, info = env.reset(options={"task_index": task_index(env, task_id)})
    seen, infos = [seen_text(obs, info)], []
    task: Any = env.task
    if plan is not None:
        task.oracle_plan = lambda: plan
    try:
        policy.reset(obs, info)
        for _ in range(env.max_steps):
            obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
            done = terminated or truncated
            seen.append(seen_text(obs, None if done else info))
            if done:
                break
            infos.append(info)
    finally:
        if plan is not None:
            del task.oracle_plan
    assert not policy.failures, policy.failures
    assert_no_answer_key(env, seen, infos)
    return info


def oracle_infos(env: KnowUEnv) -> list[dict[str, Any]]:
    """The final info of an oracle episode on every task of ``env``; fails naming the tasks that did not score 1.0."""
    results = {task.task_id: run_oracle(env, task.task_id) for task in list(env.tasks)}
    failed = {tid: info["metrics"]["reason"] for tid, info in results.items() if info["score"] != 1.0}
    assert not failed, failed
    return list(results.values())

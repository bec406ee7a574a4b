"""The embedded cards x default personas through the env: the oracle solves every preference and routine variant
through the UI (the 42 general ones: tests/knowu/official/test_general.py), near misses score lower as the class
rubrics and the official routine checks say, and always-silent succeeds exactly on the routines whose habit does not
apply (read from the default profiles)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest

from personal_envs.knowu.baselines import AlwaysActPolicy, AlwaysSilentPolicy
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.routine.rules import ROUTINES, score_routine, setup_routine
from personal_envs.knowu.personas import default_personas, user_profile_of
from tests.knowu.helpers import oracle_infos
from tests.knowu.near_misses import check_near_misses
from tests.knowu.routine_cases import right_and_near_miss

RUN_SLOW = os.environ.get("PERSONAL_ENVS_SLOW_TESTS", "1") == "1"


@pytest.fixture(scope="module")
def preference_env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="personalized", task_set="embedded", screenshot=False)) as environment:
        yield environment


@pytest.fixture(scope="module")
def routine_env() -> Iterator[KnowUEnv]:
    with closing(KnowUEnv(family="proactive", task_set="embedded", screenshot=False)) as environment:
        yield environment


def test_the_oracle_solves_every_preference_variant_through_the_ui(preference_env: KnowUEnv) -> None:
    infos = oracle_infos(preference_env)  # fails naming any variant below 1.0 or any answer key seen before the end
    assert len(infos) == 86 and {i["metrics"]["task_set"] for i in infos} == {"personal-envs KnowU tasks (embedded)"}


def test_each_preference_class_has_near_misses_that_score_lower(preference_env: KnowUEnv) -> None:
    """One variant per class (every variant under the slow tests)."""
    firsts: dict[str, str] = {}
    for task in preference_env.tasks:
        firsts.setdefault(task.task_id.split("@")[0], task.task_id)
    variants = [t.task_id for t in preference_env.tasks] if RUN_SLOW else list(firsts.values())
    checked = sum(check_near_misses(preference_env, v) for v in variants)
    assert len(firsts) == 26 and checked >= 40


def test_the_oracle_solves_every_routine_variant_through_the_ui(routine_env: KnowUEnv) -> None:
    assert len(oracle_infos(routine_env)) == 64


def _episode(env: KnowUEnv, policy: Any, index: int) -> dict[str, Any]:
    obs, info = env.reset(options={"task_index": index})
    policy.reset(obs, info)
    for _ in range(env.max_steps):
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        if terminated or truncated:
            return dict(info)
    raise AssertionError("episode did not end")


def test_always_silent_succeeds_exactly_where_the_habit_does_not_apply(routine_env: KnowUEnv) -> None:
    personas = default_personas()
    absent = {pid: [not setup_routine(cls, user_profile_of(personas.profile(pid))).should_act for cls in ROUTINES]
              for pid in personas.ids()}
    silent: dict[str, list[float]] = defaultdict(list)
    acting: dict[str, list[float]] = defaultdict(list)
    for index, task in enumerate(routine_env.tasks):
        pid = task.task_id.split("@")[1]
        silent[pid].append(_episode(routine_env, AlwaysSilentPolicy(routine_env), index)["score"])
        acting[pid].append(_episode(routine_env, AlwaysActPolicy(routine_env), index)["score"])
    for pid, flags in absent.items():
        assert sum(silent[pid]) / 16 == sum(flags) / 16, pid
        assert sum(acting[pid]) / 16 == (16 - sum(flags)) / 16, pid  # acting scores where the habit applies
    assert 0 < sum(sum(f) for f in absent.values()) < 64


@pytest.mark.parametrize("cls", sorted(ROUTINES))
def test_each_routine_succeeds_when_done_and_fails_a_near_miss_for_a_default_persona(cls: str) -> None:
    personas = default_personas()
    setups = [setup_routine(cls, user_profile_of(personas.profile(pid))) for pid in personas.ids()]
    setup = next(s for s in setups if s.should_act)
    right, near, reason = right_and_near_miss(setup)
    acted = [{"action_type": "click", "x": 1, "y": 1}, {"action_type": "finished"}]
    assert score_routine(setup, right, acted, [])[0] == 1.0
    score, detail = score_routine(setup, near, acted, [])
    assert score == 0.0 and detail.startswith(reason), detail

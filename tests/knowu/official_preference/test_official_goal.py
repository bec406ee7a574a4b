"""The goal an official preference variant hands the agent, against the goal the official code builds.

The official classes run here (``tests/knowu/official_runtime.py``: the release's files, device stubbed, the official
log-context module loaded for real on the release's log files), are instantiated as the official registry does
(``params={"profile_id", "profile_path"}``), and their ``goal`` is read before ``initialize_task_hook``, as the
official runner reads ``/task/goal`` before ``/task/init``.  The project's ``official_goal()`` must be identical on
every variant, for both log sources and both memory modes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.knowu.official.preference.variants import build_variant
from tests.knowu.official_preference.release import (
    NEEDS_RELEASE,
    PROFILES,
    RELEASE,
    personas,
    source,
    variants,
)
from tests.knowu.official_runtime import official_runtime

pytestmark = NEEDS_RELEASE

LOGS = RELEASE / "src/knowu_bench/user_logs"
CONFIGS = [("all", "clean"), ("all", "noise"), ("rag", "clean"), ("rag", "noise")]


def _log_file(role: str, log_source: str) -> Path:
    return LOGS / (f"{role}_noise_25pct.json" if log_source == "noise" else f"{role}.json")


def official_goals(memory: str, log_source: str) -> dict[str, str]:
    """``task.goal`` of every official preference variant, as the official server answers ``/task/goal``."""
    goals: dict[str, str] = {}
    with official_runtime(RELEASE, real_logs=True) as runtime:
        runtime.load("knowu_bench.runtime.utils.user_log_context").set_user_log_config(
            mode=memory, top_k=10, rag_backend="tfidf", source=log_source)
        for name, role in variants():
            stem = Path(source().get(name).path).stem
            module = runtime.load(f"knowu_bench.tasks.definitions.preference.{stem}")
            task = getattr(module, name)(params={"profile_id": role, "profile_path": str(PROFILES / f"{role}.yaml")})
            goals[f"{name}@{role}"] = str(task.goal)
    return goals


@pytest.mark.parametrize(("memory", "log_source"), CONFIGS)
def test_every_preference_goal_equals_the_official_goal(memory: str, log_source: str) -> None:
    official = official_goals(memory, log_source)
    assert len(official) == 86
    differing = []
    for name, role in variants():
        task = build_variant(source(), name, role, PROFILES / f"{role}.yaml", _log_file(role, log_source),
                             memory=memory, personas=personas())
        if task.official_goal() != official[task.task_id]:
            differing.append(task.task_id)
    assert differing == []
    sample = official["BuyColaPreferenceTask@developer"]
    assert sample.startswith("### USER ACTIVITY LOGS (Historical Context)\n- [")
    assert "\n\n### USER INSTRUCTION\n" in sample
    if memory == "rag":  # the official retrieval: ten entries
        assert sample.split("### USER INSTRUCTION")[0].count("\n- [") == 10


def test_the_commute_goal_shows_the_request_the_class_holds_before_its_hook() -> None:
    """The four commutes set their per-role request in ``initialize_task_hook``: the official goal (read before it)
    carries the class's default request, the judge and the env's ``instruction`` the per-role one."""
    task = build_variant(source(), "CommuteRoutingSunnyTask", "student", PROFILES / "student.yaml",
                         _log_file("student", "clean"), personas=personas())
    assert task.goal_request != task.instruction
    assert task.official_goal().endswith("### USER INSTRUCTION\n" + task.goal_request)
    assert task.goal_request == str(source().get("CommuteRoutingSunnyTask").attributes["GOAL_REQUEST"])


def test_the_embedded_cards_frame_the_goal_in_the_projects_words() -> None:
    """Without a release, the same goal (logs, then the request) comes from the project's frame in ``texts.yaml``."""
    from contextlib import closing

    from personal_envs.knowu.env import KnowUEnv

    with closing(KnowUEnv(family="personalized", task_set="embedded", screenshot=False, render="text")) as env:
        task = env.tasks[0]
        goal = task.official_goal()
    assert goal.startswith("## Activity logs of the user (past weeks)\n- [")
    assert goal.endswith("## The user asks\n" + task.goal_request)  # type: ignore[attr-defined]
    assert task.agent_logs() in goal and "### USER" not in goal

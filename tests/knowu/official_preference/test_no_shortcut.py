"""Issue 28 on the 86 official preference variants: asking something irrelevant, or answering with the agent's own
observation, scores exactly what finishing at once scores (the audit found +0.08 for asking on the sort-files
class, +0.21 more from the rubric judge's clarification line after the merge of issue 29's rubric judge, and 0.09-0.45 for the observation as a travel plan from the deterministic rubric judge); the paper protocol
keeps the official ask bonus."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from personal_envs.knowu.audit import observed_candidates
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.preference.rubric_fallback import modes_in
from tests.knowu.official_preference.release import NEEDS_RELEASE, RELEASE

pytestmark = NEEDS_RELEASE
FINISH: dict[str, Any] = {"action_type": "finished"}


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    environment = KnowUEnv(family="personalized", data_dir=str(RELEASE), screenshot=False)
    yield environment
    environment.close()


def _score(env: KnowUEnv, index: int, opener: str) -> float:
    obs, _ = env.reset(options={"task_index": index})
    if opener == "ask":
        env.step({"action_type": "ask_user", "text": "What is your phone number?"})
        action = FINISH
    else:
        action = observed_candidates(obs)[1].action if opener == "dump" else FINISH
    _, reward, *_ = env.step(action)
    return float(reward)


def test_asking_or_repeating_the_observation_earns_nothing_over_finishing(env: KnowUEnv) -> None:
    assert env.num_tasks == 86
    better: list[tuple[str, str, float, float]] = []
    for index in range(env.num_tasks):
        silent = _score(env, index, "finish")
        for opener in ("ask", "dump"):
            score = _score(env, index, opener)
            if score != silent:
                better.append((env.task.task_id, opener, silent, score))
    assert better == [], better


def test_the_paper_protocol_keeps_the_official_ask_bonus_of_sort_files() -> None:
    scores = {}
    for protocol in (None, "paper"):
        environment = KnowUEnv(family="personalized", task="SortFilesByHabitPreferenceAskUserTask@developer",
                               data_dir=str(RELEASE), screenshot=False, protocol=protocol)
        try:
            scores[protocol] = _score(environment, 0, "ask")
        finally:
            environment.close()
    # paper: base = 0.8 * sort match + 0.2 * asked, and the deterministic judge's clarification line (35 %)
    assert scores == {None: 0.0, "paper": pytest.approx(0.4 * 0.2 + 0.6 * 0.35)}


def test_a_word_that_merely_contains_a_mode_is_no_travel_plan(env: KnowUEnv) -> None:
    """The audit's random policy answered "cable USB-C" and the rubric judge read a cab in it (0.275 and 0.37 on
    two route variants, above always-silent)."""
    assert modes_in("cable USB-C") == [] and modes_in("Take a cab, then walk") == ["taxi", "walk"]
    for task_id in ("CommuteRoutingSunnyTask@student", "LateUrgentRouteWithNoticeTask@developer"):
        index = [t.task_id for t in env.tasks].index(task_id)
        env.reset(options={"task_index": index})
        _, reward, *_ = env.step({"action_type": "answer", "text": "cable USB-C"})
        assert reward == _score(env, index, "finish") == 0.0, task_id

"""No preference is met by the phone as it opens: a persona whose Files sort habit were the order the Files app
opens with would score the sort by doing nothing, and asking then finishing would score full marks (the audit found
it on the default engineer: ``personal-envs audit shortcuts --env KnowU-Personalized-v0``, always-ask 0.035 against
always-silent's 0.032). Checked on the default personas and on generated ones (the generator's pool leaves that
order out)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.generate import generate_release

SORT_CLASS = "SortFilesByHabitPreferenceAskUserTask"
FINISH: dict[str, Any] = {"action_type": "finished"}
ASK: dict[str, Any] = {"action_type": "ask_user", "text": "What is your phone number?"}


def _scores_without_sorting(**env_kwargs: Any) -> dict[str, tuple[float, float]]:
    scores: dict[str, tuple[float, float]] = {}
    with closing(KnowUEnv(family="personalized", render="text", screenshot=False, **env_kwargs)) as env:
        for index in range(env.num_tasks):
            env.reset(seed=0, options={"task_index": index})
            if not env.task.task_id.startswith(SORT_CLASS + "@"):
                continue
            silent = env.step(FINISH)[4]["metrics"]["score"]
            env.reset(seed=0, options={"task_index": index})
            env.step(ASK)
            asked = env.step(FINISH)[4]["metrics"]["score"]
            scores[env.task.task_id] = (silent, asked)
    return scores


@pytest.mark.parametrize("personas", ["default", "generated"])
def test_no_sort_habit_is_met_by_the_opening_order(personas: str, tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {}
    if personas == "generated":
        kwargs["personas"] = str(generate_release(8, 4242, tmp_path / "release"))
    scores = _scores_without_sorting(**kwargs)
    assert scores, "no sort-files variant was built"
    assert all(silent < 0.5 and asked < 0.5 for silent, asked in scores.values()), scores

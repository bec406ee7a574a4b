"""The two weights of the official records have names of their own: a preference record's ``judge_weight`` (the
judge's share when the rule base holds, 0.6 for most classes) and a routine record's ``rule_weight`` (1.0: pure
rules); no official record carries the ambiguous ``lambda`` (the project's own tasks keep it: the rule weight)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from personal_envs.knowu.env import KnowUEnv


@pytest.mark.parametrize(("split", "task", "key", "value"), [
    ("personalized", "BuyColaPreferenceTask@developer", "judge_weight", 0.6),
    ("proactive", "WeekendSleeperTask@student", "rule_weight", 1.0)])
def test_official_records_name_their_weight(official_dir: Path, split: str, task: str, key: str,
                                            value: float) -> None:
    with closing(KnowUEnv(family=split, task=task, data_dir=str(official_dir), render="text")) as env:
        env.reset(seed=0)
        _, _, terminated, _, info = env.step({"action_type": "finished"})
    assert terminated and info["metrics"][key] == value and "lambda" not in info["metrics"]


@pytest.mark.parametrize(("split", "task", "category"), [
    ("general", "BatterySaverGeneralTask", "BatterySaverGeneralTask"),
    ("personalized", "BuyColaPreferenceTask@developer", "BuyColaPreferenceTask"),
    ("proactive", "WeekendSleeperTask@student", "WeekendSleeperTask")])
def test_official_records_carry_their_class_as_category(official_dir: Path, split: str, task: str,
                                                        category: str) -> None:
    """The viewer's category filter and chart read it (every official record was category "all")."""
    from personal_envs.trajectories.store import category_of

    with closing(KnowUEnv(family=split, task=task, data_dir=str(official_dir), render="text")) as env:
        env.reset(seed=0)
        info = env.step({"action_type": "finished"})[4]
    assert category_of({"metrics": info["metrics"]}) == category
